package probe

import (
	"context"
	"io"
	"strconv"
	"time"

	"rawmcp/sseframe"
)

// explorer runs walks for one exploration.
type explorer struct {
	p        *prober
	cap      int // the request cap
	requests int // requests sent so far, cleanup included
	window   time.Duration
}

// walkModel is what a client knows after some steps of a walk, and all
// the judge may rest on: the sessions it opened and their fate as the
// server told it, the event ids each stream carried, the JSON-RPC ids
// it sent on each session.
type walkModel struct {
	sessions []*walkSession // in the order the walk opened them; nil: initialize failed
	sentOn   map[int64]int  // request id → the index of the session it was sent on
}

type walkSession struct {
	index       int
	s           *session
	initialized bool   // notifications/initialized was accepted
	ended       string // what ended it ("DELETE", "a 404"), "" while live
	// lastGet and lastPost are the last event ids of its GET streams and
	// of its POST streams; seen, the ids of the message events its
	// streams delivered, resumed ones aside.
	lastGet, lastPost string
	seen              map[string]bool
}

// observation is one step sent and what came back, as the judge sees it.
type observation struct {
	step    Step
	x       *walkSession // nil for a failed initialize
	method  string       // POST, GET or DELETE
	id      int64        // the JSON-RPC request id, 0 for none
	own     bool         // sent with the token that opened the session
	version string       // "negotiated", "unsupported" or "missing"
	cursor  string       // the Last-Event-ID kind: "" (none), "get", "post", "foreign", "malformed"
	r       *reply
}

// run sends w's steps on fresh connections, judging each answer, then
// deletes every session the walk opened. keep keeps every step's
// exchanges in the result.
func (e *explorer) run(ctx context.Context, w Walk, keep bool) WalkResult {
	p := e.p
	if !p.slots.acquire(ctx, maxWalkSessions) {
		return WalkResult{Verdict: Error} // the run was cancelled
	}
	defer p.slots.release(maxWalkSessions)
	// A walk is no catalogue check: its Check only names its exchanges
	// in the trace.
	label := new(Check)
	label.ID = "explore"
	t := &checkRun{ctx: ctx, p: p, check: label}
	m := &walkModel{sentOn: map[int64]int{}}
	res := WalkResult{Verdict: Pass}
	for _, step := range w.Steps {
		sr := StepResult{Step: step}
		before := len(t.exchanges)
		o, notSent := e.send(t, m, step)
		if notSent != "" {
			sr.NotSent = notSent
			t.traceNote("! " + step.String() + ": not sent, " + notSent)
		} else {
			sr.Actual = o.r.actual()
			sr.Findings = judge(m, o, len(res.Steps)+1)
			m.learn(o)
		}
		for _, f := range sr.Findings {
			if f.Verdict == Fail || res.Verdict == Pass {
				res.Verdict = f.Verdict
			}
		}
		if keep {
			sr.Exchanges = append([]Exchange(nil), t.exchanges[before:]...)
		}
		res.Steps = append(res.Steps, sr)
	}
	// The sessions are deleted even when the run was interrupted.
	t.ctx = context.Background()
	t.cleanup()
	e.requests += len(t.exchanges)
	if p.opts.Trace != nil {
		p.traceMu.Lock()
		io.WriteString(p.opts.Trace, t.trace.String()+"= explore walk "+string(res.Verdict)+"\n\n")
		p.traceMu.Unlock()
	}
	return res
}

