package state

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestNotify: a queued notification reaches the session's next GET after
// what Create queued; an unknown, deleted or expired session refuses; the
// queue holds MaxQueued and refuses one more.
func TestNotify(t *testing.T) {
	t.Run("delivered on the next GET, after what Create queued", func(t *testing.T) {
		tab := newTestTable(Config{})
		id := mustCreate(t, tab, alice, []byte("created"))
		if _, err := tab.Notify(id, []byte("later"), t0); err != nil {
			t.Fatalf("Notify: %v", err)
		}
		var got []string
		for _, e := range mustPoll(t, tab, id, alice, "").Events {
			got = append(got, string(e.Data))
		}
		if diff := cmp.Diff([]string{"created", "later"}, got); diff != "" {
			t.Errorf("delivered (-want +got):\n%s", diff)
		}
	})
	t.Run("unknown session", func(t *testing.T) {
		tab := newTestTable(Config{})
		if _, err := tab.Notify(firstID, []byte("x"), t0); !errors.Is(err, ErrNotFound) {
			t.Errorf("Notify = %v, want ErrNotFound", err)
		}
	})
	t.Run("deleted session", func(t *testing.T) {
		tab := newTestTable(Config{})
		id := mustCreate(t, tab, alice)
		mustStep(t, tab, id, alice, InputDelete)
		if _, err := tab.Notify(id, []byte("x"), t0); !errors.Is(err, ErrNotFound) {
			t.Errorf("Notify = %v, want ErrNotFound", err)
		}
	})
	t.Run("expired session, at exactly its TTL, is forgotten", func(t *testing.T) {
		tab := newTestTable(Config{})
		id := mustCreate(t, tab, alice)
		end := t0.Add(DefaultConfig().TTL)
		if _, err := tab.Notify(id, []byte("x"), end); !errors.Is(err, ErrNotFound) {
			t.Errorf("Notify = %v, want ErrNotFound", err)
		}
		if n := tab.Len(t0); n != 0 {
			t.Errorf("Len = %d after Notify found the session expired, want 0", n)
		}
	})
	t.Run("one before the TTL still queues", func(t *testing.T) {
		tab := newTestTable(Config{})
		id := mustCreate(t, tab, alice)
		if _, err := tab.Notify(id, []byte("x"), t0.Add(DefaultConfig().TTL-time.Nanosecond)); err != nil {
			t.Errorf("Notify = %v, want nil", err)
		}
	})
	t.Run("queue at MaxQueued, then one past it", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.MaxQueued = 2
		tab := newTestTable(cfg)
		id := mustCreate(t, tab, alice, []byte("created"))
		if _, err := tab.Notify(id, []byte("second"), t0); err != nil {
			t.Fatalf("Notify at the limit: %v", err)
		}
		if _, err := tab.Notify(id, []byte("third"), t0); !errors.Is(err, ErrQueueFull) {
			t.Errorf("Notify past the limit = %v, want ErrQueueFull", err)
		}
		if got := len(mustPoll(t, tab, id, alice, "").Events); got != 2 {
			t.Errorf("delivered %d, want 2: the refused one is not queued", got)
		}
		if _, err := tab.Notify(id, []byte("after a GET"), t0); err != nil {
			t.Errorf("Notify after the GET emptied the queue = %v, want nil", err)
		}
	})
}
