package state

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEndedReportsHowASessionEnded: the call that ends a session hands
// it back to its caller once, with the owner, the lifetime since Create
// and how; refusals that leave a session alive hand back nothing.
func TestEndedReportsHowASessionEnded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSessions = 1
	t1 := t0.Add(10 * time.Second)
	tests := []struct {
		name string
		act  func(tab *Table, id string, ended *[]Ended) // runs 10 s after Create, at t1
		want []Ended
	}{
		{"DELETE", func(tab *Table, id string, ended *[]Ended) {
			if _, err := tab.Step(id, alice, InputDelete, t1, ended); err != nil {
				t.Fatal(err)
			}
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndDeleted}}},
		{"TTL expiry found by a request", func(tab *Table, id string, ended *[]Ended) {
			tab.Step(id, alice, InputPing, t0.Add(cfg.TTL), ended)
		}, []Ended{{Owner: alice, Lifetime: cfg.TTL, How: EndExpired}}},
		{"capacity reclaim by an initialize", func(tab *Table, id string, ended *[]Ended) {
			if _, err := tab.Create(bob, t0.Add(cfg.TTL+time.Second), ended); err != nil {
				t.Fatal(err)
			}
		}, []Ended{{Owner: alice, Lifetime: cfg.TTL + time.Second, How: EndReclaimed}}},
		{"token revoked, found on next use", func(tab *Table, id string, ended *[]Ended) {
			if !tab.End(id, alice, EndRevoked, t1, ended) {
				t.Error("End found no session")
			}
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndRevoked}}},
		{"revision changed, found on next use", func(tab *Table, id string, ended *[]Ended) {
			tab.End(id, alice, EndRevisionChanged, t1, ended)
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndRevisionChanged}}},
		{"End by another owner ends nothing", func(tab *Table, id string, ended *[]Ended) {
			if tab.End(id, bob, EndRevoked, t1, ended) {
				t.Error("End ended another owner's session")
			}
		}, nil},
		{"a refused step ends nothing", func(tab *Table, id string, ended *[]Ended) {
			tab.Step(id, alice, InputRequest, t1, ended)
			tab.Step(id, bob, InputDelete, t1, ended)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := NewTable(cfg, &countingReader{})
			id, err := tab.Create(alice, t0, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []Ended
			tt.act(tab, id, &got)
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
