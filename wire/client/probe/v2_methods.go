package probe

import (
	"encoding/json"
	"strings"

	"rawmcp/wire/client"
)

// V2-18: an unknown method gets 404 with -32601.
var v218 = Check{ID: "V2-18", Level: Must, Source: "MCP 2026-07-28 Transports §Protocol Version Header (\"MUST respond with 404 Not Found and … -32601\")", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Line:   "An unknown method gets 404 with -32601",
	Sends:  "rawmcp/no-such-method as a modern request",
	Passes: "404 with JSON-RPC error -32601, the id echoed",
	run:    runV218}

func runV218(t *checkRun) outcome {
	if _, _, o := t.control("server/discover", ""); o != nil {
		return *o
	}
	req, id := t.modernRequest("rawmcp/no-such-method", "")
	r := t.send("rawmcp/no-such-method", req.Bytes(), toResponse, 0)
	return t.refused(r, id, 404, codeMethodNotFound, "rawmcp/no-such-method")
}

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
var v219 = Check{ID: "V2-19", Level: Must, Source: "MCP 2026-07-28 Transports §Protocol Version Header (404 + -32601 for a method not implemented); Changelog (ping, logging/setLevel, resources/subscribe and unsubscribe, initialize removed); Versioning §Backward Compatibility (a modern _meta is served by this revision)", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Line:   "Removed methods get 404 with -32601",
	Sends:  "ping, logging/setLevel, resources/subscribe, resources/unsubscribe and initialize, each as a modern request",
	Passes: "404 with JSON-RPC error -32601 to each, the id echoed",
	run:    runV219}

