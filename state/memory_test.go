package state

import (
	"crypto/rand"
	"runtime"
	"testing"
	"time"
)

// sessionBudget is the most heap a live session may cost, table entry
// included, with the messages themselves (the caller's bytes) excluded.
const sessionBudget = 2 << 10

// bytesPerSession measures the heap growth of a fresh table per session
// after fill has created and used n sessions in it.
func bytesPerSession(n int, fill func(tab *Table, owner Owner)) uint64 {
	cfg := DefaultConfig()
	cfg.MaxSessions = n
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tab := NewTable(cfg, rand.Reader)
	owner := Owner{Subject: "alice", Tenant: "acme", Revision: 1}
	for range n {
		fill(tab, owner)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(tab)
	return (after.HeapAlloc - before.HeapAlloc) / uint64(n)
}

// TestSessionMemory checks the memory budget of a session, both just made
// and with every queue and ring full, and reports the figures (go test -v).
func TestSessionMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few MiB")
	}
	const n = 4096
	msg := []byte(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`)
	for _, tc := range []struct {
		name string
		fill func(tab *Table, owner Owner)
	}{
		{"profile/a fresh session with one queued notification", func(tab *Table, owner Owner) {
			if _, _, err := tab.Create(owner, t0, msg); err != nil {
				t.Fatal(err)
			}
		}},
		// The most a session can hold: its 16 queued notifications
		// delivered and kept, 16 primings kept, and the emptied queue's
		// array still allocated.
		{"profile/a session with 16 kept and 16 primings", func(tab *Table, owner Owner) {
			queued := make([][]byte, 16)
			for i := range queued {
				queued[i] = msg
			}
			id, _, err := tab.Create(owner, t0, queued...)
			if err != nil {
				t.Fatal(err)
			}
			for range 16 {
				if _, _, err := tab.Poll(id, owner, "", t0); err != nil {
					t.Fatal(err)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			per := bytesPerSession(n, tc.fill)
			t.Logf("%d bytes per session", per)
			if per > sessionBudget {
				t.Errorf("%d bytes per session, budget %d", per, sessionBudget)
			}
		})
	}
}

// BenchmarkCreate measures Create plus DELETE on a table of default size.
func BenchmarkCreate(b *testing.B) {
	tab := NewTable(DefaultConfig(), rand.Reader)
	owner := Owner{Subject: "alice", Tenant: "acme", Revision: 1}
	now := time.Unix(0, 0)
	b.ReportAllocs()
	for b.Loop() {
		id, _, err := tab.Create(owner, now)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := tab.Step(id, owner, InputDelete, now); err != nil {
			b.Fatal(err)
		}
	}
}
