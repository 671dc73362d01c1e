package wire_test

import (
	"fmt"
	"rawmcp/wire/client"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/scenario"
)

// TestConflate401And403 is the profile's "Do not conflate 401 and 403"
// table, one case per row (and per kind of invalid token), over real
// sockets. Each case names the row it checks.
func TestConflate401And403(t *testing.T) {
	tc := state.DefaultConfig()
	tc.MaxSessions = 256
	// The expiry row moves the server's clock past the TTL rather than
	// sleeping through a short one, which a loaded machine would also
	// sleep through while the other rows open their sessions.
	var skew atomic.Int64
	f, err := scenario.Start(scenario.Options{TableConfig: &tc, Configure: func(c *wire.Config) {
		c.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := env{f: f}
	ping := func(token string, sid string) client.Request {
		return post(f, token, pingBody, inSession(sid)...)
	}
	type row struct {
		name      string
		req       func() client.Request
		status    int
		challenge string // exact WWW-Authenticate; "" = must be absent
	}
	invalid := challenge(e, "invalid_token", "mcp:connect")
	rows := []row{
		{"bearer missing: 401, resource_metadata and scope, no invalid_token",
			func() client.Request { return ping("", openSession(t, f, "alice")) }, 401, challenge(e, "", "mcp:connect")},
	}
	for _, name := range []string{"inactive", "expired", "not-yet-valid"} {
		rows = append(rows, row{"bearer " + name + ": 401 invalid_token",
			func() client.Request { return post(f, f.Tokens[name], pingBody) }, 401, invalid})
	}
	rows = append(rows, row{"bearer unknown: 401 invalid_token",
		func() client.Request { return post(f, "dW5rbm93bg", pingBody) }, 401, invalid})
	for _, name := range []string{"wrong-issuer", "wrong-audience", "wrong-resource", "authorization-resource-elsewhere", "token-resource-elsewhere"} {
		rows = append(rows, row{"binding invalid (" + name + "): the same 401, no hint which claim",
			func() client.Request { return post(f, f.Tokens[name], pingBody) }, 401, invalid})
	}
	rows = append(rows,
		row{"bearer revoked mid-session: 401 invalid_token, before the TTL", func() client.Request {
			sid := openSession(t, f, "revocable")
			f.Revoke(f.TokenIDs["revocable"])
			return ping(f.Tokens["revocable"], sid)
		}, 401, invalid},
		row{"scope insufficient: 403 insufficient_scope with the step-up scope", func() client.Request {
			return post(f, f.Tokens["no-resources-scope"], listBody, inSession(openSession(t, f, "no-resources-scope"))...)
		}, 403, challenge(e, "insufficient_scope", "mcp:connect resources:read")},
		row{"tenant ACL: 403 generic, no step-up challenge", func() client.Request {
			return post(f, f.Tokens["other-tenant"], pingBody)
		}, 403, ""},
		row{"Origin outside the allowlist: 403, no OAuth challenge", func() client.Request {
			return post(f, f.Tokens["alice"], pingBody, [2]string{"Origin", "https://evil.example"})
		}, 403, ""},
		row{"session missing: 400, no challenge", func() client.Request {
			return post(f, f.Tokens["alice"], listBody, [2]string{"MCP-Protocol-Version", "2025-11-25"})
		}, 400, ""},
		row{"session malformed: 400, no challenge", func() client.Request {
			return ping(f.Tokens["alice"], "not a session id")
		}, 400, ""},
		row{"session absent (never issued): 404, no challenge", func() client.Request {
			return ping(f.Tokens["alice"], strings.Repeat("x", 32))
		}, 404, ""},
		row{"session expired: 404, no challenge", func() client.Request {
			sid := openSession(t, f, "alice")
			skew.Add(int64(tc.TTL))
			return ping(f.Tokens["alice"], sid)
		}, 404, ""},
		row{"session terminated: 404, no challenge", func() client.Request {
			sid := openSession(t, f, "alice")
			if r := do(t, f, sessionRequest(f, "DELETE", f.Tokens["alice"], sid).Bytes()); r.Status != 204 {
				t.Fatalf("DELETE: %d", r.Status)
			}
			return ping(f.Tokens["alice"], sid)
		}, 404, ""},
		row{"session owned by another principal: 404, no challenge", func() client.Request {
			return ping(f.Tokens["bob"], openSession(t, f, "alice"))
		}, 404, ""},
		row{"session after the subject's revision changed: the token is 401, the session cannot be used again", func() client.Request {
			sid := openSession(t, f, "unicode")
			f.SetRevision("Zoë 🦊", 2)
			return ping(f.Tokens["unicode"], sid)
		}, 401, invalid},
		row{"later protocol header unsupported: 400, no challenge", func() client.Request {
			return post(f, f.Tokens["alice"], pingBody, [2]string{"Mcp-Session-Id", openSession(t, f, "alice")}, [2]string{"MCP-Protocol-Version", "2026-07-28"})
		}, 400, ""},
		row{"initialize with a conflicting header: 400, no challenge", func() client.Request {
			return post(f, f.Tokens["alice"], initializeBody, [2]string{"MCP-Protocol-Version", "2026-07-28"})
		}, 400, ""},
		row{"initialize proposing an unsupported version: 200 with 2025-11-25", func() client.Request {
			return post(f, f.Tokens["alice"], strings.Replace(initializeBody, "2025-11-25", "1999-01-01", 1))
		}, 200, ""},
	)
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			resp := do(t, f, r.req().Bytes())
			if resp.Status != r.status {
				t.Errorf("status = %d, want %d", resp.Status, r.status)
			}
			got, ok := resp.Get("WWW-Authenticate")
			if r.challenge == "" && ok {
				t.Errorf("WWW-Authenticate = %q, want none", got)
			}
			if r.challenge != "" && got != r.challenge {
				t.Errorf("WWW-Authenticate = %q\nwant %q", got, r.challenge)
			}
			if r.status == 200 && !strings.Contains(string(resp.Body), `"protocolVersion":"2025-11-25"`) {
				t.Errorf("body = %s, want the counter-offer 2025-11-25", resp.Body)
			}
		})
	}
}