// send sends one step; notSent says why it sent nothing.
func (e *explorer) send(t *checkRun, m *walkModel, step Step) (*observation, string) {
	o := &observation{step: step, method: "POST", own: true, version: "negotiated"}
	label := step.String()
	if step.Op == OpInitialize {
		if len(m.sessions) == maxWalkSessions {
			return nil, "the walk holds " + strconv.Itoa(maxWalkSessions) + " sessions already"
		}
		req, id := t.initialize()
		o.id, o.r = id, t.send(label, req.Bytes(), toResponse, 0)
		if o.r.isResult(id) {
			o.x = &walkSession{index: len(m.sessions), s: t.issued(o.r, t.p.authorization()), seen: map[string]bool{}}
		}
		m.sessions = append(m.sessions, o.x)
		return o, ""
	}
	if step.Session < 0 || step.Session >= len(m.sessions) || m.sessions[step.Session] == nil {
		return nil, "session " + strconv.Itoa(step.Session+1) + " was never opened"
	}
	x := m.sessions[step.Session]
	o.x = x
	s := x.s
	var edits []fieldEdit
	switch step.Op {
	case OpInitialized:
		o.r = t.initialized(s)
		return o, ""
	case OpPing:
		o.r, o.id = t.ping(label, s)
		m.sentOn[o.id] = x.index
		return o, ""
	case OpDelete:
		o.method = "DELETE"
		o.r = t.send(label, t.request("DELETE", s, nil).Bytes(), toHead, 0)
		return o, ""
	case OpOther:
		other := *s
		other.authorization = "Bearer " + t.p.opts.Token2
		s, o.own = &other, false
	case OpBadVersion, OpGetBadVer:
		edits, o.version = append(edits, set("MCP-Protocol-Version", unsupportedVersion)), "unsupported"
	case OpNoVersion:
		edits, o.version = append(edits, drop("MCP-Protocol-Version")), "missing"
	}
	switch step.Op {
	case OpList, OpOther, OpBadVersion, OpNoVersion:
		o.r, o.id = t.sessionRequest(label, s, edits...)
		m.sentOn[o.id] = x.index
		return o, ""
	}
	o.method = "GET"
	var cursor string
	switch step.Op {
	case OpGetLastGet:
		cursor, o.cursor = x.lastGet, "get"
	case OpGetLastPost:
		cursor, o.cursor = x.lastPost, "post"
	case OpGetForeign:
		o.cursor = "foreign"
		for _, y := range m.sessions {
			if y != nil && y != x && cursor == "" {
				cursor = firstOf(y.lastPost, y.lastGet)
			}
		}
	case OpGetMalformed:
		cursor, o.cursor = malformedCursor, "malformed"
	}
	if o.cursor != "" && cursor == "" {
		return nil, "no " + map[string]string{"get": "GET stream event id", "post": "POST stream event id",
			"foreign": "event id of another session"}[o.cursor] + " was seen"
	}
	if cursor != "" {
		edits = append(edits, set("Last-Event-ID", cursor))
	}
	o.r = t.send(label, edit(t.request("GET", s, nil), edits...).Bytes(), toFirstEvent, e.window)
	return o, ""
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// learn updates the model with what o's answer told the client.
func (m *walkModel) learn(o *observation) {
	x := o.x
	if x == nil || !o.own || o.r.resp == nil {
		return
	}
	st := o.r.status()
	switch {
	case x.s.id == "" || x.ended != "":
	case o.method == "DELETE" && is2xx(st):
		x.ended = "DELETE"
	case st == 404:
		// The server ended it: a client must start over (Transports
		// §2.5 item 4), and the server must keep answering 404.
		x.ended = "a 404"
	}
	if o.step.Op == OpInitialized && is2xx(st) {
		x.initialized = true
	}
	if !is2xx(st) {
		return
	}
	for _, ev := range streamEvents(o.r) {
		if ev.own == "" {
			continue
		}
		if o.method == "POST" {
			x.lastPost = ev.own
		} else {
			x.lastGet = ev.own
		}
		if ev.message && o.cursor == "" {
			x.seen[ev.own] = true
		}
	}
}

// streamEvent is an event of an answer: own is the id its own id field
// set ("" when it has none and only carries on an earlier event's id, as
// the SSE parser does), message whether its data is a JSON-RPC message.
type streamEvent struct {
	own     string
	message bool
}

func streamEvents(r *reply) []streamEvent {
	var out []streamEvent
	last := ""
	for _, ev := range r.events() {
		se := streamEvent{message: len(messagesIn([]sseframe.Event{ev})) > 0}
		if ev.ID != last {
			se.own, last = ev.ID, ev.ID
		}
		out = append(out, se)
	}
	return out
}
