package probe

import (
	"fmt"
	"time"

	"rawmcp/wire/rule"
)

// mmGroup is the MM group: each check is declared right above its run
// function; a check is in the catalogue when it is in this list.
var mmGroup = group{Group{"MM", "Methods and media types"}, []*Check{&mm01, &mm02, &mm03, &mm04, &mm05, &mm06}}

// refusedWith judges a request the target should refuse with a 4xx,
// precise naming the status that says it best (noted, not required).
func (t *checkRun) refusedWith(r *reply, precise int, what string) outcome {
	t.must(r)
	switch st := r.status(); {
	case st == precise:
		return t.pass("answered %d", st)
	case is4xx(st):
		return t.pass("answered %d (%d is the precise status)", st, precise)
	case is2xx(st):
		return t.unmet("%s: %s", r.describe(), what).with(fmt.Sprintf("a 4xx (%d)", precise), r.actual())
	}
	return t.unmet("%s, not a 4xx refusal", r.describe()).with(fmt.Sprintf("a 4xx (%d)", precise), r.actual())
}

// MM-01: a POST whose Accept lacks text/event-stream is refused: the
// client could not read half the answers the endpoint may give.
var mm01 = Check{ID: "MM-01", Level: Hardening, Source: "MCP Transports §Sending 2 (a client MUST)", Rule: rule.AcceptBothTypes, Needs: NeedLegacy,
	Section: "MCP Transports 2025-11-25 §Sending Messages to the Server", Keyword: "MUST", Binds: Client,
	Title:    "POST needs both media types in Accept",
	Sends:    "initialize with Accept: application/json only",
	Passes:   "a 4xx (406 noted otherwise)",
	Fix:      "Answer a POST whose Accept does not list both application/json and text/event-stream with 406 instead of serving it. The official Go and TypeScript SDKs refuse it already; mcp-go serves it, so check Accept in a middleware in front of its handler.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server",
	Sessions: 1, run: runMM01}

func runMM01(t *checkRun) outcome {
	req, _ := t.initialize(set("Accept", "application/json"))
	r := t.send("initialize with Accept: application/json", req.Bytes(), toResponse, 0)
	return t.refusedWith(r, 406, "served a POST whose Accept does not admit text/event-stream")
}

// MM-02: a POST body not declared JSON is refused.
var mm02 = Check{ID: "MM-02", Level: Hardening, Source: "RFC 9110 §15.5.16", Rule: rule.ContentTypeJSON, Needs: NeedLegacy,
	Section: "RFC 9110 §15.5.16", Keyword: "", Binds: Profile,
	Title:    "POST body must be declared JSON",
	Sends:    "initialize with Content-Type: text/plain",
	Passes:   "a 4xx (415 noted otherwise)",
	Fix:      "Answer a POST whose Content-Type is not application/json with 415 before parsing the body. The check belongs in the handler or in the web framework's body parser, which must refuse other media types rather than skip them.",
	Link:     "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.16",
	Sessions: 1, run: runMM02}

func runMM02(t *checkRun) outcome {
	req, _ := t.initialize(set("Content-Type", "text/plain"))
	r := t.send("initialize with Content-Type: text/plain", req.Bytes(), toResponse, 0)
	return t.refusedWith(r, 415, "served a body declared text/plain as JSON-RPC")
}

// MM-03: a GET that does not accept text/event-stream is refused (or GET
// is not served at all).
var mm03 = Check{ID: "MM-03", Level: Hardening, Source: "MCP Transports §Listening 2", Rule: rule.AcceptBothTypes, Needs: NeedLegacy,
	Section: "MCP Transports 2025-11-25 §Listening for Messages from the Server", Keyword: "MUST", Binds: Client,
	Title:    "GET needs text/event-stream in Accept",
	Sends:    "GET on a live session with Accept: application/json",
	Passes:   "a 4xx or 405",
	Fix:      "Answer a GET whose Accept lacks text/event-stream with 406, or with 405 if the server offers no GET stream at all. The official Go and TypeScript SDKs do this; with mcp-go it takes a middleware.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server",
	Sessions: 1, Opens: 1, run: runMM03}

func runMM03(t *checkRun) outcome {
	s := t.session
	r := t.send("GET with Accept: application/json", edit(t.request("GET", s, nil), set("Accept", "application/json")).Bytes(), toHead, getWindow)
	if r.status() == 405 {
		return t.pass("answered 405: GET is not served")
	}
	return t.refusedWith(r, 406, "served a GET whose Accept does not admit text/event-stream")
}

