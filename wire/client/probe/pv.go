package probe

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"rawmcp/wire/rule"
)

// pvGroup is the PV group: each check is declared right above its run
// function; a check is in the catalogue when it is in this list.
var pvGroup = group{Group{"PV", "Protocol version"}, eraLegacy, []*Check{&pv01, &pv02, &pv03, &pv04, &pv05, &pv06}}

// versionRefused judges r, a request carrying a version the target cannot
// speak, which must be answered 400 (Transports §2.7), against control,
// the same request with the negotiated version.
func (t *checkRun) versionRefused(r, control *reply, version string) outcome {
	t.must(r)
	if o := t.refusalEnded(r, control, "MCP-Protocol-Version: "+version); o != nil {
		return *o
	}
	switch {
	case r.status() == 400 && refusedForVersion(r, control):
		return t.pass("answered 400; the same request with MCP-Protocol-Version: %s %s", t.p.version, control.describe())
	case r.status() == 400:
		return t.errored("%s, but the same request with MCP-Protocol-Version: %s %s too: the refusal is for another cause, not shown to be the version's",
			r.describe(), t.p.version, control.describe()).with("400 for the version alone", r.actual()+"; with the negotiated version "+control.actual())
	case is2xx(r.status()):
		return t.unmet("%s for MCP-Protocol-Version: %s", r.describe(), version).with("400", r.actual()+" for MCP-Protocol-Version: "+version)
	}
	return t.unmet("answered %d, not 400, for MCP-Protocol-Version: %s", r.status(), version).with("400", r.actual()+" for MCP-Protocol-Version: "+version)
}

// refusalEnded is the outcome of a refusal that ended the session it was
// refused on: the same request with the negotiated version, sent next on
// that session, got 404, the answer to a session that is gone. A refused
// request must leave the session as it was, or one wrong header from any
// client ends it; nil when the control shows the session alive.
func (t *checkRun) refusalEnded(r, control *reply, what string) *outcome {
	if t.session == nil || t.session.id == "" || is2xx(r.status()) || control.status() != 404 || r.status() == 404 {
		// A 404 to both is one answer, the session's or a router's.
		return nil
	}
	o := t.unmet("answered %d for %s and ended the session: the same request with the negotiated version then got 404; a refused request must leave the session as it was", r.status(), what).
		with("a refusal that leaves the session alive", r.actual()+", then 404 on the session")
	return &o
}

// refusedForVersion reports whether a 400 to a request with a bad version
// is the version's refusal: the answer names the version, or the control
// request, which differs only in the version, was answered otherwise. A
// 400 for another cause (a JSON-RPC -32602 for a missing field) comes to
// the control too, and says nothing of how the version was read.
func refusedForVersion(r, control *reply) bool {
	return namesVersion(r) || (control.resp != nil && control.status() != r.status())
}

// namesVersion reports an error answer whose JSON-RPC message speaks of
// the protocol version (the TypeScript SDK's "Unsupported protocol
// version"), or that is the 2026-07-28 revision's -32022.
func namesVersion(r *reply) bool {
	for _, m := range r.messages() {
		if m.Error != nil && (m.Error.Code == -32022 || strings.Contains(strings.ToLower(m.Error.Message), "version")) {
			return true
		}
	}
	return false
}

// PV-01: a version older than any MCP revision.
var pv01 = Check{ID: "PV-01", Level: Must, Source: "MCP Transports §Protocol version header", Rule: rule.VersionUnsupported, Since: "2025-06-18",
	Section: "MCP Transports 2025-11-25 §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Title:    "A past version refused",
	Sends:    "a ping on a live session with MCP-Protocol-Version: 1999-01-01, and the same ping with the negotiated version as a control",
	Passes:   "400 while the control is served (or the 400 names the version)",
	Fix:      "Compare MCP-Protocol-Version with the versions the server supports on every request after initialize and answer 400 to any other, an older known version included. SDK transports check it; a proxy or middleware that rewrites or drops the header defeats the check.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header",
	Sessions: 1, Opens: 1, run: runPV01}

