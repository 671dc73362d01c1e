package probe

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"rawmcp/wire/client"
)

// v2Group is the V2 group: a server speaking MCP 2026-07-28 judged on
// that revision's own wire. A check that changes a request builds on the
// baseline request (the one the revision's client sends:
// MCP-Protocol-Version and Mcp-Method headers, _meta with the version,
// the client and its capabilities) being served: for server/discover the
// runner decided that once (NeedModern, the group's era), for another
// method the check sends it first and goes on only when the same target
// serves it; the check's own request then changes exactly one thing, so
// a refusal is the refusal asked about. The others judge answers to
// requests as a client sends them (V2-27, V2-33 to V2-36), read the
// run's streams (V2-28), listen (V2-29) or send a 2025-11-25 initialize
// (V2-31). A refusal counts only when it says so: the status
// and the JSON-RPC code the revision names, the request's id echoed.
var v2Group = group{Group{"V2", "MCP 2026-07-28 (modern)"}, eraModern, []*Check{
	&v201, &v202, &v203, &v204, &v205, &v206, &v207, &v208, &v209, &v210,
	&v211, &v212, &v213, &v214, &v215, &v216, &v217, &v218, &v219, &v220,
	&v221, &v222, &v223, &v224, &v225, &v226, &v227, &v228, &v229, &v230, &v231, &v232, &v233, &v234, &v235, &v236, &v237, &v238,
}}

// V2-01: server/discover answers with a DiscoverResult.
var v201 = Check{ID: "V2-01", Level: Must, Source: "MCP 2026-07-28 server/discover (\"Servers MUST implement it\"); Basic §Result responses; Caching",
	Section: "MCP 2026-07-28 server/discover", Keyword: "MUST", Binds: Server,
	Title:  "server/discover answers",
	Sends:  "server/discover as a 2026-07-28 client sends it",
	Passes: `200 JSON or SSE with a result for its id: resultType "complete", supportedVersions a string array holding 2026-07-28, capabilities an object, ttlMs >= 0, cacheScope public or private`,
	Fix:    "Implement server/discover and answer it with resultType \"complete\", supportedVersions listing 2026-07-28, a capabilities object and the caching hints ttlMs (0 or more) and cacheScope (\"public\" or \"private\"). SDK releases that speak 2026-07-28 do this; a hand-written handler needs every field.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/server/discover#response",
	run:    runV201}

func runV201(t *checkRun) outcome {
	req, id := t.modernRequest("server/discover", "")
	r := t.must(t.send("server/discover", req.Bytes(), toResponse, 0))
	want := "200 with a DiscoverResult"
	if !r.isResult(id) {
		return t.unmet("server/discover %s, not a result", r.describe()).with(want, r.said())
	}
	if mt := r.mediaType(); mt != "application/json" && mt != "text/event-stream" {
		return t.unmet("server/discover answered as %q: a request's answer is application/json or text/event-stream (Transports §Sending messages)", mt).with(want, r.said())
	}
	var res discoverResult
	r.resultOf(id, &res)
	var versions []string
	var caps map[string]json.RawMessage
	faults := cacheableFaults(res.ResultType, res.TTL, res.CacheScope)
	if json.Unmarshal(res.SupportedVersions, &versions) != nil || !contains(versions, modernVersion) {
		faults = append(faults, "supportedVersions does not list "+modernVersion)
	}
	if json.Unmarshal(res.Capabilities, &caps) != nil || caps == nil {
		faults = append(faults, "capabilities is not an object")
	}
	if len(faults) > 0 {
		return t.unmet("server/discover's result: %s", joinAnd(faults)).with(want, joinAnd(faults))
	}
	return t.pass("a DiscoverResult listing %s", strings.Join(versions, ", "))
}

// V2-02: the result names the server.
var v202 = Check{ID: "V2-02", Level: Should, Source: "MCP 2026-07-28 server/discover (\"Servers SHOULD include this field\"); Basic §_meta",
	Section: "MCP 2026-07-28 server/discover", Keyword: "SHOULD", Binds: Server,
	Title:  "server/discover names the server",
	Sends:  "server/discover",
	Passes: "result._meta[\"io.modelcontextprotocol/serverInfo\"] with a name and a version",
	Fix:    "Put the server's name and version in result._meta[\"io.modelcontextprotocol/serverInfo\"] of server/discover. With an SDK they come from the implementation info given when the server is created.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/server/discover#discoverresult",
	run:    runV202}

func runV202(t *checkRun) outcome {
	r, id, o := t.control("server/discover", "")
	if o != nil {
		return *o
	}
	var res discoverResult
	r.resultOf(id, &res)
	var info struct {
		Name    *string `json:"name"`
		Version *string `json:"version"`
	}
	if raw, ok := res.Meta[metaServerInfo]; !ok || json.Unmarshal(raw, &info) != nil || info.Name == nil || info.Version == nil {
		return t.unmet("the DiscoverResult's _meta has no serverInfo with a name and a version").with("_meta serverInfo{name, version}", "none")
	}
	return t.pass("serverInfo %s %s", quoteInfo(*info.Name), quoteInfo(*info.Version))
}

// V2-03: the version header and _meta disagree.
var v203 = Check{ID: "V2-03", Level: Must, Source: "MCP 2026-07-28 Transports §Protocol Version Header (\"MUST reject … 400 Bad Request and a HeaderMismatch\")",
	Section: "MCP 2026-07-28 Transports §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Title:  "Version header and _meta must agree",
	Sends:  "server/discover with MCP-Protocol-Version: 2026-07-28 and _meta protocolVersion 2025-11-25",
	Passes: "400 with JSON-RPC error -32020 (HeaderMismatch), the id echoed; 400 with -32022 warns (the spec orders no precedence, the official suite wants -32020)",
	Fix:    "When MCP-Protocol-Version and the body's _meta io.modelcontextprotocol/protocolVersion differ, answer 400 with JSON-RPC error -32020 (HeaderMismatch) and the request's id. Compare header and body before checking whether the version is supported, so a mismatch is not reported as -32022.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#protocol-version-header",
	run:    runV203}

func runV203(t *checkRun) outcome {
	req, id := t.metaRequest("server/discover", "", metaOf(protocolVersion, true, true))
	r := t.send("server/discover, _meta protocolVersion "+protocolVersion, req.Bytes(), toResponse, 0)
	if e := r.errorOf(); r.status() == 400 && e.Found && e.Code == codeUnsupportedVersion {
		return t.unmetAt(Should, "with _meta protocolVersion %s under the header %s answered 400 with -32022, not -32020: the mismatch is the first fault (the official suite's order)", protocolVersion, modernVersion).
			with("400 with JSON-RPC error -32020", r.said())
	}
	return t.refused(r, id, 400, codeHeaderMismatch, "with _meta protocolVersion "+protocolVersion+" under the header "+modernVersion)
}

// V2-04: the version header is missing.
var v204 = Check{ID: "V2-04", Level: Must, Source: "MCP 2026-07-28 Transports §Protocol Version Header, §Server Validation",
	Section: "MCP 2026-07-28 Transports §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Title:  "Version header required",
	Sends:  "server/discover without MCP-Protocol-Version (the _meta still says 2026-07-28)",
	Passes: "400 with JSON-RPC error -32020, the id echoed; on a target that also speaks 2025-11-25 another 4xx is reported (it MAY take the request for 2025-03-26)",
	Fix:    "Answer a 2026-07-28 request without MCP-Protocol-Version with 400 and JSON-RPC error -32020, the id echoed. A server that also serves 2025-11-25 may read such a request as 2025-03-26 instead, but must not serve it as 2026-07-28.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#protocol-version-header",
	run:    runV204}

