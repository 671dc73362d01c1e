package probe

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"rawmcp/wire/rule"
)

// jrGroup is the JR group: each check is declared right above its run
// function; a check is in the catalogue when it is in this list.
var jrGroup = group{Group{"JR", "JSON-RPC"}, []*Check{&jr01, &jr02, &jr03, &jr04, &jr05, &jr06, &jr07, &jr08}}

// unknownMethod is a method no server implements: every server must
// answer it with a JSON-RPC error, -32601 (T-66).
const unknownMethod = "rawmcp-probe/no-such-method"

// JR-01: a batch is refused, whether or not the version header is there
// (a server may check the version before the body, or after). The rule
// binds the client ("The body of the POST request MUST be a single
// JSON-RPC request, notification, or response"): a server that answers a
// batch breaks no rule of its own, so refusing one is hardening.
var jr01 = Check{ID: "JR-01", Level: Hardening, Source: "MCP Transports §Sending 3 (one message per POST)", Rule: rule.OneMessagePerPost, Needs: NeedLegacy,
	Section: "MCP Transports 2025-11-25 §Sending messages to the server", Keyword: "MUST", Binds: Client,
	Line:     "Batches refused",
	Sends:    "the batch [ping, ping] on a live session, with and without MCP-Protocol-Version",
	Passes:   "400 to both",
	Sessions: 1, Opens: 1, run: runJR01}

func runJR01(t *checkRun) outcome {
	s := t.session
	a, _ := rpc("ping", "")
	b, _ := rpc("ping", "")
	batch := []byte("[" + string(a) + "," + string(b) + "]")
	with := t.postOn("a batch of two pings", s, batch)
	without := t.postOn("a batch of two pings, no MCP-Protocol-Version", s, batch, drop("MCP-Protocol-Version"))
	for _, r := range []*reply{with, without} {
		t.must(r)
		if r.status() != 400 {
			return t.unmet("a batch %s, not 400: one JSON-RPC message per POST (Transports §2.1 item 3)", r.describe()).with("400", r.actual()+" to a batch")
		}
	}
	return t.pass("answered 400, with and without the version header")
}

// JR-02: a request id is never null.
var jr02 = Check{ID: "JR-02", Level: Must, Source: "MCP Basic §Requests", Rule: rule.RequestIDNotNull, Needs: NeedLegacy,
	Line:     "Null id refused",
	Sends:    "ping with \"id\": null",
	Passes:   "400 or a JSON-RPC error",
	Sessions: 1, Opens: 1, run: runJR02}

