package probe

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// The V2 checks of what a modern server's results say: the capabilities
// server/discover declares against the methods served, caching hints on
// every cacheable result, the order of tools/list, and the error for a
// resource that does not exist.

// capabilityLists are the capabilities whose list method a declaring
// server serves (Server features §Capabilities).
var capabilityLists = []struct{ capability, method, member string }{
	{"tools", "tools/list", "tools"},
	{"prompts", "prompts/list", "prompts"},
	{"resources", "resources/list", "resources"},
}

// V2-33: server/discover declares exactly the features it serves.
var v233 = Check{ID: "V2-33", Level: Must, Source: "MCP 2026-07-28 Tools, Prompts, Resources §Capabilities (\"Servers that support tools MUST declare the tools capability\"; a declaring server MUST respond to the list request)",
	Section: "MCP 2026-07-28 Tools §Capabilities", Keyword: "MUST", Binds: Server,
	Title:  "server/discover declares what is served",
	Sends:  "server/discover, then tools/list, prompts/list and resources/list",
	Passes: "each list served exactly when its capability is declared; an undeclared one refused (the official suite wants 404 with -32601 and checks tools and prompts only)",
	Fix:    "Declare in server/discover's capabilities every feature the server answers (tools, prompts, resources), and only those: most SDKs derive the capabilities from what is registered, so a handler wired by hand is the usual culprit.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/server/tools#capabilities",
	run:    runV233}

func runV233(t *checkRun) outcome {
	caps, o := t.discoverCapabilities()
	if o != nil {
		return *o
	}
	var faults, actual, fine []string
	for _, c := range capabilityLists {
		_, declared := caps[c.capability]
		req, id := t.modernRequest(c.method, "")
		r := t.must(t.send(c.method, req.Bytes(), toResponse, 0))
		switch served := r.isResult(id); {
		case declared && !served:
			faults = append(faults, "declares "+c.capability+" but "+c.method+" "+r.describe())
			actual = append(actual, c.method+": "+r.said())
		case !declared && served:
			faults = append(faults, "serves "+c.method+" but declares no "+c.capability+" capability")
			actual = append(actual, c.method+": "+r.said()+" without the capability")
		case declared:
			fine = append(fine, c.capability+" declared and served")
		default:
			fine = append(fine, c.capability+" neither declared nor served ("+strconv.Itoa(r.status())+")")
		}
	}
	if len(faults) > 0 {
		return t.unmet("server/discover %s", strings.Join(faults, "; ")).with("each list served exactly when its capability is declared", strings.Join(actual, "; "))
	}
	return t.pass("%s", joinAnd(fine))
}

// cacheableLists are the cacheable results besides server/discover's
// (V2-01) and tools/list's (V2-27), by the capability that offers them
// (Caching §Cacheable Results).
var cacheableLists = []struct{ capability, method string }{
	{"prompts", "prompts/list"},
	{"resources", "resources/list"},
	{"resources", "resources/templates/list"},
}

// V2-34: the other cacheable results carry their hints.
var v234 = Check{ID: "V2-34", Level: Must, Source: "MCP 2026-07-28 Caching §Cacheable Results (\"Servers MUST include caching hints\"), §Time-to-Live (\"MUST provide a ttlMs value that is >= 0\"); schema CacheableResult (ttlMs an integer)",
	Section: "MCP 2026-07-28 Caching §Cacheable Results", Keyword: "MUST", Binds: Server,
	Title:  "List and read results carry caching hints",
	Sends:  "prompts/list, resources/list, resources/templates/list and resources/read of the first resource, where server/discover declares them",
	Passes: `each: resultType "complete", ttlMs an integer >= 0, cacheScope public or private (tools/list is V2-27's, server/discover V2-01's)`,
	Fix:    "Add ttlMs (an integer number of milliseconds, 0 for \"do not cache\") and cacheScope (\"public\" or \"private\") to every list result and to resources/read: SDKs for 2026-07-28 take them as options of the handler or of the server.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching#cacheable-results",
	run:    runV234}

// cacheHints is what a cacheable result is read for.
type cacheHints struct {
	ResultType *string         `json:"resultType"`
	TTL        json.RawMessage `json:"ttlMs"`
	CacheScope *string         `json:"cacheScope"`
}

