package probe

import (
	"encoding/json"
	"slices"
	"strconv"

	"rawmcp/wire/rule"
)

// pvGroup is the PV group: each check is declared right above its run
// function; a check is in the catalogue when it is in this list.
var pvGroup = group{Group{"PV", "Protocol version"}, []*Check{&pv01, &pv02, &pv03, &pv04, &pv05}}

// versionRefused judges a request carrying a version the target cannot
// speak: it must answer 400 (Transports §2.7).
func (t *checkRun) versionRefused(r *reply, version string) outcome {
	t.must(r)
	switch {
	case r.status() == 400:
		return t.pass("answered 400")
	case is2xx(r.status()):
		return t.unmet("%s for MCP-Protocol-Version: %s", r.describe(), version).with("400", r.actual()+" for MCP-Protocol-Version: "+version)
	}
	return t.unmet("answered %d, not 400, for MCP-Protocol-Version: %s", r.status(), version).with("400", r.actual()+" for MCP-Protocol-Version: "+version)
}

// PV-01: a version older than any MCP revision.
var pv01 = Check{ID: "PV-01", Level: Must, Source: "MCP Transports §Protocol version header", Rule: rule.VersionUnsupported, Needs: NeedLegacy,
	Section: "MCP Transports 2025-11-25 §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Line:     "A past version refused",
	Sends:    "a ping on a live session with MCP-Protocol-Version: 1999-01-01",
	Passes:   "400",
	Sessions: 1, Opens: 1, run: runPV01}

func runPV01(t *checkRun) outcome {
	return t.badVersion("1999-01-01")
}

// PV-03: a value that is no date at all.
var pv03 = Check{ID: "PV-03", Level: Must, Source: "MCP Transports §Protocol version header", Rule: rule.VersionUnsupported, Needs: NeedLegacy,
	Section: "MCP Transports 2025-11-25 §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Line:     "A malformed version refused",
	Sends:    "a ping on a live session with MCP-Protocol-Version: garbage",
	Passes:   "400",
	Sessions: 1, Opens: 1, run: runPV03}

func runPV03(t *checkRun) outcome {
	return t.badVersion("garbage")
}

func (t *checkRun) badVersion(version string) outcome {
	s := t.session
	r, _ := t.ping("ping with MCP-Protocol-Version: "+version, s, set("MCP-Protocol-Version", version))
	return t.versionRefused(r, version)
}

// PV-02: a version later than any, on every method: a server comparing
// version strings with >= would let it through.
var pv02 = Check{ID: "PV-02", Level: Must, Source: "MCP Transports §Protocol version header", Rule: rule.VersionUnsupported, Needs: NeedLegacy,
	Section: "MCP Transports 2025-11-25 §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Line:     "A future version refused on every method",
	Sends:    "POST (ping), GET and DELETE on a live session with MCP-Protocol-Version: 9999-01-01",
	Passes:   "400 to each (405 to GET or DELETE accepted: not served)",
	Sessions: 1, Opens: 1, run: runPV02}

func runPV02(t *checkRun) outcome {
	const future = "9999-01-01"
	s := t.session
	v := set("MCP-Protocol-Version", future)
	post, _ := t.ping("ping with MCP-Protocol-Version: "+future, s, v)
	get := t.send("GET with MCP-Protocol-Version: "+future, edit(t.request("GET", s, nil), v).Bytes(), toHead, getWindow)
	del := t.send("DELETE with MCP-Protocol-Version: "+future, edit(t.request("DELETE", s, nil), v).Bytes(), toHead, 0)
	var faults, notes []string
	for _, x := range []struct {
		method string
		r      *reply
	}{{"POST", post}, {"GET", get}, {"DELETE", del}} {
		t.must(x.r)
		switch st := x.r.status(); {
		case st == 400:
		case st == 405 && x.method != "POST":
			notes = append(notes, x.method+" answered 405 (not served at all)")
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
	return t.pass("POST, GET and DELETE answered 400")
}

// PV-04: no version header after initialize. The spec says to assume
// 2025-03-26 (Transports §2.7); a server that supports only later
// revisions refuses instead, so this is reported, not judged.
var pv04 = Check{ID: "PV-04", Level: Informational, Source: "MCP Transports §Protocol version header", Rule: rule.VersionAssumed, Needs: NeedLegacy,
	Section: "MCP Transports 2025-11-25 §Protocol Version Header", Keyword: "SHOULD", Binds: Server,
	Line:     "Missing header after init",
	Sends:    "a ping on a live session without MCP-Protocol-Version",
	Passes:   "never judged: the answer is reported (the spec says assume 2025-03-26)",
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
var pv05 = Check{ID: "PV-05", Level: Must, Source: "MCP Lifecycle §Version negotiation", Rule: rule.VersionCounterOffer, Needs: NeedLegacy,
	Section: "MCP Lifecycle 2025-11-25 §Version Negotiation", Keyword: "MUST", Binds: Server,
	Line:     "Negotiation answers a supported version",
	Sends:    "initialize proposing 2099-01-01",
	Passes:   "a result with a known MCP revision; an echo of 2099-01-01 fails, an unknown version warns",
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
	case slices.Contains(knownVersions, res.ProtocolVersion):
		return t.pass("answered protocolVersion %s", res.ProtocolVersion)
	}
	return t.unmetAt(Should, "answered protocolVersion %s, which is no MCP revision this probe knows", strconv.Quote(res.ProtocolVersion)).with("a known MCP revision", "protocolVersion "+strconv.Quote(res.ProtocolVersion))
}
