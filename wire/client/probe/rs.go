package probe

import (
	"strconv"
	"time"

	"rawmcp/sseframe"
	"rawmcp/wire/rule"
)

// rsGroup is the RS group: each check is declared right above its run
// function; a check is in the catalogue when it is in this list.
var rsGroup = group{Group{"RS", "Streams"}, eraBoundary, []*Check{&rs01, &rs02, &rs03, &rs04}}

// streamEnd bounds how long a POST stream may stay open after its
// response event (RS-01): the response is all the stream is for.
const streamEnd = 2 * time.Second

// sseCandidates are the requests RS checks try, in order, hoping for one
// the server answers as an event stream: its list methods, then ping
// (server/discover on a 2026-07-28-only target).
func (t *checkRun) sseCandidates() []string {
	return append(append([]string(nil), t.p.listMethods...), t.plainMethod())
}

// RS-01: a POST's SSE stream ends once it has carried the response.
var rs01 = Check{asks: askSession, legacyFor: "the event streams the runner finds on a session", ID: "RS-01", Level: Should, Source: "MCP Transports §Sending 6", Rule: rule.PostStreamEnds, Needs: NeedSSE,
	Section: "MCP Transports 2025-11-25 §Sending Messages to the Server", Keyword: "SHOULD", Binds: Server,
	Title:    "A POST SSE stream ends after its response",
	Sends:    "the declared list methods, then ping, until one is answered as text/event-stream, and reads on",
	Passes:   "the stream ends within 2 s of the response's event; skips when every answer is JSON",
	Fix:      "End a POST's SSE stream once the JSON-RPC response has been sent on it, instead of keeping the connection open. SDK transports end it; application code that holds the stream for later notifications, or a proxy that keeps the upstream connection, is the usual cause.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server",
	Sessions: 1, Opens: 1, run: runRS01}

func runRS01(t *checkRun) outcome {
	s := t.session
	for _, method := range t.sseCandidates() {
		body, id := rpc(method, "")
		r := t.sendKeep(method+", hoping for an event stream", t.request("POST", s, body).Bytes(), toResponse, 0)
		if o := t.unjudgeable(r); o != nil {
			r.close()
			return *o
		}
		if !r.isSSE() {
			r.close()
			continue
		}
		if _, ok := r.response(id); !ok {
			r.close()
			return t.errored("%s answered an event stream without its response within %s", method, t.p.timeout())
		}
		if r.ended {
			r.close()
			return t.pass("%s: the stream ended with its response", method)
		}
		at := time.Now()
		t.readOn(r, streamEnd)
		if !r.ended {
			return t.unmet("%s: the stream was still open %s after its response event", method, streamEnd).with("the stream ends within "+streamEnd.String(), "still open after "+streamEnd.String())
		}
		return t.pass("%s: the stream ended %s after its response event", method, time.Since(at).Round(time.Millisecond))
	}
	return t.skip("no request was answered as an event stream (tried %s)", joinAnd(t.sseCandidates()))
}

// RS-02: an event id of one session's stream, sent as Last-Event-ID on
// another session's GET, replays nothing of the first: neither an event
// with that session's id and data, nor a response to its requests.
var rs02 = Check{asks: askSession, legacyFor: "resuming a session's stream with Last-Event-ID, which 2026-07-28 removed (V2-23 judges the header ignored)", ID: "RS-02", Level: Must, Source: "MCP Transports §Resumability", Rule: rule.NoForeignReplay, Needs: NeedSessions | NeedSSE,
	Section: "MCP Transports 2025-11-25 §Resumability and Redelivery", Keyword: "MUST", Binds: Server,
	Title:    "No replay across sessions",
	Sends:    "requests and a GET on session A, then a GET on session B with Last-Event-ID set to A's first event id",
	Passes:   "a 4xx, or a stream without A's events or answers; skips when A's streams carry no event id",
	Fix:      "Scope event ids and replay to the session and stream they were issued on, so that a Last-Event-ID from another session replays nothing (answer 4xx or an empty stream). With an event store (the TypeScript SDK's eventStore option, the Go SDK's StreamableHTTPOptions.EventStore), key its lookups by session as well as by event id.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery",
	Sessions: 2, Opens: 2, run: runRS02}

