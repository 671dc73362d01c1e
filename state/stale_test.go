package state

import (
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEndStale (T-P10): a revision change to current ends, at once, every
// live session of that subject bound to another revision, in every tenant,
// and nobody else's. Each case creates its sessions at t0 and calls
// EndStale at t0 plus at.
func TestEndStale(t *testing.T) {
	cfg := DefaultConfig()
	with := func(o Owner, edit func(*Owner)) Owner { edit(&o); return o }
	aliceBeta := with(alice, func(o *Owner) { o.Tenant = "beta" })
	alice2 := with(alice, func(o *Owner) { o.Revision = 2 })
	alice4 := with(alice, func(o *Owner) { o.Revision = 4 })
	changed := func(o Owner, lifetime time.Duration) Ended {
		return Ended{Owner: o, Lifetime: lifetime, How: EndRevisionChanged}
	}
	tests := []struct {
		name     string
		sessions []Owner
		subject  string
		current  uint64
		at       time.Duration
		kept     []Owner // the sessions still live, in the order created
		want     []Ended // sorted by owner revision, then tenant
	}{
		{"an older revision's sessions end in every tenant", []Owner{alice, aliceBeta}, "alice", 4, time.Second,
			nil, []Ended{changed(alice, time.Second), changed(aliceBeta, time.Second)}},
		{"a session of the current revision stays", []Owner{alice, alice4}, "alice", 4, time.Second,
			[]Owner{alice4}, []Ended{changed(alice, time.Second)}},
		{"another subject's session of the same revision stays", []Owner{alice, bob}, "alice", 4, time.Second,
			[]Owner{bob}, []Ended{changed(alice, time.Second)}},
		{"a revision moved back ends the newer sessions too", []Owner{alice2, alice, alice4}, "alice", 2, time.Second,
			[]Owner{alice2}, []Ended{changed(alice, time.Second), changed(alice4, time.Second)}},
		{"at the current revision nothing ends", []Owner{alice, aliceBeta}, "alice", 3, time.Second,
			[]Owner{alice, aliceBeta}, nil},
		{"a subject with no session ends nothing", []Owner{alice}, "carol", 9, time.Second,
			[]Owner{alice}, nil},
		{"just before the TTL the session ends by the revision change", []Owner{alice}, "alice", 4, cfg.TTL - time.Nanosecond,
			nil, []Ended{changed(alice, cfg.TTL-time.Nanosecond)}},
		{"at the TTL it had expired already: reported so", []Owner{alice}, "alice", 4, cfg.TTL,
			nil, []Ended{{Owner: alice, Lifetime: cfg.TTL, How: EndExpired}}},
		{"another subject's expired session is left to the next sweep", []Owner{bob}, "alice", 4, cfg.TTL,
			nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := newTestTable(cfg)
			ids := map[string]Owner{}
			var order []string
			for _, o := range tt.sessions {
				id := mustCreate(t, tab, o)
				ids[id] = o
				order = append(order, id)
			}
			now := t0.Add(tt.at)
			got := tab.EndStale(tt.subject, tt.current, now)
			for i := range got {
				if o, ok := ids[got[i].ID]; !ok || o != got[i].Owner {
					t.Errorf("ended %q of %+v, not a session of that owner", got[i].ID, got[i].Owner)
				}
				got[i].ID = ""
			}
			sort.Slice(got, func(i, j int) bool {
				a, b := got[i].Owner, got[j].Owner
				return a.Revision < b.Revision || a.Revision == b.Revision && a.Tenant < b.Tenant
			})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ended (-want +got):\n%s", diff)
			}
			var kept []Owner
			for _, id := range order {
				if _, _, err := tab.Check(id, ids[id], now); err == nil {
					kept = append(kept, ids[id])
				}
			}
			if diff := cmp.Diff(tt.kept, kept); diff != "" {
				t.Errorf("live sessions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEndStaleFreesCapacity (T-P18): a full table refuses an initialize
// under the new revision until the revision change ends the old sessions;
// then their slots take new ones, and only as many as there are slots.
func TestEndStaleFreesCapacity(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSessions = 2
	tab := newTestTable(cfg)
	alice4 := alice
	alice4.Revision = 4
	mustCreate(t, tab, alice)
	mustCreate(t, tab, alice)
	if _, _, err := tab.Create(alice4, t0); !errors.Is(err, ErrFull) {
		t.Fatalf("Create in a full table = %v, want ErrFull", err)
	}
	if n := len(tab.EndStale("alice", 4, t0)); n != 2 {
		t.Fatalf("EndStale ended %d, want 2", n)
	}
	for i := range 2 {
		if _, _, err := tab.Create(alice4, t0); err != nil {
			t.Errorf("Create %d after the revision change = %v, want a session", i+1, err)
		}
	}
	if _, _, err := tab.Create(alice4, t0); !errors.Is(err, ErrFull) {
		t.Errorf("Create past capacity = %v, want ErrFull", err)
	}
}
