package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"rawmcp/wire/rule"
)

// mmGroup is the MM group: each check is declared right above its run
// function; a check is in the catalogue when it is in this list.
var mmGroup = group{Group{"MM", "Methods and media types"}, eraBoundary, []*Check{&mm01, &mm02, &mm03, &mm04, &mm05, &mm06, &mm07}}

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
var mm01 = Check{asks: askEither, ID: "MM-01", Level: Hardening, Source: "MCP Transports §Sending 2 (a client MUST)", Rule: rule.AcceptBothTypes,
	Section: "MCP Transports 2025-11-25 §Sending Messages to the Server", Keyword: "MUST", Binds: Client,
	Title:    "POST needs both media types in Accept",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with Accept: application/json only",
	Passes:   "a 4xx (406 noted otherwise)",
	Fix:      "Answer a POST whose Accept does not list both application/json and text/event-stream with 406 instead of serving it. The official Go and TypeScript SDKs refuse it already; mcp-go serves it, so check Accept in a middleware in front of its handler.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server",
	Sessions: 1, run: runMM01}

func runMM01(t *checkRun) outcome {
	req, _ := t.opening(set("Accept", "application/json"))
	r := t.send(t.openingName()+" with Accept: application/json", req.Bytes(), toResponse, 0)
	return t.refusedWith(r, 406, "served a POST whose Accept does not admit text/event-stream")
}

// MM-02: a POST body not declared JSON is refused.
var mm02 = Check{asks: askEither, ID: "MM-02", Level: Hardening, Source: "RFC 9110 §15.5.16", Rule: rule.ContentTypeJSON,
	Section: "RFC 9110 §15.5.16", Keyword: "", Binds: Profile,
	Title:    "POST body must be declared JSON",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with Content-Type: text/plain",
	Passes:   "a 4xx (415 noted otherwise)",
	Fix:      "Answer a POST whose Content-Type is not application/json with 415 before parsing the body. The check belongs in the handler or in the web framework's body parser, which must refuse other media types rather than skip them.",
	Link:     "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.16",
	Sessions: 1, run: runMM02}

func runMM02(t *checkRun) outcome {
	req, _ := t.opening(set("Content-Type", "text/plain"))
	r := t.send(t.openingName()+" with Content-Type: text/plain", req.Bytes(), toResponse, 0)
	return t.refusedWith(r, 415, "served a body declared text/plain as JSON-RPC")
}

// MM-03: a GET that does not accept text/event-stream is refused (or GET
// is not served at all).
var mm03 = Check{asks: askEither, ID: "MM-03", Level: Hardening, Source: "MCP Transports §Listening 2", Rule: rule.AcceptBothTypes,
	Section: "MCP Transports 2025-11-25 §Listening for Messages from the Server", Keyword: "MUST", Binds: Client,
	Title:    "GET needs text/event-stream in Accept",
	Sends:    "GET on a live session (2026-07-28 only: with its version header) with Accept: application/json",
	Passes:   "a 4xx or 405",
	Fix:      "Answer a GET whose Accept lacks text/event-stream with 406, or with 405 if the server offers no GET stream at all. The official Go and TypeScript SDKs do this; with mcp-go it takes a middleware.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server",
	Sessions: 1, Opens: 1, run: runMM03}

func runMM03(t *checkRun) outcome {
	r := t.send("GET with Accept: application/json", edit(t.onSession("GET"), set("Accept", "application/json")).Bytes(), toHead, getWindow)
	if r.status() == 405 {
		return t.pass("answered 405: GET is not served")
	}
	return t.refusedWith(r, 406, "served a GET whose Accept does not admit text/event-stream")
}

// MM-04: GET on a live session answers an event stream or 405.
var mm04 = Check{asks: askSession, legacyFor: "a session's GET stream, which 2026-07-28 removed (V2-20 judges GET there)", ID: "MM-04", Level: Must, Source: "MCP Transports §Listening 3", Rule: rule.GetStream,
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
var mm06 = Check{asks: askSession, legacyFor: "notifications/initialized, which 2026-07-28 removed (V2-25 judges a notification there)", ID: "MM-06", Level: Must, Source: "MCP Transports §Sending 4", Rule: rule.NotificationAccepted,
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

// MM-07: a JSON-RPC request is answered, as JSON or as an event stream;
// 202 Accepted is for notifications and responses (Transports §Sending
// 4, 5). It sends nothing of its own: every request the run sent is its
// evidence, so a target that answers one ping 202 is found wherever the
// ping was.
var mm07 = Check{ID: "MM-07", Level: Must, Source: "MCP Transports §Sending 5", Rule: rule.NotificationAccepted,
	Section: "MCP Transports 2025-11-25 §Sending Messages to the Server", Keyword: "MUST", Binds: Server,
	Title:  "A request is answered, never 202",
	Fix:    "Answer every JSON-RPC request (a message with an id and a method) with application/json or text/event-stream carrying its response, and keep 202 Accepted with no body for notifications and responses: a router that acknowledges whatever it cannot dispatch at once usually causes it.",
	Link:   "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server",
	Sends:  "nothing: after the other checks, it reads the answer to every well-formed JSON-RPC request the run sent",
	Passes: "no request of the run answered 202",
	phase:  phaseScan, run: runMM07}

func runMM07(t *checkRun) outcome {
	var accepted []string
	requests := 0
	for _, res := range t.p.earlier() {
		for _, x := range res.Exchanges {
			if x.resp == nil || !isRequestBody(x.sent) {
				continue
			}
			requests++
			if x.resp.Status == 202 {
				accepted = append(accepted, res.Check.ID+"'s "+requestLine(x.sent))
			}
		}
	}
	switch {
	case len(accepted) > 0:
		return t.unmet("%s answered 202: a request gets its response, as JSON or an event stream; 202 is for notifications and responses (Transports §2.1 item 5)", joinAnd(firstFew(accepted))).
			with("a response to each request", plural(len(accepted), "request")+" answered 202")
	case requests == 0:
		return t.skip("no JSON-RPC request of the run was answered: nothing to judge")
	}
	return t.pass("none of %s answered 202", plural(requests, "request"))
}

// isRequestBody reports a POST whose body is one well-formed JSON-RPC
// request: exactly jsonrpc "2.0", a string or number id, a string method
// and maybe params, each member once. The checks' deliberately broken
// requests (a null id, a member name in another case, a batch) are left
// out: what a server makes of those is their checks' business.
func isRequestBody(raw []byte) bool {
	head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok || !bytes.HasPrefix(head, []byte("POST ")) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	members := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		name, isName := tok.(string)
		var value json.RawMessage
		if err != nil || !isName || members[name] != nil || dec.Decode(&value) != nil {
			return false
		}
		members[name] = value
	}
	var version, method string
	for name := range members {
		if name != "jsonrpc" && name != "id" && name != "method" && name != "params" {
			return false
		}
	}
	id := members["id"]
	return json.Unmarshal(members["jsonrpc"], &version) == nil && version == "2.0" &&
		json.Unmarshal(members["method"], &method) == nil && method != "" &&
		len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9')
}

// requestLine names a request by its method: "ping".
func requestLine(raw []byte) string {
	_, body, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	var m struct {
		Method string `json:"method"`
	}
	json.Unmarshal(body, &m)
	return strings.TrimSpace(m.Method)
}

// firstFew keeps a list for a reason line short.
func firstFew(list []string) []string {
	if len(list) > 3 {
		return append(list[:3:3], fmt.Sprintf("%d more", len(list)-3))
	}
	return list
}
