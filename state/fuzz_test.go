package state

import (
	"errors"
	"strings"
	"testing"
)

// FuzzCursor feeds arbitrary Last-Event-ID values to Poll on a session
// whose GET stream has delivered events 1–4 (priming 1, notifications 2–4)
// and holds one more pending, next to a second session with events of its
// own, delivered and pending. GETs carry 3 notifications at most, so
// Create's queues outlast the first GET.
//
// Invariant: Poll never panics; it answers exactly the four kept GET ids of
// this session with a batch of this session's events only, and every other
// cursor with ErrCursor and nothing else.
func FuzzCursor(f *testing.F) {
	for _, seed := range []string{
		g(1), g(2), g(3), g(4), g(5), g(6), g(0),
		"p" + firstHandle + "-5",
		"g" + secondHandle + "-1",
		"g" + secondHandle + "-2",
		"g" + firstHandle + "-02",
		"g" + firstHandle + "-18446744073709551616",
		"g" + firstHandle + "--1",
		firstID,
		"g" + firstHandle + "-2\x00",
		"G" + firstHandle + "-2",
	} {
		f.Add(seed)
	}
	for _, tc := range pollCases {
		f.Add(tc.cursor)
	}
	valid := map[string]bool{g(1): true, g(2): true, g(3): true, g(4): true}
	cfg := Config{MaxSessions: 8, TTL: DefaultConfig().TTL, MaxEventsPerSet: 3, KeepDelivered: 16, MaxQueued: 16}
	f.Fuzz(func(t *testing.T, cursor string) {
		tab := newTestTable(cfg)
		id := mustCreate(t, tab, alice, msgs("a1", "a2", "a3", "a4")...)
		other := mustCreate(t, tab, bob, msgs("b1", "b2", "b3", "b4")...)
		mustPoll(t, tab, id, alice, "")  // priming 1, events 2-4; a4 pending
		mustPoll(t, tab, other, bob, "") // the other session's 1-4; b4 pending
		if _, err := postEventID(tab, id, alice, t0); err != nil {
			t.Fatal(err)
		}

		b, _, err := tab.Poll(id, alice, cursor, t0)
		switch {
		case cursor == "" || valid[cursor]:
			if err != nil {
				t.Fatalf("Poll(%q) err = %v, want nil", cursor, err)
			}
		case !errors.Is(err, ErrCursor):
			t.Fatalf("Poll(%q) err = %v, want ErrCursor", cursor, err)
		}
		if err != nil {
			if b.PrimingID != "" || b.Events != nil {
				t.Fatalf("Poll(%q) failed but returned %+v", cursor, b)
			}
			return
		}
		if len(b.Events) > cfg.MaxEventsPerSet {
			t.Fatalf("Poll(%q) returned %d events", cursor, len(b.Events))
		}
		for _, e := range append([]Delivered{{ID: b.PrimingID, Data: []byte("a")}}, b.Events...) {
			if !strings.HasPrefix(e.ID, "g"+firstHandle+"-") || !strings.HasPrefix(string(e.Data), "a") {
				t.Fatalf("Poll(%q) returned an event not of this session: %+v", cursor, e)
			}
		}
	})
}
