package state

import (
	"errors"
	"io"
	"sync"
	"time"
)

// Owner is the authenticated principal a session is bound to: the token's
// subject and tenant and the authorization revision it was issued under
// (T-73, T-P10). Fields are compared byte for byte; a token of another
// subject, another tenant or a newer revision does not own the session.
type Owner struct {
	Subject  string
	Tenant   string
	Revision uint64
}

// Config bounds the table. Every field must be positive.
type Config struct {
	// MaxSessions is the most live sessions; a further initialize fails
	// closed with ErrFull rather than evicting someone else's session.
	MaxSessions int
	// TTL is a session's lifetime, counted from Create and never renewed,
	// so a stolen session id is useless after it.
	TTL time.Duration
	// MaxEventsPerSet is the most notifications one GET answer carries, so
	// one answer stays small whatever the backlog.
	MaxEventsPerSet int
	// KeepDelivered is how many delivered GET-stream notifications, and
	// how many of the latest priming ids, are kept for Last-Event-ID
	// recovery. Older cursors get ErrCursor.
	KeepDelivered int
	// MaxQueued is the most notifications Create queues for one session;
	// more is ErrQueueFull, so nothing is dropped silently.
	MaxQueued int
}

// DefaultConfig returns the profile's budgets (the README's limits table
// gives the sessions, their TTL and the event budgets). They suit a small
// loopback teaching server, not production.
func DefaultConfig() Config {
	return Config{
		MaxSessions:     8,
		TTL:             60 * time.Second,
		MaxEventsPerSet: 16,
		KeepDelivered:   16,
		MaxQueued:       16,
	}
}

// The errors carry constant texts: never a session id, an event id or an
// owner.
var (
	// ErrFull: the table is at MaxSessions after the sweep of expired
	// sessions; the new initialize fails closed (503).
	ErrFull = errors.New("state: session capacity reached")
	// ErrNotFound: the session is unknown, expired, deleted, or bound to
	// another Owner. One error for all four (404), so a caller cannot tell
	// whether someone else's session exists (T-43, T-P10).
	ErrNotFound = errors.New("state: no such session")
	// ErrLifecycle: the session's phase does not allow the input (400).
	ErrLifecycle = errors.New("state: input not allowed in the session's phase")
	// ErrCursor: a Last-Event-ID that is not of this table's event-id form,
	// from a POST stream, from another session, never delivered, or no
	// longer kept (400, not 404, which would make the client drop its
	// session; T-P11).
	ErrCursor = errors.New("state: Last-Event-ID names no kept event of this GET stream")
	// ErrQueueFull: Create was given more than MaxQueued notifications to
	// queue; no session is made.
	ErrQueueFull = errors.New("state: notification queue full")
	// ErrEntropy: the random source failed, fell short, or repeated a live
	// session id; no session is made from a weak id (500).
	ErrEntropy = errors.New("state: random source failed")
)

// Table holds the live sessions. One mutex guards everything, so a lookup,
// its owner check and the transition it allows happen as one step. Safe for
// concurrent use.
type Table struct {
	cfg Config
	// random is read only under mu, so it need not be safe for concurrent
	// use.
	random io.Reader

	mu       sync.Mutex
	sessions map[string]*session
}

// EndReason says how a session ended.
type EndReason uint8

const (
	// EndDeleted: the client ended it with DELETE.
	EndDeleted EndReason = iota + 1
	// EndExpired: its TTL ran out. Whoever finds it so ends it this way:
	// a request naming it, or the sweep of every expired session that
	// each initialize makes first, full table or not.
	EndExpired
	// EndRevoked: its owner's token was revoked, found on its next use.
	EndRevoked
	// EndRevisionChanged: its owner's authorization revision changed,
	// found on its next use.
	EndRevisionChanged
)

func (r EndReason) String() string {
	switch r {
	case EndDeleted:
		return "delete"
	case EndExpired:
		return "ttl-expired"
	case EndRevoked:
		return "token-revoked"
	case EndRevisionChanged:
		return "revision-changed"
	}
	return "unknown"
}

