package state

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultConfig(t *testing.T) {
	want := Config{MaxSessions: 8, TTL: 60 * time.Second, MaxEventsPerSet: 16, KeepDelivered: 16, MaxQueued: 16}
	if diff := cmp.Diff(want, DefaultConfig()); diff != "" {
		t.Errorf("DefaultConfig (-want +got):\n%s", diff)
	}
}

func TestNewTableRejectsNonPositiveConfig(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(*Config)
	}{
		{"MaxSessions 0", func(c *Config) { c.MaxSessions = 0 }},
		{"TTL 0", func(c *Config) { c.TTL = 0 }},
		{"MaxEventsPerSet 0", func(c *Config) { c.MaxEventsPerSet = 0 }},
		{"KeepDelivered 0", func(c *Config) { c.KeepDelivered = 0 }},
		{"MaxQueued 0", func(c *Config) { c.MaxQueued = 0 }},
		{"MaxQueued -1", func(c *Config) { c.MaxQueued = -1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.spoil(&cfg)
			defer func() {
				if recover() == nil {
					t.Error("NewTable did not panic")
				}
			}()
			NewTable(cfg, &countingReader{})
		})
	}
}

func TestCapacity(t *testing.T) {
	t.Run("profile/8 sessions fit, the 9th fails closed and evicts nobody", func(t *testing.T) {
		tab := newTestTable(Config{})
		var ids []string
		for range 8 {
			ids = append(ids, mustCreate(t, tab, alice))
		}
		if id, _, err := tab.Create(bob, t0); !errors.Is(err, ErrFull) || id != "" {
			t.Fatalf("9th Create = (%q, %v), want (\"\", ErrFull)", id, err)
		}
		for i, id := range ids {
			if _, _, err := tab.Step(id, alice, InputPing, t0); err != nil {
				t.Errorf("session %d after the refused Create: %v", i, err)
			}
		}
		if n := tab.Len(t0); n != 8 {
			t.Errorf("Len = %d, want 8", n)
		}
	})
	t.Run("profile/an expired session is reclaimed before the check", func(t *testing.T) {
		tab := newTestTable(Config{})
		oldest := mustCreate(t, tab, alice)
		for range 7 {
			if _, _, err := tab.Create(alice, t0.Add(time.Second)); err != nil {
				t.Fatal(err)
			}
		}
		at := t0.Add(60 * time.Second) // the first session's TTL has just run out
		if _, _, err := tab.Create(bob, at); err != nil {
			t.Fatalf("9th Create after one expiry: %v", err)
		}
		if n := tab.Len(at); n != 8 {
			t.Errorf("Len = %d, want 8", n)
		}
		if _, _, err := tab.Step(oldest, alice, InputPing, at); !errors.Is(err, ErrNotFound) {
			t.Errorf("expired session: err = %v, want ErrNotFound", err)
		}
	})
	t.Run("profile/1 ns before the expiry the table is still full", func(t *testing.T) {
		tab := newTestTable(Config{})
		for range 8 {
			mustCreate(t, tab, alice)
		}
		if _, _, err := tab.Create(bob, t0.Add(60*time.Second-1)); !errors.Is(err, ErrFull) {
			t.Errorf("Create err = %v, want ErrFull", err)
		}
	})
	t.Run("T-45/a deleted session frees its slot", func(t *testing.T) {
		tab := newTestTable(Config{})
		var last string
		for range 8 {
			last = mustCreate(t, tab, alice)
		}
		mustStep(t, tab, last, alice, InputDelete)
		if _, _, err := tab.Create(bob, t0); err != nil {
			t.Errorf("Create after DELETE: %v", err)
		}
	})
}

