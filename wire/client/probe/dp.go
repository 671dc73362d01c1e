package probe

import (
	"errors"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"rawmcp/wire/client"
	"rawmcp/wire/rule"
)

// dpGroup is the DP group: what TLS, a reverse proxy or a load balancer
// in front of a server keeps or breaks. Each check is declared right
// above its run function; a check is in the catalogue when it is in this
// list.
var dpGroup = group{Group{"DP", "Deployment (TLS, proxies, load balancers)"}, eraBoundary, []*Check{&dp01, &dp02, &dp03, &dp04, &dp05, &dp06, &dp07, &dp08, &dp09, &dp10, &dp11, &dp12}}

// DP-01: a protected endpoint is served over TLS. Loopback is judged by
// the URL's host (127.0.0.0/8, [::1], localhost), never by the address
// dialled; only an http URL to another host costs requests.
var dp01 = Check{asks: askEither, ID: "DP-01", Level: Must, Source: "RFC 6750 §5.3; RFC 9728 §1.2; OAuth 2.1 §1.5", Rule: rule.TLSForProtected,
	Section: "OAuth 2.1 §1.5; RFC 6750 §5.3", Keyword: "MUST", Binds: Deployment,
	Title:    "A protected endpoint is served over TLS",
	Sends:    "nothing for an https or loopback URL; otherwise initialize (server/discover to a 2026-07-28-only target) without a token, then the metadata",
	Passes:   "the URL is https or its host loopback; an http URL to another host that answers a Bearer challenge or serves metadata fails",
	Fix:      "Serve a protected MCP endpoint only over https, with TLS ended at the server or at the proxy in front; keep plain http for loopback. A token sent in cleartext can be read and replayed by anyone on the path.",
	Link:     "https://www.rfc-editor.org/rfc/rfc6750#section-5.3",
	Sessions: 1, run: runDP01}

func runDP01(t *checkRun) outcome {
	target := t.p.target
	switch {
	case target.Scheme == "https":
		return t.pass("the URL is https")
	case target.Loopback:
		return t.pass("loopback: cleartext http never leaves the machine")
	}
	req, _ := t.opening(drop("Authorization"))
	r := t.send(t.openingName()+" without a token", req.Bytes(), toResponse, 0)
	if r.resp == nil {
		return t.errored("%s without a token %s", t.openingName(), r.describe())
	}
	if _, ok := r.bearer(); ok {
		return t.unmet("http to %s, which answers a Bearer challenge: tokens would travel in cleartext (RFC 6750 §5.3)", target.Hostname).with("https, or no Bearer challenge over http", "a Bearer challenge over http to "+target.Hostname)
	}
	doc, where, _, broke := t.metadata()
	switch {
	case broke != nil:
		return *broke
	case doc != nil:
		return t.unmet("http to %s, which serves Protected Resource Metadata %s: tokens would travel in cleartext (RFC 9728 §1.2)", target.Hostname, where).with("https, or no metadata over http", "metadata "+where+" over http to "+target.Hostname)
	}
	return t.pass("http to %s, but nothing is protected: no Bearer challenge and no metadata", target.Hostname)
}

// DP-02: a handshake offering only TLS 1.0 and 1.1 is refused. The
// normal handshake of every other request is the run's own, verified for
// the URL's host (chain, name, dates) with no switch to turn that off.
var dp02 = Check{ID: "DP-02", Level: Must, Source: "RFC 8996; RFC 9325", Rule: rule.LegacyTLSRefused,
	Section: "RFC 8996 §3, §4", Keyword: "MUST", Binds: Deployment,
	Title:    "TLS holds",
	Sends:    "one TLS handshake offering only TLS 1.0 and 1.1 (https URLs only), no request",
	Passes:   "the server refuses it; one that completes it, certificate valid or not, fails; an http URL skips",
	Fix:      "Turn TLS 1.0 and 1.1 off where TLS ends. nginx: ssl_protocols TLSv1.2 TLSv1.3; HAProxy: ssl-min-ver TLSv1.2 in ssl-default-bind-options; Go: tls.Config with MinVersion tls.VersionTLS12; Caddy refuses them by default.",
	Link:     "https://www.rfc-editor.org/rfc/rfc8996#section-3",
	Sessions: 0, run: runDP02}

func runDP02(t *checkRun) outcome {
	target := t.p.target
	if target.Scheme != "https" {
		if target.Loopback {
			return t.skip("loopback: the URL is http, no TLS to check")
		}
		return t.skip("the URL is http: no TLS to check (DP-01 judges the scheme)")
	}
	h := legacyHandshake(target.Dial, target.Hostname, t.p.opts.RootCAs, t.p.timeout())
	t.traceNote("! DP-02: a handshake offering TLS 1.0 and 1.1 only, to " + target.Dial + ": " + h.String())
	switch {
	case h.accepted:
		return t.unmet("the server took a handshake offering only TLS 1.0 and 1.1 (%s): they must be refused (RFC 8996)", h).
			with("a refused handshake", h.String())
	case errors.Is(h.err, errNoAnswer):
		return t.errored("the handshake got no answer within %s", t.p.timeout())
	case !h.handshake:
		return t.errored("could not connect for the handshake: %s", h)
	}
	return t.pass("a handshake offering only TLS 1.0 and 1.1 was refused (%s)", h)
}

