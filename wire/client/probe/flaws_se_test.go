package probe_test

import (
	"bytes"
	"encoding/json"
	"regexp"

	"rawmcp/wire/client/probe"
)

// mcpGoID is mcp-go's session id format: what its format check passes.
var mcpGoID = regexp.MustCompile(`^mcp-session-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

var seFlaws = []flawCase{
	{check: "SE-01", name: "a request without a session id is served", want: probe.Warn, says: "with a result without a session id",
		// It serves a 2026-07-28 request too, which then gets no fallback signal.
		also: map[string]probe.Verdict{"L-01": probe.Fail},
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			// After initialize: the version header is there, the id is not.
			if r.method == "POST" && r.get("Mcp-Session-Id") == "" && r.get("MCP-Protocol-Version") != "" {
				return served(r.body)
			}
			return nil
		}}},
	// mcp-go v1.2.1: ids are mcp-session-<uuid>, checked by format, never
	// looked up. An id that keeps the prefix and the hex is served.
	{check: "SE-02", name: "a well-formed id is served without a lookup (mcp-go)", want: probe.Warn, says: "does not validate session ids",
		flaw: sessionIDs(func(int) string { return "mcp-session-" + uuid4() }, mcpGoID.MatchString)},
	{check: "SE-03", name: "DELETE ends the session but answers 400", want: probe.Warn, says: "answered 400: DELETE ends the session",
		also: map[string]probe.Verdict{"SE-04": probe.Error}, // it needs a DELETE that says it worked
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if r.method == "DELETE" && isStatus(ans, "2") {
				return answer("400 Bad Request", "", "")
			}
			return ans
		}}},
	{check: "SE-04", name: "a deleted session is still served", want: probe.Fail, says: "after DELETE, POST answered 200", flaw: flaw{request: serveDeleted}},
	{check: "SE-05", name: "requests before notifications/initialized are served", want: probe.Fail, says: "before notifications/initialized",
		flaw: flaw{request: func(p *flawProxy, r *proxied) []byte {
			// The server completes the lifecycle itself on the first
			// request of a session that skipped it.
			id := r.get("Mcp-Session-Id")
			if r.method != "POST" || id == "" {
				return nil
			}
			done := stateOf[memo[bool]](p, "initialized")
			if _, ok := done.get(id); ok {
				return nil
			}
			done.put(id, true)
			if !bytes.Contains(r.body, []byte("notifications/initialized")) {
				note := *r
				note.body = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				p.forward(note.bytes())
			}
			return nil
		}}},
	{check: "SE-06", name: "initialize on a live session opens another", want: probe.Fail, says: "opened another session",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "POST" && r.get("Mcp-Session-Id") != "" && bytes.Contains(r.body, []byte(`"method":"initialize"`)) {
				r.drop("Mcp-Session-Id")
				r.drop("MCP-Protocol-Version")
			}
			return nil
		}}},
	{check: "SE-07", name: "a session serves another principal", want: probe.Warn, says: "the second principal's POST was served",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.get("Authorization") == "Bearer "+bob {
				r.set("Authorization", "Bearer "+alice)
			}
			return nil
		}}},
	{check: "SE-08", name: "a session id without a token is served", want: probe.Fail, says: "the session id alone was taken as proof of identity",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "POST" && r.get("Mcp-Session-Id") != "" && r.get("Authorization") == "" {
				r.set("Authorization", "Bearer "+alice)
			}
			return nil
		}}},
	// A cap above the 64 initializes SE-09 sends cannot be told from
	// none: what it measured is reported, not judged.
	{check: "SE-09", name: "sessions have no cap", want: probe.Info, says: "sent 64 initializes one after another, each answered with a session: none refused", flaw: uncapped()},
}

// uncapped is a server that opens every session it is asked for: where
// the server is full (503), the flaw answers initialize itself with a
// phantom session, which only DELETE knows.
func uncapped() flaw {
	return flaw{
		request: func(p *flawProxy, r *proxied) []byte {
			if _, ok := stateOf[memo[bool]](p, "phantoms").get(r.get("Mcp-Session-Id")); !ok {
				return nil
			}
			if r.method == "DELETE" {
				return answer("204 No Content", "", "")
			}
			return answer("404 Not Found", "", "")
		},
		response: func(p *flawProxy, r *proxied, ans []byte) []byte {
			if !isStatus(ans, "503") || !bytes.Contains(r.body, []byte(`"method":"initialize"`)) {
				return ans
			}
			id := "phantom-" + uuid4()
			stateOf[memo[bool]](p, "phantoms").put(id, true)
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal(r.body, &req)
			body := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"resources":{}},"serverInfo":{"name":"rawmcp","version":"0.1.0"}}}`
			return withField(answer("200 OK", "application/json", body), "Mcp-Session-Id", id)
		},
	}
}

// serveDeleted answers a request on a session a DELETE ended as if the
// session lived: a result for a POST, an event stream for a GET.
func serveDeleted(p *flawProxy, r *proxied) []byte {
	p.mu.Lock()
	gone := p.deleted[r.get("Mcp-Session-Id")]
	p.mu.Unlock()
	switch {
	case !gone || r.method == "DELETE":
		return nil
	case r.method == "GET":
		return answer("200 OK", "text/event-stream", "id: 1\ndata:\n\n")
	}
	return served(r.body)
}
