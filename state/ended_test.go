package state

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEndedReportsHowASessionEnded: the observer hears of every ending once,
// with the owner, the lifetime since Create and how; refusals that leave a
// session alive report nothing.
func TestEndedReportsHowASessionEnded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSessions = 1
	t1 := t0.Add(10 * time.Second)
	tests := []struct {
		name string
		act  func(tab *Table, id string) // runs 10 s after Create, at t1
		want []Ended
	}{
		{"DELETE", func(tab *Table, id string) {
			if _, err := tab.Step(id, alice, InputDelete, t1); err != nil {
				t.Fatal(err)
			}
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndDeleted}}},
		{"TTL expiry found by a request", func(tab *Table, id string) {
			tab.Step(id, alice, InputPing, t0.Add(cfg.TTL))
		}, []Ended{{Owner: alice, Lifetime: cfg.TTL, How: EndExpired}}},
		{"capacity reclaim by an initialize", func(tab *Table, id string) {
			if _, err := tab.Create(bob, t0.Add(cfg.TTL+time.Second)); err != nil {
				t.Fatal(err)
			}
		}, []Ended{{Owner: alice, Lifetime: cfg.TTL + time.Second, How: EndReclaimed}}},
		{"token revoked, found on next use", func(tab *Table, id string) {
			if !tab.End(id, alice, EndRevoked, t1) {
				t.Error("End found no session")
			}
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndRevoked}}},
		{"revision changed, found on next use", func(tab *Table, id string) {
			tab.End(id, alice, EndRevisionChanged, t1)
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndRevisionChanged}}},
		{"End by another owner ends nothing", func(tab *Table, id string) {
			if tab.End(id, bob, EndRevoked, t1) {
				t.Error("End ended another owner's session")
			}
		}, nil},
		{"a refused step ends nothing", func(tab *Table, id string) {
			tab.Step(id, alice, InputRequest, t1)
			tab.Step(id, bob, InputDelete, t1)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := NewTable(cfg, &countingReader{})
			var got []Ended
			// The observer runs after the lock is released: it may use the
			// table without deadlocking.
			tab.Observe(func(e Ended) { got = append(got, e); tab.Len(t0) })
			id, err := tab.Create(alice, t0)
			if err != nil {
				t.Fatal(err)
			}
			tt.act(tab, id)
			for i := range got {
				if got[i].ID != id {
					t.Errorf("ended %q, want the session %q", got[i].ID, id)
				}
				got[i].ID = ""
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ended (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEndReasonNames(t *testing.T) {
	got := []string{EndDeleted.String(), EndExpired.String(), EndReclaimed.String(), EndRevoked.String(), EndRevisionChanged.String(), EndReason(0).String()}
	want := []string{"delete", "ttl-expired", "capacity-reclaim", "token-revoked", "revision-changed", "unknown"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