// faults are what the hints lack: cacheableFaults', and a ttlMs with a
// fraction (the schema's integer).
func (h cacheHints) faults() []string {
	f := cacheableFaults(h.ResultType, h.TTL, h.CacheScope)
	if len(f) == 0 && !parseDecimal(json.Number(strings.TrimSpace(string(h.TTL)))).isInt() {
		f = append(f, "ttlMs is not an integer")
	}
	return f
}

func runV234(t *checkRun) outcome {
	caps, o := t.discoverCapabilities()
	if o != nil {
		return *o
	}
	var faults, checked, unserved []string
	judge := func(what string, r *reply, id int64) {
		var h cacheHints
		if !r.resultOf(id, &h) {
			// A declared list not served is V2-33's finding.
			unserved = append(unserved, what+" "+r.describe())
			return
		}
		checked = append(checked, what)
		if f := h.faults(); len(f) > 0 {
			faults = append(faults, what+": "+joinAnd(f))
		}
	}
	for _, c := range cacheableLists {
		if _, ok := caps[c.capability]; !ok {
			continue
		}
		req, id := t.modernRequest(c.method, "")
		judge(c.method, t.must(t.send(c.method, req.Bytes(), toResponse, 0)), id)
	}
	if _, ok := caps["resources"]; ok {
		if uri, _, _ := t.firstListed("resources/list", "resources", "uri"); uri != "" {
			req, id := t.modernRequest("resources/read", `{"uri":`+strconv.Quote(uri)+`}`, set("Mcp-Name", headerName(uri)))
			judge("resources/read", t.must(t.send("resources/read "+uri, req.Bytes(), toResponse, 0)), id)
		}
	}
	switch {
	case len(faults) > 0:
		return t.unmet("%s", strings.Join(faults, "; ")).with(`resultType "complete", ttlMs an integer >= 0, cacheScope public or private`, strings.Join(faults, "; "))
	case len(checked) == 0 && len(unserved) > 0:
		return t.skip("no result to read: %s (see V2-33)", joinAnd(unserved))
	case len(checked) == 0:
		return t.skip("server/discover declares neither prompts nor resources: no cacheable result besides tools/list (V2-27) and server/discover (V2-01)")
	}
	return t.pass("caching hints on %s", joinAnd(checked))
}

// firstListed is the key member of the first item a list method returns
// (resources/list's first uri), "" when the list is empty or not served;
// item is the whole first item, and none says why there is none: "lists
// nothing", or what the list method was answered when it is not served.
func (t *checkRun) firstListed(method, member, key string) (v string, item map[string]json.RawMessage, none string) {
	req, id := t.modernRequest(method, "")
	r := t.must(t.send(method, req.Bytes(), toResponse, 0))
	var res map[string]json.RawMessage
	var items []map[string]json.RawMessage
	if !r.resultOf(id, &res) {
		return "", nil, r.describe()
	}
	if json.Unmarshal(res[member], &items) != nil || len(items) == 0 {
		return "", nil, "lists nothing"
	}
	item = items[0]
	if json.Unmarshal(item[key], &v) != nil || v == "" {
		return "", nil, "lists a first item without " + key
	}
	return v, item, ""
}

