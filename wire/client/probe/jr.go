package probe

import (
	"encoding/json"
	"fmt"
	"mime"
	"strconv"
	"strings"

	"rawmcp/httpparse"
	"rawmcp/wire/client"
	"rawmcp/wire/rule"
)

// jrGroup is the JR group: each check is declared right above its run
// function; a check is in the catalogue when it is in this list.
var jrGroup = group{Group{"JR", "JSON-RPC"}, eraBoundary, []*Check{&jr01, &jr02, &jr03, &jr04, &jr05, &jr06, &jr07, &jr08, &jr09, &jr10, &jr11}}

// unknownMethod is a method no server implements: every server must
// answer it with a JSON-RPC error, -32601 (T-66).
const unknownMethod = "rawmcp-probe/no-such-method"

// JR-01: a batch is refused. The rule binds the client ("The body of the
// POST request MUST be a single JSON-RPC request, notification, or
// response"): a server that answers a batch breaks no rule of its own, so
// refusing one is hardening. Without MCP-Protocol-Version a server is to
// assume 2025-03-26, whose transport allowed batches, so that answer is
// reported, not judged. A server that negotiated 2025-03-26 is held to
// that revision's rule instead: it MUST receive batches (Basic §Batching).
var jr01 = Check{asks: askEither, ID: "JR-01", Level: Hardening, Source: "MCP Transports §Sending 3 (one message per POST)", Rule: rule.OneMessagePerPost,
	Section: "MCP Transports 2025-11-25 §Sending messages to the server", Keyword: "MUST", Binds: Client,
	Title:    "Batches refused",
	Sends:    "[ping, ping] on a session, with MCP-Protocol-Version, then without (2025-03-26: once, without; 2026-07-28 only: two server/discover, once)",
	Passes:   "400 to the batch with the version header; the answer without it is reported only (2025-03-26, assumed then, allowed batches); a server that negotiated 2025-03-26 answers the batch",
	Fix:      "Answer a JSON array body (a batch) with 400 when MCP-Protocol-Version is 2025-06-18 or later, since a POST then carries a single JSON-RPC message. The TypeScript SDK serves batches (the Go SDK v1.8.0 refuses them with 400 under such a header); refuse a body whose first non-space byte is an opening bracket in a middleware.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server",
	Sessions: 1, Opens: 1, run: runJR01}

func runJR01(t *checkRun) outcome {
	method := t.plainMethod()
	a, idA := rpc(method, t.plainParams(""))
	b, idB := rpc(method, t.plainParams(""))
	batch := []byte("[" + string(a) + "," + string(b) + "]")
	if t.p.modernOnly() {
		// 2026-07-28 has no session and no other version to fall back
		// on: the batch goes once, with its headers.
		r := t.must(t.postRPC("a batch of two "+method, method, batch))
		if r.status() != 400 {
			return t.unmet("a batch with MCP-Protocol-Version: %s %s, not 400: one JSON-RPC message per POST (Transports §Sending messages)", modernVersion, r.describe()).
				with("400", r.actual()+" to a batch")
		}
		return t.pass("answered 400 to the batch")
	}
	s := t.session
	switch {
	case s.version == rev20250326:
		return t.batchReceived(s, batch, idA, idB)
	case s.version < rev20250326:
		return t.skip("the session negotiated MCP %s, which has no Streamable HTTP transport and no rule on batches over it", s.version)
	}
	with := t.must(t.postOn("a batch of two pings", s, batch))
	without := t.must(t.postOn("a batch of two pings, no MCP-Protocol-Version", s, batch, drop("MCP-Protocol-Version")))
	legacy := "without the header (2025-03-26 assumed, where batches were allowed) it " + without.describe()
	if with.status() != 400 {
		return t.unmet("a batch with MCP-Protocol-Version: %s %s, not 400: one JSON-RPC message per POST (Transports §2.1 item 3); %s", s.version, with.describe(), legacy).
			with("400", with.actual()+" to a batch")
	}
	return t.pass("answered 400 to the batch; %s", legacy)
}