// Ended is one session a call ended. Every call that can end a session
// returns the ones it ended as a value beside its result, so a caller
// cannot leave them unlogged without writing so (a blank identifier).
// ID is the session id itself: a caller that logs must correlate it,
// never print it.
type Ended struct {
	ID       string
	Owner    Owner
	Lifetime time.Duration
	How      EndReason
}

// forget deletes a session and returns how it ended. Callers hold mu.
func (t *Table) forget(id string, s *session, how EndReason, now time.Time) Ended {
	delete(t.sessions, id)
	return Ended{ID: id, Owner: s.owner, Lifetime: now.Sub(s.created), How: how}
}

type session struct {
	owner   Owner
	created time.Time
	expires time.Time
	phase   Phase
	// handle names the session inside its event ids (see ids.go).
	handle string
	// lastSeq is the sequence number of the newest event id issued on any
	// of the session's streams.
	lastSeq uint64
	stream  getStream
}

// NewTable returns an empty table. random is crypto/rand.Reader in
// production and a fixed reader in tests. NewTable panics if a Config field
// is not positive: that is a programming error, not a runtime condition.
func NewTable(cfg Config, random io.Reader) *Table {
	if cfg.MaxSessions <= 0 || cfg.TTL <= 0 || cfg.MaxEventsPerSet <= 0 || cfg.KeepDelivered <= 0 || cfg.MaxQueued <= 0 {
		panic("state: every Config field must be positive")
	}
	return &Table{cfg: cfg, random: random, sessions: make(map[string]*session, cfg.MaxSessions)}
}

// Create makes a session for owner in PhaseInitializing, to answer an
// initialize, and queues the given server notifications for its GET stream
// (the messages are kept, not copied). It first forgets every expired
// session, and returns those as ended (EndExpired) whatever else happens; a
// table still at capacity then refuses with ErrFull and evicts nobody.
func (t *Table) Create(owner Owner, now time.Time, queued ...[]byte) (id string, ended []Ended, err error) {
	if len(queued) > t.cfg.MaxQueued {
		return "", nil, ErrQueueFull
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	ended = t.sweepExpired(now)
	if len(t.sessions) >= t.cfg.MaxSessions {
		return "", ended, ErrFull
	}
	id, handle, err := newIdentity(t.random)
	if err != nil {
		return "", ended, err
	}
	if _, taken := t.sessions[id]; taken {
		return "", ended, ErrEntropy
	}
	s := &session{owner: owner, created: now, expires: now.Add(t.cfg.TTL), phase: PhaseInitializing, handle: handle}
	// A copy of exactly len(queued) (none allocated for zero), so the
	// caller's slice is not kept.
	s.stream.pending = append(make([][]byte, 0, len(queued)), queued...)
	t.sessions[id] = s
	return id, ended, nil
}

// Step applies in to the session id names and returns its new phase. The
// session must be live, unexpired and bound to exactly owner, else
// ErrNotFound (with PhaseClosed); an input its phase does not allow is
// ErrLifecycle (with the unchanged phase). InputDelete closes the session
// and forgets it and its queues at once, under the same lock as the lookup,
// so no request racing the DELETE can revive it. It returns the session
// as ended if it ended it (deleted, or found expired).
func (t *Table) Step(id string, owner Owner, in Input, now time.Time) (Phase, []Ended, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ended, err := t.live(id, owner, now)
	if err != nil {
		return PhaseClosed, ended, err
	}
	return t.apply(id, s, in, now)
}

// Check reports the phase of the session id names for owner, with Step's
// lookup rules and no transition. The server looks the session up before
// the scope and tenant check (T-P14) and applies the input only after it,
// so a request refused with 403 never moves a session (a refused DELETE
// does not end it). A session found expired is forgotten, as by Step, and
// returned as ended.
func (t *Table) Check(id string, owner Owner, now time.Time) (Phase, []Ended, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ended, err := t.live(id, owner, now)
	if err != nil {
		return PhaseClosed, ended, err
	}
	return s.phase, nil, nil
}

// AppendPostEventID appends to dst a fresh event id for an SSE event on a
// POST response stream of the session, with Step's lookup rules and no
// transition, so a caller that frames the event into its own buffer
// allocates nothing; on error dst comes back unchanged. Such ids are never
// valid cursors: POST streams are not resumable here.
func (t *Table) AppendPostEventID(dst []byte, id string, owner Owner, now time.Time) ([]byte, []Ended, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ended, err := t.live(id, owner, now)
	if err != nil {
		return dst, ended, err
	}
	return appendEventID(dst, postStreamKind, s.handle, s.nextSeq()), nil, nil
}

// End ends the session id names, as how, if it is live and bound to
// exactly owner, and returns it as ended (or the session found expired, as
// by Step; or nothing). The server calls it when owner's token turns out
// revoked or its revision changed, so the session fails closed instead of
// waiting for its TTL.
func (t *Table) End(id string, owner Owner, how EndReason, now time.Time) []Ended {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ended, err := t.live(id, owner, now)
	if err != nil {
		return ended
	}
	return []Ended{t.forget(id, s, how, now)}
}

// EndStale ends every live session of subject bound to a revision other
// than current, in any tenant, as EndRevisionChanged, and returns them;
// one that has expired already is returned as EndExpired. The server
// calls it when subject's revision changes to current: a revision belongs
// to the subject, not to a tenant, and a token of any other revision is
// refused, so nobody could use those sessions again, and their slots are
// freed at once instead of at their TTL. It visits at most MaxSessions
// entries.
func (t *Table) EndStale(subject string, current uint64, now time.Time) []Ended {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ended []Ended
	for id, s := range t.sessions {
		if s.owner.Subject != subject {
			continue
		}
		if s.expired(now) {
			ended = append(ended, t.forget(id, s, EndExpired, now))
		} else if s.owner.Revision != current {
			ended = append(ended, t.forget(id, s, EndRevisionChanged, now))
		}
	}
	return ended
}

// Len returns the number of sessions live at now. It is a query: an
// expired session is not counted, and stays in the table until a call
// that can end sessions finds it.
func (t *Table) Len(now time.Time) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, s := range t.sessions {
		if !s.expired(now) {
			n++
		}
	}
	return n
}

