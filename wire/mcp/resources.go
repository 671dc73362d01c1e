package mcp

import (
	"rawmcp/wire/jsonrpc"
	"rawmcp/wire/rule"
)

// appendPathSegment writes s as one RFC 3986 path segment: the tenant in
// a resource URI kb://tenant/SEGMENT, a fixed ASCII authority and the
// tenant's UTF-8 bytes, so tenant text is never put into URI syntax raw and
// a tenant called "a/b?c#d" or "Zürich" cannot add segments, a query or a
// fragment. It percent-encodes every byte outside RFC 3986 §2.3
// unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~". Encoding the
// sub-delims too is allowed (§2.1) and keeps the rule one line long.
func appendPathSegment(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUnreserved(c) {
			dst = append(dst, c)
			continue
		}
		dst = append(dst, '%', hex[c>>4], hex[c&15])
	}
	return dst
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// listResources answers resources/list on the POST as one SSE event
// (the profile sends it as SSE so clients exercise both response shapes).
// There is one page, so any cursor is invalid (T-68, -32602).
func (h *Handler) listResources(c *Call) Reply {
	if _, ok := jsonrpc.Member(c.Msg.Params, "cursor"); ok {
		return Reply{
			Message: jsonrpc.AppendError(nil, c.Msg.ID, jsonrpc.CodeInvalidParams, "Invalid cursor"),
			Rule:    rule.InvalidCursor,
		}
	}
	out, ended, err := h.Table.AppendPostEventID(c.Out[:0], c.SessionID, c.Owner, c.Now)
	c.Ended = append(c.Ended, ended...)
	if err != nil {
		return stateFailure(err)
	}
	idEnd := len(out)
	// The result is written first, after the event id, then the message
	// around a copy of it: AppendResult reads the result from the part of
	// out it does not write. The URI, ASCII without quotes or
	// backslashes, is its own JSON string between quotes.
	out = append(out, `{"resources":[{"uri":"kb://tenant/`...)
	out = appendPathSegment(out, c.Owner.Tenant)
	out = append(out, `","name":"knowledge base","mimeType":"text/plain"}]}`...)
	result := out[idEnd:]
	msgStart := len(out)
	out = jsonrpc.AppendResult(out, c.Msg.ID, result)
	return Reply{
		Body:    BodyEvent,
		Message: out[msgStart:],
		EventID: out[:idEnd],
		Rule:    rule.RequestAnsweredSSE,
		Out:     out,
	}
}
