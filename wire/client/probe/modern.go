package probe

import (
	"encoding/json"
	"slices"
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

// discover sends server/discover (with edits) and reports whether the
// answer is a modern server's: a 2xx result whose supportedVersions lists
// 2026-07-28.
func (t *checkRun) discover(step string, edits ...fieldEdit) (r *reply, modern bool) {
	req, id := t.modernRequest("server/discover", "", edits...)
	r = t.send(step, req.Bytes(), toResponse, 0)
	return r, supportsModern(r, id)
}

// supportsModern reads a server/discover answer: a result for id whose
// supportedVersions holds 2026-07-28.
func supportsModern(r *reply, id int64) bool {
	if !r.isResult(id) {
		return false
	}
	m, _ := r.response(id)
	var res struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	return json.Unmarshal(m.Result, &res) == nil && slices.Contains(res.SupportedVersions, modernVersion)
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