func runPV01(t *checkRun) outcome {
	return t.badVersion("1999-01-01")
}

// PV-03: a value that is no date at all.
var pv03 = Check{ID: "PV-03", Level: Must, Source: "MCP Transports §Protocol version header", Rule: rule.VersionUnsupported, Since: "2025-06-18",
	Section: "MCP Transports 2025-11-25 §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Title:    "A malformed version refused",
	Sends:    "a ping on a live session with MCP-Protocol-Version: garbage, and the same ping with the negotiated version as a control",
	Passes:   "400 while the control is served (or the 400 names the version)",
	Fix:      "Answer 400 to an MCP-Protocol-Version that is not one of the versions the server supports, malformed values included, rather than falling back to a default. The check belongs where the SDK's transport reads the header, or in a middleware in front of it.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header",
	Sessions: 1, Opens: 1, run: runPV03}

func runPV03(t *checkRun) outcome {
	return t.badVersion("garbage")
}

func (t *checkRun) badVersion(version string) outcome {
	s := t.session
	r, _ := t.ping("ping with MCP-Protocol-Version: "+version, s, set("MCP-Protocol-Version", version))
	control, _ := t.ping("control: the same ping with the negotiated version", s)
	return t.versionRefused(r, control, version)
}

// PV-02: a version later than any, on every method: a server comparing
// version strings with >= would let it through.
var pv02 = Check{ID: "PV-02", Level: Must, Source: "MCP Transports §Protocol version header", Rule: rule.VersionUnsupported, Since: "2025-06-18",
	Section: "MCP Transports 2025-11-25 §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Title:    "A future version refused on every method",
	Sends:    "POST (ping), GET and DELETE on a live session with MCP-Protocol-Version: 9999-01-01, each also with the negotiated version as a control",
	Passes:   "400 to each whose control is served; a GET or DELETE answered alike with either version (405, a router's 404) is not served and not judged",
	Fix:      "Validate MCP-Protocol-Version on GET and DELETE as on POST and answer 400 to an unsupported one. The Go SDK (v1.8.0) compares versions as strings there and serves 9999-01-01, so check the header in a middleware in front of its handler.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header",
	Sessions: 1, Opens: 1, run: runPV02}

func runPV02(t *checkRun) outcome {
	const future = "9999-01-01"
	s := t.session
	v := set("MCP-Protocol-Version", future)
	post, _ := t.ping("ping with MCP-Protocol-Version: "+future, s, v)
	postControl, _ := t.ping("control: the same ping with the negotiated version", s)
	get := t.send("GET with MCP-Protocol-Version: "+future, edit(t.request("GET", s, nil), v).Bytes(), toHead, getWindow)
	getControl := t.send("control: the same GET with the negotiated version", t.request("GET", s, nil).Bytes(), toHead, getWindow)
	// The control DELETE ends the session, so it goes last.
	del := t.send("DELETE with MCP-Protocol-Version: "+future, edit(t.request("DELETE", s, nil), v).Bytes(), toHead, 0)
	delControl := t.send("control: the same DELETE with the negotiated version", t.request("DELETE", s, nil).Bytes(), toHead, 0)
	var faults, notes []string
	for _, x := range []struct {
		method     string
		r, control *reply
	}{{"POST", post, postControl}, {"GET", get, getControl}, {"DELETE", del, delControl}} {
		t.must(x.r)
		if o := t.refusalEnded(x.r, x.control, x.method+" with MCP-Protocol-Version: "+future); o != nil {
			return *o
		}
		switch st := x.r.status(); {
		case st == 400 && refusedForVersion(x.r, x.control):
		case x.method != "POST" && !is2xx(st) && x.control.status() == st:
			// Not served with any version: a 405, or a router's 404
			// where no handler stands, says nothing of the version.
			notes = append(notes, x.method+" answered "+strconv.Itoa(st)+" with the negotiated version too (not served)")
		case st == 400:
			return t.errored("%s %s, but with MCP-Protocol-Version: %s it %s too: the refusal is for another cause, not shown to be the version's",
				x.method, x.r.describe(), t.p.version, x.control.describe()).with("400 for the version alone", x.r.actual()+"; with the negotiated version "+x.control.actual())
		default:
			faults = append(faults, x.method+" answered "+strconv.Itoa(st))
		}
	}
	if len(faults) > 0 {
		return t.unmet("with MCP-Protocol-Version: %s %s, not 400", future, joinAnd(faults)).with("400 to POST, GET and DELETE", joinAnd(faults))
	}
	if len(notes) > 0 {
		return t.pass("400 where served; %s", joinAnd(notes))
	}
	return t.pass("POST, GET and DELETE answered 400; each served with the negotiated version")
}

