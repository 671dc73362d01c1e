package probe

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"rawmcp/wire/rule"
)

// preGroup is the PRE group: each check is declared right above its run
// function; a check is in the catalogue when it is in this list.
var preGroup = group{Group{"PRE", "Preflight"}, eraBoundary, []*Check{&pre01, &pre02, &pre03}}

// PRE-01: the endpoint speaks MCP, in either era: it asks both ways, a
// 2025-11-25 initialize and a 2026-07-28 server/discover, and the run
// records which it found (Report.Revisions; NeedLegacy, NeedModern). It
// also learns what the other checks build on: the negotiated version,
// whether sessions are issued, whether a request without a token is
// refused, and which list methods the server declares.
var pre01 = Check{ID: "PRE-01", Level: Must, Source: "MCP Lifecycle §Initialization; MCP 2026-07-28 §server/discover", Rule: rule.InitializeResultShape,
	Section: "MCP Lifecycle 2025-11-25 §Initialization", Keyword: "MUST", Binds: Server,
	Title:    "The endpoint speaks MCP",
	Sends:    "initialize and server/discover (with -token if given), and with -token each again without one",
	Passes:   "an InitializeResult (protocolVersion, capabilities, serverInfo{name, version}) or a discover result listing 2026-07-28; neither stops the run (exit 4)",
	Fix:      "Serve the MCP endpoint at the URL you probe (often /mcp) and answer initialize with an InitializeResult carrying protocolVersion, capabilities and serverInfo, or a 2026-07-28 server/discover with its result. A 404 or an HTML page usually means the SDK's handler is mounted at another path of the web framework's router; a 401 to the token you gave means the server does not accept it.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization",
	Sessions: 2, phase: phasePreflight, run: runPRE01}

func runPRE01(t *checkRun) outcome {
	p := t.p
	req, id := t.initialize()
	r := t.send("initialize", req.Bytes(), toResponse, 0)
	switch {
	case r.resp == nil:
		return t.errored("no MCP endpoint at %s: initialize %s", p.target.URL, r.describe())
	case r.status() >= 300 && r.status() < 400:
		return t.errored("%s", p.redirect(r)).with("an answer at the URL itself", r.actual())
	case r.status() == 401 && p.opts.Token != "":
		return t.errored("the token was refused: initialize answered 401")
	case r.status() == 401:
		return t.withoutToken(r)
	}
	p.pace = r.elapsed
	info, caps, legacyFault := initializeResult(r, id)
	p.legacy = legacyFault == ""
	disc, listed := t.discover("server/discover (MCP " + modernVersion + ")")
	p.modern, p.listed = slices.Contains(listed, modernVersion), listed
	switch {
	case !p.legacy && !p.modern && (r.status() == 403 || r.status() == 421):
		return t.errored("%s", t.hostRefused(r)).with("an InitializeResult", r.actual())
	case !p.legacy && !p.modern && r.mediaType() == "text/html":
		return t.errored("no MCP endpoint at %s: initialize answered %d with an HTML page (a web site, a login or a router's error page; is the path right?)", p.target.URL, r.status()).with("an InitializeResult", r.actual()+" text/html")
	case !p.legacy && !p.modern && !r.isResult(id):
		return t.errored("no MCP endpoint at %s: initialize %s, not an InitializeResult; server/discover %s", p.target.URL, r.describe(), disc.describe())
	case !p.legacy && !p.modern:
		return t.errored("%s; server/discover %s", legacyFault, disc.describe())
	}

	if p.legacy {
		p.version, p.server, p.sampleID = info.protocol, info.raw, r.header("Mcp-Session-Id")
		for _, kind := range []string{"resources", "tools", "prompts"} {
			if _, ok := caps[kind]; ok {
				p.listMethods = append(p.listMethods, kind+"/list")
			}
		}
		t.initialized(t.issued(r, p.authorization()))
	} else {
		p.version, p.server = modernVersion, serverInfoOf(disc)
		caps := capabilitiesOf(disc)
		for _, kind := range []string{"resources", "tools", "prompts"} {
			if _, ok := caps[kind]; ok {
				p.listMethods = append(p.listMethods, kind+"/list")
			}
		}
	}

	// Does the target refuse a request without a token? The checks that
	// need authorization skip on a target that serves without one.
	p.auth = false
	if p.opts.Token != "" {
		if p.legacy {
			bare, id := t.initialize(drop("Authorization"))
			p.auth = !t.send("initialize without a token", bare.Bytes(), toResponse, 0).isResult(id)
		} else {
			_, listed := t.discover("server/discover without a token", drop("Authorization"))
			p.auth = !slices.Contains(listed, modernVersion)
		}
	}
	sessions := "issues session ids"
	if p.sampleID == "" {
		sessions = "issues no session ids"
	}
	auth := "refuses requests without a token"
	if !p.auth {
		auth = "serves requests without a token"
	}
	switch {
	case p.legacy && p.modern:
		return t.pass("%s %s speaks MCP %s (initialize) and %s (server/discover); it %s and %s", quoteInfo(info.name), quoteInfo(info.version), p.version, modernVersion, sessions, auth)
	case p.legacy:
		return t.pass("%s %s speaks MCP %s; server/discover %s; it %s and %s", quoteInfo(info.name), quoteInfo(info.version), p.version, disc.describe(), sessions, auth)
	}
	return t.pass("the target speaks MCP %s only (server/discover; initialize %s); it %s", modernVersion, r.describe(), auth)
}

