package state

import "time"

// Check reports the phase of the session id names for owner, with Step's
// lookup rules and no transition. The server looks the session up before
// the scope and tenant check (T-P14) and applies the input only after it,
// so a request refused with 403 never moves a session (a refused DELETE
// does not end it).
func (t *Table) Check(id string, owner Owner, now time.Time) (Phase, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, err := t.live(id, owner, now)
	if err != nil {
		return PhaseClosed, err
	}
	return s.phase, nil
}