// live finds the session id names for owner. One found expired is
// forgotten and returned as ended, with ErrNotFound. Callers hold t.mu.
func (t *Table) live(id string, owner Owner, now time.Time) (*session, []Ended, error) {
	s, ok := t.sessions[id]
	if !ok {
		return nil, nil, ErrNotFound
	}
	if s.expired(now) {
		return nil, []Ended{t.forget(id, s, EndExpired, now)}, ErrNotFound
	}
	if s.owner != owner {
		return nil, nil, ErrNotFound
	}
	return s, nil, nil
}

// apply runs in through the lifecycle table and forgets a session that
// reaches PhaseClosed, returning it as ended. Callers hold t.mu.
func (t *Table) apply(id string, s *session, in Input, now time.Time) (Phase, []Ended, error) {
	next, err := transition(s.phase, in)
	if err != nil {
		return s.phase, nil, err
	}
	s.phase = next
	if next == PhaseClosed {
		return next, []Ended{t.forget(id, s, EndDeleted, now)}, nil
	}
	return next, nil, nil
}

// sweepExpired forgets every expired session, as EndExpired, and returns
// them. It visits at most MaxSessions entries. Callers hold t.mu.
func (t *Table) sweepExpired(now time.Time) []Ended {
	var ended []Ended
	for id, s := range t.sessions {
		if s.expired(now) {
			ended = append(ended, t.forget(id, s, EndExpired, now))
		}
	}
	return ended
}

// expired reports whether the session's TTL has run out: at exactly
// created+TTL it has.
func (s *session) expired(now time.Time) bool {
	return !now.Before(s.expires)
}

// nextSeq issues the next sequence number of the session's one event
// counter.
func (s *session) nextSeq() uint64 {
	s.lastSeq++
	return s.lastSeq
}
