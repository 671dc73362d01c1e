package probe

import (
	"strconv"
	"strings"

	"rawmcp/wire/rule"
)

// seGroup is the SE group: each check is declared right above its run
// function; a check is in the catalogue when it is in this list.
var seGroup = group{Group{"SE", "Sessions"}, eraLegacy, []*Check{&se01, &se02, &se03, &se04, &se05, &se06, &se07, &se08, &se09}}

// sessionRequest sends on s a request that only a session can serve: the
// first list method the server declares. Ping is the fallback only: it is
// allowed before initialization (Lifecycle §1.1), so a server may answer
// it without any session.
func (t *checkRun) sessionRequest(step string, s *session, edits ...fieldEdit) (*reply, int64) {
	method := "ping"
	if len(t.p.listMethods) > 0 {
		method = t.p.listMethods[0]
	}
	body, id := rpc(method, "")
	return t.postOn(step+": "+method, s, body, edits...), id
}

// SE-01: a request after initialize without Mcp-Session-Id gets 400, not
// 404 (which a client takes for "session ended") and not an answer.
var se01 = Check{ID: "SE-01", Level: Should, Source: "MCP Transports §Session 2", Rule: rule.SessionRequired, Needs: NeedSessions,
	Section: "MCP Transports 2025-11-25 §Session Management", Keyword: "SHOULD", Binds: Server,
	Title:    "Missing session id refused",
	Sends:    "a session request after initialize without Mcp-Session-Id",
	Passes:   "400",
	Fix:      "When the server issues session ids, answer a request without Mcp-Session-Id (other than initialize) with 400. The Go SDK (v1.8.0) answers 200 with a JSON-RPC error (code 0) and mcp-go answers 404, so check the header in a middleware in front of their handlers.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management",
	Sessions: 1, Opens: 1, run: runSE01}

func runSE01(t *checkRun) outcome {
	s := t.session
	r, _ := t.sessionRequest("without Mcp-Session-Id", s, drop("Mcp-Session-Id"))
	t.must(r)
	switch {
	case r.status() == 400:
		return t.pass("answered 400")
	case is2xx(r.status()):
		return t.unmet("%s without a session id, on a server that issues them", r.describe()).with("400", r.actual()+" without Mcp-Session-Id")
	}
	return t.unmet("answered %d: a missing session id gets 400 (Transports §2.5 item 2)", r.status()).with("400", r.actual()+" without Mcp-Session-Id")
}

// SE-02: an id shaped like the server's but never issued gets 404.
var se02 = Check{ID: "SE-02", Level: Should, Source: "MCP Transports §Session 3", Rule: rule.SessionNotFound, Needs: NeedSessions,
	Section: "MCP Transports 2025-11-25 §Session Management (an ended session's id gets 404; a never-issued one read alike)", Keyword: "MUST", Binds: Server,
	Title:    "Unknown session id refused",
	Sends:    "a session request with a never-issued id shaped like two issued ones: only the characters where they differ are changed, each within its alphabet (hex stays hex), so a format check passes it",
	Passes:   "404",
	Fix:      "Answer a session id the server never issued, or has ended, with 404 so that the client starts a new session. Servers built on the TypeScript SDK's examples look the transport up by id and answer 400 (No valid session ID provided) when it is missing; answer 404 there when the header was sent.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management",
	Sessions: 1, Opens: 1, run: runSE02}

func runSE02(t *checkRun) outcome {
	s := t.session
	forged := *s
	forged.id = forgeID(t.p.sampleID, s.id)
	if forged.id == s.id || forged.id == t.p.sampleID {
		return t.errored("the issued ids differ in no character of a usual alphabet: no unknown id to forge from them")
	}
	r, _ := t.sessionRequest("with an unknown id shaped like the issued ones", &forged)
	t.must(r)
	switch {
	case r.status() == 404:
		return t.pass("answered 404")
	case is2xx(r.status()):
		return t.unmet("%s: the server does not validate session ids", r.describe()).with("404", r.actual()+" for a never-issued id")
	}
	return t.unmet("answered %d: an unknown session gets 404 (Transports §2.5 item 3)", r.status()).with("404", r.actual()+" for a never-issued id")
}

// SE-03: DELETE ends the session, or the server says it lets no client
// end one (405).
var se03 = Check{ID: "SE-03", Level: Should, Source: "MCP Transports §Session 5 (MAY end, MUST 405 if not)", Rule: rule.DeleteEndsSession, Needs: NeedSessions,
	Section: "MCP Transports 2025-11-25 §Session Management (a server MAY refuse DELETE with 405)", Keyword: "MAY", Binds: Server,
	Title:    "DELETE ends a session",
	Sends:    "DELETE on a live session",
	Passes:   "a 2xx, or 405 (sessions cannot be ended; SE-04 then skips)",
	Fix:      "Answer DELETE with Mcp-Session-Id by ending that session (200 or 204), or with 405 if clients may not end sessions. Route DELETE on the MCP path to the SDK's handler: a router that sends only POST and GET there answers 404 instead.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management",
	Sessions: 1, Opens: 1, run: runSE03}