// PV-04: no version header after initialize. The spec says to assume
// 2025-03-26 (Transports §2.7); a server that supports only later
// revisions refuses instead, so this is reported, not judged.
var pv04 = Check{ID: "PV-04", Level: Informational, Source: "MCP Transports §Protocol version header", Rule: rule.VersionAssumed, Since: "2025-06-18",
	Section: "MCP Transports 2025-11-25 §Protocol Version Header", Keyword: "SHOULD", Binds: Server,
	Title:    "Missing header after init",
	Sends:    "a ping on a live session without MCP-Protocol-Version",
	Passes:   "never judged: the answer is reported (the spec says assume 2025-03-26)",
	Fix:      "Nothing to fix: this is reported, not judged. The specification asks a server with no other way to tell the version to assume 2025-03-26; one that keeps the version negotiated at initialize may use that instead.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header",
	Sessions: 1, Opens: 1, run: runPV04}

func runPV04(t *checkRun) outcome {
	s := t.session
	r, _ := t.ping("ping without MCP-Protocol-Version", s, drop("MCP-Protocol-Version"))
	t.must(r)
	if is2xx(r.status()) {
		return t.info("%s: the server assumed a version", r.describe())
	}
	return t.info("%s: the server requires the header", r.describe())
}

// knownVersions are the revisions a counter-offer may name: the released
// ones and the 2026-07-28 revision.
var knownVersions = append(slices.Clone(releasedVersions), "2026-07-28")

// PV-05: an initialize proposing a version the server cannot know gets a
// counter-offer, a result naming a version it supports, not an error.
var pv05 = Check{ID: "PV-05", Level: Must, Source: "MCP Lifecycle §Version negotiation", Rule: rule.VersionCounterOffer,
	Section: "MCP Lifecycle 2025-11-25 §Version Negotiation", Keyword: "MUST", Binds: Server,
	Title:    "Negotiation answers a supported version",
	Sends:    "initialize proposing 2099-01-01",
	Passes:   "a result with a known MCP revision; an echo of 2099-01-01 fails, an unknown version warns",
	Fix:      "Answer an initialize that proposes an unknown version with a version the server supports (its latest), never by echoing the proposal. SDKs do; a hand-written initialize handler that copies params.protocolVersion into the result is the usual cause.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation",
	Sessions: 1, run: runPV05}

func runPV05(t *checkRun) outcome {
	const proposed = "2099-01-01"
	body, id := initializeBody(proposed)
	r := t.send("initialize proposing "+proposed, t.request("POST", nil, body).Bytes(), toResponse, 0)
	t.must(r)
	if !r.isResult(id) {
		return t.unmet("%s: an unsupported proposal gets a result with a version the server supports (Lifecycle §1.1.1)", r.describe()).with("a result with a supported protocolVersion", r.actual())
	}
	m, _ := r.response(id)
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(m.Result, &res)
	switch {
	case res.ProtocolVersion == proposed:
		return t.unmet("echoed %s, a version no server supports", proposed).with("a supported protocolVersion", "protocolVersion "+proposed)
	case t.p.version == protocolVersion && res.ProtocolVersion < protocolVersion && slices.Contains(knownVersions, res.ProtocolVersion):
		// PRE-01's initialize proposed 2025-11-25 and got it back.
		return t.unmetAt(Should, "answered protocolVersion %s, though it answered %s when that was proposed: a counter-offer SHOULD be the latest version the server supports (Lifecycle §Version Negotiation)", res.ProtocolVersion, protocolVersion).
			with("protocolVersion "+protocolVersion+", the latest it showed it supports", "protocolVersion "+res.ProtocolVersion)
	case slices.Contains(knownVersions, res.ProtocolVersion):
		return t.pass("answered protocolVersion %s", res.ProtocolVersion)
	}
	return t.unmetAt(Should, "answered protocolVersion %s, which is no MCP revision this probe knows", strconv.Quote(res.ProtocolVersion)).with("a known MCP revision", "protocolVersion "+strconv.Quote(res.ProtocolVersion))
}

