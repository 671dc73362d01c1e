package probe

import (
	"strconv"
	"time"

	"rawmcp/sseframe"
)

// streamEnd bounds how long a POST stream may stay open after its
// response event (RS-01): the response is all the stream is for.
const streamEnd = 2 * time.Second

// sseCandidates are the requests RS checks try, in order, hoping for one
// the server answers as an event stream: its list methods, then ping.
func (t *checkRun) sseCandidates() []string {
	return append(append([]string(nil), t.p.listMethods...), "ping")
}

// RS-01: a POST's SSE stream ends once it has carried the response.
func runRS01(t *checkRun) outcome {
	s, o := t.openAny()
	if o != nil {
		return *o
	}
	for _, method := range t.sseCandidates() {
		body, id := rpc(method, "")
		r := t.sendKeep(method+", hoping for an event stream", t.request("POST", s, body).Bytes(), toResponse, 0)
		if !r.isSSE() {
			r.close()
			continue
		}
		if _, ok := r.response(id); !ok {
			r.close()
			return t.broken("%s answered an event stream without its response within %s", method, t.p.timeout())
		}
		if r.ended {
			r.close()
			return t.pass("%s: the stream ended with its response", method)
		}
		at := time.Now()
		t.readOn(r, streamEnd)
		if !r.ended {
			return t.unmet("%s: the stream was still open %s after its response event", method, streamEnd)
		}
		return t.pass("%s: the stream ended %s after its response event", method, time.Since(at).Round(time.Millisecond))
	}
	return t.skip("no request was answered as an event stream (tried %s)", joinAnd(t.sseCandidates()))
}

// RS-02: an event id of one session's stream, sent as Last-Event-ID on
// another session's GET, replays nothing of the first: neither an event
// with that session's id and data, nor a response to its requests.
func runRS02(t *checkRun) outcome {
	a, o := t.openSession()
	if o != nil {
		return *o
	}
	b, o := t.openSession()
	if o != nil {
		return *o
	}
	seen := map[string]string{} // event id → data, on A's streams
	var order []string
	ownRequests := map[string]bool{}
	note := func(r *reply) {
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
	if len(order) == 0 {
		return t.skip("session A's streams carried no event id: no cursor to replay")
	}
	cursor := order[0]
	r := t.send("on session B: GET with A's first event id", edit(t.request("GET", b, nil), set("Last-Event-ID", cursor)).Bytes(), toEnd, getWindow)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	switch {
	case is4xx(r.status()):
		return t.pass("refused session A's event id on session B: %d", r.status())
	case !is2xx(r.status()) || !r.isSSE():
		return t.broken("%s to a GET on session B", r.describe())
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
		return t.unmet("session B's stream replayed %s of session A's", plural(replayed, "event"))
	}
	return t.pass("session B's stream carried %s, none of session A's", plural(len(r.events()), "event"))
}

// RS-03: a Last-Event-ID that names no event is refused or ignored; a
// stream that answers it carries no JSON-RPC response (a GET stream
// carries responses only when it resumes a request's stream).
func runRS03(t *checkRun) outcome {
	s, o := t.openAny()
	if o != nil {
		return *o
	}
	r := t.send("GET with Last-Event-ID: x", edit(t.request("GET", s, nil), set("Last-Event-ID", "x")).Bytes(), toEnd, getWindow)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	switch {
	case is4xx(r.status()):
		return t.pass("answered %d", r.status())
	case !is2xx(r.status()) || !r.isSSE():
		return t.unmet("%s to a GET with a malformed cursor", r.describe())
	}
	for _, m := range messagesIn(r.events()) {
		if m.isResponse() {
			return t.unmet("the stream for cursor x replayed a JSON-RPC response")
		}
	}
	return t.pass("a stream of %s, none replayed", plural(len(r.events()), "event"))
}