// TestConcurrentPings is T-61 and the profile's 32-way concurrency check:
// 32 pings on one session at once each get their own id back.
func TestConcurrentPings(t *testing.T) {
	f := startFixture(t, nil)
	sid := openSession(t, f, "alice")
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := client.New(f.Addr)
			defer c.Close()
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 1000+i)
			resp, err := c.Do(post(f, f.Tokens["alice"], body, inSession(sid)...).Bytes(), false)
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, 1000+i)
			switch {
			case err != nil:
				errs <- err
			case resp.Status != 200 || string(resp.Body) != want:
				errs <- fmt.Errorf("ping %d: %d %s", i, resp.Status, resp.Body)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestDeleteRacingRequests: requests racing a DELETE either succeed before
// it or get 404 after it; once the DELETE is answered, nothing revives the
// session (T-43).
func TestDeleteRacingRequests(t *testing.T) {
	f := startFixture(t, nil)
	for round := range 5 {
		sid := openSession(t, f, "alice")
		var wg sync.WaitGroup
		statuses := make(chan int, 40)
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var req client.Request
				switch i % 3 {
				case 0:
					req = post(f, f.Tokens["alice"], pingBody, inSession(sid)...)
				case 1:
					req = post(f, f.Tokens["alice"], listBody, inSession(sid)...)
				default:
					req = sessionRequest(f, "GET", f.Tokens["alice"], sid)
				}
				statuses <- do(t, f, req.Bytes()).Status
			}()
		}
		if r := do(t, f, sessionRequest(f, "DELETE", f.Tokens["alice"], sid).Bytes()); r.Status != 204 {
			t.Fatalf("round %d: DELETE = %d", round, r.Status)
		}
		wg.Wait()
		close(statuses)
		for s := range statuses {
			if s != 200 && s != 404 {
				t.Errorf("round %d: a racing request got %d, want 200 or 404", round, s)
			}
		}
		if r := do(t, f, post(f, f.Tokens["alice"], pingBody, inSession(sid)...).Bytes()); r.Status != 404 {
			t.Errorf("round %d: after DELETE the session answered %d, want 404", round, r.Status)
		}
	}
}