// batchReceived judges a batch on a session that negotiated 2025-03-26,
// whose implementations MUST receive batches (Basic §Batching): the
// answer carries a response for each request, as a JSON array or as the
// events of a stream. The probe sends no MCP-Protocol-Version, as a
// 2025-03-26 client does not.
func (t *checkRun) batchReceived(s *session, batch []byte, ids ...int64) outcome {
	r := t.must(t.postOn("a batch of two pings, as a 2025-03-26 client sends it", s, batch, drop("MCP-Protocol-Version")))
	var answered []json.RawMessage
	if r.isSSE() {
		for _, ev := range r.events() {
			answered = append(answered, json.RawMessage(ev.Data))
		}
	} else {
		answered = []json.RawMessage{r.resp.Body}
	}
	got := map[string]bool{}
	for _, data := range answered {
		var list []message
		if json.Unmarshal(data, &list) != nil {
			var one message
			if json.Unmarshal(data, &one) != nil {
				continue
			}
			list = []message{one}
		}
		for _, m := range list {
			if m.Result != nil && m.Error == nil {
				got[string(m.ID)] = true
			}
		}
	}
	for _, id := range ids {
		if !is2xx(r.status()) || !got[strconv.FormatInt(id, 10)] {
			return t.unmetAt(Must, "the session negotiated MCP %s, whose servers MUST receive JSON-RPC batches (Basic §Batching), and the batch %s", rev20250326, r.describe()).
				with("a result for each ping of the batch", r.actual())
		}
	}
	return t.pass("the session negotiated MCP %s, which allowed batches: the batch %s, a result for each ping", rev20250326, r.describe())
}

// JR-02: a request id is never null.
var jr02 = Check{asks: askEither, ID: "JR-02", Level: Hardening, Source: "MCP Basic §Requests", Rule: rule.RequestIDNotNull,
	Section: "MCP Basic 2025-11-25 §Requests (the ID MUST NOT be null)", Keyword: "MUST", Binds: Client,
	Title:    "Null id refused",
	Sends:    "ping (server/discover to a 2026-07-28-only target) with \"id\": null",
	Passes:   "400 or a JSON-RPC error",
	Fix:      "Refuse a request whose id is null (400, or a JSON-RPC error) instead of treating it as a notification. mcp-go answers it 202; elsewhere it is the JSON-RPC decoder's check of the id member.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic#requests",
	Sessions: 1, Opens: 1, run: runJR02}

func runJR02(t *checkRun) outcome {
	method := t.plainMethod()
	r := t.postRPC(method+` with "id": null`, method, []byte(`{"jsonrpc":"2.0","id":null,"method":"`+method+`"`+withParams(t.plainParams(""))+`}`))
	t.must(r)
	switch {
	case r.status() == 400:
		return t.pass("answered 400")
	case r.isRPCError(0):
		return t.pass("%s", r.describe())
	}
	return t.unmet("%s: a null id is no request id (Base §1.1)", r.describe()).with("400 or a JSON-RPC error", r.actual()+` for "id": null`)
}

// jr03Requests is how many requests JR-03 sends at once with the same id.
const jr03Requests = 16

// JR-03: requests reusing one id, sent at once, each get their own
// answer: a server that routes answers by id alone hands one request's
// answer to another.
var jr03 = Check{asks: askEither, ID: "JR-03", Level: Must, Source: "MCP Basic (each response to its request)", Rule: rule.ResponseEchoesID,
	Section: "MCP Basic 2025-11-25 §Responses", Keyword: "MUST", Binds: Server,
	Title:    "Reused ids never cross",
	Sends:    "16 requests at once (on one session where there are sessions), all with id 1, alternating ping (server/discover to a 2026-07-28-only target) and an unknown method",
	Passes:   "no answer belongs to another request (refusals of the reused id accepted)",
	Fix:      "Route each response to the request it answers even when a client reuses an id within a session: key pending requests by the HTTP request or stream they came on, not by the id alone. A server may instead refuse a reused id with a JSON-RPC error.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic#responses",
	Sessions: 1, Opens: 1, run: runJR03}