func runV204(t *checkRun) outcome {
	req, id := t.modernRequest("server/discover", "", drop("MCP-Protocol-Version"))
	r := t.send("server/discover without MCP-Protocol-Version", req.Bytes(), toResponse, 0)
	o := t.refused(r, id, 400, codeHeaderMismatch, "without MCP-Protocol-Version")
	if o.verdict != Pass && t.p.legacy && is4xx(r.status()) && !r.isResult(id) {
		return t.info("without MCP-Protocol-Version %s: a server that also serves older clients MAY take a request without the header for 2025-03-26 (Transports §Protocol Version Header)", r.describe()).
			with("400 with JSON-RPC error -32020", r.said())
	}
	return o
}

// unsupportedVersion sends server/discover claiming version in the
// header and _meta alike, and judges the UnsupportedProtocolVersionError.
func (t *checkRun) unsupportedVersion(version string) outcome {
	base, baseID, o := t.control("server/discover", "")
	if o != nil {
		return *o
	}
	var disc discoverResult
	var served []string
	base.resultOf(baseID, &disc)
	json.Unmarshal(disc.SupportedVersions, &served)
	req, id := t.metaRequest("server/discover", "", metaOf(version, true, true), set("MCP-Protocol-Version", version))
	r := t.send("server/discover as version "+version, req.Bytes(), toResponse, 0)
	how := "MCP-Protocol-Version " + version + " (in _meta too)"
	if o := t.refused(r, id, 400, codeUnsupportedVersion, how); o.verdict != Pass {
		return o
	}
	var data struct {
		Supported []string `json:"supported"`
		Requested *string  `json:"requested"`
	}
	want := "data{supported: a non-empty list of what server/discover lists, requested: " + strconv.Quote(version) + "}"
	if json.Unmarshal(r.errorOf().Data, &data) != nil || len(data.Supported) == 0 {
		return t.unmet("%s answered -32022 without a list of supported versions in data.supported: the client cannot retry", how).with(want, "data "+string(r.errorOf().Data))
	}
	if data.Requested == nil || *data.Requested != version {
		return t.unmet("%s answered -32022 whose data.requested is not %q", how, version).with(want, "data "+string(r.errorOf().Data))
	}
	for _, v := range data.Supported {
		if !contains(served, v) {
			return t.unmet("%s answered -32022 naming %q as supported, which server/discover does not list", how, v).with(want, "data "+string(r.errorOf().Data))
		}
	}
	return t.pass("%s answered 400 with -32022, supported %v", how, data.Supported)
}

// V2-05: a future version is refused with the supported list.
var v205 = Check{ID: "V2-05", Level: Must, Source: "MCP 2026-07-28 Transports §Protocol Version Header; Versioning §Negotiation; schema UnsupportedProtocolVersionError",
	Section: "MCP 2026-07-28 Transports §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Title:  "An unknown future version refused with the supported list",
	Sends:  "server/discover with 2099-12-31 in MCP-Protocol-Version and _meta",
	Passes: "400 with JSON-RPC error -32022, the id echoed, data.supported a non-empty subset of server/discover's supportedVersions, data.requested 2099-12-31",
	Fix:    "Answer a version the server does not implement with 400 and JSON-RPC error -32022 (UnsupportedProtocolVersionError), its data holding supported (the versions server/discover lists) and requested. Check the version before dispatching, for every method.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#protocol-version-header",
	run:    func(t *checkRun) outcome { return t.unsupportedVersion("2099-12-31") }}

// V2-06: a past version is refused the same way (the spec's own example).
var v206 = Check{ID: "V2-06", Level: Must, Source: "MCP 2026-07-28 Transports §Protocol Version Header; Versioning §Negotiation (its example: 1900-01-01)",
	Section: "MCP 2026-07-28 Transports §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Title:  "An unknown past version refused with the supported list",
	Sends:  "server/discover with 1900-01-01 in MCP-Protocol-Version and _meta",
	Passes: "as V2-05, with data.requested 1900-01-01; the official suite sends no past version",
	Fix:    "Refuse a past unknown version as a future one: 400 with -32022, data.supported and data.requested. The Go SDK (v1.8.0, stateless) answered 1900-01-01 with a plain-text 400 and mcp-go failed it too; test membership in the supported list, not order against the newest version, and build the -32022 error there.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#protocol-version-header",
	run:    func(t *checkRun) outcome { return t.unsupportedVersion("1900-01-01") }}

// refusal is a V2 check that is data: the baseline request with one
// change, and the refusal the change must get. runRefusal sends it once
// and judges the answer with refused: the status, the JSON-RPC code, the
// id echoed.
type refusal struct {
	method string      // the method sent: server/discover, or the change itself
	meta   string      // params._meta as sent; "" sends params {} without one
	edits  []fieldEdit // the header changed, if the change is one
	how    string      // the change as the reason says it
	status int
	code   int
}

// refusals are the rows of the checks run by runRefusal, by check id.
// The other V2 checks that change one thing judge more than the refusal:
// V2-03 warns on -32022, V2-04 reports a dual-era target's other 4xx,
// V2-05 and V2-06 read the error's data, the Mcp-Name checks need a tool
// and a served call of it first, V2-19 sends five methods, V2-22 and
// V2-23 want the request served.
var refusals = map[string]refusal{
	"V2-07": {"server/discover", "", nil, "with params {} (no _meta)", 400, codeInvalidParams},
	"V2-08": {"server/discover", metaOf(modernVersion, true, false), nil, "with _meta without clientCapabilities", 400, codeInvalidParams},
	"V2-10": {"server/discover", modernMeta, []fieldEdit{drop("Mcp-Method")}, "without Mcp-Method", 400, codeHeaderMismatch},
	"V2-11": {"server/discover", modernMeta, []fieldEdit{set("Mcp-Method", "tools/list")}, "with Mcp-Method: tools/list", 400, codeHeaderMismatch},
	"V2-12": {"server/discover", modernMeta, []fieldEdit{set("Mcp-Method", "SERVER/DISCOVER")}, "with Mcp-Method: SERVER/DISCOVER", 400, codeHeaderMismatch},
	"V2-18": {"rawmcp/no-such-method", modernMeta, nil, "rawmcp/no-such-method", 404, codeMethodNotFound},
	"V2-32": {"server/discover", metaOf("", true, true), nil, "with _meta without protocolVersion", 400, codeInvalidParams},
}

// runRefusal runs the check's row of refusals. The trace names the step
// by the method and the change, or the change alone when it is the method.
func runRefusal(t *checkRun) outcome {
	c := refusals[t.check.ID]
	step := c.method + " " + c.how
	if c.how == c.method {
		step = c.method
	}
	req, id := t.metaRequest(c.method, "{}", c.meta, c.edits...)
	r := t.send(step, req.Bytes(), toResponse, 0)
	return t.refused(r, id, c.status, c.code, c.how)
}