func runSE03(t *checkRun) outcome {
	s := t.session
	r := t.end(s)
	t.must(r)
	switch st := r.status(); {
	case is2xx(st):
		return t.pass("answered %d", st)
	case st == 405:
		return t.pass("answered 405: clients may not end sessions here (SE-04 skips)")
	}
	return t.unmet("answered %d: DELETE ends the session (2xx) or is refused with 405 (Transports §2.5 item 5)", r.status()).with("a 2xx or 405", r.actual()+" to DELETE")
}

// SE-04: an ended session stays ended, on POST and on GET.
var se04 = Check{ID: "SE-04", Level: Must, Source: "MCP Transports §Session 3", Rule: rule.SessionNotFound, Needs: NeedSessions,
	Section: "MCP Transports 2025-11-25 §Session Management", Keyword: "MUST", Binds: Server,
	Title:    "An ended session stays ended",
	Sends:    "a ping and a GET with the id of a deleted session",
	Passes:   "404 to both (405 to GET accepted)",
	Fix:      "Once a session has ended, answer every request that carries its id with 404, POST and GET alike. mcp-go's default session manager only checks the id's shape, so use server.WithStateful(true); servers built on the TypeScript SDK's examples answer 400 from their session lookup, which should be 404.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management",
	Sessions: 1, Opens: 1, run: runSE04}

func runSE04(t *checkRun) outcome {
	s := t.session
	del := t.end(s)
	t.must(del)
	switch {
	case del.status() == 405:
		return t.skip("DELETE answered 405: no client-ended session to check")
	case !is2xx(del.status()):
		return t.errored("DELETE %s: no ended session to check", del.describe())
	}
	post, _ := t.sessionRequest("on the ended session", s)
	get := t.send("GET on the ended session", t.request("GET", s, nil).Bytes(), toHead, getWindow)
	var faults []string
	for _, x := range []struct {
		method string
		r      *reply
	}{{"POST", post}, {"GET", get}} {
		t.must(x.r)
		if st := x.r.status(); st != 404 && (st != 405 || x.method == "POST") {
			faults = append(faults, x.method+" "+x.r.describe())
		}
	}
	if len(faults) > 0 {
		return t.unmet("after DELETE, %s, not 404", joinAnd(faults)).with("404 after DELETE", joinAnd(faults))
	}
	return t.pass("POST and GET answered 404 after DELETE")
}

// SE-05: before notifications/initialized the server serves no request
// but ping. A refusal counts only if the same request is served once the
// lifecycle is complete: otherwise it was refused for another reason.
var se05 = Check{ID: "SE-05", Level: Hardening, Source: "MCP Lifecycle §Initialization", Rule: rule.InitializedFirst, Needs: NeedSessions,
	Section: "MCP Lifecycle 2025-11-25 §Initialization", Keyword: "SHOULD", Binds: Client,
	Title:    "Lifecycle order enforced",
	Sends:    "a declared list method between initialize and notifications/initialized, then again after it",
	Passes:   "the early request refused and the late one served; skips when no list method is declared",
	Fix:      "Refuse requests other than ping on a session until notifications/initialized has arrived, with a JSON-RPC error or 400. None of the SDKs probed enforces the order, so track the initialized state per session in the request handler or a middleware.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization",
	Sessions: 1, run: runSE05}

func runSE05(t *checkRun) outcome {
	if len(t.p.listMethods) == 0 {
		return t.skip("the server declares no resources, tools or prompts: no request but ping to send before initialized")
	}
	method := t.p.listMethods[0]
	s, o := t.open(t.p.authorization(), true)
	if o != nil {
		return *o
	}
	body, id := rpc(method, "")
	early := t.send(method+" before notifications/initialized", t.request("POST", s, body).Bytes(), toResponse, 0)
	t.must(early)
	t.initialized(s)
	body, id2 := rpc(method, "")
	late := t.send(method+" after notifications/initialized", t.request("POST", s, body).Bytes(), toResponse, 0)
	if !late.isResult(id2) {
		return t.errored("%s %s even after notifications/initialized: a refusal before it proves nothing", method, late.describe())
	}
	if early.isResult(id) {
		return t.unmet("served %s before notifications/initialized", method).with("a refusal before notifications/initialized", "a result to "+method)
	}
	return t.pass("%s before notifications/initialized %s; served after it", method, early.describe())
}

