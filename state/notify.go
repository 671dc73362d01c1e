package state

import "time"

// Notify queues data, a server notification, for the GET stream of the
// session id names (the bytes are kept, not copied). The session must be
// live and unexpired, else ErrNotFound; a session already holding
// MaxQueued undelivered notifications refuses with ErrQueueFull, so
// nothing is dropped silently and a client that never polls cannot grow
// the table. It takes no Owner: the server, not a client, queues. A
// session found expired is forgotten, as by Step, and returned as ended.
func (t *Table) Notify(id string, data []byte, now time.Time) ([]Ended, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.sessions[id]
	if !ok {
		return nil, ErrNotFound
	}
	if s.expired(now) {
		return []Ended{t.forget(id, s, EndExpired, now)}, ErrNotFound
	}
	if len(s.stream.pending) >= t.cfg.MaxQueued {
		return nil, ErrQueueFull
	}
	s.stream.pending = append(s.stream.pending, data)
	return nil, nil
}