func runV219(t *checkRun) outcome {
	if _, _, o := t.control("server/discover", ""); o != nil {
		return *o
	}
	var faults, actual []string
	for _, m := range removedMethods {
		req, id := t.modernRequest(m.method, m.params)
		r := t.send(m.method+" (removed in "+modernVersion+")", req.Bytes(), toResponse, 0)
		if o := t.unjudgeable(r); o != nil {
			return *o
		}
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
	if _, _, o := t.control("server/discover", ""); o != nil {
		return *o
	}
	m := client.MCP{Host: t.p.target.Host, Path: t.p.target.Path, Authorization: t.p.authorization(), Version: modernVersion}
	r := t.send(method+" to the endpoint", edit(m.Request(method, nil), edits...).Bytes(), toHead, getWindow)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
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
var v220 = Check{ID: "V2-20", Level: Should, Source: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions (\"SHOULD … 405\"); RFC 9110 §15.5.6 (Allow)", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions", Keyword: "SHOULD", Binds: Server,
	Line:   "GET answered 405",
	Sends:  "GET with Accept: text/event-stream and MCP-Protocol-Version: 2026-07-28",
	Passes: "405 with Allow naming POST; on a target that also speaks 2025-11-25 another answer is reported, not judged; the official suite does not test it",
	run:    func(t *checkRun) outcome { return t.noLongerServed("GET") }}

// V2-21: DELETE is gone.
var v221 = Check{ID: "V2-21", Level: Should, Source: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions (\"SHOULD … 405\"); RFC 9110 §15.5.6 (Allow)", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions", Keyword: "SHOULD", Binds: Server,
	Line:   "DELETE answered 405",
	Sends:  "DELETE with Mcp-Session-Id: rawmcp-probe",
	Passes: "405 with Allow naming POST; on a target that also speaks 2025-11-25 another answer is reported, not judged; the official suite does not test it",
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
	r := t.send("server/discover with "+name+": "+value, req.Bytes(), toResponse, 0)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	switch {
	case !r.isResult(id):
		return t.unmet("with %s: %s %s, where it was served without", name, value, r.describe()).with("the result, as without "+name, r.said())
	case r.header("Mcp-Session-Id") != "":
		return t.unmet("with %s: %s served, but the answer carries an Mcp-Session-Id", name, value).with("no Mcp-Session-Id", "Mcp-Session-Id in the answer")
	}
	return t.pass("with %s: %s served as without it", name, value)
}

// V2-22: a session id is ignored, none minted or echoed.
var v222 = Check{ID: "V2-22", Level: Should, Source: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions (\"ignore it, and do not mint or echo session IDs\"); Versioning §Backward Compatibility", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions", Keyword: "SHOULD", Binds: Server,
	Line:   "Mcp-Session-Id ignored, never minted or echoed",
	Sends:  "server/discover, then the same with Mcp-Session-Id: rawmcp-bogus-1",
	Passes: "both served, neither answer carries Mcp-Session-Id; the official suite does not test it",
	run:    func(t *checkRun) outcome { return t.ignored("Mcp-Session-Id", "rawmcp-bogus-1") }}

// V2-23: Last-Event-ID is ignored.
var v223 = Check{ID: "V2-23", Level: Should, Source: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions (\"ignore it; streams are not resumable\")", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Earlier Streamable HTTP Revisions", Keyword: "SHOULD", Binds: Server,
	Line:   "Last-Event-ID ignored",
	Sends:  "server/discover with Last-Event-ID: rawmcp_0",
	Passes: "served as without it; the official suite does not test it",
	run:    func(t *checkRun) outcome { return t.ignored("Last-Event-ID", "rawmcp_0") }}

// V2-25: a notification gets 202 with no body, or a 4xx.
var v225 = Check{ID: "V2-25", Level: Must, Source: "MCP 2026-07-28 Transports §Sending Messages item 5", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Sending Messages", Keyword: "MUST", Binds: Server,
	Line:   "A notification gets 202 and no body",
	Sends:  "notifications/cancelled for a request never sent, with the baseline headers",
	Passes: "202 with an empty body, or a 4xx (not accepted); any other 2xx fails",
	run:    runV225}

func runV225(t *checkRun) outcome {
	if _, _, o := t.control("server/discover", ""); o != nil {
		return *o
	}
	body := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":987654,"reason":"rawmcp probe"}}`)
	m := client.MCP{Host: t.p.target.Host, Path: t.p.target.Path, Authorization: t.p.authorization(), Version: modernVersion}
	r := t.send("notifications/cancelled", m.Request("POST", body).Set("Mcp-Method", "notifications/cancelled").Bytes(), toEnd, getWindow)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
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
var v226 = Check{ID: "V2-26", Level: Informational, Source: "MCP 2026-07-28 Transports §Sending Messages item 4 (binds the client: \"MUST be a single JSON-RPC request\")", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Sending Messages", Keyword: "MUST", Binds: Client,
	Line:   "A batch refused",
	Sends:  "a JSON array of two server/discover requests",
	Passes: "a 4xx; served is reported (the rule binds the client, the spec says nothing of the server)",
	run:    runV226}

func runV226(t *checkRun) outcome {
	if _, _, o := t.control("server/discover", ""); o != nil {
		return *o
	}
	one, _ := rpc("server/discover", `{"_meta":`+modernMeta+`}`)
	two, _ := rpc("server/discover", `{"_meta":`+modernMeta+`}`)
	body := append(append(append([]byte("["), one...), ','), append(two, ']')...)
	m := client.MCP{Host: t.p.target.Host, Path: t.p.target.Path, Authorization: t.p.authorization(), Version: modernVersion}
	r := t.send("a batch of two server/discover", m.Request("POST", body).Set("Mcp-Method", "server/discover").Bytes(), toEnd, getWindow)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	if is4xx(r.status()) {
		return t.pass("answered %d", r.status())
	}
	return t.info("a batch %s: one message per POST binds the client; the server's answer is not specified", r.describe()).with("a 4xx", r.said())
}

// V2-27: tools/list's result is complete and cacheable.
var v227 = Check{ID: "V2-27", Level: Must, Source: "MCP 2026-07-28 Basic §Result responses (resultType); Caching (ttlMs, cacheScope on list results)", Needs: NeedModern,
	Section: "MCP 2026-07-28 Caching", Keyword: "MUST", Binds: Server,
	Line:   "tools/list result carries resultType and caching hints",
	Sends:  "tools/list, where server/discover declares tools",
	Passes: `a result with resultType "complete", ttlMs >= 0, cacheScope public or private and a tools array`,
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
	r := t.send("tools/list", req.Bytes(), toResponse, 0)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
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