// withoutToken is PRE-01 on a target that answered initialize 401 to a
// run without -token: the run goes on, judging what needs no token (Host,
// Origin, methods, framing, the 401 and its challenge, the metadata);
// what needs a session or the token skips with "needs -token". The
// target's revision stays unknown, so it is held to 2025-11-25's rules.
func (t *checkRun) withoutToken(r *reply) outcome {
	p := t.p
	p.pace, p.auth, p.tokenless, p.legacy = r.elapsed, true, true, true
	_, listed := t.discover("server/discover (MCP "+modernVersion+")", drop("Authorization"))
	p.modern = slices.Contains(listed, modernVersion)
	return t.pass("the target requires a token (initialize answered 401): without -token the run judges what needs none, by 2025-11-25's rules (the revision it negotiates is unknown); the rest skips with %q", needsToken)
}

// PRE-03: the target answers to the end of the run. The runner watches
// every exchange: a connection refused, reset or closed with no answer
// makes it ask the target itself, and when that gets no answer either,
// the target has stopped answering (halt.go). PRE-03 runs last of all,
// asks once more, and reports the death once, naming the last request
// answered and the first that was not: a request that stops the server
// is a finding of its own, since anyone who can send it can stop it.
var pre03 = Check{ID: "PRE-03", Level: Must, Source: "JSON-RPC 2.0 §5 (a call gets a response); MCP Basic §Responses",
	Section: "MCP Basic 2025-11-25 §Responses", Keyword: "MUST", Binds: Server,
	Title:    "No request stops the server",
	Fix:      "A request made the server stop answering: find the crash in its log at the time of the request named in the reason (an exception in a handler or a middleware, such as the Origin or Host check, that ends the process instead of answering an error), and answer that request with an error status. A supervisor that restarts the process hides the crash, not the outage.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic#responses",
	Sends:    "after every other check, what PRE-01 sent (initialize, or server/discover), to see the target still answers",
	Passes:   "every request of the run answered; a target that stopped answering fails, naming the last request answered and the first that was not",
	Sessions: 1, phase: phaseLast, run: runPRE03}

func runPRE03(t *checkRun) outcome {
	p := t.p
	if p.deathRecord() == nil {
		p.answering(t.ctx, time.Now(), t.check.ID, "the run's last request, what PRE-01 sent", "")
	}
	d := p.deathRecord()
	if d == nil {
		return t.pass("the target answered to the end of the run")
	}
	return t.unmet("%s: a request can stop the server", d).
		with("an answer to every request", "none after "+d.last.check+"'s \""+d.last.step+"\"")
}

// serverInfo is an InitializeResult's serverInfo.
type serverInfo struct {
	name, version string          // serverInfo's
	protocol      string          // the negotiated protocolVersion
	raw           json.RawMessage // serverInfo as sent
}

// initializeResult reads an InitializeResult for id: its serverInfo and
// capabilities, or why the answer is none ("" when it is one).
func initializeResult(r *reply, id int64) (info serverInfo, caps map[string]json.RawMessage, fault string) {
	if !r.isResult(id) {
		return info, nil, "initialize " + r.describe() + ", not an InitializeResult"
	}
	m, _ := r.response(id)
	var result struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
	}
	var named struct {
		Name    *string `json:"name"`
		Version *string `json:"version"`
	}
	if json.Unmarshal(m.Result, &result) != nil || !visibleASCII(result.ProtocolVersion) ||
		json.Unmarshal(result.Capabilities, &caps) != nil || caps == nil ||
		json.Unmarshal(result.ServerInfo, &named) != nil || named.Name == nil || named.Version == nil {
		return info, nil, "initialize answered a result without protocolVersion, capabilities and serverInfo{name, version} (Lifecycle §1.1): not an InitializeResult"
	}
	return serverInfo{name: *named.Name, version: *named.Version, protocol: result.ProtocolVersion, raw: result.ServerInfo}, caps, ""
}