// SE-06: a second initialize on a live session is refused.
var se06 = Check{ID: "SE-06", Level: Hardening, Source: "MCP Lifecycle", Rule: rule.LifecycleOrder, Needs: NeedSessions,
	Section: "MCP Lifecycle 2025-11-25 §Initialization (initialize is the first interaction)", Keyword: "", Binds: Profile,
	Title:    "No second initialize on a session",
	Sends:    "initialize carrying a live session's id",
	Passes:   "a 4xx or a JSON-RPC error",
	Fix:      "Refuse an initialize that carries a live session's Mcp-Session-Id (400 or a JSON-RPC error) instead of opening another session under it. mcp-go opens another one; the official Go and TypeScript SDKs refuse it.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization",
	Sessions: 2, Opens: 1, run: runSE06}

func runSE06(t *checkRun) outcome {
	s := t.session
	body, id := initializeBody(protocolVersion)
	r := t.send("initialize on the live session", t.request("POST", s, body).Bytes(), toResponse, 0)
	t.must(r)
	if r.isResult(id) {
		if fresh := r.header("Mcp-Session-Id"); fresh != "" && fresh != s.id {
			return t.unmet("served the initialize and opened another session: a request naming a session must not open a new one").with("a refusal of initialize on a live session", "a result and a new session")
		}
		return t.unmet("served a second initialize on a live session").with("a refusal of initialize on a live session", "a result")
	}
	return t.pass("%s", r.describe())
}

// SE-07: a session is bound to the principal that opened it: another
// principal's valid token on it gets what an unknown id gets.
var se07 = Check{ID: "SE-07", Level: Should, Source: "MCP Security Best Practices §Session hijacking", Rule: rule.SessionBoundToUser, Needs: NeedToken | NeedToken2 | NeedSessions,
	Section: "MCP Security Best Practices 2025-11-25 §Session Hijacking", Keyword: "SHOULD", Binds: Server,
	Title:    "A session is bound to its principal",
	Sends:    "POST, GET and DELETE with -token2 on a session opened with -token, then a ping with -token",
	Passes:   "404 to each (403 noted, 405 to GET or DELETE accepted) and the session survives",
	Fix:      "Bind each session to the principal whose token opened it, and answer 404 when another principal's token uses its id. The Go SDK does so when the token verifier sets TokenInfo.UserID; with the TypeScript SDK's requireBearerAuth, compare req.auth with the session's owner before handing the request to the transport.",
	Link:     "https://modelcontextprotocol.io/docs/2025-11-25/tutorials/security/security_best_practices#session-hijacking",
	Sessions: 1, Opens: 1, run: runSE07}

func runSE07(t *checkRun) outcome {
	s := t.session
	other := *s
	other.authorization = "Bearer " + t.p.opts.Token2
	post, _ := t.sessionRequest("as the second principal", &other)
	get := t.send("GET as the second principal", t.request("GET", &other, nil).Bytes(), toHead, getWindow)
	del := t.send("DELETE as the second principal", t.request("DELETE", &other, nil).Bytes(), toHead, 0)
	var faults, notes []string
	for _, x := range []struct {
		method string
		r      *reply
	}{{"POST", post}, {"GET", get}, {"DELETE", del}} {
		if x.r.status() == 401 {
			return t.errored("the second principal's token was refused (401 on %s): give a valid -token2", x.method)
		}
		t.must(x.r)
		switch st := x.r.status(); {
		case st == 404:
		case st == 403:
			notes = append(notes, x.method+" answered 403, which tells the caller the session exists")
		case st == 405 && x.method != "POST":
			notes = append(notes, x.method+" answered 405 (not served at all)")
		case is2xx(st):
			faults = append(faults, x.method+" was served")
		default:
			faults = append(faults, x.method+" answered "+strconv.Itoa(st))
		}
	}
	alive, id := t.ping("ping as the first principal: the session survives", s)
	switch {
	case alive.resp == nil:
		return t.errored("ping as the first principal %s", alive.describe())
	case len(faults) > 0:
		return t.unmet("on the first principal's session, the second principal's %s", joinAnd(faults)).with("404 to the second principal", joinAnd(faults))
	case !alive.isResult(id):
		return t.unmet("the first principal's session did not survive the second's requests: ping %s", alive.describe()).with("a result to the first principal's ping", alive.actual())
	case len(notes) > 0:
		return t.pass("refused; %s; the session survives", joinAnd(notes))
	}
	return t.pass("POST, GET and DELETE answered 404; the session survives")
}

