package wire_test

import (
	"fmt"
	"rawmcp/wire"
	"rawmcp/wire/client"
	"rawmcp/wire/rule"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
	"rawmcp/policy"
	"rawmcp/wire/scenario"
)

// env is what a receive-order case builds its request from: a fixture and
// an operating session of alice's.
type env struct {
	f   *scenario.Fixture
	sid string
}

func (e env) token(name string) string { return e.f.Tokens[name] }

// want is the part of a response a case pins down. Headers lists fields
// whose value must be exactly this; a value of "" means the field must be
// absent.
type want struct {
	status  int
	rule    rule.ID
	headers map[string]string
	body    string
}

// anyBody marks a body this table does not pin: event ids carry the
// session's random handle (the golden transcripts pin its shape).
const anyBody = "<any>"

// Constant error bodies: JSON-RPC errors without id (T-05, T-13).
func httpError(status string) string {
	return `{"jsonrpc":"2.0","error":{"code":-32000,"message":"` + status + `"}}`
}

const (
	parseErrorBody      = `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`
	invalidRequestBody  = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}`
	sessionNotFoundBody = `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}}`
	notAcceptableBody   = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Not Acceptable: use Accept: application/json, text/event-stream"}}`
)

func challenge(e env, errorCode, scope string) string {
	s := "Bearer "
	if errorCode != "" {
		s += `error="` + errorCode + `", `
	}
	return s + `resource_metadata="` + e.f.MetadataURL + `", scope="` + scope + `"`
}

