package state

import (
	"crypto/rand"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrentPings has 32 goroutines ping one session at once; every
// ping is answered on its own (the profile's 32-way concurrency test).
func TestConcurrentPings(t *testing.T) {
	tab := NewTable(DefaultConfig(), rand.Reader)
	id := mustCreate(t, tab, alice)
	mustStep(t, tab, id, alice, InputInitialized)
	var wg sync.WaitGroup
	var failures atomic.Int32
	for range 32 {
		wg.Go(func() {
			for range 50 {
				if phase, _, err := tab.Step(id, alice, InputPing, t0); phase != PhaseOperating || err != nil {
					failures.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := failures.Load(); n != 0 {
		t.Errorf("profile/%d of 1600 concurrent pings failed", n)
	}
}

// TestConcurrentLifecycles runs whole session lives on more goroutines than
// the table has room for. Every outcome must be one the profile allows, no
// goroutine may see another's notifications, and the table ends empty.
func TestConcurrentLifecycles(t *testing.T) {
	cfg := DefaultConfig()
	tab := NewTable(cfg, rand.Reader)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	report := func(s string) {
		mu.Lock()
		problems = append(problems, s)
		mu.Unlock()
	}
	for w := range 16 {
		owner := Owner{Subject: "worker", Tenant: "t", Revision: uint64(w)}
		msg := []byte{byte(w)}
		wg.Go(func() {
			for range 40 {
				id, _, err := tab.Create(owner, t0, msg)
				if errors.Is(err, ErrFull) {
					continue
				}
				if err != nil {
					report("Create: " + err.Error())
					return
				}
				if n := tab.Len(t0); n > cfg.MaxSessions {
					report("more live sessions than MaxSessions")
				}
				if _, _, err := tab.Step(id, owner, InputInitialized, t0); err != nil {
					report("initialized: " + err.Error())
				}
				b, _, err := tab.Poll(id, owner, "", t0)
				if err != nil || len(b.Events) != 1 || b.Events[0].Data[0] != byte(w) {
					report("GET did not return exactly this session's notification")
				}
				if _, _, err := tab.Poll(id, owner, b.PrimingID, t0); err != nil {
					report("resume from own priming id: " + err.Error())
				}
				if _, _, err := tab.Step(id, owner, InputDelete, t0); err != nil {
					report("DELETE: " + err.Error())
				}
				if _, _, err := tab.Step(id, owner, InputPing, t0); !errors.Is(err, ErrNotFound) {
					report("ping after DELETE was not ErrNotFound")
				}
			}
		})
	}
	wg.Wait()
	for _, p := range problems {
		t.Error("profile/" + p)
	}
	if n := tab.Len(t0); n != 0 {
		t.Errorf("Len = %d after every session was deleted, want 0", n)
	}
}

// TestDeleteRacingSteps deletes a session while 16 goroutines ping it. Once
// a goroutine has seen ErrNotFound, or the DELETE has returned before a
// ping started, no ping may succeed: the session never comes back (T-43).
func TestDeleteRacingSteps(t *testing.T) {
	for round := range 20 {
		tab := NewTable(DefaultConfig(), rand.Reader)
		id := mustCreate(t, tab, alice)
		mustStep(t, tab, id, alice, InputInitialized)
		var deleted atomic.Bool
		var revived atomic.Int32
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				<-start
				gone := false
				for range 200 {
					deletedBefore := deleted.Load()
					_, _, err := tab.Step(id, alice, InputPing, t0)
					switch {
					case err == nil && (gone || deletedBefore):
						revived.Add(1)
					case errors.Is(err, ErrNotFound):
						gone = true
					case err != nil:
						revived.Add(1)
					}
				}
			})
		}
		wg.Go(func() {
			<-start
			if phase, _, err := tab.Step(id, alice, InputDelete, t0); phase != PhaseClosed || err != nil {
				t.Errorf("round %d: DELETE = (%v, %v)", round, phase, err)
			}
			deleted.Store(true)
		})
		close(start)
		wg.Wait()
		if n := revived.Load(); n != 0 {
			t.Fatalf("T-43/round %d: %d pings succeeded after the session was gone", round, n)
		}
		if _, _, err := tab.Step(id, alice, InputPing, t0); !errors.Is(err, ErrNotFound) {
			t.Fatalf("T-43/round %d: ping after the race: err = %v, want ErrNotFound", round, err)
		}
	}
}
