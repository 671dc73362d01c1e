package state

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEndedIsHandedToTheCaller: every method that can end a session
// appends each session it ended to the caller's list, once, with the
// owner, the lifetime since Create and how; refusals that leave a session
// alive append nothing. The table calls nobody.
func TestEndedIsHandedToTheCaller(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSessions = 1
	t1 := t0.Add(10 * time.Second)
	expiry := t0.Add(cfg.TTL)
	expired := []Ended{{Owner: alice, Lifetime: cfg.TTL, How: EndExpired}}
	tests := []struct {
		name string
		act  func(tab *Table, id string, ended *[]Ended) // alice's session, created at t0
		want []Ended
	}{
		{"Step: DELETE", func(tab *Table, id string, ended *[]Ended) {
			tab.Step(id, alice, InputDelete, t1, ended)
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndDeleted}}},
		{"Step: TTL expiry found by a request", func(tab *Table, id string, ended *[]Ended) {
			tab.Step(id, alice, InputPing, expiry, ended)
		}, expired},
		{"Check: TTL expiry", func(tab *Table, id string, ended *[]Ended) {
			tab.Check(id, alice, expiry, ended)
		}, expired},
		{"Poll: TTL expiry", func(tab *Table, id string, ended *[]Ended) {
			tab.Poll(id, alice, "", expiry, ended)
		}, expired},
		{"PostEventID: TTL expiry", func(tab *Table, id string, ended *[]Ended) {
			tab.PostEventID(id, alice, expiry, ended)
		}, expired},
		{"AppendPostEventID: TTL expiry", func(tab *Table, id string, ended *[]Ended) {
			tab.AppendPostEventID(nil, id, alice, expiry, ended)
		}, expired},
		{"Notify: TTL expiry", func(tab *Table, id string, ended *[]Ended) {
			tab.Notify(id, []byte("{}"), expiry, ended)
		}, expired},
		{"Len: TTL expiry", func(tab *Table, id string, ended *[]Ended) {
			tab.Len(expiry, ended)
		}, expired},
		{"Create: capacity reclaim by an initialize", func(tab *Table, id string, ended *[]Ended) {
			tab.Create(bob, t0.Add(cfg.TTL+time.Second), ended)
		}, []Ended{{Owner: alice, Lifetime: cfg.TTL + time.Second, How: EndReclaimed}}},
		{"End: token revoked", func(tab *Table, id string, ended *[]Ended) {
			tab.End(id, alice, EndRevoked, t1, ended)
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndRevoked}}},
		{"End: revision changed", func(tab *Table, id string, ended *[]Ended) {
			tab.End(id, alice, EndRevisionChanged, t1, ended)
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndRevisionChanged}}},
		{"EndStale: a newer revision", func(tab *Table, id string, ended *[]Ended) {
			tab.EndStale(alice.Subject, alice.Revision+1, t1, ended)
		}, []Ended{{Owner: alice, Lifetime: 10 * time.Second, How: EndRevisionChanged}}},
		{"End by another owner ends nothing", func(tab *Table, id string, ended *[]Ended) {
			tab.End(id, bob, EndRevoked, t1, ended)
		}, nil},
		{"a refused step ends nothing", func(tab *Table, id string, ended *[]Ended) {
			tab.Step(id, alice, InputRequest, t1, ended)
			tab.Step(id, bob, InputDelete, t1, ended)
		}, nil},
		{"a lookup just before the TTL ends nothing", func(tab *Table, id string, ended *[]Ended) {
			tab.Check(id, alice, expiry.Add(-time.Nanosecond), ended)
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

// TestEndedAppendsToTheCallersList: what a call ended is appended after
// what the list held, so one list can collect a whole request's endings.
func TestEndedAppendsToTheCallersList(t *testing.T) {
	tab := newTestTable(DefaultConfig())
	id := mustCreate(t, tab, alice)
	earlier := Ended{ID: "earlier", How: EndDeleted}
	got := []Ended{earlier}
	tab.Step(id, alice, InputDelete, t0, &got)
	want := []Ended{earlier, {ID: id, Owner: alice, How: EndDeleted}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ended (-want +got):\n%s", diff)
	}
}

func TestEndReasonNames(t *testing.T) {
	got := []string{EndDeleted.String(), EndExpired.String(), EndReclaimed.String(), EndRevoked.String(), EndRevisionChanged.String(), EndReason(0).String()}
	want := []string{"delete", "ttl-expired", "capacity-reclaim", "token-revoked", "revision-changed", "unknown"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
