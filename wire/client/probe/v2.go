package probe

import (
	"encoding/json"
	"strconv"
	"strings"

	"rawmcp/wire/client"
)

// v2Group is the V2 group: a server speaking MCP 2026-07-28 judged on
// that revision's own wire. Every check first sends the baseline request
// of its method (the one the revision's client sends: MCP-Protocol-Version
// and Mcp-Method headers, _meta with the version, the client and its
// capabilities) and goes on only when the same target serves it; the
// check's own request then changes exactly one thing, so a refusal is the
// refusal asked about. A refusal counts only when it says so: the status
// and the JSON-RPC code the revision names, the request's id echoed.
var v2Group = group{Group{"V2", "MCP 2026-07-28 (modern)"}, []*Check{
	&v201, &v202, &v203, &v204, &v205, &v206, &v207, &v208, &v209, &v210,
	&v211, &v212, &v213, &v214, &v215, &v216, &v217, &v218, &v219, &v220,
	&v221, &v222, &v223, &v224, &v225, &v226, &v227, &v228, &v229, &v230, &v231,
}}

// The JSON-RPC codes of MCP 2026-07-28 (Basic §Error codes).
const (
	codeHeaderMismatch     = -32020
	codeMissingCapability  = -32021
	codeUnsupportedVersion = -32022
	codeMethodNotFound     = -32601
	codeInvalidParams      = -32602
)

// The _meta keys of a modern request (Basic §_meta).
const (
	metaVersion      = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo   = "io.modelcontextprotocol/clientInfo"
	metaCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo   = "io.modelcontextprotocol/serverInfo"
)

// metaOf is a modern _meta with version ("" leaves the key out) and the
// client's info and capabilities, each left out when its flag is false.
func metaOf(version string, info, capabilities bool) string {
	var parts []string
	if version != "" {
		parts = append(parts, strconv.Quote(metaVersion)+":"+strconv.Quote(version))
	}
	if info {
		parts = append(parts, strconv.Quote(metaClientInfo)+`:{"name":"rawmcp-probe","version":"`+client.Version+`"}`)
	}
	if capabilities {
		parts = append(parts, strconv.Quote(metaCapabilities)+":{}")
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// metaRequest is the baseline request of method with its _meta replaced
// by meta, for a check whose one change is in _meta; meta "" sends params
// as given, without _meta.
func (t *checkRun) metaRequest(method, params, meta string, edits ...fieldEdit) (client.Request, int64) {
	if params == "" {
		params = "{}"
	}
	if meta != "" {
		inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(params), "}"))
		sep := ","
		if inner == "{" {
			sep = ""
		}
		params = inner + sep + `"_meta":` + meta + "}"
	}
	body, id := rpc(method, params)
	m := client.MCP{Host: t.p.target.Host, Path: t.p.target.Path, Authorization: t.p.authorization(), Version: modernVersion}
	return edit(m.Request("POST", body).Set("Mcp-Method", method), edits...), id
}

// rpcError is a JSON-RPC error as a modern server writes it, data kept.
type rpcError struct {
	ID    json.RawMessage
	Code  int
	Data  json.RawMessage
	Found bool // the answer carried an error at all
}

// errorOf is the first JSON-RPC error of the answer (its JSON body or an
// event's data).
func (r *reply) errorOf() rpcError {
	if r.resp == nil {
		return rpcError{}
	}
	var datas [][]byte
	if r.isSSE() {
		for _, ev := range r.events() {
			datas = append(datas, []byte(ev.Data))
		}
	} else {
		datas = append(datas, r.resp.Body)
	}
	for _, d := range datas {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int             `json:"code"`
				Data json.RawMessage `json:"data"`
			} `json:"error"`
		}
		if json.Unmarshal(d, &m) == nil && m.Error != nil {
			return rpcError{ID: m.ID, Code: m.Error.Code, Data: m.Error.Data, Found: true}
		}
	}
	return rpcError{}
}

// said is what came back, status, media type and JSON-RPC code:
// "400 text/plain without a JSON-RPC error", "404 with JSON-RPC error
// -32601", "200 application/json with a result".
func (r *reply) said() string {
	if r.resp == nil {
		return r.actual()
	}
	d := strconv.Itoa(r.status())
	if mt := r.mediaType(); mt != "" {
		d += " " + mt
	}
	if e := r.errorOf(); e.Found {
		return d + " with JSON-RPC error " + strconv.Itoa(e.Code)
	}
	for _, m := range r.messages() {
		if m.Result != nil {
			return d + " with a result"
		}
	}
	if len(r.resp.Body) == 0 {
		return d + " with no body"
	}
	return d + " without a JSON-RPC error"
}