func runJR03(t *checkRun) outcome {
	raws := make([][]byte, jr03Requests)
	for i := range raws {
		method := t.plainMethod()
		if i%2 == 1 {
			method = unknownMethod
		}
		raws[i] = t.rpcRequest(method, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`"`+withParams(t.plainParams(""))+`}`)).Bytes()
	}
	replies := t.sendAll("request with id 1", raws)
	crossed, refused := 0, 0
	for i, r := range replies {
		if r.resp == nil {
			return t.errored("request %d %s", i+1, r.describe())
		}
		msgs := r.messages()
		isPing := i%2 == 0
		if len(msgs) == 0 || !is2xx(r.status()) {
			if t.p.modernOnly() && isPing && hasCode(r, -32601) {
				crossed++ // the unknown method's answer, 404 as 2026-07-28 writes it
				continue
			}
			refused++
			continue
		}
		m := msgs[len(msgs)-1]
		switch {
		case string(m.ID) != "1" && string(m.ID) != "null":
			crossed++
		case isPing && m.Error != nil && m.Error.Code == -32601:
			crossed++ // the unknown method's answer
		case !isPing && m.Result != nil:
			crossed++ // a ping's answer
		case m.Error != nil && isPing:
			refused++
		}
	}
	switch {
	case crossed > 0:
		return t.unmet("%d of %d answers belonged to another request with the same id", crossed, jr03Requests).with("every answer its own request's", fmt.Sprintf("%d of %d crossed", crossed, jr03Requests))
	case refused == jr03Requests:
		return t.pass("refused all %d (reused ids refused), so none crossed", jr03Requests)
	case refused > 0:
		return t.pass("every answer belonged to its own request (%d refused)", refused)
	}
	return t.pass("all %d answers belonged to their own request", jr03Requests)
}

// JR-04: a member called "Method" is not "method" (GHSA-wvj2-96wp-fq3f:
// a case-insensitive decoder ran requests a filter had not seen).
var jr04 = Check{asks: askEither, ID: "JR-04", Level: Hardening, Source: "GHSA-wvj2-96wp-fq3f", Rule: rule.OneJSONRPCMessage,
	Section: "GHSA-wvj2-96wp-fq3f (a case-insensitive decoder)", Keyword: "", Binds: Profile,
	Title:    "Member names match exactly",
	Sends:    "{\"jsonrpc\":\"2.0\",\"id\":N,\"Method\":\"ping\"} (server/discover to a 2026-07-28-only target)",
	Passes:   "anything but a result for N",
	Fix:      "Decode JSON-RPC member names case-sensitively, so that Method is not method. Go's encoding/json matches names case-insensitively, which is how mcp-go and Go SDK releases before v1.3.1 read requests; upgrade, or decode with a case-sensitive decoder.",
	Link:     "https://github.com/advisories/GHSA-wvj2-96wp-fq3f",
	Sessions: 1, Opens: 1, run: runJR04}

func runJR04(t *checkRun) outcome {
	method := t.plainMethod()
	id := newID()
	r := t.postRPC(`a request spelling its method member "Method"`, method, []byte(`{"jsonrpc":"2.0","id":`+strconv.FormatInt(id, 10)+`,"Method":"`+method+`"`+withParams(t.plainParams(""))+`}`))
	t.must(r)
	if r.isResult(id) {
		return t.unmet(`ran "Method" as the method: member names must match exactly`).with("no result", `a result for "Method": "ping"`)
	}
	return t.pass("not executed: %s", r.describe())
}

// JR-05: two method members are refused, not settled by "last wins".
var jr05 = Check{asks: askEither, ID: "JR-05", Level: Hardening, Source: "RFC 8259 §4", Rule: rule.StrictJSON,
	Section: "RFC 8259 §4", Keyword: "SHOULD", Binds: Client,
	Title:    "Duplicate keys refused",
	Sends:    "a request with two method members, an unknown method first and ping (server/discover to a 2026-07-28-only target) last",
	Passes:   "400",
	Fix:      "Refuse a JSON object with a duplicate member name (400) rather than taking the first or the last. The SDKs probed take the last, so a filter or proxy that reads the first sees another request; use a decoder that reports duplicates, or check in a middleware.",
	Link:     "https://www.rfc-editor.org/rfc/rfc8259#section-4",
	Sessions: 1, Opens: 1, run: runJR05}

func runJR05(t *checkRun) outcome {
	method := t.plainMethod()
	id := newID()
	r := t.postRPC("a request with two method members", method,
		[]byte(`{"jsonrpc":"2.0","id":`+strconv.FormatInt(id, 10)+`,"method":"`+unknownMethod+`","method":"`+method+`"`+withParams(t.plainParams(""))+`}`))
	t.must(r)
	switch {
	case r.status() == 400:
		return t.pass("answered 400")
	case r.isResult(id):
		return t.unmet("took the last of two method members and ran %s: a filter reading the first sees another request", method).with("400", "a result (the last method member)")
	}
	return t.unmet("%s: the duplicate was read, not refused (RFC 8259 §4)", r.describe()).with("400", r.actual())
}