func runJR02(t *checkRun) outcome {
	s := t.session
	r := t.postOn(`ping with "id": null`, s, []byte(`{"jsonrpc":"2.0","id":null,"method":"ping"}`))
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
var jr03 = Check{ID: "JR-03", Level: Must, Source: "MCP Basic (each response to its request)", Rule: rule.ResponseEchoesID, Needs: NeedLegacy,
	Section: "MCP Basic 2025-11-25 §Responses", Keyword: "MUST", Binds: Server,
	Line:     "Reused ids never cross",
	Sends:    "16 requests at once on one session, all with id 1, alternating ping and an unknown method",
	Passes:   "no answer belongs to another request (refusals of the reused id accepted)",
	Sessions: 1, Opens: 1, run: runJR03}

func runJR03(t *checkRun) outcome {
	s := t.session
	raws := make([][]byte, jr03Requests)
	for i := range raws {
		method := "ping"
		if i%2 == 1 {
			method = unknownMethod
		}
		raws[i] = t.request("POST", s, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`"}`)).Bytes()
	}
	replies := t.sendAll("request with id 1", raws)
	crossed, refused := 0, 0
	for i, r := range replies {
		if r.resp == nil {
			return t.errored("request %d %s", i+1, r.describe())
		}
		msgs := r.messages()
		if len(msgs) == 0 || !is2xx(r.status()) {
			refused++
			continue
		}
		m := msgs[len(msgs)-1]
		isPing := i%2 == 0
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
var jr04 = Check{ID: "JR-04", Level: Hardening, Source: "GHSA-wvj2-96wp-fq3f", Rule: rule.OneJSONRPCMessage, Needs: NeedLegacy,
	Section: "GHSA-wvj2-96wp-fq3f (a case-insensitive decoder)", Keyword: "", Binds: Profile,
	Line:     "Member names match exactly",
	Sends:    "{\"jsonrpc\":\"2.0\",\"id\":N,\"Method\":\"ping\"}",
	Passes:   "anything but a result for N",
	Sessions: 1, Opens: 1, run: runJR04}

func runJR04(t *checkRun) outcome {
	s := t.session
	id := newID()
	r := t.postOn(`a request spelling its method member "Method"`, s, []byte(`{"jsonrpc":"2.0","id":`+strconv.FormatInt(id, 10)+`,"Method":"ping"}`))
	t.must(r)
	if r.isResult(id) {
		return t.unmet(`ran "Method" as the method: member names must match exactly`).with("no result", `a result for "Method": "ping"`)
	}
	return t.pass("not executed: %s", r.describe())
}

// JR-05: two method members are refused, not settled by "last wins".
var jr05 = Check{ID: "JR-05", Level: Hardening, Source: "RFC 8259 §4", Rule: rule.StrictJSON, Needs: NeedLegacy,
	Section: "RFC 8259 §4", Keyword: "SHOULD", Binds: Client,
	Line:     "Duplicate keys refused",
	Sends:    "a request with two method members, an unknown method first and ping last",
	Passes:   "400",
	Sessions: 1, Opens: 1, run: runJR05}

func runJR05(t *checkRun) outcome {
	s := t.session
	id := newID()
	r := t.postOn("a request with two method members", s,
		[]byte(`{"jsonrpc":"2.0","id":`+strconv.FormatInt(id, 10)+`,"method":"`+unknownMethod+`","method":"ping"}`))
	t.must(r)
	switch {
	case r.status() == 400:
		return t.pass("answered 400")
	case r.isResult(id):
		return t.unmet("took the last of two method members and ran ping: a filter reading the first sees another request").with("400", "a result (the last method member)")
	}
	return t.unmet("%s: the duplicate was read, not refused (RFC 8259 §4)", r.describe()).with("400", r.actual())
}

// JR-06: a JSON-RPC response the server never asked for is accepted as a
// notification is (202, no body) or refused, and never answered.
var jr06 = Check{ID: "JR-06", Level: Must, Source: "MCP Transports §Sending 4", Rule: rule.NotificationAccepted, Needs: NeedLegacy,
	Section: "MCP Transports 2025-11-25 §Sending Messages to the Server", Keyword: "MUST", Binds: Server,
	Line:     "An unsolicited response refused or accepted cleanly",
	Sends:    "{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}, a response to nothing",
	Passes:   "202 with an empty body, or a 4xx",
	Sessions: 1, Opens: 1, run: runJR06}

func runJR06(t *checkRun) outcome {
	s := t.session
	r := t.postOn("an unsolicited response", s, []byte(`{"jsonrpc":"2.0","id":99,"result":{}}`))
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
var jr07 = Check{ID: "JR-07", Level: Hardening, Source: "resource exhaustion (recursive decoders)", Rule: rule.StrictJSON, Needs: NeedLegacy,
	Section: "resource exhaustion (recursive decoders)", Keyword: "", Binds: Profile,
	Line:     "Deep nesting refused",
	Sends:    "ping with params nested 10 000 arrays deep, then a plain ping",
	Passes:   "a 4xx (400, or 413 noted), then a served ping",
	Sessions: 1, Opens: 1, run: runJR07}

func runJR07(t *checkRun) outcome {
	s := t.session
	body, _ := rpc("ping", `{"x":`+strings.Repeat("[", deepNesting)+strings.Repeat("]", deepNesting)+`}`)
	r := t.postOn("ping with params nested 10 000 deep", s, body)
	after, id := t.ping("ping: the server still answers", s)
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
		return t.unmet("refused with %d, but then ping %s", r.status(), after.describe()).with("a result to the ping after the refusal", after.actual())
	case r.status() == 413:
		return t.pass("answered 413 (refused by size before parsing); the server still answers")
	}
	return t.pass("answered %d; the server still answers", r.status())
}

// JR-08: truncated JSON and invalid UTF-8 cannot be parsed: 400. RFC 8259
// §8.1 binds the sender ("JSON text exchanged between systems ... MUST be
// encoded using UTF-8"): a server that reads a broken body breaks no rule
// of its own, so refusing one is hardening.
var jr08 = Check{ID: "JR-08", Level: Hardening, Source: "MCP Transports (UTF-8 JSON-RPC)", Rule: rule.UTF8Body, Needs: NeedLegacy,
	Section: "RFC 8259 §8.1", Keyword: "MUST", Binds: Client,
	Line:     "Broken JSON refused",
	Sends:    "truncated JSON, then a ping with invalid UTF-8 in its params",
	Passes:   "400 to both (a missing -32700 noted)",
	Sessions: 1, Opens: 1, run: runJR08}

func runJR08(t *checkRun) outcome {
	s := t.session
	id := strconv.FormatInt(newID(), 10)
	truncated := t.postOn("truncated JSON", s, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"pi`))
	invalid := t.postOn("invalid UTF-8 in a string", s, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping","params":{"x":"`+"\xff\xfe"+`"}}`))
	var notes []string
	for _, x := range []struct {
		what string
		r    *reply
	}{{"truncated JSON", truncated}, {"invalid UTF-8", invalid}} {
		t.must(x.r)
		if x.r.status() != 400 {
			return t.unmet("%s %s, not 400", x.what, x.r.describe()).with("400", x.r.actual()+" to "+x.what)
		}
		if !hasCode(x.r, -32700) {
			notes = append(notes, x.what+" without -32700")
		}
	}
	if len(notes) > 0 {
		return t.pass("both answered 400 (%s)", joinAnd(notes))
	}
	return t.pass("both answered 400 with -32700")
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
