package probe

import (
	"strconv"

	"rawmcp/wire/rule"
)

// hoGroup is the HO group: each check is declared right above its run
// function; a check is in the catalogue when it is in this list.
var hoGroup = group{Group{"HO", "Host and Origin (DNS rebinding, browsers)"}, eraBoundary, []*Check{&ho01, &ho02, &ho03, &ho04, &ho05, &ho06}}

// foreignOrigin and foreignHost stand for a page and a name the attacker
// controls (a DNS-rebinding name resolves to 127.0.0.1 but keeps its own
// Host).
const (
	foreignOrigin = "http://evil.example"
	foreignHost   = "evil.example"
)

// HO-01: a foreign Host is refused before anything is created.
var ho01 = Check{asks: askEither, ID: "HO-01", Level: Hardening, Source: "MCP Security Best Practices §Local MCP server compromise", Rule: rule.HostNotOurs,
	Section: "MCP Security Best Practices 2025-11-25 §Local MCP Server Compromise", Keyword: "", Binds: Profile,
	Title:    "Foreign Host refused",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with Host: evil.example",
	Passes:   "a 4xx without Mcp-Session-Id",
	Fix:      "Refuse a Host header that is not a name the server is served under (403 or 421) before creating a session. The Go SDK does so on loopback unless DisableLocalhostProtection is set, the TypeScript SDK's createMcpExpressApp on a localhost bind or with allowedHosts, the Python SDK with TransportSecuritySettings and allowed_hosts. Behind nginx, proxy_set_header Host $http_host; passes the client's Host on to that check.",
	Link:     "https://modelcontextprotocol.io/docs/2025-11-25/tutorials/security/security_best_practices#local-mcp-server-compromise",
	Sessions: 1, run: runHO01}

func runHO01(t *checkRun) outcome {
	req, _ := t.opening(set("Host", foreignHost))
	r := t.send(t.openingName()+" with Host: "+foreignHost, req.Bytes(), toResponse, 0)
	t.must(r)
	switch {
	case is2xx(r.status()):
		return t.unmet("%s for Host: %s: a page on a DNS-rebinding name reaches the server", r.describe(), foreignHost).with("a 4xx", r.actual()+" for Host: "+foreignHost)
	case r.header("Mcp-Session-Id") != "":
		return t.unmet("answered %d but issued a session id", r.status()).with("a 4xx without Mcp-Session-Id", r.actual()+" with Mcp-Session-Id")
	case is4xx(r.status()):
		return t.pass("answered %d", r.status())
	}
	return t.errored("%s: neither served nor refused", r.describe())
}

// HO-02: a foreign Origin on POST gets 403.
var ho02 = Check{asks: askEither, ID: "HO-02", Level: Must, Source: "MCP Transports §Security warning", Rule: rule.OriginRefused,
	Section: "MCP Transports 2025-11-25 §Security Warning", Keyword: "MUST", Binds: Server,
	Title:    "Foreign Origin refused",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with Origin: http://evil.example and the run's token",
	Passes:   "403 only",
	Fix:      "Check Origin on every request and answer 403 when it is present and not one of the server's own origins; the Go and TypeScript SDKs and mcp-go leave this off by default. Go SDK: wrap the handler in http.NewCrossOriginProtection().Handler; TypeScript SDK: the StreamableHTTPServerTransport options enableDnsRebindingProtection and allowedOrigins; Python SDK: TransportSecuritySettings with allowed_origins; mcp-go: a middleware of your own.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning",
	Sessions: 1, run: runHO02}

func runHO02(t *checkRun) outcome {
	return t.originRefused(foreignOrigin)
}

