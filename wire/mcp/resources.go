package mcp

import (
	"rawmcp/wire/jsonrpc"
	"rawmcp/wire/rule"
)

// ResourceURI names the tenant's knowledge base as an RFC 3986 URI: a fixed
// ASCII authority and the tenant as one percent-encoded UTF-8 path segment.
// Tenant text is never put into URI syntax raw, so a tenant called "a/b?c#d"
// or "Zürich" cannot add segments, a query or a fragment.
func ResourceURI(tenant string) string {
	const prefix = "kb://tenant/"
	b := make([]byte, 0, len(prefix)+3*len(tenant))
	b = append(b, prefix...)
	return string(appendPathSegment(b, tenant))
}

// appendPathSegment percent-encodes every byte outside RFC 3986 §2.3
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
func (h *Handler) listResources(c Call) Reply {
	if _, ok := jsonrpc.Member(c.Msg.Params, "cursor"); ok {
		return Reply{
			Message: jsonrpc.AppendError(nil, c.Msg.ID, jsonrpc.CodeInvalidParams, "Invalid cursor"),
			Rule:    rule.InvalidCursor,
		}
	}
	eventID, err := h.Table.PostEventID(c.SessionID, c.Owner, c.Now)
	if err != nil {
		return stateFailure(err)
	}
	const (
		head = `{"resources":[{"uri":`
		tail = `,"name":"knowledge base","mimeType":"text/plain"}]}`
	)
	uri := ResourceURI(c.Owner.Tenant)
	// Sized up front (a JSON string of the URI is at most its length plus
	// quotes: the URI is ASCII without quotes or backslashes).
	result := append(make([]byte, 0, len(head)+len(uri)+2+len(tail)), head...)
	result = jsonrpc.AppendString(result, uri)
	result = append(result, tail...)
	return Reply{
		Body:    BodyEvent,
		Message: resultMessage(c.Msg.ID, result),
		EventID: eventID,
		Rule:    rule.RequestAnsweredSSE,
	}
}
