package mcp

import (
	"rawmcp/wire/rule"

	"rawmcp/wire/jsonrpc"
)

// ProposedVersion returns params.protocolVersion of an initialize request,
// so the wire layer can compare it with an MCP-Protocol-Version header
// (T-P05) before anything is created.
func ProposedVersion(msg *jsonrpc.Message) (string, bool) {
	raw, ok := jsonrpc.Member(msg.Params, "protocolVersion")
	if !ok {
		return "", false
	}
	return jsonrpc.StringValue(raw)
}

// initialize creates the session and answers with the one version rawmcp
// speaks. A client proposing anything else, the 2026-07-28 draft included,
// gets 2025-11-25 back as a normal result and decides for itself whether
// to continue (Lifecycle §1.1.1, T-53): a version mismatch is not an error.
func (h *Handler) initialize(c *Call) Reply {
	if !validInitializeParams(c.Msg.Params) {
		return Reply{
			Message: jsonrpc.AppendError(nil, c.Msg.ID, jsonrpc.CodeInvalidParams, "Invalid params"),
			Rule:    rule.InitializeParams,
		}
	}
	listChanged := jsonrpc.AppendNotification(nil, MethodListChanged, nil)
	id, ended, err := h.Table.Create(c.Owner, c.Now, listChanged)
	c.Ended = append(c.Ended, ended...)
	if err != nil {
		// A full table fails closed: nobody is evicted to make room.
		return stateFailure(err)
	}
	// Once per session: its own buffer, not c.Out.
	return Reply{Message: resultMessage(c.Msg.ID, h.initializeResult()), Rule: rule.VersionCounterOffer, SessionID: id}
}

// validInitializeParams checks the members the schema requires
// (T-51): protocolVersion (string), capabilities (object), clientInfo
// (object with string name and version).
func validInitializeParams(params []byte) bool {
	if params == nil {
		return false
	}
	if v, ok := jsonrpc.Member(params, "protocolVersion"); !ok || !isString(v) {
		return false
	}
	if v, ok := jsonrpc.Member(params, "capabilities"); !ok || !isObject(v) {
		return false
	}
	info, ok := jsonrpc.Member(params, "clientInfo")
	if !ok || !isObject(info) {
		return false
	}
	name, okName := jsonrpc.Member(info, "name")
	version, okVersion := jsonrpc.Member(info, "version")
	return okName && okVersion && isString(name) && isString(version)
}

func isString(raw []byte) bool { return len(raw) > 0 && raw[0] == '"' }
func isObject(raw []byte) bool { return len(raw) > 0 && raw[0] == '{' }

// initializeResult declares only what is implemented (T-57, T-58):
// resources, with listChanged because the GET stream sends that
// notification.
func (h *Handler) initializeResult() []byte {
	b := []byte(`{"protocolVersion":"` + ProtocolVersion + `","capabilities":{"resources":{"listChanged":true}},"serverInfo":{"name":`)
	b = jsonrpc.AppendString(b, h.ServerName)
	b = append(b, `,"version":`...)
	b = jsonrpc.AppendString(b, h.ServerVersion)
	return append(b, `}}`...)
}