// HO-04: Origin: null (a sandboxed frame, a file: page, a redirect chain)
// is an origin no server can allow.
var ho04 = Check{asks: askEither, ID: "HO-04", Level: Must, Source: "MCP Transports §Security warning", Rule: rule.OriginRefused,
	Section: "MCP Transports 2025-11-25 §Security Warning", Keyword: "MUST", Binds: Server,
	Title:    "Origin: null refused",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with Origin: null",
	Passes:   "403 only",
	Fix:      "Treat Origin: null (sandboxed iframes, file pages, some redirects) as a foreign origin and answer 403; an allowlist must not contain null. It is the same Origin check as for a foreign page, in the SDK's transport options or a middleware in front of the handler.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning",
	Sessions: 1, After: []string{"HO-02"}, run: runHO04}

func runHO04(t *checkRun) outcome {
	return t.originRefused("null")
}

func (t *checkRun) originRefused(origin string) outcome {
	req, _ := t.opening(set("Origin", origin))
	r := t.send(t.openingName()+" with Origin: "+origin, req.Bytes(), toResponse, 0)
	t.must(r)
	switch {
	case r.status() == 403:
		return t.pass("answered 403")
	case is2xx(r.status()):
		return t.unmet("%s for Origin: %s: any web page can drive the server", r.describe(), origin).with("403", r.actual()+" for Origin: "+origin)
	case is4xx(r.status()) && t.p.before(originStatusSince):
		return t.pass("answered %d: MCP %s, the version negotiated, asks only that a foreign Origin be refused (403 came with %s)", r.status(), t.p.version, originStatusSince)
	}
	return t.unmet("answered %d: a foreign Origin gets 403 Forbidden (Transports §2.0.1)", r.status()).with("403", r.actual()+" for Origin: "+origin)
}

// originStatusSince is the revision that named the status for a foreign
// Origin (403); before it, servers MUST validate Origin, with any refusal.
const originStatusSince = "2025-11-25"

// HO-03: the Origin check covers GET and DELETE too, and a refused DELETE
// leaves the session alive.
var ho03 = Check{asks: askEither, ID: "HO-03", Level: Must, Source: "MCP Transports (\"all incoming connections\")", Rule: rule.OriginEveryRequest,
	Section: "MCP Transports 2025-11-25 §Security Warning", Keyword: "MUST", Binds: Server,
	Title:    "Origin checked on GET and DELETE too",
	Sends:    "GET and DELETE on a live session with Origin: http://evil.example, then a ping (2026-07-28 only: GET and DELETE with its version header)",
	Passes:   "403 to each (405 accepted: not served) and the session still works",
	Fix:      "Apply the Origin check to GET and DELETE on the MCP endpoint as well as to POST, or answer them 405 if the server offers no stream and no way to end a session. Go's http.CrossOriginProtection lets GET through as a safe method, so a GET stream behind it needs an Origin check of its own.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning",
	Sessions: 1, Opens: 1, After: []string{"HO-02"}, run: runHO03}

func runHO03(t *checkRun) outcome {
	var notes, faults []string
	get := t.send("GET with Origin: "+foreignOrigin, edit(t.onSession("GET"), set("Origin", foreignOrigin)).Bytes(), toHead, 0)
	del := t.send("DELETE with Origin: "+foreignOrigin, edit(t.onSession("DELETE"), set("Origin", foreignOrigin)).Bytes(), toHead, 0)
	for _, x := range []struct {
		method string
		r      *reply
	}{{"GET", get}, {"DELETE", del}} {
		t.must(x.r)
		switch st := x.r.status(); {
		case st == 403:
		case st == 405:
			notes = append(notes, x.method+" answered 405 (not served at all)")
		case is4xx(st) && st != 404 && t.p.before(originStatusSince):
			notes = append(notes, x.method+" answered "+strconv.Itoa(st)+" (MCP "+t.p.version+", negotiated, asks for no 403 in particular)")
		default:
			faults = append(faults, x.method+" answered "+strconv.Itoa(st))
		}
	}
	if t.p.modernOnly() {
		// No session for the DELETE to end: the refusals are all.
		if len(faults) > 0 {
			return t.unmet("with a foreign Origin %s, not 403", joinAnd(faults)).with("403 (or 405) to GET and DELETE", joinAnd(faults))
		}
		if len(notes) > 0 {
			return t.pass("403 where served; %s", joinAnd(notes))
		}
		return t.pass("GET and DELETE answered 403")
	}
	alive, id := t.ping("ping: the session still works", t.session)
	if alive.resp == nil {
		return t.errored("ping after the refusals %s", alive.describe())
	}
	if len(faults) > 0 {
		return t.unmet("with a foreign Origin %s, not 403", joinAnd(faults)).with("403 (or 405) to GET and DELETE", joinAnd(faults))
	}
	if !alive.isResult(id) {
		return t.unmet("the session did not survive the refused DELETE: ping %s", alive.describe()).with("a result to ping after the refused DELETE", alive.actual())
	}
	if len(notes) > 0 {
		return t.pass("403 where served; %s; the session still works", joinAnd(notes))
	}
	return t.pass("GET and DELETE answered 403; the session still works")
}