// DP-03: the http twin of an https endpoint serves no MCP. A 302 or 303
// would turn the POST into a GET, so only 301 and 308 to the same URL
// count as a redirect. It runs after the concurrent checks, so their
// answers are there for the HSTS part. Its POST is the opening request
// of the revision the target speaks, so a twin that serves either
// revision is seen. Sessions holds room for the session a twin that
// serves initialize opens (on the server behind both, deleted when the
// check ends); a 2026-07-28 server/discover opens none.
var dp03 = Check{asks: askEither, ID: "DP-03", Level: Should, Source: "RFC 6797; RFC 9325 §3.2", Rule: rule.NoCleartextTwin,
	Section: "RFC 9325 §3.2; RFC 6797", Keyword: "SHOULD", Binds: Deployment,
	Title:    "The cleartext twin does not serve MCP",
	Sends:    "POST initialize (server/discover to a 2026-07-28-only target) and GET, without a token, to http://HOST/PATH of an https URL (port 80: -resolve HOST:80:ADDR, else the endpoint's address)",
	Passes:   "each refused, or 301/308 to the same https URL, never an MCP answer; hardening: the run's 2xx answers carry Strict-Transport-Security",
	Fix:      "Answer cleartext http requests to the host with a 301 or 308 to the https URL, or not at all, never with MCP, and send Strict-Transport-Security on https answers. nginx: add_header Strict-Transport-Security \"max-age=31536000\" always; Caddy: header Strict-Transport-Security max-age=31536000; HAProxy: http-response set-header Strict-Transport-Security max-age=31536000.",
	Link:     "https://www.rfc-editor.org/rfc/rfc9325#section-3.2",
	Sessions: 1, phase: phaseScan, run: runDP03}

func runDP03(t *checkRun) outcome {
	target := t.p.target
	if target.Scheme != "https" {
		if target.Loopback {
			return t.skip("loopback: the URL is http, it has no cleartext twin")
		}
		return t.skip("the URL is http: it has no cleartext twin (DP-01 judges the scheme)")
	}
	host := target.Hostname
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	twin := Target{URL: "http://" + host + target.Path, Scheme: "http", Host: host, Hostname: target.Hostname,
		Dial: twinAddr(target), Path: target.Path, Loopback: target.Loopback}
	// The requests a client of the target's revision sends, to the twin's
	// Host and without the token, which must never travel in cleartext.
	// DP-03 opens no session, so the GET is one without a session id.
	toTwin := []fieldEdit{set("Host", twin.Host), drop("Authorization")}
	post, id := t.opening(toTwin...)
	get := edit(t.onSession("GET"), toTwin...)
	var faults, seen []string
	for _, x := range []struct {
		what string
		raw  []byte
		id   int64 // the JSON-RPC request's id, 0 for none
	}{{"POST " + t.openingName(), post.Bytes(), id}, {"GET", get.Bytes(), 0}} {
		r := t.sendTo(twin, x.what+" to "+twin.URL, x.raw)
		switch fault := twinFault(r, x.id, target.URL); {
		case r.resp == nil:
			seen = append(seen, x.what+": "+twinSilence(r.err))
		case fault != "":
			faults = append(faults, x.what+" "+fault)
		default:
			seen = append(seen, x.what+" "+r.describe())
		}
	}
	if len(faults) > 0 {
		return t.unmet("the cleartext twin %s: %s", twin.URL, joinAnd(faults)).with("a refusal, or 301/308 to "+target.URL, joinAnd(faults))
	}
	if missing := t.withoutHSTS(); missing > 0 {
		return t.unmetAt(Hardening, "the twin serves no MCP (%s), but %s of the run came without Strict-Transport-Security (RFC 6797)", joinAnd(seen), plural(missing, "2xx answer")).with("Strict-Transport-Security on the 2xx answers", plural(missing, "2xx answer")+" without it")
	}
	return t.pass("the twin serves no MCP (%s); the 2xx answers carry Strict-Transport-Security", joinAnd(seen))
}

// DP-04: the metadata names the URL clients use. A proxy that rewrites
// Host to its upstream makes the server name its internal URL. It runs
// after AU-11 and AU-02: a document that is missing, behind a token or
// names another resource is their finding, reported once.
var dp04 = Check{asks: askEither, ID: "DP-04", Level: Must, Source: "RFC 9728 §3.3, §5.1", Rule: rule.MetadataResource, Needs: NeedAuth, Since: "2025-06-18",
	Section: "RFC 9728 §3.3", Keyword: "MUST", Binds: Deployment,
	Title:    "The metadata names the public URL",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) without a token; the metadata at the path-inserted and root well-known paths and at the challenge's resource_metadata",
	Passes:   "every document's resource is exactly the URL probed; resource_metadata is absolute, on the URL's scheme and origin; skips without authorization",
	Fix:      "Set the metadata's resource, and the resource_metadata URL in the challenge, to the public https URL clients use, not the address the server listens on behind the proxy. Configure that URL explicitly (for the Go SDK, in RequireBearerTokenOptions.ResourceMetadataURL and the metadata you serve) instead of deriving it from the request.",
	Link:     "https://www.rfc-editor.org/rfc/rfc9728#section-3.3",
	Sessions: 1, After: []string{"AU-11", "AU-02"}, run: runDP04}

func runDP04(t *checkRun) outcome {
	req, _ := t.opening(drop("Authorization"))
	r := t.send(t.openingName()+" without a token, for the challenge", req.Bytes(), toResponse, 0)
	if r.resp == nil {
		return t.errored("%s without a token %s", t.openingName(), r.describe())
	}
	var faults, notes []string
	paths := append([]string(nil), t.p.target.MetadataPaths...)
	if c, ok := r.bearer(); ok && c.Params["resource_metadata"] != "" {
		path, fault := t.onOwnOrigin(c.Params["resource_metadata"])
		switch {
		case fault != "":
			faults = append(faults, "the challenge's resource_metadata "+fault)
		case !slices.Contains(paths, path):
			paths = append(paths, path)
		}
	} else {
		notes = append(notes, "the challenge names no resource_metadata")
	}
	found := 0
	for _, path := range paths {
		m := t.send("GET the metadata at "+path+", no token", t.metadataRequest(path, nil), toEnd, 0)
		switch resource, fault := metadataResource(m); {
		case m.resp == nil:
			return t.errored("GET %s %s", path, m.describe())
		case m.status() != 200:
			notes = append(notes, path+" "+m.describe())
		case fault != "":
			faults = append(faults, path+": "+fault)
		case resource != t.p.target.URL:
			found++
			faults = append(faults, path+" names resource "+strconv.Quote(resource)+", not the URL "+strconv.Quote(t.p.target.URL))
		default:
			found++
		}
	}
	switch {
	case len(faults) > 0:
		return t.unmet("%s (RFC 9728 §3.3)", joinAnd(faults)).with("resource "+strconv.Quote(t.p.target.URL)+" and resource_metadata on "+t.p.target.origin(), joinAnd(faults))
	case found == 0:
		return t.unmet("no metadata document at %s", joinAnd(paths)).with("a metadata document", joinAnd(notes))
	case len(notes) > 0:
		return t.pass("%s naming the URL; %s", plural(found, "document"), joinAnd(notes))
	}
	return t.pass("%s naming the URL, and the challenge's resource_metadata on its origin", plural(found, "document"))
}

