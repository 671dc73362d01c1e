package state

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEndedIsReturned: every method that can end a session returns each
// session it ended, once, with the owner, the lifetime since Create and
// how; refusals that leave a session alive return nothing. The table
// calls nobody.
func TestEndedIsReturned(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSessions = 1
	t1 := t0.Add(10 * time.Second)
	expiry := t0.Add(cfg.TTL)
	expired := []Ended{{Owner: alice, Lifetime: cfg.TTL, How: EndExpired}}
	tests := []struct {
		name string
		act  func(tab *Table, id string) []Ended // alice's session, created at t0
		want []Ended
	}{
		{"Step: DELETE", func(tab *Table, id string) []Ended {
			_, ended, _ := tab.Step(id, alice, InputDelete, t1)
			return ended
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndDeleted}}},
		{"Step: TTL expiry found by a request", func(tab *Table, id string) []Ended {
			_, ended, _ := tab.Step(id, alice, InputPing, expiry)
			return ended
		}, expired},
		{"Check: TTL expiry", func(tab *Table, id string) []Ended {
			_, ended, _ := tab.Check(id, alice, expiry)
			return ended
		}, expired},
		{"Poll: TTL expiry", func(tab *Table, id string) []Ended {
			_, ended, _ := tab.Poll(id, alice, "", expiry)
			return ended
		}, expired},
		{"AppendPostEventID: TTL expiry", func(tab *Table, id string) []Ended {
			_, ended, _ := tab.AppendPostEventID(nil, id, alice, expiry)
			return ended
		}, expired},
		{"Notify: TTL expiry", func(tab *Table, id string) []Ended {
			ended, _ := tab.Notify(id, []byte("{}"), expiry)
			return ended
		}, expired},
		{"Create: TTL expiry found by an initialize's sweep", func(tab *Table, id string) []Ended {
			_, ended, _ := tab.Create(bob, t0.Add(cfg.TTL+time.Second))
			return ended
		}, []Ended{{Owner: alice, Lifetime: cfg.TTL + time.Second, How: EndExpired}}},
		{"End: token revoked", func(tab *Table, id string) []Ended {
			return tab.End(id, alice, EndRevoked, t1)
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndRevoked}}},
		{"End: revision changed", func(tab *Table, id string) []Ended {
			return tab.End(id, alice, EndRevisionChanged, t1)
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndRevisionChanged}}},
		{"End: found expired, it ended by its TTL", func(tab *Table, id string) []Ended {
			return tab.End(id, alice, EndRevoked, expiry)
		}, expired},
		{"EndStale: a newer revision", func(tab *Table, id string) []Ended {
			return tab.EndStale(alice.Subject, alice.Revision+1, t1)
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndRevisionChanged}}},
		{"End by another owner ends nothing", func(tab *Table, id string) []Ended {
			return tab.End(id, bob, EndRevoked, t1)
		}, nil},
		{"a refused step ends nothing", func(tab *Table, id string) []Ended {
			_, refused, _ := tab.Step(id, alice, InputRequest, t1)
			_, other, _ := tab.Step(id, bob, InputDelete, t1)
			return append(refused, other...)
		}, nil},
		{"a lookup just before the TTL ends nothing", func(tab *Table, id string) []Ended {
			_, ended, _ := tab.Check(id, alice, expiry.Add(-time.Nanosecond))
			return ended
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := NewTable(cfg, &countingReader{})
			id, _, err := tab.Create(alice, t0)
			if err != nil {
				t.Fatal(err)
			}
			got := tt.act(tab, id)
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

// TestCreateReturnsWhatItSweptWhenRefused: the sweep an initialize makes
// comes before its refusals, so a Create that fails for want of entropy
// still returns the expired session it forgot, for the log.
func TestCreateReturnsWhatItSweptWhenRefused(t *testing.T) {
	cfg := DefaultConfig()
	// Enough random bytes for one session's id and handle, then none.
	tab := NewTable(cfg, io.MultiReader(io.LimitReader(&countingReader{}, sessionIDBytes+handleBytes), failingReader{}))
	id := mustCreate(t, tab, alice)
	_, ended, err := tab.Create(bob, t0.Add(cfg.TTL))
	if !errors.Is(err, ErrEntropy) {
		t.Fatalf("Create err = %v, want ErrEntropy", err)
	}
	want := []Ended{{ID: id, Owner: alice, Lifetime: cfg.TTL, How: EndExpired}}
	if diff := cmp.Diff(want, ended); diff != "" {
		t.Errorf("ended (-want +got):\n%s", diff)
	}
}

// TestLenIsAQuery: Len counts the sessions live at now and ends none; an
// expired session stays until a call that can end sessions finds it,
// which then returns it as ended.
func TestLenIsAQuery(t *testing.T) {
	cfg := DefaultConfig()
	tab := newTestTable(cfg)
	id := mustCreate(t, tab, alice)
	if n := tab.Len(t0.Add(cfg.TTL - time.Nanosecond)); n != 1 {
		t.Errorf("Len 1 ns before the TTL = %d, want 1", n)
	}
	if n := tab.Len(t0.Add(cfg.TTL)); n != 0 {
		t.Errorf("Len at the TTL = %d, want 0", n)
	}
	_, ended, _ := tab.Check(id, alice, t0.Add(cfg.TTL))
	want := []Ended{{ID: id, Owner: alice, Lifetime: cfg.TTL, How: EndExpired}}
	if diff := cmp.Diff(want, ended); diff != "" {
		t.Errorf("after Len, the lookup's ended (-want +got):\n%s", diff)
	}
}

func TestEndReasonNames(t *testing.T) {
	got := []string{EndDeleted.String(), EndExpired.String(), EndRevoked.String(), EndRevisionChanged.String(), EndReason(0).String()}
	want := []string{"delete", "ttl-expired", "token-revoked", "revision-changed", "unknown"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