// HO-05: the target's own origin, as a page it served would send it, is
// accepted, so the Origin check is not a refusal of everything.
var ho05 = Check{asks: askEither, ID: "HO-05", Level: Should, Source: "interoperability (the official conformance suite)", Rule: rule.OriginNotAllowed,
	Section: "interoperability: the MCP conformance suite serves its own origin", Keyword: "", Binds: Profile,
	Title:    "The server's own origin accepted",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with Host and Origin both the URL's own",
	Passes:   "its result",
	Fix:      "Put the server's own origin (the scheme, host and port clients reach it at) in the Origin allowlist, so that a browser client served from that origin is not refused. An allowlist written for localhost misses 127.0.0.1 and the port; behind a proxy, list the public origin.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning",
	Sessions: 1, run: runHO05}

func runHO05(t *checkRun) outcome {
	req, id := t.opening(set("Origin", t.p.target.origin()))
	r := t.send(t.openingName()+" with Origin: "+t.p.target.origin(), req.Bytes(), toResponse, 0)
	t.must(r)
	if r.isResult(id) {
		return t.pass("%s", r.describe())
	}
	return t.unmet("%s for its own origin %s: browser-based clients served from it cannot connect", r.describe(), t.p.target.origin()).with("a result for its own origin", r.actual()+" for Origin: "+t.p.target.origin())
}

// HO-06: the CORS "simple request" a page may send without a preflight,
// text/plain from a foreign origin (CVE-2026-33252), is not served.
var ho06 = Check{asks: askEither, ID: "HO-06", Level: Hardening, Source: "CVE-2026-33252", Rule: rule.ContentTypeJSON,
	Section: "CVE-2026-33252: a CORS simple request reaches the server", Keyword: "", Binds: Profile,
	Title:    "No cross-site \"simple\" POST",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) as Content-Type: text/plain with Origin: http://evil.example, a CORS simple request",
	Passes:   "any answer but a 2xx",
	Fix:      "Refuse a POST whose Content-Type is not application/json with 415 before reading the body as JSON: a text/plain POST from a foreign page is a CORS simple request and arrives without a preflight. The Go SDK refuses it from v1.4.1; elsewhere the handler or the web framework's body parser must insist on the media type, beside the Origin check.",
	Link:     "https://www.cve.org/CVERecord?id=CVE-2026-33252",
	Sessions: 1, run: runHO06}

func runHO06(t *checkRun) outcome {
	req, _ := t.opening(set("Origin", foreignOrigin), set("Content-Type", "text/plain"))
	r := t.send(t.openingName()+" as text/plain with Origin: "+foreignOrigin, req.Bytes(), toResponse, 0)
	t.must(r)
	if is2xx(r.status()) {
		return t.unmet("%s: a page on any site can send this without a CORS preflight", r.describe()).with("a 4xx", r.actual()+" for text/plain with Origin: "+foreignOrigin)
	}
	return t.pass("answered %d", r.status())
}