// DP-05: forwarded headers from a client do not steer the URLs the
// server names: one that builds them from these headers hands a client's
// token to whoever sent them. A hop that sets them must overwrite what
// the client sent.
var dp05 = Check{asks: askEither, ID: "DP-05", Level: Must, Source: "RFC 9728 §3.3, §7.3", Rule: rule.ForwardedNotTrusted, Needs: NeedAuth,
	Section: "RFC 9728 §3.3, §7.3 (resource names the public URL; no impersonation)", Keyword: "MUST", Binds: Deployment,
	Title:    "Forwarded headers do not steer",
	Sends:    "DP-04's requests with X-Forwarded-Host: evil.example, X-Forwarded-Proto: http and Forwarded: host=evil.example;proto=http",
	Passes:   "evil.example (on https, an http:// URL of the host) appears in no resource, resource_metadata, Location or body",
	Fix:      "Do not build resource, resource_metadata or redirect URLs from X-Forwarded-Host, X-Forwarded-Proto or Forwarded sent by a client: configure the public URL, or trust those fields only when your own proxy sets them and overwrites the client's. In nginx, proxy_set_header X-Forwarded-Host $host; overwrites it; in Express, leave trust proxy off unless a proxy sits in front.",
	Link:     "https://www.rfc-editor.org/rfc/rfc9728#section-3.3",
	Sessions: 1, run: runDP05}

// forwarded are the fields DP-05 sends, as a client (not a hop) would.
var forwarded = [][2]string{{"X-Forwarded-Host", foreignHost}, {"X-Forwarded-Proto", "http"}, {"Forwarded", "host=" + foreignHost + ";proto=http"}}

func runDP05(t *checkRun) outcome {
	edits := []fieldEdit{drop("Authorization")}
	for _, f := range forwarded {
		edits = append(edits, set(f[0], f[1]))
	}
	req, _ := t.opening(edits...)
	replies := []*reply{t.send(t.openingName()+" without a token, with forwarded headers", req.Bytes(), toResponse, 0)}
	for _, path := range t.p.target.MetadataPaths {
		replies = append(replies, t.send("GET the metadata at "+path+", with forwarded headers", t.metadataRequest(path, forwarded), toEnd, 0))
	}
	steered := []string{foreignHost}
	if t.p.target.Scheme == "https" {
		steered = append(steered, "http://"+t.p.target.Host)
	}
	var faults []string
	answered := 0
	for _, r := range replies {
		if r.resp == nil {
			continue
		}
		answered++
		for _, s := range steered {
			if where := foundIn(r, s); where != "" {
				faults = append(faults, r.step+": "+s+" in "+where)
			}
		}
	}
	switch {
	case len(faults) > 0:
		return t.unmet("the forwarded headers steered the answer: %s", joinAnd(faults)).with("no trace of the forwarded headers", joinAnd(faults))
	case answered == 0:
		return t.errored("no request was answered: %s", replies[0].describe())
	}
	return t.pass("%s, none naming what the forwarded headers said", plural(answered, "answer"))
}

// DP-06: the MCP header fields cross the hop. The names go in lower
// case, as HTTP/2 clients and fetch send them, so a hop matching names
// case-sensitively is caught too. A version served is asked again
// spelled MCP-Protocol-Version: refused then, the hop dropped the lower
// case field; served again, the server ignores it (PV-01's finding).
// The session id goes on a list request: ping may be served without a
// session at all.
var dp06 = Check{asks: askSession, legacyFor: "a session's id and version across the hop", ID: "DP-06", Level: Must, Source: "MCP Transports §Protocol Version, §Session 3; RFC 9110 §5.1", Rule: rule.HeadersCrossHop, Needs: NeedSessions,
	Section: "MCP Transports 2025-11-25 §Protocol Version Header, §Session Management; RFC 9110 §5.1 (names are case-insensitive)", Keyword: "MUST", Binds: Deployment,
	Title:    "MCP headers survive the hop",
	Sends:    "on a session, ping with mcp-protocol-version: 1999-01-01, a list request with an unknown mcp-session-id, and a ping without a token",
	Passes:   "nothing dropped: a hop is blamed only when the field spelled as the spec does gets another answer; a bare 401 is AU-01's, other statuses PV-01's, SE-02's, SE-08's",
	Fix:      "Pass MCP-Protocol-Version, Mcp-Session-Id and Authorization through every hop unchanged, whatever the case of their names. A proxy or API gateway with a header allowlist is the usual cause: add the MCP headers to it.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header",
	Sessions: 1, Opens: 1, run: runDP06}