// TestReceiveOrder walks T-P14 step by step: each case breaks one step (or
// two, to show which one is checked first) and pins the status, the rule
// that decided it, the headers that matter and the constant body.
func TestReceiveOrder(t *testing.T) {
	var logs syncBuffer
	f := startFixture(t, logTo(&logs))
	var sessions []string
	alice := f.Tokens["alice"]
	cases := []struct {
		name string
		req  func(e env) client.Request
		want func(e env) want
	}{
		// Host, then Origin (T-P15, T-P16, T-P17).
		{"T-P15/DNS-rebinding Host is 403 without a challenge",
			func(e env) client.Request { return post(e.f, alice, pingBody, [2]string{"Host", "evil.example:80"}) },
			func(e env) want {
				return want{403, rule.HostNotOurs, map[string]string{"WWW-Authenticate": "", "Connection": "close"}, httpError("Forbidden")}
			}},
		{"T-P15/Host with another port is 403",
			func(e env) client.Request { return post(e.f, alice, pingBody, [2]string{"Host", "127.0.0.1:1"}) },
			func(e env) want { return want{403, rule.HostNotOurs, nil, httpError("Forbidden")} }},
		{"T-P14/Host is checked before Origin",
			func(e env) client.Request {
				return post(e.f, alice, pingBody, [2]string{"Host", "evil.example"}, [2]string{"Origin", "https://evil.example"})
			},
			func(e env) want { return want{403, rule.HostNotOurs, nil, httpError("Forbidden")} }},
		{"T-P16/Origin not on the allowlist is 403 without a challenge",
			func(e env) client.Request {
				return post(e.f, alice, pingBody, [2]string{"Origin", "https://evil.example"})
			},
			func(e env) want {
				return want{403, rule.OriginNotAllowed, map[string]string{"WWW-Authenticate": ""}, httpError("Forbidden")}
			}},
		{"T-P16/Origin null is 403",
			func(e env) client.Request { return post(e.f, alice, pingBody, [2]string{"Origin", "null"}) },
			func(e env) want { return want{403, rule.OriginNotAllowed, nil, httpError("Forbidden")} }},
		{"T-P16/an allowed Origin proceeds",
			func(e env) client.Request {
				return post(e.f, alice, pingBody, [2]string{"Origin", "http://" + e.f.Addr}, [2]string{"Mcp-Session-Id", e.sid}, [2]string{"MCP-Protocol-Version", "2025-11-25"})
			},
			func(e env) want { return want{200, rule.PingAnswered, nil, `{"jsonrpc":"2.0","id":2,"result":{}}`} }},
		{"T-P17/Origin is checked on the metadata path too",
			func(e env) client.Request {
				return client.Request{Method: "GET", Path: "/.well-known/oauth-protected-resource/mcp", Header: [][2]string{{"Host", e.f.Addr}, {"Origin", "https://evil.example"}}}
			},
			func(e env) want { return want{403, rule.OriginNotAllowed, nil, httpError("Forbidden")} }},
		{"T-P14/Origin is checked before the path",
			func(e env) client.Request {
				return client.Request{Method: "GET", Path: "/nowhere", Header: [][2]string{{"Host", e.f.Addr}, {"Origin", "https://evil.example"}}}
			},
			func(e env) want { return want{403, rule.OriginNotAllowed, nil, httpError("Forbidden")} }},
		// Path and method (H-P11, H-P12).
		{"H-P11/routing is case-sensitive: /MCP is 404",
			func(e env) client.Request { r := post(e.f, alice, pingBody); r.Path = "/MCP"; return r },
			func(e env) want { return want{404, rule.ExactRouting, nil, httpError("Not Found")} }},
		{"H-P11/no trailing-slash repair: /mcp/ is 404",
			func(e env) client.Request { r := post(e.f, alice, pingBody); r.Path = "/mcp/"; return r },
			func(e env) want { return want{404, rule.ExactRouting, nil, httpError("Not Found")} }},
		{"H-P11/no percent-decoding: /%6Dcp is 404",
			func(e env) client.Request { r := post(e.f, alice, pingBody); r.Path = "/%6Dcp"; return r },
			func(e env) want { return want{404, rule.ExactRouting, nil, httpError("Not Found")} }},
		{"T-P14/the path is checked before the method",
			func(e env) client.Request {
				return client.Request{Method: "BREW", Path: "/pot", Header: [][2]string{{"Host", e.f.Addr}}}
			},
			func(e env) want { return want{404, rule.ExactRouting, nil, httpError("Not Found")} }},
		{"H-P12/PUT on /mcp is 405 with Allow",
			func(e env) client.Request { r := post(e.f, alice, pingBody); r.Method = "PUT"; return r },
			func(e env) want {
				return want{405, rule.MethodNotServed, map[string]string{"Allow": "GET, POST, DELETE"}, httpError("Method Not Allowed")}
			}},
		{"H-P12/OPTIONS on /mcp is 405 with Allow",
			func(e env) client.Request {
				return client.Request{Method: "OPTIONS", Path: "/mcp", Header: [][2]string{{"Host", e.f.Addr}}}
			},
			func(e env) want {
				return want{405, rule.MethodNotServed, map[string]string{"Allow": "GET, POST, DELETE"}, httpError("Method Not Allowed")}
			}},
		{"H-P12/HEAD on /mcp is 405 with Allow and no body",
			func(e env) client.Request {
				return client.Request{Method: "HEAD", Path: "/mcp", Header: [][2]string{{"Host", e.f.Addr}}}
			},
			func(e env) want {
				return want{405, rule.MethodNotServed, map[string]string{"Allow": "GET, POST, DELETE", "Content-Length": strconv.Itoa(len(httpError("Method Not Allowed")))}, ""}
			}},
		{"H-P12/an unknown method is 501",
			func(e env) client.Request { r := post(e.f, alice, pingBody); r.Method = "BREW"; return r },
			func(e env) want {
				return want{501, rule.MethodNotServed, map[string]string{"Allow": ""}, httpError("Not Implemented")}
			}},
		// Media types (T-P02 before T-P01).
		{"T-P02/POST Accept with only application/json is 406",
			func(e env) client.Request { return post(e.f, alice, pingBody, [2]string{"Accept", "application/json"}) },
			func(e env) want { return want{406, rule.AcceptBothTypes, nil, notAcceptableBody} }},
		{"T-P02/POST without Accept is 406",
			func(e env) client.Request { return post(e.f, alice, pingBody, [2]string{"Accept", "-"}) },
			func(e env) want { return want{406, rule.AcceptBothTypes, nil, notAcceptableBody} }},
		{"T-P02/q=0 excludes text/event-stream",
			func(e env) client.Request {
				return post(e.f, alice, pingBody, [2]string{"Accept", "application/json, text/event-stream;q=0"})
			},
			func(e env) want { return want{406, rule.AcceptBothTypes, nil, notAcceptableBody} }},
		{"T-P02/the wildcard */* admits both",
			func(e env) client.Request {
				return post(e.f, alice, pingBody, append(inSession(e.sid), [2]string{"Accept", "*/*"})...)
			},
			func(e env) want { return want{200, rule.PingAnswered, nil, `{"jsonrpc":"2.0","id":2,"result":{}}`} }},
		{"T-P02/GET without text/event-stream is 406",
			func(e env) client.Request {
				return sessionRequest(e.f, "GET", alice, e.sid, [2]string{"Accept", "application/json"})
			},
			func(e env) want { return want{406, rule.AcceptBothTypes, nil, notAcceptableBody} }},
		{"T-P14/Accept is checked before Content-Type",
			func(e env) client.Request {
				return post(e.f, alice, pingBody, [2]string{"Accept", "text/html"}, [2]string{"Content-Type", "text/plain"})
			},
			func(e env) want { return want{406, rule.AcceptBothTypes, nil, notAcceptableBody} }},
		{"T-P01/Content-Type text/plain is 415 naming application/json",
			func(e env) client.Request { return post(e.f, alice, pingBody, [2]string{"Content-Type", "text/plain"}) },
			func(e env) want {
				return want{415, rule.ContentTypeJSON, map[string]string{"Accept": "application/json"}, httpError("Unsupported Media Type")}
			}},
		{"T-P01/a charset other than utf-8 is 415",
			func(e env) client.Request {
				return post(e.f, alice, pingBody, [2]string{"Content-Type", "application/json; charset=latin1"})
			},
			func(e env) want { return want{415, rule.ContentTypeJSON, nil, httpError("Unsupported Media Type")} }},
		{"T-P01/charset=UTF-8 is accepted",
			func(e env) client.Request {
				return post(e.f, alice, pingBody, append(inSession(e.sid), [2]string{"Content-Type", "application/json; charset=UTF-8"})...)
			},
			func(e env) want { return want{200, rule.PingAnswered, nil, `{"jsonrpc":"2.0","id":2,"result":{}}`} }},
		{"H-35/POST without Content-Length is 411",
			func(e env) client.Request { r := post(e.f, alice, ""); r.Body = nil; return r },
			func(e env) want { return want{411, rule.LengthRequired, nil, httpError("Length Required")} }},
		// Body and strict JSON, before the bearer token.
		{"T-P13/duplicate keys are a parse error before the token is looked at",
			func(e env) client.Request { return post(e.f, "", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`) },
			func(e env) want {
				return want{400, rule.StrictJSON, map[string]string{"WWW-Authenticate": ""}, parseErrorBody}
			}},
		{"T-P13/a case variant of a member name is a duplicate",
			func(e env) client.Request {
				return post(e.f, alice, `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"x"}`)
			},
			func(e env) want { return want{400, rule.StrictJSON, nil, parseErrorBody} }},
		{"T-P13/nesting deeper than 64 is refused",
			func(e env) client.Request {
				return post(e.f, alice, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":`+strings.Repeat("[", 64)+strings.Repeat("]", 64)+`}}`)
			},
			func(e env) want { return want{400, rule.StrictJSON, nil, parseErrorBody} }},
		{"T-P03/a batch array is an invalid request",
			func(e env) client.Request { return post(e.f, alice, `[`+pingBody+`]`) },
			func(e env) want { return want{400, rule.OneJSONRPCMessage, nil, invalidRequestBody} }},
		{"T-61/a null id is an invalid request",
			func(e env) client.Request { return post(e.f, alice, `{"jsonrpc":"2.0","id":null,"method":"ping"}`) },
			func(e env) want { return want{400, rule.OneJSONRPCMessage, nil, invalidRequestBody} }},
		// Bearer token (A-08, A-10, A-P02).
		{"A-08/no Authorization is 401 with resource_metadata and scope, no error",
			func(e env) client.Request { return post(e.f, "", pingBody, inSession(e.sid)...) },
			func(e env) want {
				return want{401, rule.NoCredentials, map[string]string{"WWW-Authenticate": challenge(e, "", "mcp:connect")}, httpError("Unauthorized")}
			}},
		{"A-04/the 401 scope is what the request needs",
			func(e env) client.Request { return post(e.f, "", listBody, inSession(e.sid)...) },
			func(e env) want {
				return want{401, rule.NoCredentials, map[string]string{"WWW-Authenticate": challenge(e, "", "mcp:connect resources:read")}, httpError("Unauthorized")}
			}},
		{"A-10/an unknown token is 401 invalid_token",
			func(e env) client.Request { return post(e.f, "bm90LWEtdG9rZW4", pingBody, inSession(e.sid)...) },
			func(e env) want {
				return want{401, rule.InvalidToken, map[string]string{"WWW-Authenticate": challenge(e, "invalid_token", "mcp:connect")}, httpError("Unauthorized")}
			}},
		{"A-08/another scheme is no bearer credential: 401 with a bare challenge (RFC 6750 §3.1)",
			func(e env) client.Request {
				return post(e.f, "", pingBody, append(inSession(e.sid), [2]string{"Authorization", "Basic YTpi"})...)
			},
			func(e env) want {
				return want{401, rule.NoCredentials, map[string]string{"WWW-Authenticate": challenge(e, "", "mcp:connect")}, httpError("Unauthorized")}
			}},
		{"A-P02/Bearer with two tokens is 400 invalid_request",
			func(e env) client.Request {
				return post(e.f, "", pingBody, append(inSession(e.sid), [2]string{"Authorization", "Bearer a b"})...)
			},
			func(e env) want {
				return want{400, rule.MalformedAuthz, map[string]string{"WWW-Authenticate": challenge(e, "invalid_request", "mcp:connect")}, httpError("Bad Request")}
			}},
		{"A-P02/Bearer with no token is 400 invalid_request",
			func(e env) client.Request {
				return post(e.f, "", pingBody, append(inSession(e.sid), [2]string{"Authorization", "Bearer"})...)
			},
			func(e env) want {
				return want{400, rule.MalformedAuthz, map[string]string{"WWW-Authenticate": challenge(e, "invalid_request", "mcp:connect")}, httpError("Bad Request")}
			}},
		{"T-P14/the token is checked before the protocol version",
			func(e env) client.Request {
				return post(e.f, "", pingBody, [2]string{"Mcp-Session-Id", e.sid}, [2]string{"MCP-Protocol-Version", "2026-07-28"})
			},
			func(e env) want { return want{401, rule.NoCredentials, nil, httpError("Unauthorized")} }},
		// Protocol version (T-P05, T-P08).
		{"T-53/initialize proposing the Draft gets 2025-11-25 back",
			func(e env) client.Request {
				return post(e.f, alice, strings.Replace(initializeBody, "2025-11-25", "2026-07-28", 1))
			},
			func(e env) want {
				return want{200, rule.VersionCounterOffer, map[string]string{"Content-Type": "application/json"},
					`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"resources":{"listChanged":true}},"serverInfo":{"name":"rawmcp","version":"0.1.0"}}}`}
			}},
		{"T-P05/initialize whose header differs from its body is 400",
			func(e env) client.Request {
				return post(e.f, alice, strings.Replace(initializeBody, "2025-11-25", "2026-07-28", 1), [2]string{"MCP-Protocol-Version", "2025-11-25"})
			},
			func(e env) want { return want{400, rule.InitializeVersion, nil, httpError("Bad Request")} }},
		{"T-P05/initialize with a Draft header is 400",
			func(e env) client.Request {
				return post(e.f, alice, initializeBody, [2]string{"MCP-Protocol-Version", "2026-07-28"})
			},
			func(e env) want { return want{400, rule.InitializeVersion, nil, httpError("Bad Request")} }},
		{"T-P08/a request in a session without MCP-Protocol-Version is 400",
			func(e env) client.Request { return post(e.f, alice, pingBody, [2]string{"Mcp-Session-Id", e.sid}) },
			func(e env) want { return want{400, rule.VersionRequired, nil, httpError("Bad Request")} }},
		{"T-P08/a Draft MCP-Protocol-Version after initialize is 400",
			func(e env) client.Request {
				return post(e.f, alice, pingBody, [2]string{"Mcp-Session-Id", e.sid}, [2]string{"MCP-Protocol-Version", "2026-07-28"})
			},
			func(e env) want { return want{400, rule.VersionRequired, nil, httpError("Bad Request")} }},
		{"T-P14/the version is checked before the session",
			func(e env) client.Request {
				return post(e.f, alice, pingBody, [2]string{"Mcp-Session-Id", "unknown"}, [2]string{"MCP-Protocol-Version", "1999-01-01"})
			},
			func(e env) want { return want{400, rule.VersionRequired, nil, httpError("Bad Request")} }},
		// Session (T-42, T-P09, T-43, T-P10).
		{"T-42/resources/list without Mcp-Session-Id is 400",
			func(e env) client.Request {
				return post(e.f, alice, listBody, [2]string{"MCP-Protocol-Version", "2025-11-25"})
			},
			func(e env) want { return want{400, rule.SessionRequired, nil, httpError("Bad Request")} }},
		{"T-P09/a malformed Mcp-Session-Id is 400, not 404",
			func(e env) client.Request { return post(e.f, alice, pingBody, inSession("short")...) },
			func(e env) want { return want{400, rule.SessionIDSyntax, nil, httpError("Bad Request")} }},
		{"T-43/a well-formed unknown session is 404",
			func(e env) client.Request { return post(e.f, alice, pingBody, inSession(strings.Repeat("A", 32))...) },
			func(e env) want { return want{404, rule.SessionNotFound, nil, sessionNotFoundBody} }},
		{"T-P10/another subject's session is the same 404",
			func(e env) client.Request { return post(e.f, e.token("bob"), pingBody, inSession(e.sid)...) },
			func(e env) want { return want{404, rule.SessionNotFound, nil, sessionNotFoundBody} }},
		{"T-P14/the session is checked before the scope",
			func(e env) client.Request {
				return post(e.f, e.token("no-resources-scope"), listBody, inSession(strings.Repeat("A", 32))...)
			},
			func(e env) want { return want{404, rule.SessionNotFound, nil, sessionNotFoundBody} }},
		{"T-P06/initialize carrying a session id is 400",
			func(e env) client.Request {
				return post(e.f, alice, initializeBody, [2]string{"Mcp-Session-Id", e.sid})
			},
			func(e env) want { return want{400, rule.LifecycleOrder, nil, invalidRequestBody} }},
		{"T-P14/the lifecycle is checked before the scope",
			func(e env) client.Request {
				token := e.token("no-resources-scope")
				resp := do(t, e.f, post(e.f, token, initializeBody).Bytes())
				sid, _ := resp.Get("Mcp-Session-Id")
				return post(e.f, token, listBody, inSession(sid)...)
			},
			func(e env) want {
				return want{400, rule.LifecycleOrder, map[string]string{"WWW-Authenticate": ""}, invalidRequestBody}
			}},
		// Scope and tenant (A-14, the tenant ACL).
		{"A-14/a missing scope is 403 insufficient_scope with the step-up scope",
			func(e env) client.Request {
				return post(e.f, e.token("no-resources-scope"), listBody, inSession(openSession(t, e.f, "no-resources-scope"))...)
			},
			func(e env) want {
				return want{403, rule.InsufficientScope, map[string]string{"WWW-Authenticate": challenge(e, "insufficient_scope", "mcp:connect resources:read")}, httpError("Forbidden")}
			}},
		{"A-P08/a tenant not served is 403 without a challenge",
			func(e env) client.Request { return post(e.f, e.token("other-tenant"), pingBody) },
			func(e env) want {
				return want{403, rule.TenantNotServed, map[string]string{"WWW-Authenticate": ""}, httpError("Forbidden")}
			}},
		// Dispatch.
		{"T-59/ping is answered as application/json",
			func(e env) client.Request { return post(e.f, alice, pingBody, inSession(e.sid)...) },
			func(e env) want {
				return want{200, rule.PingAnswered, map[string]string{"Content-Type": "application/json", "Connection": ""}, `{"jsonrpc":"2.0","id":2,"result":{}}`}
			}},
		{"T-P07/ping before any session is answered",
			func(e env) client.Request { return post(e.f, alice, pingBody) },
			func(e env) want { return want{200, rule.PingAnswered, nil, `{"jsonrpc":"2.0","id":2,"result":{}}`} }},
		{"T-66/an unknown method is -32601 in a normal 200",
			func(e env) client.Request {
				return post(e.f, alice, `{"jsonrpc":"2.0","id":"x","method":"tools/list"}`, inSession(e.sid)...)
			},
			func(e env) want {
				return want{200, rule.MethodNotFound, nil, `{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found"}}`}
			}},
		{"T-68/a cursor on resources/list is -32602",
			func(e env) client.Request {
				return post(e.f, alice, `{"jsonrpc":"2.0","id":4,"method":"resources/list","params":{"cursor":"x"}}`, inSession(e.sid)...)
			},
			func(e env) want {
				return want{200, rule.InvalidCursor, nil, `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid cursor"}}`}
			}},
		{"T-P04/a POSTed JSON-RPC response is 400",
			func(e env) client.Request {
				return post(e.f, alice, `{"jsonrpc":"2.0","id":9,"result":{}}`, inSession(e.sid)...)
			},
			func(e env) want { return want{400, rule.UnsolicitedResponse, nil, invalidRequestBody} }},
		{"T-12/an unknown notification is 400",
			func(e env) client.Request {
				return post(e.f, alice, `{"jsonrpc":"2.0","method":"notifications/cancelled"}`, inSession(e.sid)...)
			},
			func(e env) want { return want{400, rule.NotificationRefused, nil, invalidRequestBody} }},
		{"T-P06/a second notifications/initialized is 400",
			func(e env) client.Request { return post(e.f, alice, initializedBody, inSession(e.sid)...) },
			func(e env) want { return want{400, rule.LifecycleOrder, nil, invalidRequestBody} }},
		// Metadata (A-22, A-23, A-P06).
		{"A-P06/metadata refuses a request carrying Authorization",
			func(e env) client.Request {
				return client.Request{Method: "GET", Path: "/.well-known/oauth-protected-resource/mcp", Header: [][2]string{{"Host", e.f.Addr}, {"Authorization", "Bearer " + alice}}}
			},
			func(e env) want {
				return want{400, rule.MetadataPublic, map[string]string{"WWW-Authenticate": ""}, httpError("Bad Request")}
			}},
		{"A-P06/POST on metadata is 405 with Allow: GET",
			func(e env) client.Request {
				return client.Request{Method: "POST", Path: "/.well-known/oauth-protected-resource", Header: [][2]string{{"Host", e.f.Addr}}, Body: []byte{}}
			},
			func(e env) want {
				return want{405, rule.MethodNotServed, map[string]string{"Allow": "GET"}, httpError("Method Not Allowed")}
			}},
		// GET and DELETE.
		{"S-P01/a Last-Event-ID with a space is 400",
			func(e env) client.Request {
				return sessionRequest(e.f, "GET", alice, e.sid, [2]string{"Last-Event-ID", "a b"})
			},
			func(e env) want { return want{400, rule.EventIDSyntax, nil, httpError("Bad Request")} }},
		{"T-P11/a Last-Event-ID this stream never delivered is 400, not 404",
			func(e env) client.Request {
				return sessionRequest(e.f, "GET", alice, e.sid, [2]string{"Last-Event-ID", "gAAAAAAAAAAAAAAAA-1"})
			},
			func(e env) want { return want{400, rule.CursorUnknown, nil, httpError("Bad Request")} }},
		// GET and DELETE walk steps 3, 4 and 9 to 12 as POST does; each has its
		// own case, so a check missing on one method's path shows.
		{"T-P15/GET with a foreign Host is 403",
			func(e env) client.Request {
				return sessionRequest(e.f, "GET", alice, e.sid, [2]string{"Host", "evil.example"})
			},
			func(e env) want { return want{403, rule.HostNotOurs, nil, httpError("Forbidden")} }},
		{"T-P15/DELETE with a foreign Host is 403",
			func(e env) client.Request {
				return sessionRequest(e.f, "DELETE", alice, e.sid, [2]string{"Host", "evil.example"})
			},
			func(e env) want { return want{403, rule.HostNotOurs, nil, httpError("Forbidden")} }},
		{"T-P17/Host is checked on the metadata path too",
			func(e env) client.Request {
				return client.Request{Method: "GET", Path: "/.well-known/oauth-protected-resource/mcp", Header: [][2]string{{"Host", "evil.example"}}}
			},
			func(e env) want { return want{403, rule.HostNotOurs, nil, httpError("Forbidden")} }},
		{"T-P16/DELETE with a foreign Origin is 403",
			func(e env) client.Request {
				return sessionRequest(e.f, "DELETE", alice, e.sid, [2]string{"Origin", "https://evil.example"})
			},
			func(e env) want { return want{403, rule.OriginNotAllowed, nil, httpError("Forbidden")} }},
		{"A-10/GET with an unknown token is 401 invalid_token",
			func(e env) client.Request { return sessionRequest(e.f, "GET", "not-a-token", e.sid) },
			func(e env) want {
				return want{401, rule.InvalidToken, map[string]string{"WWW-Authenticate": challenge(e, "invalid_token", "mcp:connect")}, httpError("Unauthorized")}
			}},
		{"T-P08/GET without MCP-Protocol-Version is 400",
			func(e env) client.Request {
				return sessionRequest(e.f, "GET", alice, e.sid, [2]string{"MCP-Protocol-Version", "-"})
			},
			func(e env) want { return want{400, rule.VersionRequired, nil, httpError("Bad Request")} }},
		{"T-P08/DELETE with another MCP-Protocol-Version is 400 and the session survives",
			func(e env) client.Request {
				return sessionRequest(e.f, "DELETE", alice, e.sid, [2]string{"MCP-Protocol-Version", "2025-06-18"})
			},
			func(e env) want { return want{400, rule.VersionRequired, nil, httpError("Bad Request")} }},
		{"T-43/DELETE of an unknown session is 404",
			func(e env) client.Request {
				return sessionRequest(e.f, "DELETE", alice, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
			},
			func(e env) want { return want{404, rule.SessionNotFound, nil, sessionNotFoundBody} }},
		{"A-14/GET on alice's session with a token lacking mcp:connect is 403 insufficient_scope",
			func(e env) client.Request { return sessionRequest(e.f, "GET", e.token("no-connect-scope"), e.sid) },
			func(e env) want {
				return want{403, rule.InsufficientScope, map[string]string{"WWW-Authenticate": challenge(e, "insufficient_scope", "mcp:connect")}, httpError("Forbidden")}
			}},
		{"A-14/DELETE on alice's session with a token lacking mcp:connect is 403 insufficient_scope",
			func(e env) client.Request { return sessionRequest(e.f, "DELETE", e.token("no-connect-scope"), e.sid) },
			func(e env) want {
				return want{403, rule.InsufficientScope, map[string]string{"WWW-Authenticate": challenge(e, "insufficient_scope", "mcp:connect")}, httpError("Forbidden")}
			}},
		{"T-25/GET answers the stream at once",
			func(e env) client.Request { return sessionRequest(e.f, "GET", alice, e.sid) },
			func(e env) want {
				return want{200, rule.GetStream, map[string]string{"Content-Type": "text/event-stream"}, anyBody}
			}},
		{"A-23/metadata is served without a token",
			func(e env) client.Request {
				return client.Request{Method: "GET", Path: "/.well-known/oauth-protected-resource/mcp", Header: [][2]string{{"Host", e.f.Addr}}}
			},
			func(e env) want {
				return want{200, rule.MetadataServed, map[string]string{"Content-Type": "application/json"}, `{"resource":"` + e.f.URL + `","authorization_servers":["` + scenario.Issuer + `"],"scopes_supported":["mcp:connect","resources:read"],"bearer_methods_supported":["header"],"resource_name":"rawmcp"}`}
			}},
		{"T-42/GET without Mcp-Session-Id is 400",
			func(e env) client.Request { return sessionRequest(e.f, "GET", alice, "") },
			func(e env) want { return want{400, rule.SessionRequired, nil, httpError("Bad Request")} }},
		{"T-45/DELETE ends the session with 204 and no Content-Length",
			func(e env) client.Request { return sessionRequest(e.f, "DELETE", alice, e.sid) },
			func(e env) want {
				return want{204, rule.DeleteEndsSession, map[string]string{"Content-Length": "", "Connection": ""}, ""}
			}},
		{"A-08/DELETE without Authorization is 401",
			func(e env) client.Request { return sessionRequest(e.f, "DELETE", "", e.sid) },
			func(e env) want {
				return want{401, rule.NoCredentials, map[string]string{"WWW-Authenticate": challenge(e, "", "mcp:connect")}, httpError("Unauthorized")}
			}},
	}
	covered := map[string][]rule.ID{} // method (and path kind) → rules its cases name
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := env{f: f, sid: openSession(t, f, "alice")}
			sessions = append(sessions, e.sid)
			req := tc.req(e)
			walker := req.Method
			if strings.HasPrefix(req.Path, "/.well-known/") {
				walker += " metadata"
			}
			covered[walker] = append(covered[walker], tc.want(e).rule)
			f.TakeDecisions()
			resp := do(t, f, req.Bytes())
			w := tc.want(e)
			checkResponse(t, resp, w)
			// A-33, A-P07: no response carries a token or a session id.
			if found := leaked(responseText(resp), secretsOf(f, e.sid)); len(found) > 0 {
				t.Errorf("the response carries %v", found)
			}
			decisions := f.TakeDecisions()
			if len(decisions) != 1 || decisions[0].Rule != w.rule || decisions[0].Status != w.status {
				t.Errorf("decisions = %+v, want one with status %d and rule %s", decisions, w.status, w.rule)
			}
		})
	}
	// Every step has a case for every method that walks it, so deleting a
	// check on one method's path turns a case red.
	for _, step := range wire.ReceiveOrder {
		for _, m := range step.Methods {
			if !slices.ContainsFunc(covered[m], func(id rule.ID) bool { return slices.Contains(step.Rules, id) }) {
				t.Errorf("step %s has no case for %s (rules %v)", step.Label, m, step.Rules)
			}
		}
	}
	// A-33, A-P07: the server's log of the whole table names no token and
	// no session id.
	if logs.String() == "" {
		t.Fatal("the server logged nothing: the log scan would pass vacuously")
	}
	if found := leaked(logs.String(), secretsOf(f, sessions...)); len(found) > 0 {
		t.Errorf("the server log carries %v", found)
	}
}