// V2-07: _meta missing.
var v207 = Check{ID: "V2-07", Level: Must, Source: "MCP 2026-07-28 Basic §_meta (\"MUST reject it with … -32602 … status MUST be 400\")",
	Section: "MCP 2026-07-28 Basic §_meta", Keyword: "MUST", Binds: Server,
	Title:  "A request without _meta refused",
	Sends:  "server/discover with params {} (headers as usual)",
	Passes: "400 with JSON-RPC error -32602, the id echoed",
	Fix:    "Answer a 2026-07-28 request whose _meta lacks a required field (io.modelcontextprotocol/protocolVersion or clientCapabilities) with 400 and JSON-RPC error -32602, the id echoed. Validate _meta before dispatching the method.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic#meta",
	run:    runRefusal}

// V2-08: clientCapabilities missing.
var v208 = Check{ID: "V2-08", Level: Must, Source: "MCP 2026-07-28 Basic §_meta (clientCapabilities Required: Yes)",
	Section: "MCP 2026-07-28 Basic §_meta", Keyword: "MUST", Binds: Server,
	Title:  "A request without clientCapabilities refused",
	Sends:  "server/discover whose _meta has no clientCapabilities",
	Passes: "400 with JSON-RPC error -32602, the id echoed",
	Fix:    "Answer a request whose _meta has no io.modelcontextprotocol/clientCapabilities with 400 and JSON-RPC error -32602, the id echoed; a client declares no capabilities with an empty object. Check it together with protocolVersion, before dispatching.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic#meta",
	run:    runRefusal}

// V2-09: clientInfo is optional.
var v209 = Check{ID: "V2-09", Level: Must, Source: "MCP 2026-07-28 Basic §_meta (clientInfo Required: No)",
	Section: "MCP 2026-07-28 Basic §_meta", Keyword: "MUST", Binds: Server,
	Title:  "clientInfo is optional",
	Sends:  "server/discover whose _meta has no clientInfo",
	Passes: "the result, as with it",
	Fix:    "Serve a request whose _meta has no io.modelcontextprotocol/clientInfo, since the field is optional. A validator that requires every reserved key, or code that reads the client's name without checking for it, is the usual cause.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic#meta",
	run:    runV209}

func runV209(t *checkRun) outcome {
	req, id := t.metaRequest("server/discover", "", metaOf(modernVersion, false, true))
	r := t.must(t.send("server/discover without clientInfo", req.Bytes(), toResponse, 0))
	if r.isResult(id) {
		return t.pass("served without clientInfo")
	}
	return t.unmet("without clientInfo (optional) %s", r.describe()).with("a result", r.said())
}

const suiteCodeNote = "; the official suite grades a 400 with another code only as a warning, the spec's sentence makes -32020 a MUST"

// V2-10: Mcp-Method missing.
var v210 = Check{ID: "V2-10", Level: Must, Source: "MCP 2026-07-28 Transports §Standard Request Headers (\"REQUIRED\"), §Server Validation",
	Section: "MCP 2026-07-28 Transports §Server Validation", Keyword: "MUST", Binds: Server,
	Title:  "Mcp-Method required",
	Sends:  "server/discover without Mcp-Method",
	Passes: "400 with JSON-RPC error -32020, the id echoed" + suiteCodeNote,
	Fix:    "Answer a 2026-07-28 request without Mcp-Method with 400 and JSON-RPC error -32020 (HeaderMismatch), the id echoed. Check the standard headers (MCP-Protocol-Version, Mcp-Method and, where it applies, Mcp-Name) in one place before dispatching, and answer -32020 rather than a generic error.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation",
	run:    runRefusal}

// V2-11: Mcp-Method names another method than the body.
var v211 = Check{ID: "V2-11", Level: Must, Source: "MCP 2026-07-28 Transports §Server Validation (\"MUST reject requests where the values … do not match\")",
	Section: "MCP 2026-07-28 Transports §Server Validation", Keyword: "MUST", Binds: Server,
	Title:  "Mcp-Method must match the body",
	Sends:  "server/discover with Mcp-Method: tools/list",
	Passes: "400 with JSON-RPC error -32020, the id echoed" + suiteCodeNote,
	Fix:    "Compare Mcp-Method with the body's method and answer a mismatch with 400 and JSON-RPC error -32020, the id echoed. A gateway routing on the header while the server runs the body is what this prevents, so dispatch only after the comparison.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation",
	run:    runRefusal}

// V2-12: header values are case-sensitive.
var v212 = Check{ID: "V2-12", Level: Must, Source: "MCP 2026-07-28 Transports §Case Sensitivity (values are case-sensitive), §Server Validation",
	Section: "MCP 2026-07-28 Transports §Case Sensitivity", Keyword: "MUST", Binds: Server,
	Title:  "Mcp-Method compared case-sensitively",
	Sends:  "server/discover with Mcp-Method: SERVER/DISCOVER",
	Passes: "400 with JSON-RPC error -32020, the id echoed",
	Fix:    "Compare the value of Mcp-Method with the body's method exactly: SERVER/DISCOVER is not server/discover, and the mismatch gets 400 with -32020. Case-insensitive comparison (strings.EqualFold, toLowerCase) is for header names, not for their values.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#case-sensitivity",
	run:    runRefusal}

// V2-13: header names are case-insensitive.
var v213 = Check{ID: "V2-13", Level: Must, Source: "MCP 2026-07-28 Transports §Case Sensitivity (\"MUST use case-insensitive comparisons for header names\")",
	Section: "MCP 2026-07-28 Transports §Case Sensitivity", Keyword: "MUST", Binds: Server,
	Title:  "Header names matched case-insensitively",
	Sends:  "server/discover with the fields spelled mcp-protocol-version and mcp-method",
	Passes: "the result, as with the usual spelling",
	Fix:    "Look header names up case-insensitively (mcp-method is Mcp-Method), as HTTP libraries do through their header accessors. A server that reads the raw header list, or a map keyed by the sender's spelling, misses them.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#case-sensitivity",
	run:    runV213}

func runV213(t *checkRun) outcome {
	req, id := t.modernRequest("server/discover", "")
	req = edit(req, drop("MCP-Protocol-Version"), drop("Mcp-Method"), set("mcp-protocol-version", modernVersion), set("mcp-method", "server/discover"))
	r := t.must(t.send("server/discover with lower-case field names", req.Bytes(), toResponse, 0))
	if r.isResult(id) {
		return t.pass("served with lower-case field names")
	}
	return t.unmet("with the field names in lower case %s", r.describe()).with("a result", r.said())
}

// aTool is the name of the first tool tools/list offers, for the Mcp-Name
// checks; the outcome is the skip when there is none.
func (t *checkRun) aTool() (string, *outcome) {
	r, id, o := t.control("tools/list", "")
	if o != nil {
		o := t.skip("no tool to call: tools/list %s", r.describe())
		return "", &o
	}
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if !r.resultOf(id, &res) || len(res.Tools) == 0 || !visibleASCII(res.Tools[0].Name) {
		o := t.skip("tools/list offers no tool with a plain name: Mcp-Name is not testable here")
		return "", &o
	}
	return res.Tools[0].Name, nil
}

// callTool is tools/call of name with no arguments, Mcp-Name: name, then
// edits.
func (t *checkRun) callTool(name string, edits ...fieldEdit) (req []byte, id int64) {
	r, id := t.modernRequest("tools/call", `{"name":`+strconv.Quote(name)+`,"arguments":{}}`, append([]fieldEdit{set("Mcp-Name", name)}, edits...)...)
	return r.Bytes(), id
}