// JR-06: a JSON-RPC response the server never asked for is accepted as a
// notification is (202, no body) or refused, and never answered.
var jr06 = Check{asks: askEither, ID: "JR-06", Level: Must, Source: "MCP Transports §Sending 4", Rule: rule.NotificationAccepted,
	Section: "MCP Transports 2025-11-25 §Sending Messages to the Server", Keyword: "MUST", Binds: Server,
	Title:    "An unsolicited response refused or accepted cleanly",
	Sends:    "{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}, a response to nothing",
	Passes:   "202 with an empty body, or a 4xx",
	Fix:      "Answer a JSON-RPC response the server did not ask for with 202 and an empty body (accepted and dropped) or with a 4xx, never 200 with a body. This is the SDK transport's branch for incoming responses; a hand-written handler that treats every body as a request is the usual cause.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server",
	Sessions: 1, Opens: 1, After: []string{"MM-06"}, run: runJR06}

func runJR06(t *checkRun) outcome {
	r := t.postRPC("an unsolicited response", "", []byte(`{"jsonrpc":"2.0","id":99,"result":{}}`))
	t.must(r)
	switch {
	case r.status() == 202 && len(r.resp.Body) == 0:
		return t.pass("202, empty body")
	case is4xx(r.status()):
		return t.pass("answered %d", r.status())
	}
	return t.unmet("%s: a POSTed response gets 202 with no body, or a 4xx (Transports §2.1 item 4)", r.describe()).with("202 with an empty body, or a 4xx", r.actual())
}

// deepNesting is JR-07's depth: far past any sane limit, and past the
// stack of a recursive decoder without one.
const deepNesting = 10000

// JR-07: a document nested 10 000 deep is refused, and the server goes
// on answering.
var jr07 = Check{asks: askEither, ID: "JR-07", Level: Hardening, Source: "resource exhaustion (recursive decoders)", Rule: rule.StrictJSON,
	Section: "resource exhaustion (recursive decoders)", Keyword: "", Binds: Profile,
	Title:    "Deep nesting refused",
	Sends:    "ping (server/discover to a 2026-07-28-only target) with params nested 10 000 arrays deep, then a plain one",
	Passes:   "a 4xx (400, or 413 noted), then a served ping",
	Fix:      "Limit the nesting depth of request JSON (a few hundred levels) and answer 400, or 413 through a body limit, before a recursive parser walks it. Servers on the TypeScript SDK parsed and served 10 000 levels and several packages answered 500; check the depth before JSON.parse, or use a parser with a depth limit.",
	Link:     "https://cwe.mitre.org/data/definitions/674.html",
	Sessions: 1, Opens: 1, run: runJR07}

func runJR07(t *checkRun) outcome {
	method := t.plainMethod()
	body, _ := rpc(method, t.plainParams(`"x":`+strings.Repeat("[", deepNesting)+strings.Repeat("]", deepNesting)))
	r := t.postRPC(method+" with params nested 10 000 deep", method, body)
	after, id := t.plainRequest(method + ": the server still answers")
	switch {
	case r.resp == nil:
		return t.unmet("%s: the server broke on it", r.describe()).with("a 4xx", r.actual())
	case r.status() == 401 && t.p.auth, r.status() == 429, r.status() == 503:
		return *t.unjudgeable(r)
	case is2xx(r.status()):
		return t.unmet("%s: a 10 000-deep document was parsed and served", r.describe()).with("a 4xx", r.actual())
	case !is4xx(r.status()):
		return t.unmet("%s: the server broke on it", r.describe()).with("a 4xx", r.actual())
	case !after.isResult(id):
		return t.unmet("refused with %d, but then %s %s", r.status(), method, after.describe()).with("a result to the "+method+" after the refusal", after.actual())
	case r.status() == 413:
		return t.pass("answered 413 (refused by size before parsing); the server still answers")
	}
	return t.pass("answered %d; the server still answers", r.status())
}