func runDP06(t *checkRun) outcome {
	s := t.session
	version, _ := t.ping("ping with mcp-protocol-version: 1999-01-01", s, drop("MCP-Protocol-Version"), set("mcp-protocol-version", "1999-01-01"))
	unknown, _ := t.sessionRequest("with an unknown mcp-session-id", s, drop("Mcp-Session-Id"), set("mcp-session-id", forgeID(t.p.sampleID, s.id)))
	for _, r := range []*reply{version, unknown} {
		t.must(r)
	}
	// Only a drop is this check's: an answer the server got wrong with
	// the field in hand is the finding of the check of that rule.
	var faults, notes []string
	switch st := version.status(); {
	case st == 400:
	case is2xx(st):
		// Served: a hop dropped the field, or the server ignores its
		// value. The same value spelled as the spec does tells them apart.
		canonical, _ := t.ping("ping with MCP-Protocol-Version: 1999-01-01", s, set("MCP-Protocol-Version", "1999-01-01"))
		t.must(canonical)
		if is2xx(canonical.status()) {
			notes = append(notes, "the version 1999-01-01 is served however spelled (the server's fault: PV-01)")
		} else {
			faults = append(faults, "the version 1999-01-01 in lower case was served, spelled MCP-Protocol-Version it got "+strconv.Itoa(canonical.status())+": a hop dropped mcp-protocol-version")
		}
	default:
		notes = append(notes, "the version 1999-01-01 got "+strconv.Itoa(st)+" (PV-01 judges the status)")
	}
	switch st := unknown.status(); {
	case st == 404:
	case st == 400:
		// A 400 is what a missing id gets: the id was dropped, or the
		// server answers an unknown id so. The same id spelled as the spec
		// does tells them apart.
		canonical, _ := t.sessionRequest("with the unknown id as Mcp-Session-Id", s, set("Mcp-Session-Id", forgeID(t.p.sampleID, s.id)))
		t.must(canonical)
		if canonical.status() == 400 {
			notes = append(notes, "an unknown session id gets 400 however spelled (the server's own answer: SE-02)")
		} else {
			faults = append(faults, "an unknown session id in lower case got 400, spelled Mcp-Session-Id it got "+strconv.Itoa(canonical.status())+": a hop dropped mcp-session-id")
		}
	default:
		notes = append(notes, "an unknown session id got "+strconv.Itoa(st)+" (SE-02 judges the status)")
	}
	if t.p.auth {
		r, _ := t.ping("ping on the session without a token", s, drop("Authorization"))
		switch hop := hopNamed(r); {
		case r.resp == nil:
			return t.errored("ping without a token %s", r.describe())
		case r.status() == 401 && r.header("WWW-Authenticate") == "" && hop != "":
			// No request tells a challenge the hop dropped from one the
			// server never sent: AU-01 reports the missing challenge once.
			notes = append(notes, "the 401 came through "+hop+" without WWW-Authenticate (AU-01 reports it; the hop may have dropped it)")
		case r.status() == 401 && r.header("WWW-Authenticate") == "":
			notes = append(notes, "the 401 has no WWW-Authenticate and no hop is named in Server or Via: the server's own (AU-01 reports it)")
		case r.status() != 401:
			notes = append(notes, "a request without a token got "+strconv.Itoa(r.status())+" (SE-08 judges the status)")
		}
	} else {
		notes = append(notes, "no token needed: no 401 to carry a challenge")
	}
	switch {
	case len(faults) > 0:
		return t.unmet("%s", joinAnd(faults)).with("the version, the session id and the challenge across the hop", joinAnd(faults))
	case len(notes) > 0:
		return t.pass("nothing dropped; %s", joinAnd(notes))
	}
	return t.pass("400 to the version, 404 to the unknown session, 401 with WWW-Authenticate")
}

// DP-07: a stream's head and first event are not held back. A hop that
// buffers, or compresses event streams, holds them, head included, until
// they end; a stream that ends within the bound cannot be told apart
// from one held to its end. The two streams of a pair are watched at
// once, each on its own session: a server may allow one standalone
// stream per session (the TypeScript SDK answers a second GET 409), and
// the probe's own second stream must not be what it judges.
var dp07 = Check{asks: askSession, legacyFor: "a session's GET stream and the event streams the runner finds on a session", ID: "DP-07", Level: Should, Source: "MCP Transports §Sending 6 (priming event)", Rule: rule.EventsNotHeld, Needs: NeedSSE,
	Section: "MCP Transports 2025-11-25 §Sending Messages to the Server (an event primes the stream at once)", Keyword: "SHOULD", Binds: Deployment,
	Title:    "Events are not held back",
	Sends:    "a GET stream (or a POST answered with SSE) on each of two sessions at once, one with Accept-Encoding: gzip, deflate, br; each watched 5 s",
	Passes:   "head and first bytes within 1 s, the stream still open, no later with the encodings; silent or ended at once skips; a late pair is asked again, and only a second late pair is not met",
	Fix:      "Let event streams through unbuffered and uncompressed: in nginx, proxy_buffering off; (or the upstream sends X-Accel-Buffering: no), and exclude text/event-stream from gzip or brotli at the proxy and in the framework (Express's compression middleware). The server should also send its first event at once.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server",
	Sessions: 2, Opens: 2, long: true, run: runDP07}

// acceptEncodings is what browsers and HTTP client libraries send.
const acceptEncodings = "gzip, deflate, br"

func runDP07(t *checkRun) outcome {
	requests := []func(*session) client.Request{func(s *session) client.Request { return t.request("GET", s, nil) }}
	names := []string{"GET"}
	for _, method := range t.sseCandidates() {
		requests = append(requests, func(s *session) client.Request { body, _ := rpc(method, ""); return t.request("POST", s, body) })
		names = append(names, "POST "+method)
	}
	// A pair with nothing to judge (streams silent, or ended at once)
	// leaves the next request to judge; only when none has anything is
	// the first such pair's skip the verdict.
	var nothing *outcome
	for i, build := range requests {
		plain, encoded := t.watchPair(names[i], build, "")
		switch {
		case plain.r.resp == nil && !errors.Is(plain.r.err, os.ErrDeadlineExceeded):
			return t.errored("%s %s", names[i], plain.r.describe())
		case plain.r.resp == nil:
			// No head for the whole watch is no slow moment: the held
			// head is the finding, whatever the encodings would add.
			return t.judgeHeld(names[i], plain, plain)
		case !is2xx(plain.r.status()) || !plain.r.isSSE():
			continue
		case encoded.r.resp != nil && (!is2xx(encoded.r.status()) || !encoded.r.isSSE()):
			// The same request on the other session was not a stream:
			// nothing to compare the stream with.
			return t.errored("%s answered an event stream on one session and %d %s on the other: the pair cannot be compared", names[i], encoded.r.status(), encoded.r.mediaType())
		}
		first := t.judgePair(names[i], plain, encoded)
		if first.verdict == Skip {
			if nothing == nil {
				nothing = &first
			}
			continue
		}
		if first.verdict != Warn && first.verdict != Fail {
			return first
		}
		// A hop that holds streams holds every one; a single late pair
		// is as likely a slow moment of a loaded server, so it is asked
		// again and only a second late pair is reported.
		plain, encoded = t.watchPair(names[i], build, ", again")
		again := t.judgePair(names[i], plain, encoded)
		if again.verdict == Warn || again.verdict == Fail {
			again.reason = "twice: " + again.reason
		}
		return again
	}
	if nothing != nil {
		return *nothing
	}
	return t.skip("no request was answered as an event stream (tried %s)", joinAnd(names))
}