// mcpName calls the first tool twice: as the client sends it (the
// control: it must not be refused for its headers), then with edits.
// refuse says whether the change must be refused with -32020.
func (t *checkRun) mcpName(how string, refuse bool, edits func(name string) []fieldEdit) outcome {
	name, o := t.aTool()
	if o != nil {
		return *o
	}
	raw, id := t.callTool(name)
	base := t.must(t.send("baseline: tools/call "+name, raw, toResponse, 0))
	if e := base.errorOf(); !base.isResult(id) && (!e.Found || e.Code == codeHeaderMismatch) {
		return t.skip("the baseline tools/call %s %s: nothing to compare the changed request with", name, base.describe())
	}
	raw, id = t.callTool(name, edits(name)...)
	r := t.must(t.send("tools/call "+name+" "+how, raw, toResponse, 0))
	if refuse {
		return t.refused(r, id, 400, codeHeaderMismatch, how)
	}
	if e := r.errorOf(); r.status() == 400 && (e.Code == codeHeaderMismatch || !e.Found) && base.status() != 400 {
		return t.unmet("%s %s: refused as a header fault", how, r.describe()).with(base.said()+", as without the change", r.said())
	}
	return t.pass("%s %s, as without the change (%s)", how, r.describe(), base.said())
}

// V2-14: Mcp-Name missing.
var v214 = Check{ID: "V2-14", Level: Must, Source: "MCP 2026-07-28 Transports §Standard Request Headers (Mcp-Name for tools/call), §Server Validation",
	Section: "MCP 2026-07-28 Transports §Server Validation", Keyword: "MUST", Binds: Server,
	Title:  "Mcp-Name required on tools/call",
	Sends:  "tools/call of the first tool tools/list offers, without Mcp-Name (skips without a tool)",
	Passes: "400 with JSON-RPC error -32020, the id echoed" + suiteCodeNote,
	Fix:    "Answer tools/call (and resources/read and prompts/get) without Mcp-Name with 400 and JSON-RPC error -32020, the id echoed. Check Mcp-Name together with Mcp-Method before dispatching.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation",
	run: func(t *checkRun) outcome {
		return t.mcpName("without Mcp-Name", true, func(string) []fieldEdit { return []fieldEdit{drop("Mcp-Name")} })
	}}

// V2-15: Mcp-Name names another tool.
var v215 = Check{ID: "V2-15", Level: Must, Source: "MCP 2026-07-28 Transports §Server Validation",
	Section: "MCP 2026-07-28 Transports §Server Validation", Keyword: "MUST", Binds: Server,
	Title:  "Mcp-Name must match the body",
	Sends:  "tools/call of the first tool with Mcp-Name: rawmcp_wrong_name",
	Passes: "400 with JSON-RPC error -32020, the id echoed" + suiteCodeNote,
	Fix:    "Compare Mcp-Name with the body's params.name (params.uri for resources/read) and answer a mismatch with 400 and JSON-RPC error -32020, the id echoed, before running the tool.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation",
	run: func(t *checkRun) outcome {
		return t.mcpName("with Mcp-Name: rawmcp_wrong_name", true, func(string) []fieldEdit { return []fieldEdit{set("Mcp-Name", "rawmcp_wrong_name")} })
	}}

// V2-16: a Base64-sentinel Mcp-Name is decoded before the comparison.
var v216 = Check{ID: "V2-16", Level: Must, Source: "MCP 2026-07-28 Transports §Value Encoding (\"servers MUST decode an encoded Mcp-Name … before comparing\")",
	Section: "MCP 2026-07-28 Transports §Value Encoding", Keyword: "MUST", Binds: Server,
	Title:  "A Base64-encoded Mcp-Name decoded",
	Sends:  "tools/call of the first tool with Mcp-Name: =?base64?<its name>?=",
	Passes: "the same answer as with the plain name: not a 400 header refusal; the official suite has no such case",
	Fix:    "Decode an Mcp-Name sent as =?base64?VALUE?= (the Base64 of the UTF-8 name) before comparing it with the body. The Go SDK (v1.8.0) compares the header undecoded and refuses such a name with -32020, so decode it in a middleware in front of its handler.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#value-encoding",
	run: func(t *checkRun) outcome {
		return t.mcpName("with a Base64-encoded Mcp-Name", false, func(name string) []fieldEdit {
			return []fieldEdit{set("Mcp-Name", "=?base64?"+base64.StdEncoding.EncodeToString([]byte(name))+"?=")}
		})
	}}

// V2-17: whitespace around a field value is not part of it.
var v217 = Check{ID: "V2-17", Level: Must, Source: "RFC 9110 §5.5 (surrounding whitespace is not part of a field value)",
	Section: "RFC 9110 §5.5", Keyword: "MUST", Binds: Server,
	Title:  "Whitespace around Mcp-Name ignored",
	Sends:  "tools/call of the first tool with Mcp-Name: '   <name>  '",
	Passes: "the same answer as without the whitespace: not a 400 header refusal",
	Fix:    "Trim spaces and tabs around a header value before comparing it with the body: they are not part of the value. HTTP libraries trim them when they parse the head; a server that reads raw header lines, or compares the unparsed text, needs to strip them itself.",
	Link:   "https://www.rfc-editor.org/rfc/rfc9110#section-5.5",
	run: func(t *checkRun) outcome {
		return t.mcpName("with spaces around Mcp-Name", false, func(name string) []fieldEdit { return []fieldEdit{set("Mcp-Name", "  "+name+"  ")} })
	}}

// discoverCapabilities is the capabilities object of server/discover's
// result, nil when there is none.
func (t *checkRun) discoverCapabilities() (map[string]json.RawMessage, *outcome) {
	r, id, o := t.control("server/discover", "")
	if o != nil {
		return nil, o
	}
	var res discoverResult
	var caps map[string]json.RawMessage
	r.resultOf(id, &res)
	json.Unmarshal(res.Capabilities, &caps)
	return caps, nil
}

// V2-18: an unknown method gets 404 with -32601.
var v218 = Check{ID: "V2-18", Level: Must, Source: "MCP 2026-07-28 Transports §Protocol Version Header (\"MUST respond with 404 Not Found and … -32601\")",
	Section: "MCP 2026-07-28 Transports §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Title:  "An unknown method gets 404 with -32601",
	Sends:  "rawmcp/no-such-method as a modern request",
	Passes: "404 with JSON-RPC error -32601, the id echoed",
	Fix:    "Answer a method the server does not implement with HTTP 404 and JSON-RPC error -32601 (Method not found), the id echoed, not 200 or 400. The status matters: a dual-era client reads 404 with -32601 as a modern server's answer.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#protocol-version-header",
	run:    runRefusal}

// removedMethods are the methods 2026-07-28 removed, with params that
// would be valid under 2025-11-25 (Changelog items 2, 4, 5).
var removedMethods = []struct{ method, params string }{
	{"ping", ""},
	{"logging/setLevel", `{"level":"info"}`},
	{"resources/subscribe", `{"uri":"rawmcp-probe:x"}`},
	{"resources/unsubscribe", `{"uri":"rawmcp-probe:x"}`},
	{"initialize", `{"protocolVersion":"` + protocolVersion + `","capabilities":{},"clientInfo":{"name":"rawmcp-probe","version":"` + client.Version + `"}}`},
}

