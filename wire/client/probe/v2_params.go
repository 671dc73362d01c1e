package probe

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// V2-37: the Mcp-Param headers of a tool that declares x-mcp-header are
// held to its arguments.
var v237 = Check{ID: "V2-37", Level: Must, Source: "MCP 2026-07-28 Transports §Server Behavior for Custom Headers (\"MUST validate … after decoding if Base64-encoded\"; a header with invalid characters, or omitted while the body has the value: \"MUST reject\"), §Value Encoding",
	Section: "MCP 2026-07-28 Transports §Server Behavior for Custom Headers", Keyword: "MUST", Binds: Server,
	Title:  "Mcp-Param headers checked against the arguments",
	Sends:  "tools/call of the first tool with a string parameter marked x-mcp-header, its header as sent, Base64-encoded, different, left out, badly encoded, and literal text like Base64",
	Passes: "matching, encoded and literal forms not refused 400 -32020, the others refused so; skips without x-mcp-header (the suite's cases, unscored there)",
	Fix:    "For each tool parameter marked x-mcp-header, compare the Mcp-Param-{Name} header with the argument after decoding a =?base64?…?= value, and refuse a missing, different or undecodable one with 400 and -32020 before the tool runs.",
	Link:   "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-behavior-for-custom-headers",
	run:    runV237}

// headerTool is a tool with a string parameter mirrored into a header:
// its name, the parameter, the header's name part, and the other
// required arguments with the headers they carry.
type headerTool struct {
	name, param, header string
	others              map[string]any
	otherHeaders        []fieldEdit
}

func runV237(t *checkRun) outcome {
	caps, o := t.discoverCapabilities()
	if o != nil {
		return *o
	}
	if _, ok := caps["tools"]; !ok {
		return t.skip("server/discover declares no tools capability")
	}
	req, id := t.modernRequest("tools/list", "")
	r := t.must(t.send("tools/list", req.Bytes(), toResponse, 0))
	var res struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if !r.resultOf(id, &res) {
		return t.skip("tools/list %s, not a result (see V2-27)", r.describe())
	}
	var tool *headerTool
	for _, raw := range res.Tools {
		if tool = headerToolOf(raw); tool != nil {
			break
		}
	}
	if tool == nil {
		return t.skip("no tool of tools/list marks a string parameter with x-mcp-header: no Mcp-Param header to check")
	}
	call := func(step, value string, edits ...fieldEdit) (*reply, int64) {
		args := map[string]any{tool.param: value}
		for k, v := range tool.others {
			args[k] = v
		}
		a, _ := json.Marshal(args)
		edits = append(append([]fieldEdit{set("Mcp-Name", headerName(tool.name))}, tool.otherHeaders...), edits...)
		req, id := t.modernRequest("tools/call", `{"name":`+strconv.Quote(tool.name)+`,"arguments":`+string(a)+`}`, edits...)
		return t.must(t.send("tools/call "+tool.name+" "+step, req.Bytes(), toResponse, 0)), id
	}
	header := "Mcp-Param-" + tool.header
	base, baseID := call(header+": rawmcp-probe", "rawmcp-probe", set(header, "rawmcp-probe"))
	if headerRefusal(base) || !base.isResult(baseID) && !base.errorOf().Found {
		return t.skip("the baseline tools/call %s with %s: rawmcp-probe %s: nothing to compare the changed requests with", tool.name, header, base.describe())
	}
	var faults, actual []string
	for _, c := range []struct {
		how, body, value string
		refuse           bool
	}{
		{"Base64-encoded", "rawmcp-probe", "=?base64?" + base64.StdEncoding.EncodeToString([]byte("rawmcp-probe")) + "?=", false},
		{"different from the argument", "rawmcp-probe", "rawmcp-other", true},
		{"left out", "rawmcp-probe", "", true},
		{"with bad Base64 padding", "Hello", "=?base64?SGVsbG8?=", true},
		{"with characters outside Base64", "Hello", "=?base64?SGVs!!!bG8=?=", true},
		{"Base64 text without the sentinel (a literal)", "SGVsbG8=", "SGVsbG8=", false},
		{"a sentinel prefix without its suffix (a literal)", "=?base64?SGVsbG8=", "=?base64?SGVsbG8=", false},
	} {
		edit := set(header, c.value)
		if c.value == "" {
			edit = drop(header)
		}
		r, id := call(header+" "+c.how, c.body, edit)
		how := header + " " + c.how
		switch {
		case c.refuse:
			if o := t.refused(r, id, 400, codeHeaderMismatch, how); o.verdict != Pass {
				faults = append(faults, o.reason)
				actual = append(actual, c.how+": "+r.said())
			}
		case headerRefusal(r):
			faults = append(faults, how+" "+r.describe()+": refused as a header fault")
			actual = append(actual, c.how+": "+r.said())
		}
	}
	if len(faults) > 0 {
		return t.unmet("tools/call %s: %s", tool.name, strings.Join(faults, "; ")).
			with("matching forms served as "+base.said()+", the others 400 with -32020", strings.Join(actual, "; "))
	}
	return t.pass("tools/call %s: %s held to the %s argument in all 8 forms", tool.name, header, tool.param)
}

// headerRefusal is a 400 that says the headers were at fault: -32020, or
// no JSON-RPC error at all.
func headerRefusal(r *reply) bool {
	e := r.errorOf()
	return r.status() == 400 && (!e.Found || e.Code == codeHeaderMismatch)
}

// headerToolOf reads a tool of tools/list: a headerTool when a string
// property of its input schema carries x-mcp-header (the first such, by
// name), nil otherwise. The other required arguments get a value of
// their type, and their own Mcp-Param header when they are mirrored too.
func headerToolOf(raw json.RawMessage) *headerTool {
	var tool struct {
		Name        string `json:"name"`
		InputSchema struct {
			Properties map[string]struct {
				Type   string          `json:"type"`
				Header json.RawMessage `json:"x-mcp-header"`
			} `json:"properties"`
			Required []string `json:"required"`
		} `json:"inputSchema"`
	}
	if json.Unmarshal(raw, &tool) != nil || tool.Name == "" {
		return nil
	}
	names := make([]string, 0, len(tool.InputSchema.Properties))
	for name := range tool.InputSchema.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	ht := &headerTool{name: tool.Name, others: map[string]any{}}
	for _, name := range names {
		p := tool.InputSchema.Properties[name]
		var h string
		if json.Unmarshal(p.Header, &h) == nil && h != "" && p.Type == "string" && visibleASCII(h) {
			ht.param, ht.header = name, h
			break
		}
	}
	if ht.param == "" {
		return nil
	}
	for _, name := range tool.InputSchema.Required {
		if name == ht.param {
			continue
		}
		p := tool.InputSchema.Properties[name]
		var v any = "rawmcp-probe"
		switch p.Type {
		case "integer", "number":
			v = 0
		case "boolean":
			v = false
		}
		ht.others[name] = v
		var h string
		if json.Unmarshal(p.Header, &h) == nil && h != "" {
			ht.otherHeaders = append(ht.otherHeaders, set("Mcp-Param-"+h, headerValue(v)))
		}
	}
	return ht
}

// headerValue is an argument as its Mcp-Param header carries it (Value
// Encoding: a string as is, an integer in decimal, a boolean in lower
// case).
func headerValue(v any) string {
	switch x := v.(type) {
	case string:
		return headerName(x)
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
