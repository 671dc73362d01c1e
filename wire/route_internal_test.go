package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
	"rawmcp/policy"
	"rawmcp/state"
	"rawmcp/wire/mcp"
	"rawmcp/wire/rule"
)

// The route is tested here without a socket: a request is parsed from
// bytes, handed to decideHead, its body to decide, and the answer is
// framed, sealed and written into bytes exactly as conn does.

const (
	routeHost      = "127.0.0.1:8080"
	routeCanonical = "http://" + routeHost + "/mcp"
	routeToken     = "route-alice-7Qm2Xr9Lp4Vt8Ks1Nd6Hb3Zc"
)

var routeNow = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

// newRouteServer returns a server whose one token is alice's and whose
// session ids come from a fixed stream.
func newRouteServer(t *testing.T) *Server {
	t.Helper()
	p, err := policy.New(policy.Config{
		CanonicalURI:   routeCanonical,
		Issuer:         "https://as.example",
		AllowedHosts:   []string{routeHost},
		AllowedOrigins: []string{"http://" + routeHost},
		AllowedTenants: []string{"acme"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Add(routeToken, policy.TokenRecord{
		TokenID: "route-alice", Issuer: "https://as.example",
		Audience: routeCanonical, Resource: routeCanonical, AuthorizationResource: routeCanonical, TokenResource: routeCanonical,
		Subject: "alice", Tenant: "acme", Scopes: []string{policy.ScopeConnect, policy.ScopeResourcesRead},
		Revision: 1, Active: true, Expiry: routeNow.Add(time.Hour),
	}); err != nil {
		t.Fatal(err)
	}
	cfg := NewConfig(p, state.NewTable(state.DefaultConfig(), rand.NewChaCha8([32]byte{'r', 'o', 'u', 't', 'e'})))
	cfg.Now = func() time.Time { return routeNow }
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// headVerdict is what a case pins of decideHead: answer now, or read the
// body (its length, and 100 Continue, are the connection's rules': h1).
type headVerdict struct {
	ReadBody bool
}

var (
	answerNow = headVerdict{}
	readsBody = headVerdict{ReadBody: true}
)

// finalAnswer is what a case pins of the answer as written. Headers lists
// fields whose value must be exactly this; "" means the field must be
// absent.
type finalAnswer struct {
	Status  int
	Rule    rule.ID
	Headers map[string]string
	Body    string
}

// routed is one request through the route: its head verdict, the answer
// as written, and the session it opened.
type routed struct {
	head   headVerdict
	answer finalAnswer
	opened string
}

// walkRoute walks raw through the route as conn does, and returns what it
// decided, reading back the headers the case names.
func walkRoute(t *testing.T, s *Server, raw string, headers map[string]string) routed {
	t.Helper()
	var req httpparse.Request
	headLen, err := httpparse.Parse([]byte(raw), 0, s.cfg.Limits, &req)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	var h headDecision
	s.route.decideHead(&req, &h)
	got := routed{head: headVerdict{ReadBody: h.answer.status == 0}}
	resp := h.answer
	if got.head.ReadBody {
		if len(raw) != headLen+int(req.ContentLength) {
			t.Fatalf("the case's body is %d bytes, its Content-Length %d", len(raw)-headLen, req.ContentLength)
		}
		var d decision
		s.route.decide(&req, h.next, []byte(raw[headLen:]), routeNow, &memory{}, &d)
		got.opened = d.opened.id
		resp = d.answer
		if d.stream.kind != streamNone {
			if resp.body, err = appendStream(nil, &d.stream); err != nil {
				t.Fatalf("framing: %v", err)
			}
		}
	}
	seal(&resp)
	// Whether the answer closes is the connection's rules' (h1): an
	// error answer does (T-P14), and so does nothing else here.
	resp.close = resp.status >= 400
	out := appendResponse(nil, guarded(&resp), testDate)
	parsed, n, err := httpparse.ParseResponse(out, false, true, httpparse.DefaultResponseLimits())
	if err != nil || n != len(out) {
		t.Fatalf("the answer does not parse whole (%d of %d bytes): %v\n%s", n, len(out), err, out)
	}
	got.answer = finalAnswer{Status: parsed.Status, Rule: resp.rule, Body: string(parsed.Body)}
	if headers != nil {
		got.answer.Headers = map[string]string{}
		for name := range headers {
			got.answer.Headers[name], _ = parsed.Get(name)
		}
	}
	return got
}

// request writes a request with the given fields and body; a body sets
// Content-Length.
func request(method, path string, body string, fields ...string) string {
	var b strings.Builder
	b.WriteString(method + " " + path + " HTTP/1.1\r\nHost: " + routeHost + "\r\n")
	for _, f := range fields {
		b.WriteString(f + "\r\n")
	}
	if body != "" {
		b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
	}
	return b.String() + "\r\n" + body
}

const (
	routeAuth     = "Authorization: Bearer " + routeToken
	routeAccept   = "Accept: application/json, text/event-stream"
	routeJSON     = "Content-Type: application/json"
	routeVersion  = "MCP-Protocol-Version: " + mcp.ProtocolVersion
	routePing     = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	routePingJSON = `{"jsonrpc":"2.0","id":2,"result":{}}`
)

func routeInitialize() string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + mcp.ProtocolVersion +
		`","capabilities":{},"clientInfo":{"name":"route-test","version":"0.1.0"}}}`
}

func routeError(code int, message string) string {
	return `{"jsonrpc":"2.0","error":{"code":` + strconv.Itoa(code) + `,"message":"` + message + `"}}`
}

// openRouteSession opens and initializes a session of alice's through the
// route and returns its id.
func openRouteSession(t *testing.T, s *Server) string {
	t.Helper()
	r := walkRoute(t, s, request("POST", "/mcp", routeInitialize(), routeAccept, routeJSON, routeAuth), map[string]string{"Mcp-Session-Id": ""})
	sid := r.answer.Headers["Mcp-Session-Id"]
	if r.answer.Status != 200 || sid == "" || r.opened != sid {
		t.Fatalf("initialize: %d, session %q, opened %q", r.answer.Status, sid, r.opened)
	}
	r = walkRoute(t, s, request("POST", "/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, routeAccept, routeJSON, routeAuth, "Mcp-Session-Id: "+sid, routeVersion), nil)
	if r.answer.Status != 202 {
		t.Fatalf("notifications/initialized: %d", r.answer.Status)
	}
	return sid
}

// TestRouteReceiveOrder: the receive order decided from a parsed request
// alone, no socket. Each case pins what the head alone decides (an answer
// now, or a body of N bytes, with or without 100 Continue first) and the
// final answer: status, rule, the headers that matter and the body.
func TestRouteReceiveOrder(t *testing.T) {
	closeOnly := func(extra ...string) map[string]string {
		h := map[string]string{"Connection": "close", "WWW-Authenticate": ""}
		for i := 0; i+1 < len(extra); i += 2 {
			h[extra[i]] = extra[i+1]
		}
		return h
	}
	for _, tc := range []struct {
		name string
		raw  func(sid string) string
		head headVerdict
		want finalAnswer
	}{
		{"T-P15/a foreign Host is answered from the head",
			func(string) string {
				return strings.Replace(request("POST", "/mcp", routePing, routeAccept, routeJSON, routeAuth), routeHost, "evil.example:80", 1)
			},
			answerNow, finalAnswer{403, rule.HostNotOurs, closeOnly(), routeError(-32000, "Forbidden")}},
		{"T-P16/a foreign Origin is answered before the token is looked at",
			func(string) string {
				return request("POST", "/mcp", routePing, routeAccept, routeJSON, "Origin: http://attacker.example")
			},
			answerNow, finalAnswer{403, rule.OriginNotAllowed, closeOnly(), routeError(-32000, "Forbidden")}},
		{"H-P11/a path that is not /mcp is 404",
			func(string) string { return request("GET", "/MCP", "") },
			answerNow, finalAnswer{404, rule.ExactRouting, closeOnly(), routeError(-32000, "Not Found")}},
		{"H-P12/a standard method /mcp does not serve is 405 with Allow",
			func(string) string { return request("PUT", "/mcp", "{}") },
			answerNow, finalAnswer{405, rule.MethodNotServed, closeOnly("Allow", "GET, POST, DELETE"), routeError(-32000, "Method Not Allowed")}},
		{"H-P12/an unknown method is 501",
			func(string) string { return request("BREW", "/mcp", "") },
			answerNow, finalAnswer{501, rule.MethodNotServed, closeOnly("Allow", ""), routeError(-32000, "Not Implemented")}},
		{"H-P12/the metadata document is GET only",
			func(string) string { return request("POST", "/.well-known/oauth-protected-resource/mcp", "{}") },
			answerNow, finalAnswer{405, rule.MethodNotServed, closeOnly("Allow", "GET"), routeError(-32000, "Method Not Allowed")}},
		{"A-P06/the metadata document refuses Authorization",
			func(string) string { return request("GET", pathMetadataRoot, "", routeAuth) },
			answerNow, finalAnswer{400, rule.MetadataPublic, closeOnly(), routeError(-32000, "Bad Request")}},
		{"A-23/the metadata document reads its body, then is served",
			func(string) string { return request("GET", "/.well-known/oauth-protected-resource/mcp", "ignored") },
			readsBody, finalAnswer{200, rule.MetadataServed, map[string]string{"Content-Type": contentTypeJSON, "Connection": ""},
				`{"resource":"` + routeCanonical + `","authorization_servers":["https://as.example"],"scopes_supported":["mcp:connect","resources:read"],"bearer_methods_supported":["header"],"resource_name":"rawmcp"}`}},
		{"T-P02/a POST that does not accept both types is 406",
			func(string) string {
				return request("POST", "/mcp", routePing, "Accept: application/json", routeJSON, routeAuth)
			},
			answerNow, finalAnswer{406, rule.AcceptBothTypes, closeOnly(), routeError(-32000, "Not Acceptable: use Accept: application/json, text/event-stream")}},
		{"T-P01/a POST that is not JSON is 415 with Accept",
			func(string) string {
				return request("POST", "/mcp", routePing, routeAccept, "Content-Type: text/plain", routeAuth)
			},
			answerNow, finalAnswer{415, rule.ContentTypeJSON, closeOnly("Accept", contentTypeJSON), routeError(-32000, "Unsupported Media Type")}},
		{"H-P13/Expect 100-continue refused from the head: no 100, no body read",
			func(string) string {
				return request("POST", "/mcp", routePing, routeAccept, "Content-Type: text/plain", routeAuth, "Expect: 100-continue")
			},
			answerNow, finalAnswer{415, rule.ContentTypeJSON, closeOnly("Accept", contentTypeJSON), routeError(-32000, "Unsupported Media Type")}},
		{"H-35/a POST without Content-Length is 411",
			func(string) string { return request("POST", "/mcp", "", routeAccept, routeJSON, routeAuth) },
			answerNow, finalAnswer{411, rule.LengthRequired, closeOnly(), routeError(-32000, "Length Required")}},
		{"H-P13/Expect 100-continue that passes the head: the body is read (after a 100, h1's)",
			func(string) string {
				return request("POST", "/mcp", routePing, routeAccept, routeJSON, routeAuth, "Expect: 100-continue")
			},
			readsBody, finalAnswer{200, rule.PingAnswered, map[string]string{"Content-Type": contentTypeJSON, "Connection": ""}, routePingJSON}},
		{"H-P13/Expect 100-continue with an empty body: the empty body is read and refused",
			func(string) string {
				return request("POST", "/mcp", "", routeAccept, routeJSON, routeAuth, "Expect: 100-continue", "Content-Length: 0")
			},
			readsBody, finalAnswer{400, rule.StrictJSON, closeOnly(), routeError(-32700, "Parse error")}},
		{"T-P13/a body that is not strict JSON is -32700",
			func(string) string {
				return request("POST", "/mcp", `{"jsonrpc":"2.0",}`, routeAccept, routeJSON, routeAuth)
			},
			readsBody, finalAnswer{400, rule.StrictJSON, closeOnly(), routeError(-32700, "Parse error")}},
		{"A-08/a POST without a token is 401 with a challenge, after the body",
			func(string) string { return request("POST", "/mcp", routePing, routeAccept, routeJSON) },
			readsBody, finalAnswer{401, rule.NoCredentials,
				map[string]string{"Connection": "close", "WWW-Authenticate": `Bearer resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp", scope="mcp:connect"`},
				routeError(-32000, "Unauthorized")}},
		{"T-59/a ping before any session is answered",
			func(string) string { return request("POST", "/mcp", routePing, routeAccept, routeJSON, routeAuth) },
			readsBody, finalAnswer{200, rule.PingAnswered, map[string]string{"Mcp-Session-Id": "", "Connection": ""}, routePingJSON}},
		{"T-P08/a ping on a session without MCP-Protocol-Version is 400",
			func(sid string) string {
				return request("POST", "/mcp", routePing, routeAccept, routeJSON, routeAuth, "Mcp-Session-Id: "+sid)
			},
			readsBody, finalAnswer{400, rule.VersionRequired, closeOnly(), routeError(-32000, "Bad Request")}},
		{"T-43/a well-formed session id never issued is 404",
			func(sid string) string {
				return request("POST", "/mcp", routePing, routeAccept, routeJSON, routeAuth, "Mcp-Session-Id: "+strings.Repeat("A", len(sid)), routeVersion)
			},
			readsBody, finalAnswer{404, rule.SessionNotFound, closeOnly(), routeError(-32001, "Session not found")}},
		{"T-25/GET answers the stream: a priming event with the retry",
			func(sid string) string {
				return request("GET", "/mcp", "", "Accept: text/event-stream", routeAuth, "Mcp-Session-Id: "+sid, routeVersion)
			},
			readsBody, finalAnswer{200, rule.GetStream, map[string]string{"Content-Type": contentTypeSSE, "Connection": ""}, anyEvents}},
		{"T-P02/a GET that does not accept text/event-stream is 406",
			func(sid string) string {
				return request("GET", "/mcp", "", "Accept: application/json", routeAuth, "Mcp-Session-Id: "+sid, routeVersion)
			},
			answerNow, finalAnswer{406, rule.AcceptBothTypes, closeOnly(), routeError(-32000, "Not Acceptable: use Accept: application/json, text/event-stream")}},
		{"S-P01/a malformed Last-Event-ID is 400",
			func(sid string) string {
				return request("GET", "/mcp", "", "Accept: text/event-stream", routeAuth, "Mcp-Session-Id: "+sid, routeVersion, "Last-Event-ID: a b")
			},
			readsBody, finalAnswer{400, rule.EventIDSyntax, closeOnly(), routeError(-32000, "Bad Request")}},
		{"T-42/DELETE without a session id is 400",
			func(string) string { return request("DELETE", "/mcp", "", routeAuth, routeVersion) },
			readsBody, finalAnswer{400, rule.SessionRequired, closeOnly(), routeError(-32000, "Bad Request")}},
		{"T-45/DELETE reads its body, then ends the session",
			func(sid string) string {
				return request("DELETE", "/mcp", "xyz", routeAuth, "Mcp-Session-Id: "+sid, routeVersion)
			},
			readsBody, finalAnswer{204, rule.DeleteEndsSession, map[string]string{"Content-Length": "", "Connection": ""}, ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRouteServer(t)
			sid := openRouteSession(t, s)
			got := walkRoute(t, s, tc.raw(sid), tc.want.Headers)
			if tc.want.Body == anyEvents {
				if !strings.HasPrefix(got.answer.Body, "id: ") || !strings.Contains(got.answer.Body, "\nretry: 2000\n") {
					t.Errorf("body %q is not a priming event with retry 2000", got.answer.Body)
				}
				got.answer.Body = anyEvents
			}
			if diff := cmp.Diff(tc.head, got.head); diff != "" {
				t.Errorf("head verdict (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got.answer); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}

// anyEvents marks an SSE body whose ids carry the session's random handle:
// the case checks its shape instead.
const anyEvents = "<events>"

// TestRouteDoesNoIO: the receive order decides and nothing else (the way
// httpparse parses): its files import no package that does I/O and never
// name the connection, so every read, write and log line is conn's.
func TestRouteDoesNoIO(t *testing.T) {
	ioPackages := map[string]bool{"net": true, "io": true, "os": true, "syscall": true, "bufio": true, "log": true, "log/slog": true}
	for _, name := range []string{"route.go", "decisions.go", "sse.go"} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); ioPackages[path] {
				t.Errorf("%s imports %s", name, path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && (id.Name == "conn" || id.Name == "Server") {
				t.Errorf("%s: %s names %s", name, fset.Position(id.Pos()), id.Name)
			}
			return true
		})
	}
}