func TestTTL(t *testing.T) {
	for _, tc := range []struct {
		name    string
		at      time.Duration
		wantErr error
	}{
		{"T-43/just created", 0, nil},
		{"T-43/1 ns before 60 s", 60*time.Second - 1, nil},
		{"T-43/exactly 60 s", 60 * time.Second, ErrNotFound},
		{"T-43/long after", time.Hour, ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := newTestTable(Config{})
			id := mustCreate(t, tab, alice)
			_, _, err := tab.Step(id, alice, InputPing, t0.Add(tc.at))
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Errorf("Step err = %v, want %v", err, tc.wantErr)
			}
		})
	}
	t.Run("T-43/use does not renew the TTL", func(t *testing.T) {
		tab := newTestTable(Config{})
		id := mustCreate(t, tab, alice)
		for _, at := range []time.Duration{10 * time.Second, 30 * time.Second, 59 * time.Second} {
			if _, _, err := tab.Step(id, alice, InputPing, t0.Add(at)); err != nil {
				t.Fatalf("ping at %v: %v", at, err)
			}
		}
		if _, _, err := tab.Step(id, alice, InputPing, t0.Add(60*time.Second)); !errors.Is(err, ErrNotFound) {
			t.Errorf("ping at 60 s: err = %v, want ErrNotFound", err)
		}
	})
	t.Run("T-43/every operation honours the TTL", func(t *testing.T) {
		tab := newTestTable(Config{})
		id := mustCreate(t, tab, alice, []byte("n1"))
		at := t0.Add(60 * time.Second)
		if _, _, err := tab.Poll(id, alice, "", at); !errors.Is(err, ErrNotFound) {
			t.Errorf("Poll err = %v, want ErrNotFound", err)
		}
		if _, err := postEventID(tab, id, alice, at); !errors.Is(err, ErrNotFound) {
			t.Errorf("PostEventID err = %v, want ErrNotFound", err)
		}
	})
	t.Run("profile/a lookup reclaims the expired session it finds", func(t *testing.T) {
		tab := newTestTable(Config{})
		id := mustCreate(t, tab, alice)
		if _, _, err := tab.Step(id, alice, InputPing, t0.Add(time.Minute)); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Step err = %v, want ErrNotFound", err)
		}
		// Asked about an earlier instant, the table no longer has it.
		if n := tab.Len(t0); n != 0 {
			t.Errorf("Len(t0) = %d, want 0", n)
		}
	})
}

