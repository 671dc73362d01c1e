package probe

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"rawmcp/wire/client"
)

// modernVersion is the MCP revision of the modern era: no initialize, no
// session; every request carries its version in a header and in
// params._meta, and server/discover says what the server speaks.
const modernVersion = "2026-07-28"

// modernMeta is the params._meta of every modern request (MCP 2026-07-28
// Basic §_meta): the version, the client, and no client capabilities.
var modernMeta = `{"io.modelcontextprotocol/protocolVersion":"` + modernVersion +
	`","io.modelcontextprotocol/clientInfo":{"name":"rawmcp-probe","version":"` + client.Version +
	`"},"io.modelcontextprotocol/clientCapabilities":{}}`

// modernRequest is the baseline modern request: a POST with the run's
// token, MCP-Protocol-Version: 2026-07-28 and Mcp-Method naming method,
// whose body is a JSON-RPC request with a fresh id and params, a JSON
// object ("" for none) to which modernMeta is added as _meta. A check that
// tests one thing changes it with edits.
func (t *checkRun) modernRequest(method, params string, edits ...fieldEdit) (client.Request, int64) {
	params = strings.TrimSpace(params)
	switch params = strings.TrimSuffix(params, "}"); strings.TrimSpace(params) {
	case "", "{":
		params = `{"_meta":` + modernMeta + `}`
	default:
		params += `,"_meta":` + modernMeta + `}`
	}
	body, id := rpc(method, params)
	m := client.MCP{Host: t.p.target.Host, Path: t.p.target.Path, Authorization: t.p.authorization(), Version: modernVersion}
	req := m.Request("POST", body).Set("Mcp-Method", method)
	return edit(req, edits...), id
}

// discover sends server/discover (with edits) and returns the answer and
// the supportedVersions of its result (discoveredVersions): a modern
// server's lists 2026-07-28.
func (t *checkRun) discover(step string, edits ...fieldEdit) (r *reply, versions []string) {
	req, id := t.modernRequest("server/discover", "", edits...)
	r = t.send(step, req.Bytes(), toResponse, 0)
	return r, discoveredVersions(r, id)
}

// supportsModern reads a server/discover answer: a result for id whose
// supportedVersions holds 2026-07-28.
func supportsModern(r *reply, id int64) bool {
	return slices.Contains(discoveredVersions(r, id), modernVersion)
}

// discoveredVersions is the supportedVersions of r's result for id, nil
// when r holds no result for id or the result lists none.
func discoveredVersions(r *reply, id int64) []string {
	if !r.isResult(id) {
		return nil
	}
	m, _ := r.response(id)
	var res struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	json.Unmarshal(m.Result, &res)
	return res.SupportedVersions
}

// capabilitiesOf is the capabilities object of a discover answer, or nil.
func capabilitiesOf(r *reply) map[string]json.RawMessage {
	for _, m := range r.messages() {
		var res struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		if m.Result != nil && json.Unmarshal(m.Result, &res) == nil && res.Capabilities != nil {
			return res.Capabilities
		}
	}
	return nil
}

// serverInfoOf is the _meta serverInfo of a discover answer, or nil.
func serverInfoOf(r *reply) json.RawMessage {
	for _, m := range r.messages() {
		var res struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if m.Result != nil && json.Unmarshal(m.Result, &res) == nil {
			if info, ok := res.Meta["io.modelcontextprotocol/serverInfo"]; ok {
				return info
			}
		}
	}
	return nil
}

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
	r := t.must(t.send("baseline: "+method, req.Bytes(), toResponse, 0))
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
	t.must(r)
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
	return t.unmet("%s %s", how, r.describe()+missingPart(r, status, code)).with(want, r.said())
}

// missingPart says what of status and code an answer lacks, to follow
// its describe(), which already names the code it carries.
func missingPart(r *reply, status, code int) string {
	e := r.errorOf()
	switch {
	case r.status() != status && e.Found && e.Code == code:
		return " (the code is right, the status is not " + strconv.Itoa(status) + ")"
	case r.status() == status && !e.Found:
		return " with no JSON-RPC error: a client cannot tell why (" + strconv.Itoa(code) + " expected)"
	case r.status() == status:
		return ", not " + strconv.Itoa(code)
	}
	return " (" + strconv.Itoa(status) + " with " + strconv.Itoa(code) + " expected)"
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