// MM-04: GET on a live session answers an event stream or 405.
var mm04 = Check{ID: "MM-04", Level: Must, Source: "MCP Transports §Listening 3", Rule: rule.GetStream, Needs: NeedLegacy,
	Section: "MCP Transports 2025-11-25 §Listening for Messages from the Server", Keyword: "MUST", Binds: Server,
	Title:    "GET answers SSE or 405",
	Sends:    "GET on a live session, read to the first event or 2 s",
	Passes:   "200 text/event-stream, or 405 with Allow",
	Fix:      "Answer GET on the MCP endpoint with a text/event-stream, or with 405 and an Allow header naming the methods that are served (Allow: POST, DELETE). A 405 without Allow, or the router's 404, comes from the web framework's route table: route GET to the SDK's handler, or to a 405 that sets Allow.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server",
	Sessions: 1, Opens: 1, After: []string{"MM-05"}, run: runMM04}

func runMM04(t *checkRun) outcome {
	s := t.session
	r := t.send("GET the session's stream", t.request("GET", s, nil).Bytes(), toFirstEvent, getWindow)
	t.must(r)
	switch {
	case r.status() == 405 && r.header("Allow") == "":
		return t.unmet("answered 405 without Allow (RFC 9110 §15.5.6)").with("405 with Allow, or 200 text/event-stream", "405 without Allow")
	case r.status() == 405:
		return t.pass("answered 405 with Allow: %s (no GET stream)", r.header("Allow"))
	case r.status() == 200 && r.isSSE() && len(r.events()) > 0:
		return t.pass("200 text/event-stream, first event after %s", r.elapsed.Round(time.Millisecond))
	case r.status() == 200 && r.isSSE():
		return t.pass("200 text/event-stream (no event within %s)", getWindow)
	}
	return t.unmet("%s: a GET answers text/event-stream or 405 (Transports §2.2 item 3)", r.describe()).with("200 text/event-stream or 405 with Allow", r.actual())
}

// MM-05: a method the endpoint does not serve gets 405 with Allow.
var mm05 = Check{ID: "MM-05", Level: Must, Source: "RFC 9110 §15.5.6", Rule: rule.AllowOn405,
	Section: "RFC 9110 §15.5.6", Keyword: "MUST", Binds: Server,
	Title:    "Other methods: 405 with Allow",
	Sends:    "PUT to the endpoint with a JSON body",
	Passes:   "405 with Allow; a 405 without Allow or a 2xx fails, another 4xx or 501 warns",
	Fix:      "Answer methods the endpoint does not serve (PUT, PATCH) with 405 and an Allow header listing those it does, instead of the router's 404. Go's http.ServeMux does this by itself when the routes name their methods (POST /mcp); in Express, add app.all on the MCP path after the real routes, answering 405 with Allow.",
	Link:     "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.6",
	Sessions: 0, run: runMM05}

func runMM05(t *checkRun) outcome {
	r := t.send("PUT", t.request("PUT", nil, []byte("{}")).Bytes(), toHead, 0)
	t.must(r)
	switch st := r.status(); {
	case st == 405 && r.header("Allow") != "":
		return t.pass("405 with Allow: %s", r.header("Allow"))
	case st == 405:
		return t.unmet("answered 405 without Allow (RFC 9110 §15.5.6)").with("405 with Allow", "405 without Allow")
	case is2xx(st):
		return t.unmet("%s to PUT", r.describe()).with("405 with Allow", r.actual()+" to PUT")
	}
	return t.unmetAt(Should, "answered %d: a method the endpoint does not serve gets 405 with Allow", r.status()).with("405 with Allow", r.actual()+" to PUT")
}

// MM-06: notifications/initialized, a notification, gets 202 and no body.
var mm06 = Check{ID: "MM-06", Level: Must, Source: "MCP Transports §Sending 4", Rule: rule.NotificationAccepted, Needs: NeedLegacy,
	Section: "MCP Transports 2025-11-25 §Sending Messages to the Server", Keyword: "MUST", Binds: Server,
	Title:    "A notification gets 202",
	Sends:    "notifications/initialized after initialize",
	Passes:   "202 with an empty body",
	Fix:      "Answer a JSON-RPC notification the server accepts with 202 Accepted and an empty body, not 200 or 204. SDK transports do; a hand-written route that always writes a JSON answer is the usual cause.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server",
	Sessions: 1, run: runMM06}

func runMM06(t *checkRun) outcome {
	s, o := t.open(t.p.authorization(), true)
	if o != nil {
		return *o
	}
	r := t.initialized(s)
	t.must(r)
	switch {
	case r.status() == 202 && len(r.resp.Body) == 0:
		return t.pass("202, empty body")
	case r.status() == 202:
		return t.unmet("202 with a %d-byte body: an accepted notification gets an empty body", len(r.resp.Body)).with("202 with an empty body", fmt.Sprintf("202 with a %d-byte body", len(r.resp.Body)))
	}
	return t.unmet("%s: an accepted notification gets 202 Accepted (Transports §2.1 item 4)", r.describe()).with("202 with an empty body", r.actual())
}