// quoteInfo bounds a server-chosen string for a reason line.
func quoteInfo(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// PRE-02: session ids are well formed (MUST) and unguessable (hardening).
var pre02 = Check{asks: askSession, legacyFor: "its session ids, of which 2026-07-28 has none (V2-22 judges that none is minted)", ID: "PRE-02", Level: Must, Source: "MCP Transports §Session 1; OWASP ASVS V3.2.2 (H)", Rule: rule.SessionIDVisibleASCII, Needs: NeedSessions,
	Section: "MCP Transports 2025-11-25 §Session Management", Keyword: "MUST", Binds: Server,
	Title:    "Session ids are well formed and unguessable",
	Sends:    "six initializes, one at a time, each session deleted at once",
	Passes:   "every id is visible ASCII 0x21-0x7E (MUST); the ids differ, do not count up, and vary in at least 64 bits (H)",
	Fix:      "Generate session ids from a cryptographic random source (a random UUID, or 128 random bits in hex or base64url), using only visible ASCII. The SDKs' defaults do; a custom generator (the TypeScript SDK's sessionIdGenerator, the Go SDK's ServerOptions.GetSessionID) that counts, uses the time or a short random number is the usual cause.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management",
	Sessions: 1, run: runPRE02}

func runPRE02(t *checkRun) outcome {
	var ids []string
	for range idSamples {
		s, o := t.open(t.p.authorization(), true)
		if o != nil {
			if len(ids) >= 2 {
				break
			}
			return *o
		}
		if s.id == "" {
			return t.errored("an initialize issued no session id")
		}
		ids = append(ids, s.id)
		t.end(s)
	}
	a := analyzeIDs(ids)
	switch {
	case a.badID >= 0:
		return t.unmet("session id %d holds byte 0x%02x at offset %d: only visible ASCII 0x21-0x7E is allowed (Transports §2.5 item 1)",
			a.badID+1, a.badByte, a.badOffset).with("visible ASCII 0x21-0x7E", fmt.Sprintf("byte 0x%02x", a.badByte))
	case a.duplicate:
		return t.unmetAt(Hardening, "two of %d session ids were equal", len(ids)).with("distinct ids", "two equal")
	case a.sequence:
		return t.unmetAt(Hardening, "the %d session ids count up as numbers: the next one can be guessed", len(ids)).with("ids that do not count up", "ids counting up")
	case a.bits < minEntropyBits:
		return t.unmetAt(Hardening, "the %d session ids vary in %d of %d characters of a %s alphabet: about %.0f bits, below %d (OWASP ASVS V3.2.2)",
			len(ids), a.varying, a.length, a.alphabet, a.bits, minEntropyBits).
			with(fmt.Sprintf("at least %d bits", minEntropyBits), fmt.Sprintf("about %.0f bits", a.bits))
	}
	return t.pass("%d session ids of %d %s characters vary in %d: about %.0f bits", len(ids), a.length, a.alphabet, a.varying, a.bits)
}

// idSamples is how many sessions PRE-02 opens (one at a time, each
// deleted at once): enough for a character that never varies to stand
// out, few enough for a small session table.
const idSamples = 6

// minEntropyBits is OWASP ASVS V3.2.2's floor for session tokens.
const minEntropyBits = 64

// hostRefused says why initialize got 403 or 421 (Misdirected Request):
// most often a DNS-rebinding allowlist of Host names that does not hold
// the URL's (localhost:PORT, when the URL says 127.0.0.1:PORT). It asks
// once more with the other loopback name, and says which name the server
// took, or that neither was, with the first line of what it answered.
func (t *checkRun) hostRefused(r *reply) string {
	said := firstLine(r)
	if said != "" {
		said = ` (it said "` + said + `")`
	}
	why := fmt.Sprintf("initialize answered %d for Host: %s%s: the server may serve only other Host names (a DNS-rebinding allowlist)", r.status(), t.p.target.Host, said)
	other := otherLoopbackName(t.p.target.Host)
	if other == "" {
		return why + ", or refuse this client for another reason"
	}
	req, id := t.initialize(set("Host", other))
	retry := t.send("initialize with Host: "+other, req.Bytes(), toResponse, 0)
	if retry.isResult(id) {
		return fmt.Sprintf("%s: with Host: %s it was served; probe %s://%s%s instead", why, other, t.p.target.Scheme, other, t.p.target.Path)
	}
	return fmt.Sprintf("%s; Host: %s %s too", why, other, retry.describe())
}

// otherLoopbackName is the Host value naming the same loopback listener
// the other way (localhost for 127.0.0.1, and back), "" for a host that
// is not one of the two.
func otherLoopbackName(host string) string {
	// Neither name holds a colon, so the first one ends the name; an
	// IPv6 literal ("[::1]:PORT") matches neither and gets "".
	name, port, hasPort := strings.Cut(host, ":")
	switch strings.ToLower(name) {
	case "127.0.0.1":
		name = "localhost"
	case "localhost":
		name = "127.0.0.1"
	default:
		return ""
	}
	if !hasPort {
		return name
	}
	return name + ":" + port
}

// firstLine is the start of an answer's body, printable and short: what
// the server said of a refusal (a JSON-RPC error's message, or the first
// line of its text), for a reason; never more than 80 bytes.
func firstLine(r *reply) string {
	if r.resp == nil {
		return ""
	}
	for _, m := range r.messages() {
		if m.Error != nil {
			return cut(m.Error.Message, 80)
		}
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(r.resp.Body)), "\n")
	if !visibleText(line) {
		return ""
	}
	return cut(line, 80)
}

// visibleText reports a line of printable ASCII and spaces.
func visibleText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return s != ""
}
