package probe

// This file stands in for the runner's era API until its branch is
// merged (modern.go, needs.go): the same names, so that the V2 and era
// checks compile against either. The merge deletes it.

import (
	"encoding/json"
	"slices"
	"strings"

	"rawmcp/wire/client"
)

const (
	NeedLegacy Need = 1 << 3
	NeedModern Need = 1 << 4
)

const modernVersion = "2026-07-28"

var modernMeta = `{"io.modelcontextprotocol/protocolVersion":"` + modernVersion +
	`","io.modelcontextprotocol/clientInfo":{"name":"rawmcp-probe","version":"` + client.Version +
	`"},"io.modelcontextprotocol/clientCapabilities":{}}`

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

// servesLegacy: the preflight found initialize served. Before the
// runner's era detection every run that passed PRE-01 did.
func (t *checkRun) servesLegacy() bool { return true }
