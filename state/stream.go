package state

import "time"

// Delivered is one notification as sent on a GET stream: its event id and
// the caller's message bytes, unchanged.
type Delivered struct {
	ID   string
	Data []byte
}

// Batch is one GET answer: a priming event (an id with empty data, MCP
// 2025-11-25 Transports §2.1 item 6), then the events. The server writes
// the whole set and ends the stream (T-P12).
type Batch struct {
	PrimingID string
	Events    []Delivered
}

// getStream is a session's one GET notification stream (Transports §2.2).
// Its cursor model: every event id the stream delivered stands for a point
// in it, and resuming from an id replays what the stream delivered after
// that point (§2.4 item 2). POST streams keep nothing, so their ids never
// resume anything (T-37).
type getStream struct {
	// pending holds the notifications Create queued and no GET delivered
	// yet, oldest first.
	pending [][]byte
	// delivered holds the latest KeepDelivered delivered notifications in
	// delivery order, which is also sequence order.
	delivered []deliveredEvent
	// primings holds the latest KeepDelivered priming events. They live
	// apart from delivered so that a full batch cannot push out its own
	// priming id.
	primings []primingEvent
	// lostThrough is the sequence number of the newest notification pushed
	// out of delivered (0 while none was): a cursor needing anything at or
	// before it can no longer be served.
	lostThrough uint64
}

type deliveredEvent struct {
	seq  uint64
	data []byte
}

// primingEvent records where its batch started, because a priming id is
// written first but its batch may replay older events: resuming from it
// must replay the notifications delivered after resumeAfter.
type primingEvent struct {
	seq         uint64
	resumeAfter uint64
}

// Poll answers a GET on the session's notification stream, after running
// InputPoll through the lifecycle table (same lookup rules as Step).
//
// Without a cursor (no Last-Event-ID), the answer is a fresh priming id and
// the oldest pending notifications, at most MaxEventsPerSet, which become
// delivered: a cursorless GET is at-most-once and never repeats an event.
//
// With a cursor, it must name an event, priming events included, that this
// session's GET stream delivered and still keeps; anything else is
// ErrCursor and changes nothing. The answer replays the delivered events
// after the cursor, then adds pending ones, at most MaxEventsPerSet in all,
// under a fresh priming id that resumes from the same point as the cursor.
// A session found expired is forgotten, as by Step, and returned as ended.
func (t *Table) Poll(id string, owner Owner, cursor string, now time.Time) (Batch, []Ended, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ended, err := t.live(id, owner, now)
	if err != nil {
		return Batch{}, ended, err
	}
	// InputPoll keeps a session open in every phase that allows it, so
	// apply ends nothing here.
	if _, _, err := t.apply(id, s, InputPoll, now); err != nil {
		return Batch{}, nil, err
	}
	st := &s.stream
	var replay []deliveredEvent
	var resumeAfter uint64
	if cursor != "" {
		var ok bool
		if resumeAfter, ok = st.resumePoint(cursor, s.handle); !ok {
			return Batch{}, nil, ErrCursor
		}
		replay = st.deliveredAfter(resumeAfter)
	}
	primingSeq := s.nextSeq()
	if cursor == "" {
		resumeAfter = primingSeq
	}
	st.primings, _, _ = keep(st.primings, primingEvent{seq: primingSeq, resumeAfter: resumeAfter}, t.cfg.KeepDelivered)

	batch := Batch{PrimingID: formatEventID(getStreamKind, s.handle, primingSeq)}
	// Replayed events are formatted before delivering more, which shifts the
	// delivered ring that replay points into.
	for _, e := range replay[:min(len(replay), t.cfg.MaxEventsPerSet)] {
		batch.Events = append(batch.Events, Delivered{ID: formatEventID(getStreamKind, s.handle, e.seq), Data: e.data})
	}
	take := min(len(st.pending), t.cfg.MaxEventsPerSet-len(batch.Events))
	for _, data := range st.pending[:take] {
		e := deliveredEvent{seq: s.nextSeq(), data: data}
		var lost deliveredEvent
		var full bool
		if st.delivered, lost, full = keep(st.delivered, e, t.cfg.KeepDelivered); full {
			st.lostThrough = lost.seq
		}
		batch.Events = append(batch.Events, Delivered{ID: formatEventID(getStreamKind, s.handle, e.seq), Data: data})
	}
	n := copy(st.pending, st.pending[take:])
	clear(st.pending[n:])
	st.pending = st.pending[:n]
	return batch, nil, nil
}

// resumePoint returns the sequence number after which a resume from cursor
// replays, or false if cursor is not a kept event id of this GET stream:
// malformed, a POST stream's, another session's (other handle), never
// issued, issued on a POST stream, or pushed out of the rings (T-37, T-P11).
func (st *getStream) resumePoint(cursor, handle string) (uint64, bool) {
	ev, ok := parseEventID(cursor)
	if !ok || ev.kind != getStreamKind || ev.handle != handle {
		return 0, false
	}
	after, found := st.find(ev.seq)
	if !found || after < st.lostThrough {
		return 0, false
	}
	return after, true
}

// find looks seq up among the kept events and returns the point a resume
// from it replays after.
func (st *getStream) find(seq uint64) (resumeAfter uint64, found bool) {
	for _, e := range st.delivered {
		if e.seq == seq {
			return seq, true
		}
	}
	for _, p := range st.primings {
		if p.seq == seq {
			return p.resumeAfter, true
		}
	}
	return 0, false
}

// deliveredAfter returns the kept notifications with sequence numbers above
// after, oldest first.
func (st *getStream) deliveredAfter(after uint64) []deliveredEvent {
	for i, e := range st.delivered {
		if e.seq > after {
			return st.delivered[i:]
		}
	}
	return nil
}

// keep appends e to ring, first pushing out the oldest entry if ring already
// holds limit entries; full reports whether it did. Once full, the ring
// reuses its backing array and allocates nothing more.
func keep[T any](ring []T, e T, limit int) (kept []T, pushedOut T, full bool) {
	if len(ring) < limit {
		return append(ring, e), pushedOut, false
	}
	pushedOut = ring[0]
	copy(ring, ring[1:])
	ring[len(ring)-1] = e
	return ring, pushedOut, true
}
