package probe

import (
	"time"
)

// getWindow bounds the read of a GET stream: long enough for a priming
// event, short enough for a stream held open with nothing to send.
const getWindow = 2 * time.Second

// refusedWith judges a request the target should refuse with a 4xx,
// precise naming the status that says it best (noted, not required).
func (t *checkRun) refusedWith(r *reply, precise int, what string) outcome {
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	switch st := r.status(); {
	case st == precise:
		return t.pass("answered %d", st)
	case is4xx(st):
		return t.pass("answered %d (%d is the precise status)", st, precise)
	case is2xx(st):
		return t.unmet("%s: %s", r.describe(), what)
	}
	return t.unmet("%s, not a 4xx refusal", r.describe())
}

// MM-01: a POST whose Accept lacks text/event-stream is refused: the
// client could not read half the answers the endpoint may give.
func runMM01(t *checkRun) outcome {
	req, _ := t.initialize(set("Accept", "application/json"))
	r := t.send("initialize with Accept: application/json", req.Bytes(), toResponse, 0)
	return t.refusedWith(r, 406, "served a POST whose Accept does not admit text/event-stream")
}

// MM-02: a POST body not declared JSON is refused.
func runMM02(t *checkRun) outcome {
	req, _ := t.initialize(set("Content-Type", "text/plain"))
	r := t.send("initialize with Content-Type: text/plain", req.Bytes(), toResponse, 0)
	return t.refusedWith(r, 415, "served a body declared text/plain as JSON-RPC")
}

// MM-03: a GET that does not accept text/event-stream is refused (or GET
// is not served at all).
func runMM03(t *checkRun) outcome {
	s, o := t.openAny()
	if o != nil {
		return *o
	}
	r := t.send("GET with Accept: application/json", edit(t.request("GET", s, nil), set("Accept", "application/json")).Bytes(), toHead, getWindow)
	if r.status() == 405 {
		return t.pass("answered 405: GET is not served")
	}
	return t.refusedWith(r, 406, "served a GET whose Accept does not admit text/event-stream")
}

// MM-04: GET on a live session answers an event stream or 405.
func runMM04(t *checkRun) outcome {
	s, o := t.openAny()
	if o != nil {
		return *o
	}
	r := t.send("GET the session's stream", t.request("GET", s, nil).Bytes(), toFirstEvent, getWindow)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	switch {
	case r.status() == 405 && r.header("Allow") == "":
		return t.unmet("answered 405 without Allow (RFC 9110 §15.5.6)")
	case r.status() == 405:
		return t.pass("answered 405 with Allow: %s (no GET stream)", r.header("Allow"))
	case r.status() == 200 && r.isSSE() && len(r.events()) > 0:
		return t.pass("200 text/event-stream, first event after %s", r.elapsed.Round(time.Millisecond))
	case r.status() == 200 && r.isSSE():
		return t.pass("200 text/event-stream (no event within %s)", getWindow)
	}
	return t.unmet("%s: a GET answers text/event-stream or 405 (Transports §2.2 item 3)", r.describe())
}

// MM-05: a method the endpoint does not serve gets 405 with Allow.
func runMM05(t *checkRun) outcome {
	r := t.send("PUT", t.request("PUT", nil, []byte("{}")).Bytes(), toHead, 0)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	switch st := r.status(); {
	case st == 405 && r.header("Allow") != "":
		return t.pass("405 with Allow: %s", r.header("Allow"))
	case st == 405:
		return t.unmet("answered 405 without Allow (RFC 9110 §15.5.6)")
	case is2xx(st):
		return t.unmet("%s to PUT", r.describe())
	}
	return t.unmetAt(Should, "answered %d: a method the endpoint does not serve gets 405 with Allow", r.status())
}

// MM-06: notifications/initialized, a notification, gets 202 and no body.
func runMM06(t *checkRun) outcome {
	s, o := t.open(t.p.authorization(), true)
	if o != nil {
		return *o
	}
	r := t.initialized(s)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	switch {
	case r.status() == 202 && len(r.resp.Body) == 0:
		return t.pass("202, empty body")
	case r.status() == 202:
		return t.unmet("202 with a %d-byte body: an accepted notification gets an empty body", len(r.resp.Body))
	}
	return t.unmet("%s: an accepted notification gets 202 Accepted (Transports §2.1 item 4)", r.describe())
}