// control sends the baseline request of method and reports it served: a
// 2xx with a result for its id. Anything else is the skip the check
// returns: without a served baseline a refusal of the changed request
// says nothing.
func (t *checkRun) control(method, params string) (*reply, int64, *outcome) {
	req, id := t.modernRequest(method, params)
	r := t.send("baseline: "+method, req.Bytes(), toResponse, 0)
	if o := t.unjudgeable(r); o != nil {
		return r, id, o
	}
	if !r.isResult(id) {
		o := t.skip("the baseline %s %s, not a result: nothing to compare the changed request with (see V2-01)", method, r.describe())
		return r, id, &o
	}
	return r, id, nil
}

// refused judges an answer that must be a refusal with status and the
// JSON-RPC code, echoing id: how is "with Mcp-Method missing", for the
// reason.
func (t *checkRun) refused(r *reply, id int64, status, code int, how string) outcome {
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	want := strconv.Itoa(status) + " with JSON-RPC error " + strconv.Itoa(code)
	e := r.errorOf()
	switch {
	case r.isResult(id):
		return t.unmet("%s %s: the request was served", how, r.describe()).with(want, r.said())
	case r.status() == status && e.Found && e.Code == code && string(e.ID) != strconv.FormatInt(id, 10):
		return t.unmet("%s answered %s, but the error's id is %s, not the request's %d (Basic §Error responses)", how, want, idText(e.ID), id).
			with(want+" and id "+strconv.FormatInt(id, 10), r.said()+" and id "+idText(e.ID))
	case r.status() == status && e.Found && e.Code == code:
		return t.pass("%s answered %s", how, want)
	}
	return t.unmet("%s %s", how, r.describe()+" "+missingPart(r, status, code)).with(want, r.said())
}

// missingPart says what of status and code an answer lacks.
func missingPart(r *reply, status, code int) string {
	e := r.errorOf()
	switch {
	case r.status() != status && e.Found && e.Code == code:
		return "(the code is right, the status is not " + strconv.Itoa(status) + ")"
	case r.status() == status && !e.Found:
		return "with no JSON-RPC error: a client cannot tell why (" + strconv.Itoa(code) + " expected)"
	case r.status() == status:
		return "with JSON-RPC error " + strconv.Itoa(e.Code) + ", not " + strconv.Itoa(code)
	}
	return "(" + strconv.Itoa(status) + " with " + strconv.Itoa(code) + " expected)"
}

func idText(id json.RawMessage) string {
	if len(id) == 0 {
		return "absent"
	}
	return string(id)
}

// discoverResult is a DiscoverResult as read from an answer.
type discoverResult struct {
	SupportedVersions json.RawMessage            `json:"supportedVersions"`
	Capabilities      json.RawMessage            `json:"capabilities"`
	ResultType        *string                    `json:"resultType"`
	TTL               json.RawMessage            `json:"ttlMs"`
	CacheScope        *string                    `json:"cacheScope"`
	Meta              map[string]json.RawMessage `json:"_meta"`
}

func (r *reply) resultOf(id int64, v any) bool {
	m, ok := r.response(id)
	return ok && m.Result != nil && json.Unmarshal(m.Result, v) == nil
}

// cacheableFaults are what a complete, cacheable result lacks (Basic
// §Result responses; Caching): resultType "complete", ttlMs a number >= 0,
// cacheScope public or private.
func cacheableFaults(resultType *string, ttl json.RawMessage, scope *string) []string {
	var faults []string
	if resultType == nil || *resultType != "complete" {
		faults = append(faults, `resultType is not "complete"`)
	}
	var n float64
	if json.Unmarshal(ttl, &n) != nil || n < 0 {
		faults = append(faults, "ttlMs is not a number >= 0")
	}
	if scope == nil || (*scope != "public" && *scope != "private") {
		faults = append(faults, "cacheScope is neither public nor private")
	}
	return faults
}

// V2-01: server/discover answers with a DiscoverResult.
var v201 = Check{ID: "V2-01", Level: Must, Source: "MCP 2026-07-28 server/discover (\"Servers MUST implement it\"); Basic §Result responses; Caching", Needs: NeedModern,
	Section: "MCP 2026-07-28 server/discover", Keyword: "MUST", Binds: Server,
	Line:   "server/discover answers",
	Sends:  "server/discover as a 2026-07-28 client sends it",
	Passes: `200 JSON or SSE with a result for its id: resultType "complete", supportedVersions a string array holding 2026-07-28, capabilities an object, ttlMs >= 0, cacheScope public or private`,
	run:    runV201}

func runV201(t *checkRun) outcome {
	req, id := t.modernRequest("server/discover", "")
	r := t.send("server/discover", req.Bytes(), toResponse, 0)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// V2-02: the result names the server.
var v202 = Check{ID: "V2-02", Level: Should, Source: "MCP 2026-07-28 server/discover (\"Servers SHOULD include this field\"); Basic §_meta", Needs: NeedModern,
	Section: "MCP 2026-07-28 server/discover", Keyword: "SHOULD", Binds: Server,
	Line:   "server/discover names the server",
	Sends:  "server/discover",
	Passes: "result._meta[\"io.modelcontextprotocol/serverInfo\"] with a name and a version",
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