func runRS02(t *checkRun) outcome {
	a, b := t.sessions[0], t.sessions[1]
	seen := map[string]string{} // event id → data, on A's streams
	var order []string
	ownRequests := map[string]bool{}
	var broke *outcome
	note := func(r *reply) {
		if o := t.unjudgeable(r); o != nil && broke == nil {
			broke = o
		}
		for _, ev := range r.events() {
			if ev.ID != "" {
				if _, dup := seen[ev.ID]; !dup {
					order = append(order, ev.ID)
				}
				seen[ev.ID] = ev.Data
			}
		}
	}
	for _, method := range t.sseCandidates() {
		body, id := rpc(method, "")
		ownRequests[strconv.FormatInt(id, 10)] = true
		note(t.send("on session A: "+method, t.request("POST", a, body).Bytes(), toEnd, getWindow))
	}
	note(t.send("on session A: GET", t.request("GET", a, nil).Bytes(), toEnd, getWindow))
	if broke != nil {
		return *broke
	}
	if len(order) == 0 {
		return t.skip("session A's streams carried no event id: no cursor to replay")
	}
	cursor := order[0]
	r := t.send("on session B: GET with A's first event id", edit(t.request("GET", b, nil), set("Last-Event-ID", cursor)).Bytes(), toEnd, getWindow)
	t.must(r)
	switch {
	case is4xx(r.status()):
		return t.pass("refused session A's event id on session B: %d", r.status())
	case !is2xx(r.status()) || !r.isSSE():
		return t.errored("%s to a GET on session B", r.describe())
	}
	replayed := 0
	for _, ev := range r.events() {
		data, fromA := seen[ev.ID]
		m := messagesIn([]sseframe.Event{ev})
		switch {
		case fromA && data != "" && data == ev.Data:
			replayed++
		case len(m) == 1 && m[0].isResponse() && ownRequests[string(m[0].ID)]:
			replayed++
		}
	}
	if replayed > 0 {
		return t.unmet("session B's stream replayed %s of session A's", plural(replayed, "event")).with("no event of session A", plural(replayed, "event")+" of session A")
	}
	return t.pass("session B's stream carried %s, none of session A's", plural(len(r.events()), "event"))
}

// RS-03: a Last-Event-ID that names no event is refused or ignored; a
// stream that answers it carries no JSON-RPC response (a GET stream
// carries responses only when it resumes a request's stream).
var rs03 = Check{asks: askSession, legacyFor: "resuming a session's stream with Last-Event-ID, which 2026-07-28 removed (V2-23 judges the header ignored)", ID: "RS-03", Level: Hardening, Source: "MCP Transports §Resumability", Rule: rule.CursorUnknown,
	Section: "MCP Transports 2025-11-25 §Resumability and Redelivery (an unknown cursor)", Keyword: "", Binds: Profile,
	Title:    "A malformed cursor is refused or ignored",
	Sends:    "GET on a live session with Last-Event-ID: x, read for 2 s",
	Passes:   "a 4xx, or a stream without a JSON-RPC response",
	Fix:      "Treat a Last-Event-ID the server did not issue as unknown: refuse it with 400, or open a fresh stream that replays nothing. The event store's lookup should fail closed on an id it cannot parse, not replay from the start.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery",
	Sessions: 1, Opens: 1, run: runRS03}

func runRS03(t *checkRun) outcome {
	s := t.session
	r := t.send("GET with Last-Event-ID: x", edit(t.request("GET", s, nil), set("Last-Event-ID", "x")).Bytes(), toEnd, getWindow)
	t.must(r)
	switch {
	case is4xx(r.status()):
		return t.pass("answered %d", r.status())
	case !is2xx(r.status()) || !r.isSSE():
		return t.unmet("%s to a GET with a malformed cursor", r.describe()).with("a 4xx, or a stream without a response", r.actual())
	}
	for _, m := range messagesIn(r.events()) {
		if m.isResponse() {
			return t.unmet("the stream for cursor x replayed a JSON-RPC response").with("a 4xx, or a stream without a response", "a JSON-RPC response replayed")
		}
	}
	return t.pass("a stream of %s, none replayed", plural(len(r.events()), "event"))
}
