package wire_test

import (
	"bytes"
	"io"
	"net"
	"rawmcp/wire"
	"rawmcp/wire/client"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
	"rawmcp/wire/rule"
)

// asHTTP10 rewrites the request line's version of raw to HTTP/1.0, the
// version Debian's nginx speaks upstream by default.
func asHTTP10(raw []byte) []byte {
	line, rest, _ := bytes.Cut(raw, []byte("\r\n"))
	line = bytes.Replace(line, []byte(" HTTP/1.1"), []byte(" HTTP/1.0"), 1)
	return append(append(line, "\r\n"...), rest...)
}

// exchangeUntilClose sends raw on a fresh connection and reads until the
// server closes it. The bound only keeps a server that never closes from
// hanging the test; it is generous for a loaded machine.
func exchangeUntilClose(t *testing.T, addr string, raw []byte) []byte {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := nc.Write(raw); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(nc)
	if err != nil {
		t.Fatalf("the connection was not closed after the answer: %v (read %q)", err, got)
	}
	return got
}

// TestHTTP10EveryStep sends an HTTP/1.0 request that stops at each step
// of the receive order, or passes them all, each followed by a pipelined
// HTTP/1.1 ping: the answer is HTTP/1.1 (RFC 9110 §6.2) with Connection:
// close and no Transfer-Encoding (H-48), it is the only answer, and the
// server closes the connection after it (H-39), even when the request
// asked for keep-alive. Step 2, the in-flight gate, needs a full server
// and is left to its own tests.
func TestHTTP10EveryStep(t *testing.T) {
	f := startFixture(t, nil)
	alice := f.Tokens["alice"]
	metadata := func(e env, extra ...[2]string) client.Request {
		return client.Request{Method: "GET", Path: "/.well-known/oauth-protected-resource/mcp", Header: withFields([][2]string{{"Host", e.f.Addr}}, extra)}
	}
	cases := []struct {
		name   string
		req    func(e env) client.Request
		status int
		rule   rule.ID
	}{
		{"H-15/no Host is 400, as on HTTP/1.1",
			func(e env) client.Request { return post(e.f, alice, pingBody, [2]string{"Host", "-"}) }, 400, rule.HostRequired},
		{"H-P06/Transfer-Encoding is still refused (with Content-Length: 400)",
			func(e env) client.Request { return post(e.f, alice, "", [2]string{"Transfer-Encoding", "chunked"}) }, 400, rule.TransferEncoding},
		{"T-P15/a foreign Host is 403",
			func(e env) client.Request { return post(e.f, alice, pingBody, [2]string{"Host", "evil.example:80"}) }, 403, rule.HostNotOurs},
		{"T-P16/a foreign Origin is 403",
			func(e env) client.Request {
				return post(e.f, alice, pingBody, [2]string{"Origin", "https://evil.example"})
			}, 403, rule.OriginNotAllowed},
		{"H-P11/an unknown path is 404",
			func(e env) client.Request { r := metadata(e); r.Path = "/nowhere"; return r }, 404, rule.ExactRouting},
		{"H-P12/PUT is 405",
			func(e env) client.Request { r := post(e.f, alice, pingBody); r.Method = "PUT"; return r }, 405, rule.MethodNotServed},
		{"A-P06/metadata with Authorization is 400",
			func(e env) client.Request { return metadata(e, [2]string{"Authorization", "Bearer " + alice}) }, 400, rule.MetadataPublic},
		{"T-P02/Accept without text/event-stream is 406",
			func(e env) client.Request { return post(e.f, alice, pingBody, [2]string{"Accept", "application/json"}) }, 406, rule.AcceptBothTypes},
		{"T-P01/Content-Type text/plain is 415",
			func(e env) client.Request { return post(e.f, alice, pingBody, [2]string{"Content-Type", "text/plain"}) }, 415, rule.ContentTypeJSON},
		{"H-35/no Content-Length is 411",
			func(e env) client.Request { r := post(e.f, alice, ""); r.Body = nil; return r }, 411, rule.LengthRequired},
		{"T-P13/duplicate keys are 400",
			func(e env) client.Request { return post(e.f, alice, `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`) }, 400, rule.StrictJSON},
		{"A-08/no token is 401",
			func(e env) client.Request { return post(e.f, "", pingBody, inSession(e.sid)...) }, 401, rule.NoCredentials},
		{"T-P08/no MCP-Protocol-Version in a session is 400",
			func(e env) client.Request { return post(e.f, alice, pingBody, [2]string{"Mcp-Session-Id", e.sid}) }, 400, rule.VersionRequired},
		{"T-43/an unknown session is 404",
			func(e env) client.Request { return post(e.f, alice, pingBody, inSession(strings.Repeat("A", 32))...) }, 404, rule.SessionNotFound},
		{"A-14/GET with a token lacking mcp:connect is 403",
			func(e env) client.Request { return sessionRequest(e.f, "GET", e.token("no-connect-scope"), e.sid) }, 403, rule.InsufficientScope},
		{"S-P01/a malformed Last-Event-ID is 400",
			func(e env) client.Request {
				return sessionRequest(e.f, "GET", alice, e.sid, [2]string{"Last-Event-ID", "a b"})
			}, 400, rule.EventIDSyntax},
		{"T-53/initialize is 200",
			func(e env) client.Request { return post(e.f, alice, initializeBody) }, 200, rule.VersionCounterOffer},
		{"T-59/ping is 200",
			func(e env) client.Request { return post(e.f, alice, pingBody, inSession(e.sid)...) }, 200, rule.PingAnswered},
		{"H-39/ping with Connection: keep-alive is still closed",
			func(e env) client.Request {
				return post(e.f, alice, pingBody, append(inSession(e.sid), [2]string{"Connection", "keep-alive"})...)
			}, 200, rule.PingAnswered},
		{"H-51/Expect: 100-continue is ignored: no interim 100",
			func(e env) client.Request {
				return post(e.f, alice, pingBody, append(inSession(e.sid), [2]string{"Expect", "100-continue"})...)
			}, 200, rule.PingAnswered},
		{"T-14/resources/list is an event stream",
			func(e env) client.Request { return post(e.f, alice, listBody, inSession(e.sid)...) }, 200, rule.RequestAnsweredSSE},
		{"T-25/the GET stream",
			func(e env) client.Request { return sessionRequest(e.f, "GET", alice, e.sid) }, 200, rule.GetStream},
		{"T-45/DELETE is 204",
			func(e env) client.Request { return sessionRequest(e.f, "DELETE", alice, e.sid) }, 204, rule.DeleteEndsSession},
		{"A-23/the metadata is 200",
			func(e env) client.Request { return metadata(e) }, 200, rule.MetadataServed},
	}
	covered := map[rule.ID]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := env{f: f, sid: openSession(t, f, "alice")}
			ping := post(f, alice, pingBody, inSession(e.sid)...).Bytes()
			raw := append(asHTTP10(c.req(e).Bytes()), ping...)
			f.TakeDecisions()
			got := exchangeUntilClose(t, f.Addr, raw)
			resp, n, err := httpparse.ParseResponse(got, false, true, httpparse.DefaultResponseLimits())
			if err != nil {
				t.Fatalf("answer %q: %v", got, err)
			}
			if n != len(got) {
				t.Errorf("more than one answer: %q after the first", got[n:])
			}
			type view struct {
				Proto            string
				Status           int
				Connection       string
				TransferEncoding []string
				Decisions        []wire.Decision
			}
			connection, _ := resp.Get("Connection")
			// A parse error closes by its own rule, any other error by the
			// receive order's, before HTTP/1.0 is asked.
			closed := rule.HTTP10Closes
			switch {
			case slices.Contains(wire.ReceiveOrder[0].Rules, c.rule):
				closed = rule.ParseErrorCloses
			case c.status >= 400:
				closed = rule.ReceiveOrder
			}
			want := view{"HTTP/1.1", c.status, "close", nil, []wire.Decision{{Status: c.status, Rule: c.rule, Closed: closed}}}
			gotView := view{resp.Proto, resp.Status, connection, resp.Values("Transfer-Encoding"), f.TakeDecisions()}
			if diff := cmp.Diff(want, gotView); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			covered[c.rule] = true
		})
	}
	for _, step := range wire.ReceiveOrder {
		if step.Label == "2" {
			continue
		}
		if !slices.ContainsFunc(step.Rules, func(id rule.ID) bool { return covered[id] }) {
			t.Errorf("step %s has no HTTP/1.0 case (rules %v)", step.Label, step.Rules)
		}
	}
}
