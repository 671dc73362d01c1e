package wire_test

import (
	"encoding/json"
	"testing"

	"rawmcp/wire/client"
	"rawmcp/wire/rule"
)

// modernMeta is the params._meta an MCP 2026-07-28 client sends on every
// request.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"dual-era-client","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// modernPost is a request as a 2026-07-28 client sends it: the version
// and method headers, _meta in the body, no session.
func modernPost(e env, token, method string, extra ...[2]string) client.Request {
	body := `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{` + modernMeta + `}}`
	fields := append([][2]string{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", method}}, extra...)
	return post(e.f, token, body, fields...)
}

// TestModernRequestFallsBack pins what rawmcp serve, a 2025-11-25 server,
// answers a client that tries MCP 2026-07-28 first: 400 with the
// JSON-RPC error -32000, which is no modern error code (-32020, -32021,
// -32022) and not 404 with -32601, so a dual-era client falls back to
// initialize (2026-07-28 Transports §Backward Compatibility). The version
// header decides it (T-P08), before the method is looked at; a 401 comes
// only when the token is missing or not valid, and a live session does
// not change the answer.
func TestModernRequestFallsBack(t *testing.T) {
	f := startFixture(t, nil)
	alice := f.Tokens["alice"]
	badRequest := want{400, rule.VersionRequired, map[string]string{"Content-Type": "application/json", "WWW-Authenticate": "", "Mcp-Session-Id": ""}, httpError("Bad Request")}
	cases := []struct {
		name string
		req  func(e env) client.Request
		want func(e env) want
	}{
		{"server/discover is 400 -32000",
			func(e env) client.Request { return modernPost(e, alice, "server/discover") },
			func(env) want { return badRequest }},
		{"tools/list with the 2026 headers and _meta is 400 -32000",
			func(e env) client.Request { return modernPost(e, alice, "tools/list") },
			func(env) want { return badRequest }},
		{"an unknown method is 400 -32000, not 404 -32601",
			func(e env) client.Request { return modernPost(e, alice, "rawmcp/no-such-method") },
			func(env) want { return badRequest }},
		{"tools/list on a live session is 400 -32000",
			func(e env) client.Request {
				return modernPost(e, alice, "tools/list", [2]string{"Mcp-Session-Id", e.sid})
			},
			func(env) want { return badRequest }},
		{"without a token: 401, the token's absence at fault",
			func(e env) client.Request { return modernPost(e, "", "server/discover") },
			func(e env) want {
				return want{401, rule.NoCredentials, map[string]string{"WWW-Authenticate": challenge(e, "", "mcp:connect")}, httpError("Unauthorized")}
			}},
		{"with a token not issued: 401 invalid_token",
			func(e env) client.Request { return modernPost(e, "rawmcp-invalid", "server/discover") },
			func(e env) want {
				return want{401, rule.InvalidToken, map[string]string{"WWW-Authenticate": challenge(e, "invalid_token", "mcp:connect")}, httpError("Unauthorized")}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := env{f: f, sid: openSession(t, f, "alice")}
			f.TakeDecisions()
			resp := do(t, f, tc.req(e).Bytes())
			w := tc.want(e)
			checkResponse(t, resp, w)
			if decisions := f.TakeDecisions(); len(decisions) != 1 || decisions[0].Rule != w.rule || decisions[0].Status != w.status {
				t.Errorf("decisions = %+v, want one with status %d and rule %s", decisions, w.status, w.rule)
			}
			// What a dual-era client reads: never a modern code, never
			// 404 with -32601 (it would stay modern and never fall back).
			var msg struct {
				Error struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(resp.Body, &msg); err != nil {
				t.Fatalf("body %q: %v", resp.Body, err)
			}
			switch code := msg.Error.Code; {
			case code == -32020 || code == -32021 || code == -32022:
				t.Errorf("error code %d is a modern one: a dual-era client would not fall back", code)
			case resp.Status == 404 && code == -32601:
				t.Error("404 with -32601 reads as a modern server's unknown method")
			}
		})
	}
}
