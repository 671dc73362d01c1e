package probe

import (
	"encoding/json"
	"strconv"
	"strings"
)

// The V2 checks of what a modern request must carry that V2-03 to V2-17
// do not send: _meta without its version, and Mcp-Name on the two other
// methods that need it.

// V2-32: _meta without protocolVersion.
var v232 = Check{ID: "V2-32", Level: Must, Source: "MCP 2026-07-28 Basic §_meta (protocolVersion Required: Yes; \"MUST reject it with … -32602 … status MUST be 400\")",
	Section: "MCP 2026-07-28 Basic §_meta", Keyword: "MUST", Binds: Server,
	Title:  "A request whose _meta lacks protocolVersion refused",
	Sends:  "server/discover whose _meta has clientInfo and clientCapabilities but no protocolVersion (the header still says 2026-07-28)",
	Passes: "400 with JSON-RPC error -32602, the id echoed",
	Fix:    "Validate the per-request _meta before serving: without io.modelcontextprotocol/protocolVersion the request is malformed, answered 400 with -32602, even when MCP-Protocol-Version is there.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic#meta",
	run:    runRefusal}

// namedMethods are the methods besides tools/call that carry Mcp-Name, with
// the list that names what to ask for and the member it names it by.
var namedMethods = []struct{ method, list, member, key string }{
	{"resources/read", "resources/list", "resources", "uri"},
	{"prompts/get", "prompts/list", "prompts", "name"},
}

// V2-38: Mcp-Name on resources/read and prompts/get.
var v238 = Check{ID: "V2-38", Level: Must, Source: "MCP 2026-07-28 Transports §Standard Request Headers (Mcp-Name REQUIRED for resources/read and prompts/get), §Server Validation",
	Section: "MCP 2026-07-28 Transports §Server Validation", Keyword: "MUST", Binds: Server,
	Title:  "Mcp-Name required and matched on resources/read and prompts/get",
	Sends:  "resources/read of the first resource and prompts/get of the first prompt, as a client sends them, then without Mcp-Name, then with Mcp-Name: rawmcp_wrong_name",
	Passes: "400 with JSON-RPC error -32020 to each changed request, the id echoed; skips when nothing is listed (the official suite sends neither)",
	Fix:    "Compare Mcp-Name with params.uri on resources/read and params.name on prompts/get, as on tools/call, and refuse a missing or different one with 400 and -32020 before serving.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation",
	run:    runV238}

func runV238(t *checkRun) outcome {
	var faults, actual, judged, notes []string
	for _, m := range namedMethods {
		value, item, none := t.firstListed(m.list, m.member, m.key)
		if value == "" {
			notes = append(notes, m.list+" "+none)
			continue
		}
		params := `{"` + m.key + `":` + strconv.Quote(value) + promptArguments(item) + `}`
		req, id := t.modernRequest(m.method, params, set("Mcp-Name", headerName(value)))
		base := t.must(t.send("baseline: "+m.method+" "+value, req.Bytes(), toResponse, 0))
		if e := base.errorOf(); !base.isResult(id) && (!e.Found || e.Code == codeHeaderMismatch) {
			notes = append(notes, "the baseline "+m.method+" "+base.describe())
			continue
		}
		judged = append(judged, m.method)
		for _, c := range []struct {
			how  string
			edit fieldEdit
		}{
			{"without Mcp-Name", drop("Mcp-Name")},
			{"with Mcp-Name: rawmcp_wrong_name", set("Mcp-Name", "rawmcp_wrong_name")},
		} {
			req, id := t.modernRequest(m.method, params, c.edit)
			r := t.must(t.send(m.method+" "+c.how, req.Bytes(), toResponse, 0))
			if o := t.refused(r, id, 400, codeHeaderMismatch, m.method+" "+c.how); o.verdict != Pass {
				faults = append(faults, o.reason)
				actual = append(actual, m.method+" "+c.how+": "+r.said())
			}
		}
	}
	switch {
	case len(faults) > 0:
		return t.unmet("%s", strings.Join(faults, "; ")).with("400 with JSON-RPC error -32020 to each", strings.Join(actual, "; "))
	case len(judged) == 0:
		return t.skip("nothing to call with Mcp-Name: %s", joinAnd(notes))
	}
	return t.pass("%s refused a missing and a wrong Mcp-Name with 400 and -32020", joinAnd(judged))
}

// promptArguments is `,"arguments":{...}` giving each required argument
// of a listed prompt a string, "" for anything that is not a prompt with
// some.
func promptArguments(item map[string]json.RawMessage) string {
	var args []struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	}
	json.Unmarshal(item["arguments"], &args)
	var parts []string
	for _, a := range args {
		if a.Required {
			parts = append(parts, strconv.Quote(a.Name)+`:"rawmcp-probe"`)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return `,"arguments":{` + strings.Join(parts, ",") + `}`
}