// V2-19: the removed methods are unknown methods on a modern request.
var v219 = Check{ID: "V2-19", Level: Must, Source: "MCP 2026-07-28 Transports §Protocol Version Header (404 + -32601 for a method not implemented); Changelog (ping, logging/setLevel, resources/subscribe and unsubscribe, initialize removed); Versioning §Backward Compatibility (a modern _meta is served by this revision)",
	Section: "MCP 2026-07-28 Transports §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Title:  "Removed methods get 404 with -32601",
	Sends:  "ping, logging/setLevel, resources/subscribe, resources/unsubscribe and initialize, each as a modern request",
	Passes: "404 with JSON-RPC error -32601 to each, the id echoed",
	Fix:    "Treat the methods 2026-07-28 removed (ping, logging/setLevel, resources/subscribe and unsubscribe, initialize) as unknown on a 2026-07-28 request: 404 with -32601, the id echoed. A dual-era server must route by the request's revision, so that its 2025-11-25 handlers do not serve them.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#protocol-version-header",
	run:    runV219}

func runV219(t *checkRun) outcome {
	var faults, actual []string
	for _, m := range removedMethods {
		req, id := t.modernRequest(m.method, m.params)
		r := t.must(t.send(m.method+" (removed in "+modernVersion+")", req.Bytes(), toResponse, 0))
		if o := t.refused(r, id, 404, codeMethodNotFound, m.method); o.verdict != Pass {
			faults = append(faults, o.reason)
			actual = append(actual, m.method+": "+r.said())
		}
	}
	if len(faults) > 0 {
		return t.unmet("%s", strings.Join(faults, "; ")).with("404 with JSON-RPC error -32601 to each", strings.Join(actual, "; "))
	}
	return t.pass("each of %d removed methods answered 404 with -32601", len(removedMethods))
}

// noLongerServed judges GET or DELETE to the endpoint: 405 with Allow
// (RFC 9110 §15.5.6) from a modern-only server; a dual-era one serves
// them by the 2025-11-25 rules.
func (t *checkRun) noLongerServed(method string, edits ...fieldEdit) outcome {
	m := client.MCP{Host: t.p.target.Host, Path: t.p.target.Path, Authorization: t.p.authorization(), Version: modernVersion}
	r := t.must(t.send(method+" to the endpoint", edit(m.Request(method, nil), edits...).Bytes(), toHead, getWindow))
	switch {
	case r.status() == 405 && strings.Contains(r.header("Allow"), "POST"):
		return t.pass("%s answered 405 with Allow: %s", method, r.header("Allow"))
	case r.status() == 405:
		return t.unmet("%s answered 405 without an Allow field naming POST (RFC 9110 §15.5.6: a 405 MUST carry Allow)", method).with("405 with Allow: POST", r.said()+" Allow: "+r.header("Allow"))
	case t.p.legacy:
		return t.info("%s %s: this target also speaks %s, whose rules it may serve %s by; the 405 is for a server that speaks only %s", method, r.describe(), protocolVersion, method, modernVersion).
			with("405 with Allow: POST", r.said())
	}
	return t.unmet("%s %s: a server that speaks only %s answers 405", method, r.describe(), modernVersion).with("405 with Allow: POST", r.said())
}