// watchPair watches the stream build asks for twice at once, on the two
// sessions: as it is, and with the encodings real clients send.
func (t *checkRun) watchPair(name string, build func(*session) client.Request, again string) (plain, encoded streamTiming) {
	return t.watchBoth(name+" without Accept-Encoding"+again, build(t.sessions[0]).Bytes(),
		name+" with Accept-Encoding: "+acceptEncodings+again, edit(build(t.sessions[1]), set("Accept-Encoding", acceptEncodings)).Bytes(), dp07Watch())
}

// judgePair judges the two timings of one stream.
func (t *checkRun) judgePair(name string, plain, encoded streamTiming) outcome {
	if encoded.r.resp == nil && encoded.r.err != nil && plain.state() != streamLate {
		return t.unmet("%s with Accept-Encoding: %s got no head within %s; without, %s", name, acceptEncodings, dp07Watch(), plain).with("a head within "+heldAfter.String(), "no head within "+dp07Watch().String())
	}
	return t.judgeHeld(name, plain, encoded)
}

func (t *checkRun) judgeHeld(name string, plain, encoded streamTiming) outcome {
	p, e := plain.state(), encoded.state()
	switch {
	case plain.r.resp == nil:
		// The very defect this check is for, seen whole: the request
		// went out and nothing came back while the watch lasted.
		return t.unmet("%s: no head within %s: neither a status line nor an event arrived while the request was open: a hop holds the stream, head included (or the server sends nothing until it has an event)", name, dp07Watch()).
			with("the head and first bytes within "+heldAfter.String(), "nothing within "+dp07Watch().String())
	case p == streamLate && plain.head <= t.p.pace+heldAfter:
		// A target that takes a second over every answer sends a
		// stream's head as late: no sign of a hop without a later one.
		return t.skip("%s: %s, no later than the target answers anything (initialize took %s): a slow server, no sign of a hop holding the stream",
			name, plain, t.p.pace.Round(time.Millisecond))
	case p == streamLate:
		return t.unmet("%s: %s: a hop holds the stream", name, plain).with("the head and first bytes within "+heldAfter.String(), plain.String())
	case e == streamLate && encoded.head <= t.p.pace+heldAfter && encoded.first <= t.p.pace+heldAfter:
		// The same allowance for the stream with the encodings: late
		// by no more than the target takes over anything.
		return t.skip("%s with Accept-Encoding: %s: %s, no later than the target answers anything (initialize took %s): a slow server, no sign of a hop holding the stream",
			name, acceptEncodings, encoded, t.p.pace.Round(time.Millisecond))
	case e == streamLate || e == streamSilent && p != streamSilent:
		return t.unmet("%s with Accept-Encoding: %s: %s; without it, %s: a hop compresses event streams and holds them", name, acceptEncodings, encoded, plain).with("no later with the encodings than without", encoded.String())
	case p == streamOnTime || e == streamOnTime:
		return t.pass("%s: %s; with Accept-Encoding: %s, %s", name, plain, acceptEncodings, encoded)
	case p == streamSilent && e == streamSilent:
		return t.skip("%s: the stream sent nothing within %s either way: nothing to judge", name, dp07Watch())
	}
	return t.skip("%s: %s; with the encodings, %s: a stream that ends this soon looks the same whether or not a hop holds it", name, plain, encoded)
}

// DP-08: an idle stream stays open, or ends with retry. A cut is
// reported with the second it came at and the usual suspect; the hold
// outlasts checkTimeout on purpose, so only a cancelled run stops it.
var dp08 = Check{asks: askSession, legacyFor: "a session's idle GET stream, which 2026-07-28 removed", ID: "DP-08", Level: Should, Source: "MCP Transports §Listening 4", Rule: rule.IdleStreamKept, Needs: NeedSlow | NeedSessions | NeedSSE,
	Section: "MCP Transports 2025-11-25 §Listening for Messages (a closed stream carries retry first)", Keyword: "SHOULD", Binds: Deployment,
	Title:    "An idle stream survives",
	Sends:    "with -slow only: one GET stream on a session, held up to 130 s",
	Passes:   "still open at the end, or ended after a retry field; a cut without retry is not met (its second, the usual suspect and the keep-alive intervals reported)",
	Fix:      "Keep idle streams alive past every hop's read timeout with an SSE comment (a line starting with a colon) every 15 to 30 s, or end them with a retry field before a hop would cut them. In nginx, raise proxy_read_timeout above the server's longest silence; the TypeScript SDK's keepAliveMs and mcp-go's WithHeartbeatInterval send keep-alives.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server",
	Sessions: 1, Opens: 1, long: true, run: runDP08}

// idleHold is how long DP-08 holds its stream: past the 100 s of the
// longest common proxy timeout. Tests shorten it.
var idleHold = 130 * time.Second