// headerName is a name or URI as Mcp-Name carries it: as is when it is
// plain visible ASCII, else in the Base64 sentinel (Transports §Value
// Encoding).
func headerName(v string) string {
	if visibleASCII(v) && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=")) {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// V2-35: tools/list keeps its order.
var v235 = Check{ID: "V2-35", Level: Should, Source: "MCP 2026-07-28 Tools §Capabilities (\"Servers SHOULD return tools in a deterministic order\")",
	Section: "MCP 2026-07-28 Tools §Capabilities", Keyword: "SHOULD", Binds: Server,
	Title:  "tools/list in a deterministic order",
	Sends:  "tools/list three times in a row, where server/discover declares tools",
	Passes: "the same tool names in the same order each time (the first page)",
	Fix:    "Return tools in a fixed order, for instance sorted by name or in registration order, rather than iterating a hash map: clients cache the list and model prompt caches miss when it reorders.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/server/tools#capabilities",
	run:    runV235}

func runV235(t *checkRun) outcome {
	caps, o := t.discoverCapabilities()
	if o != nil {
		return *o
	}
	if _, ok := caps["tools"]; !ok {
		return t.skip("server/discover declares no tools capability")
	}
	var orders [][]string
	for i := range 3 {
		req, id := t.modernRequest("tools/list", "")
		r := t.must(t.send("tools/list "+strconv.Itoa(i+1), req.Bytes(), toResponse, 0))
		var res struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if !r.resultOf(id, &res) {
			return t.skip("tools/list %s, not a result (see V2-27)", r.describe())
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		orders = append(orders, names)
	}
	for i, names := range orders[1:] {
		if !slices.Equal(names, orders[0]) {
			return t.unmet("tools/list %d listed %s, the first %s", i+2, quoteList(names), quoteList(orders[0])).
				with("the same tools in the same order", strings.Join(names, ", "))
		}
	}
	return t.pass("%s in the same order three times", plural(len(orders[0]), "tool"))
}

func quoteList(names []string) string {
	if len(names) > 6 {
		names = append(names[:6:6], "…")
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// unknownResource is a URI no server serves.
const unknownResource = "rawmcp-probe://nonexistent/resource"

// V2-36: a resource that does not exist is an error.
var v236 = Check{ID: "V2-36", Level: Must, Source: "MCP 2026-07-28 Resources §Error Handling (\"MUST return a JSON-RPC error with code -32602\"; \"MUST NOT return an empty contents array\"); Basic §Error Codes (-32002 MUST NOT be emitted)",
	Section: "MCP 2026-07-28 Resources §Error Handling", Keyword: "MUST", Binds: Server,
	Title:  "An unknown resource gets -32602",
	Sends:  "resources/read of " + unknownResource + ", where server/discover declares resources",
	Passes: "a JSON-RPC error -32602 for the request's id, whatever the HTTP status; an empty contents array or -32002 fails (the official suite grades the code a SHOULD, the spec a MUST)",
	Fix:    "Answer resources/read of a URI the server does not have with a JSON-RPC error -32602 (Invalid Params), data.uri naming it; not an empty contents array, and no longer the 2025 code -32002.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/server/resources#error-handling",
	run:    runV236}

func runV236(t *checkRun) outcome {
	caps, o := t.discoverCapabilities()
	if o != nil {
		return *o
	}
	if _, ok := caps["resources"]; !ok {
		return t.skip("server/discover declares no resources capability")
	}
	req, id := t.modernRequest("resources/read", `{"uri":"`+unknownResource+`"}`, set("Mcp-Name", unknownResource))
	r := t.must(t.send("resources/read "+unknownResource, req.Bytes(), toResponse, 0))
	want := "a JSON-RPC error -32602"
	var res struct {
		Contents []json.RawMessage `json:"contents"`
	}
	switch e := r.errorOf(); {
	case r.resultOf(id, &res) && len(res.Contents) == 0:
		return t.unmet("resources/read of %s %s with an empty contents array: a client cannot tell it from an empty resource (MUST NOT)", unknownResource, r.describe()).with(want, r.said()+", contents []")
	case r.isResult(id):
		return t.skip("resources/read of %s %s with contents: the server takes the made-up URI for one it has", unknownResource, r.describe())
	case e.Found && e.Code == codeInvalidParams && string(e.ID) != strconv.FormatInt(id, 10):
		return t.unmet("answered -32602, but the error's id is %s, not the request's %d (Basic §Error responses)", idText(e.ID), id).with(want+" and id "+strconv.FormatInt(id, 10), r.said()+" and id "+idText(e.ID))
	case e.Found && e.Code == codeInvalidParams:
		return t.pass("%s", r.said())
	case e.Found && e.Code == -32002:
		return t.unmet("answered -32002, the 2025-11-25 code, which 2026-07-28 servers MUST NOT emit: resource not found is -32602").with(want, r.said())
	}
	return t.unmet("resources/read of %s %s", unknownResource, r.describe()).with(want, r.said())
}