// V2-20: GET is gone.
var v220 = Check{ID: "V2-20", Level: Should, Source: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions (\"SHOULD … 405\"); RFC 9110 §15.5.6 (Allow)",
	Section: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions", Keyword: "SHOULD", Binds: Server,
	Title:  "GET answered 405",
	Sends:  "GET with Accept: text/event-stream and MCP-Protocol-Version: 2026-07-28",
	Passes: "405 with Allow naming POST; on a target that also speaks 2025-11-25 another answer is reported, not judged; the official suite does not test it",
	Fix:    "Answer GET on the MCP endpoint with 405 and Allow: POST when the server speaks only 2026-07-28. A router that sends GET to a 404 page, or a 405 without Allow, is the usual cause; Go's http.ServeMux with a POST /mcp route answers 405 with Allow by itself.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#earlier-streamable-http-revisions",
	After:  []string{"MM-05"}, // a 405 without Allow is MM-05's finding, once
	run:    func(t *checkRun) outcome { return t.noLongerServed("GET") }}

// V2-21: DELETE is gone.
var v221 = Check{ID: "V2-21", Level: Should, Source: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions (\"SHOULD … 405\"); RFC 9110 §15.5.6 (Allow)",
	Section: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions", Keyword: "SHOULD", Binds: Server,
	Title:  "DELETE answered 405",
	Sends:  "DELETE with Mcp-Session-Id: rawmcp-probe",
	Passes: "405 with Allow naming POST; on a target that also speaks 2025-11-25 another answer is reported, not judged; the official suite does not test it",
	Fix:    "Answer DELETE on the MCP endpoint with 405 and Allow: POST when the server speaks only 2026-07-28, since it has no sessions to end. A router that sends DELETE to a 404 page, or a 405 without Allow, is the usual cause.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#earlier-streamable-http-revisions",
	After:  []string{"MM-05"}, // a 405 without Allow is MM-05's finding, once
	run: func(t *checkRun) outcome {
		return t.noLongerServed("DELETE", set("Mcp-Session-Id", "rawmcp-probe"))
	}}

// ignored sends the baseline server/discover with one field added and
// wants it served as without, and no session id minted or echoed.
func (t *checkRun) ignored(name, value string) outcome {
	base, _, o := t.control("server/discover", "")
	if o != nil {
		return *o
	}
	if id := base.header("Mcp-Session-Id"); id != "" {
		return t.unmet("the baseline server/discover was answered with an Mcp-Session-Id: a modern server mints none").with("no Mcp-Session-Id", "Mcp-Session-Id in the answer")
	}
	req, id := t.modernRequest("server/discover", "", set(name, value))
	r := t.must(t.send("server/discover with "+name+": "+value, req.Bytes(), toResponse, 0))
	switch {
	case !r.isResult(id):
		return t.unmet("with %s: %s %s, where it was served without", name, value, r.describe()).with("the result, as without "+name, r.said())
	case r.header("Mcp-Session-Id") != "":
		return t.unmet("with %s: %s served, but the answer carries an Mcp-Session-Id", name, value).with("no Mcp-Session-Id", "Mcp-Session-Id in the answer")
	}
	return t.pass("with %s: %s served as without it", name, value)
}

// V2-22: a session id is ignored, none minted or echoed.
var v222 = Check{ID: "V2-22", Level: Should, Source: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions (\"ignore it, and do not mint or echo session IDs\"); Versioning §Backward Compatibility",
	Section: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions", Keyword: "SHOULD", Binds: Server,
	Title:  "Mcp-Session-Id ignored, never minted or echoed",
	Sends:  "server/discover, then the same with Mcp-Session-Id: rawmcp-bogus-1",
	Passes: "both served, neither answer carries Mcp-Session-Id; the official suite does not test it",
	Fix:    "Ignore Mcp-Session-Id on 2026-07-28 requests: serve them as without it and never send Mcp-Session-Id back. A dual-era server should issue and check session ids only for clients that chose 2025-11-25 through initialize.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#earlier-streamable-http-revisions",
	run:    func(t *checkRun) outcome { return t.ignored("Mcp-Session-Id", "rawmcp-bogus-1") }}

// V2-23: Last-Event-ID is ignored.
var v223 = Check{ID: "V2-23", Level: Should, Source: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions (\"ignore it; streams are not resumable\")",
	Section: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions", Keyword: "SHOULD", Binds: Server,
	Title:  "Last-Event-ID ignored",
	Sends:  "server/discover with Last-Event-ID: rawmcp_0",
	Passes: "served as without it; the official suite does not test it",
	Fix:    "Ignore Last-Event-ID on 2026-07-28 requests and serve them as without it. The Go SDK (stateless) and mcp-go refuse it with 400 on POST, so strip the header in a middleware in front of their handlers.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#earlier-streamable-http-revisions",
	run:    func(t *checkRun) outcome { return t.ignored("Last-Event-ID", "rawmcp_0") }}

// V2-25: a notification gets 202 with no body, or a 4xx.
var v225 = Check{ID: "V2-25", Level: Must, Source: "MCP 2026-07-28 Transports §Sending Messages item 5",
	Section: "MCP 2026-07-28 Transports §Sending Messages", Keyword: "MUST", Binds: Server,
	Title:  "A notification gets 202 and no body",
	Sends:  "notifications/cancelled for a request never sent, with the baseline headers",
	Passes: "202 with an empty body, or a 4xx (not accepted); any other 2xx fails",
	Fix:    "Answer a notification the server accepts with 202 Accepted and no body, or with a 4xx if it cannot accept it; never another 2xx. Over HTTP, 2026-07-28 defines no client notification the server must act on, but the POST must still be answered this way.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#sending-messages",
	run:    runV225}

func runV225(t *checkRun) outcome {
	body := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":987654,"reason":"rawmcp probe"}}`)
	m := client.MCP{Host: t.p.target.Host, Path: t.p.target.Path, Authorization: t.p.authorization(), Version: modernVersion}
	r := t.must(t.send("notifications/cancelled", m.Request("POST", body).Set("Mcp-Method", "notifications/cancelled").Bytes(), toEnd, getWindow))
	switch st := r.status(); {
	case st == 202 && len(r.resp.Body) == 0:
		return t.pass("answered 202 with no body")
	case st == 202:
		return t.unmet("answered 202 with a body of %d bytes: an accepted notification gets none", len(r.resp.Body)).with("202 with no body", r.said())
	case is2xx(st):
		return t.unmet("%s: an accepted notification gets 202 with no body", r.describe()).with("202 with no body", r.said())
	case is4xx(st):
		return t.pass("answered %d: not accepted, as the revision allows", st)
	}
	return t.unmet("%s: 202 or a 4xx", r.describe()).with("202 with no body, or a 4xx", r.said())
}

// V2-26: a batch (a client's MUST NOT) is refused.
var v226 = Check{ID: "V2-26", Level: Informational, Source: "MCP 2026-07-28 Transports §Sending Messages item 4 (binds the client: \"MUST be a single JSON-RPC request\")",
	Section: "MCP 2026-07-28 Transports §Sending Messages", Keyword: "MUST", Binds: Client,
	Title:  "A batch refused",
	Sends:  "a JSON array of two server/discover requests",
	Passes: "a 4xx; served is reported (the rule binds the client, the spec says nothing of the server)",
	Fix:    "Nothing is required: the rule binds the client. A server that wants to refuse batches answers a JSON array body with 400 before dispatching it.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#sending-messages",
	run:    runV226}

func runV226(t *checkRun) outcome {
	one, _ := rpc("server/discover", `{"_meta":`+modernMeta+`}`)
	two, _ := rpc("server/discover", `{"_meta":`+modernMeta+`}`)
	body := append(append(append([]byte("["), one...), ','), append(two, ']')...)
	m := client.MCP{Host: t.p.target.Host, Path: t.p.target.Path, Authorization: t.p.authorization(), Version: modernVersion}
	r := t.must(t.send("a batch of two server/discover", m.Request("POST", body).Set("Mcp-Method", "server/discover").Bytes(), toEnd, getWindow))
	if is4xx(r.status()) {
		return t.pass("answered %d", r.status())
	}
	return t.info("a batch %s: one message per POST binds the client; the server's answer is not specified", r.describe()).with("a 4xx", r.said())
}

// V2-27: tools/list's result is complete and cacheable.
var v227 = Check{ID: "V2-27", Level: Must, Source: "MCP 2026-07-28 Basic §Result responses (resultType); Caching (ttlMs, cacheScope on list results)",
	Section: "MCP 2026-07-28 Caching", Keyword: "MUST", Binds: Server,
	Title:  "tools/list result carries resultType and caching hints",
	Sends:  "tools/list, where server/discover declares tools",
	Passes: `a result with resultType "complete", ttlMs >= 0, cacheScope public or private and a tools array`,
	Fix:    "Put resultType \"complete\", ttlMs (0 or more) and cacheScope (\"public\" or \"private\") on the tools/list result, as on every cacheable result. With an SDK these come from the list handler's result or the SDK's caching defaults; a hand-written result needs the fields added.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching#cacheable-results",
	run:    runV227}

func runV227(t *checkRun) outcome {
	caps, o := t.discoverCapabilities()
	if o != nil {
		return *o
	}
	if _, ok := caps["tools"]; !ok {
		return t.skip("server/discover declares no tools capability")
	}
	req, id := t.modernRequest("tools/list", "")
	r := t.must(t.send("tools/list", req.Bytes(), toResponse, 0))
	if !r.isResult(id) {
		return t.unmet("tools/list %s, where server/discover declares tools", r.describe()).with("a result", r.said())
	}
	var res struct {
		ResultType *string         `json:"resultType"`
		TTL        json.RawMessage `json:"ttlMs"`
		CacheScope *string         `json:"cacheScope"`
		Tools      json.RawMessage `json:"tools"`
	}
	r.resultOf(id, &res)
	faults := cacheableFaults(res.ResultType, res.TTL, res.CacheScope)
	var tools []json.RawMessage
	if json.Unmarshal(res.Tools, &tools) != nil || tools == nil {
		faults = append(faults, "tools is not an array")
	}
	if len(faults) > 0 {
		return t.unmet("tools/list's result: %s", joinAnd(faults)).with("a complete, cacheable result", joinAnd(faults))
	}
	return t.pass("a complete result with %s and caching hints", plural(len(tools), "tool"))
}

// V2-24: a foreign Origin gets 403 on the modern path; a foreign Host is
// refused (hardening, as HO-01).
var v224 = Check{ID: "V2-24", Level: Must, Source: "MCP 2026-07-28 Transports §Security & Endpoint (\"MUST respond with HTTP 403 Forbidden\"); Host: MCP Security Best Practices (H)",
	Section: "MCP 2026-07-28 Transports §Security & Endpoint", Keyword: "MUST", Binds: Server,
	Title:  "Foreign Origin refused on the modern path",
	Sends:  "server/discover with Origin: http://evil.example; then with Host: evil.example (no Origin)",
	Passes: "403 to the Origin (MUST); a 4xx to the Host (H); the official suite sends both at once and accepts any 4xx",
	Fix:    "Check Origin on 2026-07-28 requests as on the others: a present Origin that is not the server's own gets 403, and a foreign Host should be refused too. The middleware or SDK option that guards the 2025-11-25 path guards both only if it sits in front of the whole endpoint.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint",
	// On a dual-era target whose 2025-11-25 path serves a foreign Origin,
	// the missing check is HO-02's finding, reported once.
	After: []string{"HO-02"},
	run:   runV224}

func runV224(t *checkRun) outcome {
	req, _ := t.modernRequest("server/discover", "", set("Origin", foreignOrigin))
	r := t.must(t.send("server/discover with Origin: "+foreignOrigin, req.Bytes(), toResponse, 0))
	switch {
	case is2xx(r.status()):
		return t.unmet("%s for Origin: %s: any web page can drive the server", r.describe(), foreignOrigin).with("403", r.said()+" for Origin: "+foreignOrigin)
	case r.status() != 403:
		return t.unmet("answered %d for Origin: %s: a foreign Origin gets 403 Forbidden", r.status(), foreignOrigin).with("403", r.said()+" for Origin: "+foreignOrigin)
	}
	req, _ = t.modernRequest("server/discover", "", set("Host", foreignHost))
	h := t.must(t.send("server/discover with Host: "+foreignHost, req.Bytes(), toResponse, 0))
	if !is4xx(h.status()) {
		return t.unmetAt(Hardening, "Origin refused with 403, but %s for Host: %s: a page on a DNS-rebinding name reaches the server", h.describe(), foreignHost).
			with("a 4xx", h.said()+" for Host: "+foreignHost)
	}
	return t.pass("answered 403 to Origin: %s and %d to Host: %s", foreignOrigin, h.status(), foreignHost)
}

// V2-28: what an event stream of a modern answer may carry.
var v228 = Check{ID: "V2-28", Level: Must, Source: "MCP 2026-07-28 Transports §Sending Messages (no requests on the stream: MUST NOT; X-Accel-Buffering: SHOULD); Changelog item 5 (no notifications/message without logLevel: MUST NOT)",
	Section: "MCP 2026-07-28 Transports §Sending Messages", Keyword: "MUST", Binds: Server,
	Title:  "Modern event streams carry no requests",
	Sends:  "nothing: reads every event-stream answer of the V2 checks",
	Passes: "no event holds a JSON-RPC request or notifications/message (MUST NOT); each stream says X-Accel-Buffering: no (SHOULD); skips when no answer was a stream",
	Fix:    "On a 2026-07-28 event stream send only notifications related to the request and its final response: no JSON-RPC requests, and notifications/message only when the request's _meta asked for a logLevel. Send X-Accel-Buffering: no on every stream; the Go SDK and mcp-go do not, so set it in a middleware.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#receiving-messages",
	phase:  phaseScan, run: runV228}

func runV228(t *checkRun) outcome {
	streams := 0
	var requests, logs, unbuffered []string
	for _, res := range t.p.earlier() {
		if res.Check.Group != "V2" {
			continue
		}
		for _, x := range res.Exchanges {
			if x.resp == nil || !strings.HasPrefix(x.Request, "POST ") {
				continue
			}
			r := &reply{resp: x.resp}
			if !r.isSSE() {
				continue
			}
			streams++
			for _, m := range r.messages() {
				switch {
				case m.Method != "" && m.ID != nil && string(m.ID) != "null":
					requests = append(requests, res.Check.ID+" ("+m.Method+")")
				case m.Method == "notifications/message":
					logs = append(logs, res.Check.ID)
				}
			}
			if !strings.EqualFold(r.header("X-Accel-Buffering"), "no") {
				unbuffered = append(unbuffered, res.Check.ID)
			}
		}
	}
	switch {
	case streams == 0:
		return t.skip("no V2 answer was an event stream")
	case len(requests) > 0:
		return t.unmet("a request on a response stream: %s (MUST NOT)", joinAnd(dedupe(requests))).with("notifications and the response only", "a request in "+joinAnd(dedupe(requests)))
	case len(logs) > 0:
		return t.unmet("notifications/message on the stream of a request without logLevel: %s (MUST NOT)", joinAnd(dedupe(logs))).with("no log notifications", "notifications/message in "+joinAnd(dedupe(logs)))
	case len(unbuffered) > 0:
		return t.unmetAt(Should, "event streams without X-Accel-Buffering: no: %s (a proxy may hold them)", joinAnd(dedupe(unbuffered))).with("X-Accel-Buffering: no", "missing in "+joinAnd(dedupe(unbuffered)))
	}
	return t.pass("%s, no request or log notification on them, each with X-Accel-Buffering: no", plural(streams, "event stream"))
}

func dedupe(list []string) []string {
	var out []string
	for _, s := range list {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// V2-30: the resource-server boundary on modern requests.
var v230 = Check{ID: "V2-30", Level: Must, Source: "MCP 2026-07-28 Authorization §Token Handling (401 for invalid tokens: MUST; scope in the challenge: SHOULD; no offline_access: SHOULD NOT); Authorization Server Discovery (resource_metadata or well-known: MUST; authorization_servers: MUST)", Needs: NeedAuth,
	Section: "MCP 2026-07-28 Authorization §Token Handling", Keyword: "MUST", Binds: Server,
	Title:  "Modern requests need a token",
	Sends:  "server/discover without a token and with Bearer rawmcp-invalid; GET the metadata the challenge names (or the well-known paths)",
	Passes: "401 to both with a Bearer challenge; metadata with authorization_servers (MUST); scope in the challenge (SHOULD); no offline_access (SHOULD NOT)",
	Fix:    "Put 2026-07-28 requests behind the same bearer middleware as 2025-11-25 ones: 401 with a Bearer challenge to a missing or invalid token, naming resource_metadata and the scope needed. Serve the Protected Resource Metadata with authorization_servers, and leave offline_access out of the challenged scope.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#token-handling",
	After:  []string{"AU-11", "AU-02"}, // missing metadata is AU-02's finding, once
	run:    runV230}

func runV230(t *checkRun) outcome {
	req, _ := t.modernRequest("server/discover", "", drop("Authorization"))
	bare := t.send("server/discover without a token", req.Bytes(), toResponse, 0)
	req, _ = t.modernRequest("server/discover", "", set("Authorization", "Bearer rawmcp-invalid"))
	bad := t.send("server/discover with Bearer rawmcp-invalid", req.Bytes(), toResponse, 0)
	for _, r := range []*reply{bare, bad} {
		if r.resp == nil {
			return t.errored("%s %s", r.step, r.describe())
		}
		if r.status() != 401 {
			return t.unmet("%s %s: no token or an invalid one gets 401", r.step, r.describe()).with("401", r.said())
		}
	}
	c, ok := bare.bearer()
	if !ok {
		return t.unmet("401 without a Bearer challenge").with("401 with WWW-Authenticate: Bearer", "401 without it")
	}
	var paths []string
	if u, err := url.Parse(c.Params["resource_metadata"]); c.Params["resource_metadata"] != "" && err == nil &&
		u.Scheme == t.p.target.Scheme && strings.EqualFold(u.Host, t.p.target.Host) {
		paths = append(paths, u.EscapedPath())
	}
	paths = append(paths, t.p.target.MetadataPaths...)
	var prm struct {
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	found := ""
	for _, path := range paths {
		get := client.Request{Method: "GET", Path: path, Header: [][2]string{{"Host", t.p.target.Host}, {"Accept", "application/json"}}}
		m := t.send("GET the metadata, no token", get.Bytes(), toEnd, 0)
		if m.status() == 200 && json.Unmarshal(m.resp.Body, &prm) == nil {
			found = path
			break
		}
	}
	switch {
	case found == "":
		return t.unmet("no Protected Resource Metadata at %s", joinAnd(paths)).with("metadata at resource_metadata or a well-known path", "none")
	case len(prm.AuthorizationServers) == 0:
		return t.unmet("the metadata at %s lists no authorization_servers", found).with("a non-empty authorization_servers", "none")
	case strings.Contains(" "+c.Params["scope"]+" ", " offline_access ") || contains(prm.ScopesSupported, "offline_access"):
		return t.unmetAt(Should, "offline_access offered in the challenge's scope or the metadata's scopes_supported (SHOULD NOT)").with("no offline_access", "offline_access")
	case c.Params["scope"] == "":
		return t.unmetAt(Should, "the challenge names no scope (SHOULD)").with("a Bearer challenge with scope", "none")
	}
	return t.pass("401 to no token and to an invalid one; metadata at %s with %s; scope %q", found, plural(len(prm.AuthorizationServers), "authorization server"), c.Params["scope"])
}

// listenWindow is how long V2-29 reads a subscriptions/listen stream: the
// acknowledgment comes first, at once; what follows within the window is
// checked against the filter.
const listenWindow = 1500 * time.Millisecond

// listenFilters are the change notifications a capability advertises, as
// a listen filter and the notification it admits.
var listenFilters = []struct {
	capability, flag, filter, notification string
}{
	{"tools", "listChanged", "toolsListChanged", "notifications/tools/list_changed"},
	{"prompts", "listChanged", "promptsListChanged", "notifications/prompts/list_changed"},
	{"resources", "listChanged", "resourcesListChanged", "notifications/resources/list_changed"},
}

// V2-29: subscriptions/listen is acknowledged first and honours its filter.
var v229 = Check{ID: "V2-29", Level: Must, Source: "MCP 2026-07-28 Subscriptions (acknowledged first, subscriptionId on every notification, nothing outside the filter: MUST); Basic §_meta",
	Section: "MCP 2026-07-28 Subscriptions", Keyword: "MUST", Binds: Server,
	Title:  "subscriptions/listen acknowledged, tagged and filtered",
	Sends:  "subscriptions/listen for the first list change server/discover advertises; reads 1.5 s, then closes",
	Passes: "an event stream whose first message is notifications/subscriptions/acknowledged with the request's id as subscriptionId, every notification so tagged and of the filter's type; skips when nothing is advertised",
	Fix:    "Answer subscriptions/listen with an event stream whose first message is notifications/subscriptions/acknowledged, with _meta io.modelcontextprotocol/subscriptionId set to the request's id. Tag every later notification the same way, and send only the types the filter asked for.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#acknowledgment",
	run:    runV229}

func runV229(t *checkRun) outcome {
	caps, o := t.discoverCapabilities()
	if o != nil {
		return *o
	}
	var chosen *struct{ capability, flag, filter, notification string }
	for i, f := range listenFilters {
		var c map[string]json.RawMessage
		if json.Unmarshal(caps[f.capability], &c) == nil && string(c[f.flag]) == "true" {
			chosen = &listenFilters[i]
			break
		}
	}
	if chosen == nil {
		return t.skip("server/discover advertises no listChanged capability: no subscription to open")
	}
	req, id := t.modernRequest("subscriptions/listen", `{"notifications":{"`+chosen.filter+`":true}}`)
	r := t.must(t.send("subscriptions/listen for "+chosen.filter, req.Bytes(), toResponse, listenWindow))
	want := "an event stream acknowledged first, subscriptionId " + strconv.FormatInt(id, 10)
	if r.status() != 200 || !r.isSSE() {
		return t.unmet("subscriptions/listen for %s %s, where server/discover advertises %s.%s", chosen.filter, r.describe(), chosen.capability, chosen.flag).with(want, r.said())
	}
	idText := strconv.FormatInt(id, 10)
	first := true
	for _, ev := range r.events() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if ev.Data == "" || json.Unmarshal([]byte(ev.Data), &m) != nil {
			continue
		}
		if m.Method == "" {
			// The response that ends the subscription.
			continue
		}
		tag := string(m.Params.Meta["io.modelcontextprotocol/subscriptionId"])
		switch {
		case first && m.Method != "notifications/subscriptions/acknowledged":
			return t.unmet("the stream's first message is %s, not notifications/subscriptions/acknowledged", m.Method).with(want, "first "+m.Method)
		case tag != idText:
			return t.unmet("%s carries subscriptionId %s, not the listen request's id %s", m.Method, idOrNone(tag), idText).with(want, m.Method+" with subscriptionId "+idOrNone(tag))
		case !first && m.Method != chosen.notification && m.Method != "notifications/cancelled":
			return t.unmet("%s on a stream that asked only for %s (MUST NOT)", m.Method, chosen.filter).with("only "+chosen.notification, m.Method)
		}
		first = false
	}
	if first {
		return t.unmet("subscriptions/listen answered an event stream with no acknowledgment within %s", listenWindow).with(want, "no notification")
	}
	return t.pass("acknowledged first with subscriptionId %s; nothing outside %s", idText, chosen.filter)
}

func idOrNone(tag string) string {
	if tag == "" {
		return "none"
	}
	return tag
}

// V2-31: a modern-only server names its versions to a legacy initialize.
var v231 = Check{ID: "V2-31", Level: Should, Source: "MCP 2026-07-28 Versioning §Backward Compatibility (\"SHOULD name the protocol versions it supports in any error it returns to an initialize request\")",
	Section: "MCP 2026-07-28 Versioning §Backward Compatibility", Keyword: "SHOULD", Binds: Server,
	Title:    "A legacy initialize learns the supported versions",
	Sends:    "initialize as a 2025-11-25 client sends it (no MCP-Protocol-Version, no _meta)",
	Passes:   "an InitializeResult (the target speaks both), or an error naming a version server/discover lists (data.supported or the message)",
	Fix:      "Either serve initialize (speak 2025-11-25 too) or refuse it with an error that names the versions the server supports, in data.supported or the message. A stock unknown-method error leaves a 2025-11-25 client with nothing to show its user.",
	Link:     "https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions",
	Sessions: 1, run: runV231}

func runV231(t *checkRun) outcome {
	base, baseID, o := t.control("server/discover", "")
	if o != nil {
		return *o
	}
	var disc discoverResult
	var served []string
	base.resultOf(baseID, &disc)
	json.Unmarshal(disc.SupportedVersions, &served)
	body, id := initializeBody(protocolVersion)
	r := t.must(t.send("initialize as a "+protocolVersion+" client", t.request("POST", nil, body).Bytes(), toResponse, 0))
	if r.isResult(id) {
		return t.pass("initialize served: the target speaks %s too", protocolVersion)
	}
	var d struct {
		Supported []string `json:"supported"`
	}
	e := r.errorOf()
	json.Unmarshal(e.Data, &d)
	for _, v := range d.Supported {
		if contains(served, v) {
			return t.pass("initialize %s naming %s in data.supported", r.describe(), strings.Join(d.Supported, ", "))
		}
	}
	text := ""
	if r.resp != nil {
		text = string(r.resp.Body)
	}
	for _, v := range served {
		if strings.Contains(text, strconv.Quote(v)[1:len(v)+1]) {
			return t.pass("initialize %s naming %s", r.describe(), v)
		}
	}
	return t.unmet("initialize %s naming none of the versions server/discover lists: a 2025-11-25 client cannot tell its user what to upgrade to", r.describe()).
		with("an error naming "+strings.Join(served, ", "), r.said())
}