func runDP08(t *checkRun) outcome {
	s := t.session
	raw := t.request("GET", s, nil).Bytes()
	r := &reply{}
	c := t.p.streamClient()
	defer c.Close()
	start := time.Now()
	var st *client.Stream
	if r.err = c.Send(raw); r.err == nil {
		st, r.err = c.ReadStream(false, start.Add(t.p.timeout()), enough(toHead))
	}
	if st == nil {
		t.record("GET, to hold", raw, r)
		return t.errored("GET %s", r.describe())
	}
	r.resp, r.ended, r.raw = &st.Response, st.Ended, st.Raw
	switch {
	case r.status() == 405:
		t.record("GET, to hold", raw, r)
		return t.skip("GET answered 405: the server offers no stream to hold")
	case !is2xx(r.status()) || !r.isSSE():
		t.record("GET, to hold", raw, r)
		return t.errored("GET %s", r.describe())
	}
	// Read what comes, noting when each piece arrives, until the stream
	// ends or breaks or the hold is over. Only a cancelled run stops it
	// early: the hold outlasts checkTimeout on purpose.
	var arrivals []time.Duration
	seen := len(st.Response.Body)
	if seen > 0 {
		arrivals = append(arrivals, time.Since(start))
	}
	end := start.Add(idleHold)
	for !st.Ended && r.err == nil && time.Now().Before(end) && t.ctx.Err() == nil {
		r.err = st.More(minTime(end, time.Now().Add(time.Second)), func(body []byte) bool { return len(body) > seen })
		if len(st.Response.Body) > seen {
			seen = len(st.Response.Body)
			arrivals = append(arrivals, time.Since(start))
		}
	}
	held := time.Since(start)
	r.resp, r.ended, r.raw, r.elapsed = &st.Response, st.Ended, st.Raw, held
	t.record("GET, held up to "+idleHold.String(), raw, r)
	cut := st.Ended || r.err != nil
	note := "! " + describeArrivals(arrivals)
	if cut {
		note += "; the stream ended after " + held.Round(time.Second).String()
	}
	t.exchanges[r.index].Response += "\n" + note
	t.traceNote(note)
	retry := 0
	for _, ev := range client.Events(st.Response.Body) {
		if ev.Retry > 0 {
			retry = ev.Retry
		}
	}
	switch {
	case !cut && t.ctx.Err() != nil:
		return t.errored("the run was cancelled after %s", held.Round(time.Second))
	case !cut:
		return t.pass("still open after %s; %s", held.Round(time.Second), describeArrivals(arrivals))
	case retry > 0:
		return t.pass("ended after %s with retry: %d ms: the client is told when to come back", held.Round(100*time.Millisecond), retry)
	}
	second := int(held.Round(time.Second) / time.Second)
	return t.unmet("cut after %d s without retry%s; %s", second, suspect(second), describeArrivals(arrivals)).with("open for "+idleHold.String()+", or ended with retry", "cut after "+strconv.Itoa(second)+" s without retry")
}

// DP-09: every request of a session reaches a server that knows it.
var dp09 = Check{asks: askSession, legacyFor: "a session's affinity to one replica, which stateless 2026-07-28 needs none of", ID: "DP-09", Level: Should, Source: "interoperability", Rule: rule.SessionAffinity, Needs: NeedSessions,
	Section: "interoperability (each request of a session reaches the replica that holds it)", Keyword: "", Binds: Deployment,
	Title:    "A session sticks",
	Sends:    "8 pings on one session, one after another, each on a fresh connection",
	Passes:   "all 8 served; a 404 or 400 among them means replicas without affinity or a shared session store",
	Fix:      "Send every request of a session to the replica that holds it, by stickiness on Mcp-Session-Id at the load balancer (nginx: hash $http_mcp_session_id consistent; in the upstream block), or keep sessions in a store every replica shares. A round-robin balancer in front of in-memory sessions answers 404 or 400 to a session's later requests.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management",
	Sessions: 1, Opens: 1, run: runDP09}

// dp09Requests is how many requests DP-09 sends on its session: enough
// that a balancer spreading them over two replicas is caught all but
// surely (1 in 128 falls on one replica by chance).
const dp09Requests = 8

func runDP09(t *checkRun) outcome {
	s := t.session
	var lost []string
	for i := range dp09Requests {
		r, id := t.ping("ping "+strconv.Itoa(i+1)+" of "+strconv.Itoa(dp09Requests)+", a fresh connection", s)
		t.must(r)
		if !r.isResult(id) {
			lost = append(lost, "ping "+strconv.Itoa(i+1)+" "+r.describe())
		}
	}
	if len(lost) > 0 {
		return t.unmet("%d of %d requests on one session were not served: %s: replicas without affinity or a shared session store", len(lost), dp09Requests, joinAnd(lost)).with(strconv.Itoa(dp09Requests)+" results", joinAnd(lost))
	}
	return t.pass("all %d requests on one session served, each on a fresh connection", dp09Requests)
}

// DP-10: event streams tell proxies not to buffer or cache them. nginx
// strips X-Accel-Buffering, so its absence behind nginx (by Server or
// Via) is only info. It runs after the concurrent checks and reads their
// SSE answers too.
var dp10 = Check{asks: askEither, ID: "DP-10", Level: Hardening, Source: "MCP 2026-07-28 Transports; RFC 9111", Rule: rule.StreamNotBuffered,
	Section: "MCP 2026-07-28 Transports (X-Accel-Buffering: no); RFC 9111 §5.2.2 (no-store)", Keyword: "SHOULD", Binds: Deployment,
	Title:    "Streams tell proxies not to buffer or cache",
	Sends:    "a GET stream and the list methods and ping on a session (2026-07-28 only: a subscriptions/listen stream, the list methods and server/discover); reads every SSE answer of the run",
	Passes:   "each has X-Accel-Buffering: no, Cache-Control no-cache or no-store, and no Age or cache HIT marker; none in the run skips",
	Fix:      "Send X-Accel-Buffering: no and Cache-Control: no-cache (or no-store) on every text/event-stream answer, and keep caches off the MCP path. The TypeScript SDK v2 sets X-Accel-Buffering; with the Go SDK or mcp-go, set both in a middleware that wraps the handler.",
	Link:     "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#receiving-messages",
	Sessions: 1, Opens: 1, phase: phaseScan, run: runDP10}