// JR-08: a truncated body is the client's error. A server that cannot
// accept a POST's input answers an HTTP error status (Transports
// §Sending); serving it would mean guessing the rest. A 5xx is an error
// status, but it blames the server for the client's bytes (RFC 9110
// §15.6), so it is reported apart, at SHOULD.
var jr08 = Check{asks: askEither, ID: "JR-08", Level: Must, Source: "MCP Transports §Sending 4; RFC 9110 §15.5, §15.6", Rule: rule.UTF8Body,
	Section: "MCP Transports 2025-11-25 §Sending messages to the server (input not accepted: an HTTP error status)", Keyword: "MUST", Binds: Server,
	Title:    "Truncated JSON refused as the client's error",
	Sends:    "a ping (server/discover to a 2026-07-28-only target) whose JSON is cut off",
	Passes:   "a 4xx (400, -32700 noted); a 5xx warns (the server's fault, not the client's); a 2xx fails",
	Fix:      "Answer a body that is not complete JSON with 400 (a JSON-RPC -32700 parse error in the body is fine), not 500 and never 200. The JSON parser of the SDK or the web framework raises the error: map it to 400 in the framework's error handler instead of letting it fall through to a generic 500.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server",
	Sessions: 1, Opens: 1, run: runJR08}

func runJR08(t *checkRun) outcome {
	id := strconv.FormatInt(newID(), 10)
	method := t.plainMethod()
	r := t.postRPC("truncated JSON", method, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"`+method[:2]))
	t.must(r)
	switch st := r.status(); {
	case is4xx(st) && hasCode(r, -32700):
		return t.pass("answered %d with -32700", st)
	case is4xx(st):
		return t.pass("answered %d (without -32700)", st)
	case st >= 500:
		return t.unmetAt(Should, "truncated JSON %s: a 5xx says the server failed, though the client sent the broken body (RFC 9110 §15.6)", r.describe()).
			with("a 4xx", r.actual()+" to truncated JSON")
	}
	return t.unmet("truncated JSON %s, not an HTTP error status", r.describe()).with("a 4xx", r.actual()+" to truncated JSON")
}

// JR-09: invalid UTF-8 in a string is refused. RFC 8259 §8.1 binds the
// sender ("JSON text exchanged between systems ... MUST be encoded using
// UTF-8"): a server that reads such a body breaks no rule of its own, so
// refusing one is hardening.
var jr09 = Check{asks: askEither, ID: "JR-09", Level: Hardening, Source: "RFC 8259 §8.1", Rule: rule.UTF8Body,
	Section: "RFC 8259 §8.1", Keyword: "MUST", Binds: Client,
	Title:    "Invalid UTF-8 refused",
	Sends:    "a ping (server/discover to a 2026-07-28-only target) with invalid UTF-8 in a string of its params",
	Passes:   "a 4xx (400, -32700 noted)",
	Fix:      "Refuse a body that is not valid UTF-8 with 400 before decoding it. Go's encoding/json and JavaScript's default text decoding replace invalid bytes with U+FFFD silently, so validate the raw body first (utf8.Valid in Go, a TextDecoder with fatal: true in JavaScript).",
	Link:     "https://www.rfc-editor.org/rfc/rfc8259#section-8.1",
	Sessions: 1, Opens: 1, run: runJR09}

func runJR09(t *checkRun) outcome {
	id := strconv.FormatInt(newID(), 10)
	method := t.plainMethod()
	r := t.postRPC("invalid UTF-8 in a string", method, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`"`+withParams(t.plainParams(`"x":"`+"\xff\xfe"+`"`))+`}`))
	t.must(r)
	switch st := r.status(); {
	case is4xx(st) && hasCode(r, -32700):
		return t.pass("answered %d with -32700", st)
	case is4xx(st):
		return t.pass("answered %d (without -32700)", st)
	}
	return t.unmet("invalid UTF-8 %s, not a 4xx", r.describe()).with("a 4xx", r.actual()+" to invalid UTF-8")
}

// hasCode reports a JSON-RPC error with code in the answer.
func hasCode(r *reply, code int) bool {
	var m message
	if json.Unmarshal(r.resp.Body, &m) == nil && m.Error != nil && m.Error.Code == code {
		return true
	}
	for _, m := range r.messages() {
		if m.Error != nil && m.Error.Code == code {
			return true
		}
	}
	return false
}