// checkResponse compares the pinned parts of resp with w, and checks what
// every answer must have: Date, Cache-Control: no-store, and on an error
// Connection: close.
func checkResponse(t *testing.T, resp *httpparse.Response, w want) {
	t.Helper()
	if resp.Status != w.status {
		t.Errorf("status = %d, want %d", resp.Status, w.status)
	}
	if _, ok := resp.Get("Date"); !ok {
		t.Error("no Date (H-43)")
	}
	if v, _ := resp.Get("Cache-Control"); v != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", v)
	}
	if c, _ := resp.Get("Connection"); (w.status >= 400) != (c == "close") {
		t.Errorf("Connection = %q for status %d: errors close, successes keep", c, w.status)
	}
	for name, value := range w.headers {
		got, ok := resp.Get(name)
		if value == "" && ok {
			t.Errorf("%s = %q, want absent", name, got)
		}
		if value != "" && got != value {
			t.Errorf("%s:\n%s", name, cmp.Diff(value, got))
		}
	}
	if w.body == anyBody {
		return
	}
	if diff := cmp.Diff(w.body, string(resp.Body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

// TestLogCorrelates checks what a log line says about a request: its
// status and rule, and for the token and the session only the short
// correlation ids traces use, never the values (A-P07).
func TestLogCorrelates(t *testing.T) {
	var logs syncBuffer
	f := startFixture(t, logTo(&logs))
	sid := openSession(t, f, "alice")
	do(t, f, post(f, f.Tokens["bob"], pingBody, inSession(sid)...).Bytes())
	want := fmt.Sprintf("level=INFO msg=refused conn=%d status=404 rule=T-43 token=%s session=%s\n",
		3, policy.Correlate([]byte(f.Tokens["bob"])), policy.Correlate([]byte(sid)))
	lines := strings.SplitAfter(logs.String(), "\n")
	var got string
	for _, l := range lines {
		if strings.Contains(l, "msg=refused") {
			got = l[strings.Index(l, "level="):]
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log line (-want +got):\n%s", diff)
	}
}

// TestLogNamesDenialDetail: every 401 for a presented token looks the same
// on the wire, but the server log says which check failed, as
// policy.Denial.Detail names it, and never the token.
func TestLogNamesDenialDetail(t *testing.T) {
	var logs syncBuffer
	f := startFixture(t, logTo(&logs))
	for _, tc := range []struct{ token, detail string }{
		{"expired", policy.DetailExpired},
		{"wrong-audience", policy.DetailAudience},
		{"inactive", policy.DetailInactive},
	} {
		t.Run(tc.token, func(t *testing.T) {
			if resp := do(t, f, post(f, f.Tokens[tc.token], pingBody).Bytes()); resp.Status != 401 {
				t.Fatalf("status = %d, want 401", resp.Status)
			}
			want := "rule=A-10 detail=" + tc.detail + " token=" + policy.Correlate([]byte(f.Tokens[tc.token])) + "\n"
			if !strings.Contains(logs.String(), want) {
				t.Errorf("log lacks %q:\n%s", want, logs.String())
			}
		})
	}
	if found := leaked(logs.String(), secretsOf(f)); len(found) > 0 {
		t.Errorf("the server log carries %v", found)
	}
}