func runDP10(t *checkRun) outcome {
	if !t.p.modernOnly() {
		t.send("GET, for an event stream", t.request("GET", t.session, nil).Bytes(), toFirstEvent, getWindow)
	} else if raw, what := t.modernStreamToAbort(); strings.HasPrefix(what, "subscriptions/listen") {
		// 2026-07-28 has no GET stream: a subscription is its long one.
		t.send("subscriptions/listen, for an event stream", raw, toFirstEvent, getWindow)
	}
	for _, method := range t.sseCandidates() {
		body, _ := rpc(method, t.plainParams(""))
		t.send(method+", hoping for an event stream", t.rpcRequest(method, body).Bytes(), toResponse, 0)
	}
	faults := map[string][]string{} // fault → the checks whose answers had it
	var order, nginx []string
	judged := 0
	judge := func(check string, exchanges []Exchange) {
		for _, x := range exchanges {
			if x.resp == nil || !is2xx(x.resp.Status) || !isSSEResponse(x) {
				continue
			}
			judged++
			fault, behindNginx := bufferingFault(x)
			switch {
			case fault != "":
				if _, ok := faults[fault]; !ok {
					order = append(order, fault)
				}
				faults[fault] = appendOnce(faults[fault], check)
			case behindNginx:
				nginx = appendOnce(nginx, check)
			}
		}
	}
	for _, res := range t.p.earlier() {
		judge(res.Check.ID, res.Exchanges)
	}
	judge(t.check.ID, t.exchanges)
	switch {
	case len(order) > 0:
		var parts []string
		for _, fault := range order[:min(len(order), 3)] {
			parts = append(parts, fault+" (in "+strings.Join(faults[fault], ", ")+")")
		}
		return t.unmet("SSE answers a proxy may buffer or cache: %s", joinAnd(parts)).with("X-Accel-Buffering: no, Cache-Control no-cache or no-store, not from a cache", joinAnd(parts))
	case judged == 0:
		return t.skip("no SSE answer in the run: nothing to judge")
	case len(nginx) > 0:
		return t.info("%s, each with Cache-Control no-cache or no-store and no cache hit; X-Accel-Buffering: no is missing behind nginx (%s), which strips it", plural(judged, "SSE answer"), joinAnd(nginx))
	}
	return t.pass("%s, each with X-Accel-Buffering: no and Cache-Control no-cache or no-store, none from a cache", plural(judged, "SSE answer"))
}

// DP-11: the hop names no version of its software. HTML error bodies
// are counted in the reason only: EH-02 judges them.
var dp11 = Check{ID: "DP-11", Level: Hardening, Source: "OWASP ASVS V14.3", Rule: rule.NoVersionBanner,
	Section: "OWASP ASVS V14.3", Keyword: "", Binds: Profile,
	Title:    "The hop hides its version",
	Sends:    "PUT and GET of a missing path; reads every answer of the run, LF's and MM's error answers among them",
	Passes:   "no Server or X-Powered-By with a version number (nginx/1.22.1)",
	Fix:      "Keep version numbers out of Server and X-Powered-By on every answer, error pages included: nginx server_tokens off;, Apache ServerTokens Prod, and no versioned Server header set by the application. Caddy and HAProxy name no version by default.",
	Link:     "https://github.com/OWASP/ASVS/blob/v4.0.3_release/4.0/en/0x22-V14-Config.md#v143-unintended-security-disclosure",
	Sessions: 0, phase: phaseScan, run: runDP11}

// versionNumber finds a version in a product token: "nginx/1.22.1",
// "Apache/2.4", "PHP 8.2.1".
var versionNumber = regexp.MustCompile(`[/ ]v?[0-9]+(\.[0-9]+)*|[0-9]+\.[0-9]+`)

func runDP11(t *checkRun) outcome {
	t.send("PUT", t.request("PUT", nil, []byte("{}")).Bytes(), toHead, 0)
	missing := "GET /rawmcp-probe-missing HTTP/1.1\r\nHost: " + t.p.target.Host + "\r\n\r\n"
	t.send("GET a path that does not exist", []byte(missing), toEnd, 0)
	banners := map[string][]string{} // "Server: nginx/1.22.1" → checks
	var order []string
	answers, html := 0, 0
	scan := func(check string, exchanges []Exchange) {
		for _, x := range exchanges {
			if x.resp == nil {
				continue
			}
			answers++
			if x.resp.Status >= 400 && sniffable(x) == "is HTML" {
				html++
			}
			for _, name := range []string{"Server", "X-Powered-By"} {
				for _, v := range x.resp.Values(name) {
					if versionNumber.MatchString(v) {
						key := name + ": " + quoteInfo(v)
						if _, ok := banners[key]; !ok {
							order = append(order, key)
						}
						banners[key] = appendOnce(banners[key], check)
					}
				}
			}
		}
	}
	for _, res := range t.p.earlier() {
		scan(res.Check.ID, res.Exchanges)
	}
	scan(t.check.ID, t.exchanges)
	htmlNote := ""
	if html > 0 {
		htmlNote = "; " + plural(html, "error answer") + " HTML (EH-02 judges them)"
	}
	if len(order) > 0 {
		var parts []string
		for _, key := range order[:min(len(order), 3)] {
			parts = append(parts, key+" (in "+strings.Join(banners[key][:min(len(banners[key]), 3)], ", ")+")")
		}
		return t.unmet("answers name a version: %s%s", joinAnd(parts), htmlNote).with("no version in Server or X-Powered-By", joinAnd(parts))
	}
	return t.pass("%s, none naming a version in Server or X-Powered-By%s", plural(answers, "answer"), htmlNote)
}