// JR-10: the error codes the run was answered with are integers (MCP
// Basic §Error Responses, MUST), in the ranges JSON-RPC gives them
// meaning: its predefined codes, or -32000 to -32099 for the server's own
// (MCP's -32002, -32042 and 2026-07-28's -32020 to -32022 among them).
// JSON-RPC reserves the rest of -32768 to -32000 and leaves every other
// integer to applications, where 0 or 1 tells a client nothing of what
// failed: those are a hardening finding, not a broken MUST. It sends
// nothing: every answer of the run is its evidence.
var jr10 = Check{ID: "JR-10", Level: Must, Source: "MCP Basic §Error Responses (codes MUST be integers); JSON-RPC 2.0 §5.1 (H: the ranges)",
	Section: "MCP Basic 2025-11-25 §Error Responses", Keyword: "MUST", Binds: Server,
	Title:  "Error codes are integers in JSON-RPC's ranges",
	Fix:    "Give every JSON-RPC error an integer code: -32700 or -32600 to -32603 for what JSON-RPC defines (a parse error, an invalid request, an unknown method, invalid params, an internal error), and -32000 to -32099 for the server's own; an error object built by hand with code 0 or a string code is the usual cause.",
	Link:   "https://modelcontextprotocol.io/specification/2025-11-25/basic#error-responses",
	Sends:  "nothing: after the other checks, it reads every JSON-RPC error the run was answered with",
	Passes: "every code an integer (MUST) in -32700, -32600 to -32603 or -32099 to -32000 (H)",
	phase:  phaseScan, run: runJR10}

func runJR10(t *checkRun) outcome {
	var notInteger, outside []string
	seen := 0
	for _, res := range t.p.earlier() {
		for _, x := range res.Exchanges {
			for _, code := range errorCodes(x) {
				seen++
				switch n, ok := integerCode(code); {
				case !ok:
					notInteger = appendOnce(notInteger, res.Check.ID+" "+cut(string(code), 20))
				case !jsonRPCCode(n):
					outside = appendOnce(outside, res.Check.ID+" "+strconv.FormatInt(n, 10))
				}
			}
		}
	}
	switch {
	case len(notInteger) > 0:
		return t.unmet("error codes that are no integer: %s (MCP Basic §Error Responses)", joinAnd(firstFew(notInteger))).
			with("integer error codes", joinAnd(firstFew(notInteger)))
	case len(outside) > 0:
		return t.unmetAt(Hardening, "error codes outside JSON-RPC's predefined codes and its server range -32099 to -32000: %s; a client cannot tell what failed", joinAnd(firstFew(outside))).
			with("-32700, -32600 to -32603, or -32099 to -32000", joinAnd(firstFew(outside)))
	case seen == 0:
		return t.skip("no JSON-RPC error in the run's answers: nothing to judge")
	}
	return t.pass("%s, each an integer in JSON-RPC's ranges", plural(seen, "error code"))
}

// errorCodes are the codes of the JSON-RPC errors an answer carries, in
// its JSON body or its events: objects with jsonrpc "2.0" and an error
// object (an OAuth error's string "error" is no JSON-RPC error).
func errorCodes(x Exchange) []json.RawMessage {
	if x.resp == nil {
		return nil
	}
	bodies := [][]byte{x.resp.Body}
	if mt, _, _ := mime.ParseMediaType(headerOf(x.resp, "Content-Type")); mt == "text/event-stream" {
		bodies = nil
		for _, ev := range client.Events(x.resp.Body) {
			bodies = append(bodies, []byte(ev.Data))
		}
	}
	var codes []json.RawMessage
	for _, b := range bodies {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
			Error   *struct {
				Code json.RawMessage `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(b, &msg) == nil && msg.JSONRPC == "2.0" && msg.Error != nil {
			codes = append(codes, msg.Error.Code)
		}
	}
	return codes
}

// integerCode reads a code that is a JSON integer (no fraction, no
// exponent, no quotes).
func integerCode(code json.RawMessage) (int64, bool) {
	n, err := strconv.ParseInt(string(code), 10, 64)
	return n, err == nil
}

// jsonRPCCode reports a code JSON-RPC 2.0 gives a meaning: the predefined
// ones, or the implementation-defined server errors.
func jsonRPCCode(n int64) bool {
	return n == -32700 || n >= -32603 && n <= -32600 || n >= -32099 && n <= -32000
}

func headerOf(resp *httpparse.Response, name string) string {
	v, _ := resp.Get(name)
	return v
}