// SE-08: a session id without a token gets 401: the id is not a
// credential.
var se08 = Check{ID: "SE-08", Level: Must, Source: "MCP Security Best Practices (\"MUST NOT use sessions for authentication\")", Rule: rule.SessionNotCredential, Needs: NeedToken | NeedAuth | NeedSessions,
	Section: "MCP Security Best Practices 2025-11-25 §Session Hijacking", Keyword: "MUST", Binds: Server,
	Title:    "A session is not a credential",
	Sends:    "a ping on a session opened with the token, without Authorization",
	Passes:   "401; a 2xx fails, another refusal warns",
	Fix:      "Require a valid token on every request, whatever session id it carries, and answer 401 without one. A server that checks the token only on initialize and trusts the session id afterwards has this finding: put the bearer middleware (the Go SDK's auth.RequireBearerToken, the TypeScript SDK's requireBearerAuth) in front of every method of the MCP path.",
	Link:     "https://modelcontextprotocol.io/docs/2025-11-25/tutorials/security/security_best_practices#session-hijacking",
	Sessions: 1, Opens: 1, run: runSE08}

func runSE08(t *checkRun) outcome {
	s := t.session
	r, _ := t.ping("ping on the session without a token", s, drop("Authorization"))
	switch {
	case r.resp == nil:
		return t.errored("%s", r.describe())
	case r.status() == 401:
		return t.pass("answered 401")
	case is2xx(r.status()):
		return t.unmet("%s: the session id alone was taken as proof of identity", r.describe()).with("401", r.actual()+" without Authorization")
	}
	return t.unmetAt(Should, "answered %d, not 401: the session was not taken as a credential, but the client is not told to authenticate", r.status()).with("401", r.actual()+" without Authorization")
}

// SE-09: sessions are capped or expire, so a client cannot exhaust the
// server's memory by initializing in a loop.
var se09 = Check{ID: "SE-09", Level: Hardening, Source: "OWASP API Security Top 10 2023, API4 Unrestricted Resource Consumption", Rule: rule.SessionCapacity, Needs: NeedSessions,
	Section: "OWASP API Security Top 10 2023, API4 Unrestricted Resource Consumption", Keyword: "", Binds: Profile,
	Title:    "Sessions are capped or expire",
	Sends:    "up to 64 initializes one after another, alone after the other checks",
	Passes:   "a 503 among them, or an answer that advertises the session's expiry; none refused is reported (info), with how many were sent",
	Fix:      "Cap the sessions the server holds and answer initialize with 503 once full (a 429 is read as a rate limit, which caps nothing), or expire idle sessions and say so in a response header such as Mcp-Session-Expires. The Go SDK's StreamableHTTPOptions.SessionTimeout, mcp-go's WithSessionIdleTTL and the Python SDK's session_idle_timeout expire idle sessions but advertise nothing, so only a cap the probe reaches shows.",
	Link:     "https://owasp.org/API-Security/editions/2023/en/0xa4-unrestricted-resource-consumption/",
	Sessions: 64, phase: phaseAlone, run: runSE09}

func runSE09(t *checkRun) outcome {
	// A 503 is this check's evidence, a session cap; a 429 stays the
	// runner's, a rate limit that caps nothing.
	t.capacity = true
	for i := 1; i <= sessionFlood; i++ {
		req, id := t.initialize()
		r := t.send("initialize "+strconv.Itoa(i)+" of up to "+strconv.Itoa(sessionFlood), req.Bytes(), toResponse, 0)
		switch {
		case r.resp == nil && t.outOfTime():
			// The check's own time ran out, not the server's patience:
			// every initialize before was answered.
			return t.info("sent %s before the check's time ran out, each answered with a session, none refused, no expiry advertised: a cap above %d cannot be told from none", plural(i-1, "initialize"), i-1)
		case r.status() == 503:
			return t.pass("initialize %d answered 503; every session opened was then deleted", i)
		case !r.isResult(id):
			return t.errored("initialize %d %s, neither a session nor a refusal", i, r.describe())
		}
		if name := expiryField(r); name != "" {
			return t.pass("the initialize answer advertises the session's expiry (%s)", name)
		}
	}
	// A server may well cap sessions above what the probe sends (the
	// official SDKs leave it to the application; some set 100 or more):
	// what was measured is reported, not judged.
	return t.info("sent %d initializes one after another, each answered with a session: none refused, no expiry advertised; a cap above %d cannot be told from none", sessionFlood, sessionFlood)
}

// sessionFlood is how many sessions SE-09 opens at most: rawmcp serve's
// 64 requests in processing, far above any cap meant to protect memory.
const sessionFlood = 64

// expiryField names a field of an initialize answer that advertises the
// session's lifetime: no standard one exists, so a field whose name speaks
// of the session and of expiry or a TTL ("Mcp-Session-Expires"); a plain
// Expires is about caching. A black-box probe cannot wait for a session
// to expire; an advertised expiry is the evidence it can see.
func expiryField(r *reply) string {
	for _, h := range r.resp.Header {
		name := strings.ToLower(h.Name)
		if strings.Contains(name, "session") && (strings.Contains(name, "expir") || strings.Contains(name, "ttl")) {
			return h.Name
		}
	}
	return ""
}