// DP-12: a browser client on the own origin can use its session; no
// other origin gets CORS. Fetch's * covers no authorization header. The
// preflight asks for what such a client of this server sends: the
// headers every client sends, Last-Event-ID where the server sends event
// ids (a client resumes with it), and Mcp-Method and Mcp-Name where it
// speaks 2026-07-28.
var dp12 = Check{asks: askEither, ID: "DP-12", Level: Should, Source: "interoperability (browser clients)", Rule: rule.CORSForOwnOrigin,
	Section: "interoperability (browser clients; the Fetch standard's CORS)", Keyword: "", Binds: Deployment,
	Title:    "A browser client can keep its session",
	Sends:    "initialize (server/discover on 2026-07-28 only) from the own origin, a GET for event ids; preflights from http://evil.example and the own origin for its clients' headers",
	Passes:   "no CORS for the foreign origin; CORS for the own allows those and exposes Mcp-Session-Id; no CORS at all is info",
	Fix:      "Answer CORS only for origins you serve: no Access-Control-Allow-Origin (never a wildcard) to a foreign origin, and to your own, allow the Authorization, Content-Type, Mcp-Session-Id and MCP-Protocol-Version request headers (Last-Event-ID where the server sends event ids, Mcp-Method and Mcp-Name where it speaks 2026-07-28) and expose Mcp-Session-Id with Access-Control-Expose-Headers. In Express that is the cors package with an origin list; mcp-go has WithStreamableHTTPCORS.",
	Link:     "https://fetch.spec.whatwg.org/#http-cors-protocol",
	Sessions: 1, run: runDP12}

// preflightHeaders are the request headers every browser MCP client
// sends; eventIDHeaders those of a client of a server that sends event
// ids, modernHeaders those of a 2026-07-28 client.
var (
	preflightHeaders = []string{"authorization", "content-type", "mcp-session-id", "mcp-protocol-version"}
	eventIDHeaders   = []string{"last-event-id"}
	modernHeaders    = []string{"mcp-method", "mcp-name"}
)

func runDP12(t *checkRun) outcome {
	own := t.p.target.origin()
	req, _ := t.opening(set("Origin", own))
	init := t.send(t.openingName()+" from the own origin", req.Bytes(), toResponse, 0)
	ids := sendsEventIDs(init)
	if id := init.header("Mcp-Session-Id"); id != "" && is2xx(init.status()) && !ids {
		s := t.issued(init, t.p.authorization())
		t.initialized(s)
		get := t.send("GET the session's stream from the own origin, for its event ids", edit(t.request("GET", s, nil), set("Origin", own)).Bytes(), toFirstEvent, getWindow)
		ids = sendsEventIDs(get)
	}
	headers := slices.Clone(preflightHeaders)
	if ids {
		headers = append(headers, eventIDHeaders...)
	}
	if t.p.modern {
		headers = append(headers, modernHeaders...)
	}
	preflight := func(origin string) *reply {
		req := client.Request{Method: "OPTIONS", Path: t.p.target.Path, Header: [][2]string{{"Host", t.p.target.Host}, {"Origin", origin},
			{"Access-Control-Request-Method", "POST"}, {"Access-Control-Request-Headers", strings.Join(headers, ", ")}}}
		return t.send("OPTIONS preflight from "+origin, req.Bytes(), toEnd, 0)
	}
	foreign := preflight(foreignOrigin)
	ownPreflight := preflight(own)
	for _, r := range []*reply{foreign, ownPreflight} {
		if r.resp == nil {
			return t.errored("%s: %s", r.step, r.describe())
		}
	}
	if acao := foreign.header("Access-Control-Allow-Origin"); acao != "" {
		return t.unmet("the preflight from %s got Access-Control-Allow-Origin: %s: any page may drive the server from a browser", foreignOrigin, quoteInfo(acao)).with("no Access-Control-Allow-Origin for "+foreignOrigin, "Access-Control-Allow-Origin: "+quoteInfo(acao))
	}
	if ownPreflight.header("Access-Control-Allow-Origin") == "" {
		return t.info("no CORS for any origin (the preflights answered %d and %d): only same-origin pages can be clients", foreign.status(), ownPreflight.status())
	}
	allowed := map[string]bool{}
	star := false
	for _, v := range ownPreflight.resp.Values("Access-Control-Allow-Headers") {
		for _, h := range strings.Split(v, ",") {
			h = strings.ToLower(strings.TrimSpace(h))
			allowed[h], star = true, star || h == "*"
		}
	}
	var missing []string
	for _, h := range headers {
		// Fetch: * stands for any name but authorization.
		if !allowed[h] && (!star || h == "authorization") {
			missing = append(missing, h)
		}
	}
	if len(missing) > 0 {
		return t.unmet("the own origin's preflight does not allow %s", joinAnd(missing)).with("Access-Control-Allow-Headers listing "+strings.Join(headers, ", "), "not allowed: "+joinAnd(missing))
	}
	t.must(init)
	exposed := false
	for _, v := range init.resp.Values("Access-Control-Expose-Headers") {
		for _, h := range strings.Split(v, ",") {
			h = strings.TrimSpace(h)
			exposed = exposed || strings.EqualFold(h, "Mcp-Session-Id") || h == "*"
		}
	}
	if init.header("Mcp-Session-Id") != "" && !exposed {
		return t.unmet("initialize from the own origin issues Mcp-Session-Id without Access-Control-Expose-Headers naming it: a browser client cannot read its session id").with("Access-Control-Expose-Headers naming Mcp-Session-Id", "Mcp-Session-Id not exposed")
	}
	return t.pass("no CORS for %s; the own origin's preflight allows %s and Mcp-Session-Id is exposed", foreignOrigin, strings.Join(headers, ", "))
}

// sendsEventIDs reports an event stream answer with an event id.
func sendsEventIDs(r *reply) bool {
	for _, ev := range r.events() {
		if ev.ID != "" {
			return true
		}
	}
	return false
}
