package probe

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
)

// headerRefused sends server/discover with edits (one header changed)
// and wants 400 with -32020.
func (t *checkRun) headerRefused(how string, edits ...fieldEdit) outcome {
	if _, _, o := t.control("server/discover", ""); o != nil {
		return *o
	}
	req, id := t.modernRequest("server/discover", "", edits...)
	r := t.send("server/discover "+how, req.Bytes(), toResponse, 0)
	return t.refused(r, id, 400, codeHeaderMismatch, how)
}

const suiteCodeNote = "; the official suite grades a 400 with another code only as a warning, the spec's sentence makes -32020 a MUST"

// V2-10: Mcp-Method missing.
var v210 = Check{ID: "V2-10", Level: Must, Source: "MCP 2026-07-28 Transports §Standard Request Headers (\"REQUIRED\"), §Server Validation", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Server Validation", Keyword: "MUST", Binds: Server,
	Line:   "Mcp-Method required",
	Sends:  "server/discover without Mcp-Method",
	Passes: "400 with JSON-RPC error -32020, the id echoed" + suiteCodeNote,
	run:    func(t *checkRun) outcome { return t.headerRefused("without Mcp-Method", drop("Mcp-Method")) }}

// V2-11: Mcp-Method names another method than the body.
var v211 = Check{ID: "V2-11", Level: Must, Source: "MCP 2026-07-28 Transports §Server Validation (\"MUST reject requests where the values … do not match\")", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Server Validation", Keyword: "MUST", Binds: Server,
	Line:   "Mcp-Method must match the body",
	Sends:  "server/discover with Mcp-Method: tools/list",
	Passes: "400 with JSON-RPC error -32020, the id echoed" + suiteCodeNote,
	run: func(t *checkRun) outcome {
		return t.headerRefused("with Mcp-Method: tools/list", set("Mcp-Method", "tools/list"))
	}}

// V2-12: header values are case-sensitive.
var v212 = Check{ID: "V2-12", Level: Must, Source: "MCP 2026-07-28 Transports §Case Sensitivity (values are case-sensitive), §Server Validation", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Case Sensitivity", Keyword: "MUST", Binds: Server,
	Line:   "Mcp-Method compared case-sensitively",
	Sends:  "server/discover with Mcp-Method: SERVER/DISCOVER",
	Passes: "400 with JSON-RPC error -32020, the id echoed",
	run: func(t *checkRun) outcome {
		return t.headerRefused("with Mcp-Method: SERVER/DISCOVER", set("Mcp-Method", "SERVER/DISCOVER"))
	}}

// V2-13: header names are case-insensitive.
var v213 = Check{ID: "V2-13", Level: Must, Source: "MCP 2026-07-28 Transports §Case Sensitivity (\"MUST use case-insensitive comparisons for header names\")", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Case Sensitivity", Keyword: "MUST", Binds: Server,
	Line:   "Header names matched case-insensitively",
	Sends:  "server/discover with the fields spelled mcp-protocol-version and mcp-method",
	Passes: "the result, as with the usual spelling",
	run:    runV213}

func runV213(t *checkRun) outcome {
	if _, _, o := t.control("server/discover", ""); o != nil {
		return *o
	}
	req, id := t.modernRequest("server/discover", "")
	req = edit(req, drop("MCP-Protocol-Version"), drop("Mcp-Method"), set("mcp-protocol-version", modernVersion), set("mcp-method", "server/discover"))
	r := t.send("server/discover with lower-case field names", req.Bytes(), toResponse, 0)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
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
	base := t.send("baseline: tools/call "+name, raw, toResponse, 0)
	if o := t.unjudgeable(base); o != nil {
		return *o
	}
	if e := base.errorOf(); !base.isResult(id) && (!e.Found || e.Code == codeHeaderMismatch) {
		return t.skip("the baseline tools/call %s %s: nothing to compare the changed request with", name, base.describe())
	}
	raw, id = t.callTool(name, edits(name)...)
	r := t.send("tools/call "+name+" "+how, raw, toResponse, 0)
	if refuse {
		return t.refused(r, id, 400, codeHeaderMismatch, how)
	}
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	if e := r.errorOf(); r.status() == 400 && (e.Code == codeHeaderMismatch || !e.Found) && base.status() != 400 {
		return t.unmet("%s %s: refused as a header fault", how, r.describe()).with(base.said()+", as without the change", r.said())
	}
	return t.pass("%s %s, as without the change (%s)", how, r.describe(), base.said())
}

// V2-14: Mcp-Name missing.
var v214 = Check{ID: "V2-14", Level: Must, Source: "MCP 2026-07-28 Transports §Standard Request Headers (Mcp-Name for tools/call), §Server Validation", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Server Validation", Keyword: "MUST", Binds: Server,
	Line:   "Mcp-Name required on tools/call",
	Sends:  "tools/call of the first tool tools/list offers, without Mcp-Name (skips without a tool)",
	Passes: "400 with JSON-RPC error -32020, the id echoed" + suiteCodeNote,
	run: func(t *checkRun) outcome {
		return t.mcpName("without Mcp-Name", true, func(string) []fieldEdit { return []fieldEdit{drop("Mcp-Name")} })
	}}

// V2-15: Mcp-Name names another tool.
var v215 = Check{ID: "V2-15", Level: Must, Source: "MCP 2026-07-28 Transports §Server Validation", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Server Validation", Keyword: "MUST", Binds: Server,
	Line:   "Mcp-Name must match the body",
	Sends:  "tools/call of the first tool with Mcp-Name: rawmcp_wrong_name",
	Passes: "400 with JSON-RPC error -32020, the id echoed" + suiteCodeNote,
	run: func(t *checkRun) outcome {
		return t.mcpName("with Mcp-Name: rawmcp_wrong_name", true, func(string) []fieldEdit { return []fieldEdit{set("Mcp-Name", "rawmcp_wrong_name")} })
	}}

// V2-16: a Base64-sentinel Mcp-Name is decoded before the comparison.
var v216 = Check{ID: "V2-16", Level: Must, Source: "MCP 2026-07-28 Transports §Value Encoding (\"servers MUST decode an encoded Mcp-Name … before comparing\")", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Value Encoding", Keyword: "MUST", Binds: Server,
	Line:   "A Base64-encoded Mcp-Name decoded",
	Sends:  "tools/call of the first tool with Mcp-Name: =?base64?<its name>?=",
	Passes: "the same answer as with the plain name: not a 400 header refusal; the official suite has no such case",
	run: func(t *checkRun) outcome {
		return t.mcpName("with a Base64-encoded Mcp-Name", false, func(name string) []fieldEdit {
			return []fieldEdit{set("Mcp-Name", "=?base64?"+base64.StdEncoding.EncodeToString([]byte(name))+"?=")}
		})
	}}

// V2-17: whitespace around a field value is not part of it.
var v217 = Check{ID: "V2-17", Level: Must, Source: "RFC 9110 §5.5 (surrounding whitespace is not part of a field value)", Needs: NeedModern,
	Section: "RFC 9110 §5.5", Keyword: "MUST", Binds: Server,
	Line:   "Whitespace around Mcp-Name ignored",
	Sends:  "tools/call of the first tool with Mcp-Name: '   <name>  '",
	Passes: "the same answer as without the whitespace: not a 400 header refusal",
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