// TestOwnerBinding checks that a session answers only its owner, and that a
// stranger gets exactly what an unknown id gets.
func TestOwnerBinding(t *testing.T) {
	unknown := func() (Phase, error) {
		tab := newTestTable(Config{})
		phase, _, err := tab.Step(secondID, alice, InputPing, t0)
		return phase, err
	}
	wantPhase, wantErr := unknown()
	if wantPhase != PhaseClosed || !errors.Is(wantErr, ErrNotFound) {
		t.Fatalf("unknown id = (%v, %v), want (closed, ErrNotFound)", wantPhase, wantErr)
	}
	for _, tc := range []struct {
		name  string
		other Owner
	}{
		{"T-P10/another subject", Owner{Subject: "mallory", Tenant: alice.Tenant, Revision: alice.Revision}},
		{"T-P10/another tenant", Owner{Subject: alice.Subject, Tenant: "globex", Revision: alice.Revision}},
		{"T-P10/a newer revision", Owner{Subject: alice.Subject, Tenant: alice.Tenant, Revision: alice.Revision + 1}},
		{"T-P10/an older revision", Owner{Subject: alice.Subject, Tenant: alice.Tenant, Revision: alice.Revision - 1}},
		{"T-P10/no owner at all", Owner{}},
		{"T-P10/subject with different case", Owner{Subject: "Alice", Tenant: alice.Tenant, Revision: alice.Revision}},
		{"T-P10/subject and tenant swapped", Owner{Subject: alice.Tenant, Tenant: alice.Subject, Revision: alice.Revision}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := newTestTable(Config{})
			id := mustCreate(t, tab, alice, []byte("n1"))
			phase, _, err := tab.Step(id, tc.other, InputPing, t0)
			if phase != wantPhase || err != wantErr {
				t.Errorf("Step = (%v, %v), want what an unknown id gets: (%v, %v)", phase, err, wantPhase, wantErr)
			}
			if _, _, err := tab.Step(id, tc.other, InputDelete, t0); err != wantErr {
				t.Errorf("DELETE err = %v, want %v", err, wantErr)
			}
			if _, _, err := tab.Poll(id, tc.other, "", t0); err != wantErr {
				t.Errorf("Poll err = %v, want %v", err, wantErr)
			}
			if _, err := postEventID(tab, id, tc.other, t0); err != wantErr {
				t.Errorf("PostEventID err = %v, want %v", err, wantErr)
			}
			// The stranger changed nothing: the owner still finds the
			// session in its first phase, with its notification queued.
			if phase, _, err := tab.Step(id, alice, InputInitialized, t0); phase != PhaseOperating || err != nil {
				t.Errorf("owner's initialized = (%v, %v), want (operating, nil)", phase, err)
			}
			want := Batch{PrimingID: "g" + firstHandle + "-1", Events: []Delivered{{ID: "g" + firstHandle + "-2", Data: []byte("n1")}}}
			if diff := cmp.Diff(want, mustPoll(t, tab, id, alice, "")); diff != "" {
				t.Errorf("owner's Poll (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnicodeOwners checks that owners are compared byte for byte: Unicode
// subjects and tenants work, and no normalization merges two spellings.
func TestUnicodeOwners(t *testing.T) {
	nfc := Owner{Subject: "Jos\u00e9", Tenant: "租户-α", Revision: 1}
	for _, tc := range []struct {
		name    string
		caller  Owner
		wantErr error
	}{
		{"T-P10/same Unicode subject and tenant", Owner{Subject: "José", Tenant: "租户-α", Revision: 1}, nil},
		{"T-P10/decomposed subject (NFD) is another subject", Owner{Subject: "Jose\u0301", Tenant: "租户-α", Revision: 1}, ErrNotFound},
		{"T-P10/upper-case Greek tenant is another tenant", Owner{Subject: "José", Tenant: "租户-Α", Revision: 1}, ErrNotFound},
		{"T-P10/tenant with a trailing NUL", Owner{Subject: "José", Tenant: "租户-α\x00", Revision: 1}, ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := newTestTable(Config{})
			id := mustCreate(t, tab, nfc)
			_, _, err := tab.Step(id, tc.caller, InputPing, t0)
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Errorf("Step err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestQueueLimit(t *testing.T) {
	t.Run("profile/Create with 16 queued notifications: none is dropped", func(t *testing.T) {
		tab := newTestTable(Config{})
		queued := make([][]byte, 16)
		for i := range queued {
			queued[i] = []byte{byte(i)}
		}
		id, _, err := tab.Create(alice, t0, queued...)
		if err != nil {
			t.Fatalf("Create err = %v, want nil", err)
		}
		// The 16 are delivered in order.
		b := mustPoll(t, tab, id, alice, "")
		var got []byte
		for _, e := range b.Events {
			got = append(got, e.Data...)
		}
		want := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("delivered (-want +got):\n%s", diff)
		}
	})
	t.Run("profile/Create with 17 queued notifications", func(t *testing.T) {
		tab := newTestTable(Config{})
		if _, _, err := tab.Create(alice, t0, make([][]byte, 17)...); !errors.Is(err, ErrQueueFull) {
			t.Errorf("Create err = %v, want ErrQueueFull", err)
		}
		if n := tab.Len(t0); n != 0 {
			t.Errorf("Len = %d, want 0", n)
		}
	})
}

// TestCheck covers Check: the phase under Step's lookup rules,
// with no transition.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name      string
		prepare   func(t *testing.T, tab *Table, id string)
		caller    Owner
		at        time.Duration
		wantPhase Phase
		wantErr   error
	}{
		{"T-P14/fresh session is initializing", nil, alice, 0, PhaseInitializing, nil},
		{"T-P14/after initialized it is operating", func(t *testing.T, tab *Table, id string) { mustStep(t, tab, id, alice, InputInitialized) }, alice, 0, PhaseOperating, nil},
		{"T-P10/another subject", nil, bob, 0, PhaseClosed, ErrNotFound},
		{"T-43/1 ns before 60 s", nil, alice, 60*time.Second - 1, PhaseInitializing, nil},
		{"T-43/exactly 60 s", nil, alice, 60 * time.Second, PhaseClosed, ErrNotFound},
		{"T-43/after DELETE", func(t *testing.T, tab *Table, id string) { mustStep(t, tab, id, alice, InputDelete) }, alice, 0, PhaseClosed, ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := newTestTable(Config{})
			id := mustCreate(t, tab, alice)
			if tc.prepare != nil {
				tc.prepare(t, tab, id)
			}
			phase, _, err := tab.Check(id, tc.caller, t0.Add(tc.at))
			if phase != tc.wantPhase || !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Errorf("Check = (%v, %v), want (%v, %v)", phase, err, tc.wantPhase, tc.wantErr)
			}
		})
	}
	t.Run("T-P14/Check moves nothing: initialized is still legal afterwards", func(t *testing.T) {
		tab := newTestTable(Config{})
		id := mustCreate(t, tab, alice)
		for range 3 {
			if _, _, err := tab.Check(id, alice, t0); err != nil {
				t.Fatal(err)
			}
		}
		if phase, _, err := tab.Step(id, alice, InputInitialized, t0); phase != PhaseOperating || err != nil {
			t.Errorf("initialized after Check = (%v, %v), want (operating, nil)", phase, err)
		}
	})
}