// PV-06: an initialize proposing a version the server supports gets that
// version back (Lifecycle §Version Negotiation, MUST). What the server
// supports shows in what it answers: a version it echoed to one proposal,
// or one its MCP-Protocol-Version check accepts while it refuses a version
// no server speaks. A server that answers 2025-11-25 with 2025-03-26 but
// serves requests carrying 2025-11-25 supports what it did not negotiate.
var pv06 = Check{ID: "PV-06", Level: Must, Source: "MCP Lifecycle §Version negotiation", Rule: rule.VersionCounterOffer,
	Section: "MCP Lifecycle 2025-11-25 §Version Negotiation", Keyword: "MUST", Binds: Server,
	Title:    "A supported version is answered as proposed",
	Fix:      "Answer initialize with the protocolVersion the client proposed whenever the server supports it, and counter-offer only a version it does not: a hard-coded protocolVersion in the initialize handler is the usual cause; the SDKs pick it from their supported list.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation",
	Sends:    "initialize proposing each revision 2024-11-05 to 2025-11-25; where answered another, pings there with the proposal and with 1999-01-01 as MCP-Protocol-Version",
	Passes:   "each proposal echoed, or countered where the server shows no support for it (echoed elsewhere, or served in the header while 1999-01-01 is refused)",
	Sessions: 1, run: runPV06}

func runPV06(t *checkRun) outcome {
	type answer struct{ proposed, answered string }
	var answers []answer
	echoed := map[string]bool{}
	if t.p.version == protocolVersion {
		echoed[protocolVersion] = true // PRE-01's initialize
	}
	for _, v := range releasedVersions {
		body, id := initializeBody(v)
		r := t.send("initialize proposing "+v, t.request("POST", nil, body).Bytes(), toResponse, 0)
		t.must(r)
		if !r.isResult(id) {
			return t.errored("initialize proposing %s %s, not a result: PV-05 judges what an initialize gets", v, r.describe())
		}
		got := negotiatedVersion(r)
		answers = append(answers, answer{v, got})
		if got == v {
			echoed[v] = true
		}
		if got == v || !visibleASCII(got) {
			t.end(t.issued(r, t.p.authorization()))
			continue
		}
		s := t.issued(r, t.p.authorization())
		t.initialized(s)
		served, sid := t.ping("ping with MCP-Protocol-Version: "+v+", the version proposed", s, set("MCP-Protocol-Version", v))
		unknown, _ := t.ping("ping with MCP-Protocol-Version: 1999-01-01, a version no server speaks", s, set("MCP-Protocol-Version", "1999-01-01"))
		t.end(s)
		if served.isResult(sid) && unknown.status() == 400 {
			return t.unmet("initialize proposing %s was answered %s, though the server supports %s: a ping with MCP-Protocol-Version: %s was served, one with 1999-01-01 refused 400; a server that supports the proposed version MUST answer with it", v, got, v, v).
				with("protocolVersion "+v, "protocolVersion "+got)
		}
	}
	var parts []string
	for _, a := range answers {
		if a.proposed != a.answered && echoed[a.proposed] {
			return t.unmet("initialize proposing %s was answered %s, though another initialize proposing %s got it back: a server that supports the proposed version MUST answer with it", a.proposed, a.answered, a.proposed).
				with("protocolVersion "+a.proposed, "protocolVersion "+a.answered)
		}
		parts = append(parts, a.proposed+" → "+a.answered)
	}
	return t.pass("%s", strings.Join(parts, ", "))
}
