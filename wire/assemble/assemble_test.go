package assemble_test

import (
	"bytes"
	"errors"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/policy"
	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/assemble"
	"rawmcp/wire/client"
	"rawmcp/wire/scenario"
)

func token(canonical string) ([]policy.TokenFileEntry, error) {
	return []policy.TokenFileEntry{{Token: "assemble-token-0123456789", Record: policy.TokenRecord{
		TokenID: "t", Issuer: "https://as.invalid", Audience: canonical, Resource: canonical,
		AuthorizationResource: canonical, TokenResource: canonical, Subject: "s", Tenant: "acme",
		Scopes: []string{policy.ScopeConnect, policy.ScopeResourcesRead}, Revision: 1, Active: true,
		Expiry: time.Now().Add(time.Hour),
	}}}, nil
}

// TestOwnOriginsAlwaysAllowed (T-P16): the server's own
// origins are on the allowlist whatever Config.Origins says; Origins adds
// more; a foreign origin stays 403.
func TestOwnOriginsAlwaysAllowed(t *testing.T) {
	s, err := assemble.Start("127.0.0.1:0", assemble.Config{Issuer: "https://as.invalid", Tokens: token, Origins: []string{"http://app.example"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	port := s.Addr[len("127.0.0.1:"):]
	for _, tc := range []struct {
		host, origin string
		want         int
	}{
		{s.Addr, "http://" + s.Addr, 200},
		{"localhost:" + port, "http://localhost:" + port, 200},
		{s.Addr, "http://localhost:" + port, 200},
		{s.Addr, "http://app.example", 200},
		{s.Addr, "http://evil.example", 403},
		{s.Addr, "http://127.0.0.1:1", 403},
		{s.Addr, "null", 403},
	} {
		t.Run(tc.origin+"@"+tc.host, func(t *testing.T) {
			c := client.New(s.Addr)
			defer c.Close()
			body := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
			req := client.Request{Method: "POST", Path: "/mcp", Header: [][2]string{
				{"Host", tc.host}, {"Origin", tc.origin}, {"Accept", "application/json, text/event-stream"},
				{"Content-Type", "application/json"}, {"Authorization", "Bearer assemble-token-0123456789"},
			}, Body: body}
			resp, err := c.Do(req.Bytes(), false)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != tc.want {
				t.Errorf("status = %d, want %d", resp.Status, tc.want)
			}
		})
	}
}

func TestAssembleNeedsIssuerAndTokens(t *testing.T) {
	for i, cfg := range []assemble.Config{{Tokens: token}, {Issuer: "https://as.invalid"}} {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			if _, err := assemble.Assemble("127.0.0.1:8080", cfg); !errors.Is(err, assemble.ErrConfig) {
				t.Errorf("err = %v, want ErrConfig", err)
			}
		})
	}
}

// TestPublicURL (T-P15, T-P16, A-22, A-24): behind a proxy the public URL
// is the resource identifier, its authority an allowed Host and its origin
// an own origin; the loopback ones stay allowed and a foreign Host or
// Origin stays 403. Its path is where the endpoint and the path-suffixed
// metadata are served.
func TestPublicURL(t *testing.T) {
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, pc := range []struct {
		public, metadataPath string
	}{
		{"https://mcp.example.test:8443/mcp", "/.well-known/oauth-protected-resource/mcp"},
		{"https://mcp.example.test/api/mcp", "/.well-known/oauth-protected-resource/api/mcp"},
	} {
		t.Run(pc.public, func(t *testing.T) {
			var minted string
			tokens := func(canonical string) ([]policy.TokenFileEntry, error) { minted = canonical; return token(canonical) }
			s, err := assemble.Start("127.0.0.1:0", assemble.Config{Issuer: "https://as.invalid", Tokens: tokens, PublicURL: pc.public})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			public, _ := policy.ParseResourceURL(pc.public)
			metadataURL := public.Origin + pc.metadataPath
			got := []string{s.URL, s.LocalURL, s.MetadataURL, minted}
			want := []string{pc.public, "http://" + s.Addr + public.Path, metadataURL, pc.public}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("URL, LocalURL, MetadataURL, the URL tokens are minted for (-want +got):\n%s", diff)
			}
			challenge := `Bearer resource_metadata="` + metadataURL + `", scope="mcp:connect"`
			document := `{"resource":"` + pc.public + `","authorization_servers":["https://as.invalid"],"scopes_supported":["mcp:connect","resources:read"],"bearer_methods_supported":["header"],"resource_name":"rawmcp"}`
			post := func(host, origin, auth string) client.Request {
				h := [][2]string{{"Host", host}, {"Accept", "application/json, text/event-stream"}, {"Content-Type", "application/json"}}
				if origin != "" {
					h = append(h, [2]string{"Origin", origin})
				}
				if auth != "" {
					h = append(h, [2]string{"Authorization", "Bearer " + auth})
				}
				return client.Request{Method: "POST", Path: public.Path, Header: h, Body: []byte(ping)}
			}
			get := func(path, host string) client.Request {
				return client.Request{Method: "GET", Path: path, Header: [][2]string{{"Host", host}}}
			}
			const tok = "assemble-token-0123456789"
			type result struct {
				Status    int
				Challenge string
				Body      string
			}
			for _, tc := range []struct {
				name string
				req  client.Request
				want result
			}{
				{"T-P15/the public Host and Origin are served", post(public.Authority, public.Origin, tok), result{200, "", `{"jsonrpc":"2.0","id":1,"result":{}}`}},
				{"T-P15/the loopback Host and Origin still are", post(s.Addr, "http://"+s.Addr, tok), result{200, "", `{"jsonrpc":"2.0","id":1,"result":{}}`}},
				{"A-22/the 401 names the public metadata URL", post(public.Authority, public.Origin, ""), result{401, challenge, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Unauthorized"}}`}},
				{"A-24/the metadata names the public URL", get(pc.metadataPath, public.Authority), result{200, "", document}},
				{"A-P06/the root metadata too", get("/.well-known/oauth-protected-resource", public.Authority), result{200, "", document}},
				{"H-P11/the other path is not the endpoint", func() client.Request {
					r := post(public.Authority, public.Origin, tok)
					r.Path = map[string]string{"/mcp": "/api/mcp", "/api/mcp": "/mcp"}[public.Path]
					return r
				}(), result{404, "", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Not Found"}}`}},
				{"T-P15/a foreign Host is 403", post("evil.example:8443", public.Origin, tok), result{403, "", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden"}}`}},
				{"T-P15/the public host on another port is 403", post("mcp.example.test:1", "", tok), result{403, "", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden"}}`}},
				{"T-P16/a foreign Origin is 403", post(public.Authority, "https://evil.example", tok), result{403, "", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden"}}`}},
				{"T-P16/the public origin over http is 403", post(public.Authority, "http://"+public.Authority, tok), result{403, "", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden"}}`}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					c := client.New(s.Addr)
					defer c.Close()
					resp, err := c.Do(tc.req.Bytes(), false)
					if err != nil {
						t.Fatal(err)
					}
					challenge, _ := resp.Get("WWW-Authenticate")
					if diff := cmp.Diff(tc.want, result{resp.Status, challenge, string(resp.Body)}); diff != "" {
						t.Errorf("(-want +got):\n%s", diff)
					}
				})
			}
		})
	}
}

// TestPublicURLRefused: a PublicURL ParseResourceURL refuses is
// Assemble's error, naming the part.
func TestPublicURLRefused(t *testing.T) {
	_, err := assemble.Assemble("127.0.0.1:8080", assemble.Config{Issuer: "https://as.invalid", Tokens: token, PublicURL: "https://mcp.example.test/mcp?x=1"})
	var fe *policy.FieldError
	if !errors.As(err, &fe) || fe.Field != policy.PartQuery {
		t.Errorf("err = %v, want a FieldError naming %q", err, policy.PartQuery)
	}
}

// TestRevisionChangeEndsStaleSessions: a change of a subject's
// revision, by SetRevision or by a token minted under a newer one, ends
// that subject's sessions of every other revision at once and logs each
// as the connection would; anything that leaves the revision as it was
// ends nothing, and other subjects' sessions live on.
func TestRevisionChangeEndsStaleSessions(t *testing.T) {
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	created := now.Add(-10 * time.Second)
	s1 := state.Owner{Subject: "s", Tenant: "acme", Revision: 1}
	other := state.Owner{Subject: "o", Tenant: "acme", Revision: 1}
	minted := func(revision uint64) func(*assemble.Server) error {
		return func(s *assemble.Server) error {
			entries, _ := token(s.URL)
			rec := entries[0].Record
			rec.TokenID, rec.Revision = "t2", revision
			return s.AddToken("assemble-token-second-0123", rec)
		}
	}
	ended := func(sid string) string {
		return `level=INFO msg="session ended" session=` + policy.Correlate([]byte(sid)) + " subject=" + policy.Correlate([]byte("s")) +
			" tenant=acme how=revision-changed lifetime=10s"
	}
	for _, tc := range []struct {
		name  string
		act   func(*assemble.Server) error
		ends  bool // s's session ends
		alive int  // sessions left
	}{
		{"SetRevision to a newer revision", func(s *assemble.Server) error { s.SetRevision("s", 2); return nil }, true, 1},
		{"SetRevision to an older revision", func(s *assemble.Server) error { s.SetRevision("s", 0); return nil }, true, 1},
		{"SetRevision to the current revision", func(s *assemble.Server) error { s.SetRevision("s", 1); return nil }, false, 2},
		{"another subject's SetRevision", func(s *assemble.Server) error { s.SetRevision("nobody", 5); return nil }, false, 2},
		{"a token minted under a newer revision", minted(2), true, 1},
		{"a token minted under the current revision", minted(1), false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			s, err := assemble.Assemble("127.0.0.1:9", assemble.Config{Issuer: "https://as.invalid", Tokens: token,
				Configure: func(c *wire.Config) {
					c.Now = func() time.Time { return now }
					c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{
						ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
							if a.Key == slog.TimeKey {
								return slog.Attr{}
							}
							return a
						},
					}))
				}})
			if err != nil {
				t.Fatal(err)
			}
			sid, _, err := s.Sessions.Create(s1, created)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.Sessions.Create(other, created); err != nil {
				t.Fatal(err)
			}
			if err := tc.act(s); err != nil {
				t.Fatal(err)
			}
			var want []string
			if tc.ends {
				want = []string{ended(sid)}
			}
			got := strings.Split(strings.TrimSuffix(logs.String(), "\n"), "\n")
			if logs.Len() == 0 {
				got = nil
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
			if n := s.Sessions.Len(now); n != tc.alive {
				t.Errorf("%d sessions alive, want %d", n, tc.alive)
			}
		})
	}
}

// TestRevisionChangesOnlyThroughTheServer: nothing an assembled
// server or the fixture hands out reaches the policy, so a subject's
// revision changes only through SetRevision and AddToken, which end the
// sessions it makes stale: no exported field or method result is a
// *policy.Policy, and Configure sees none.
func TestRevisionChangesOnlyThroughTheServer(t *testing.T) {
	policyType := reflect.TypeFor[*policy.Policy]()
	for _, typ := range []reflect.Type{reflect.TypeFor[*assemble.Server](), reflect.TypeFor[*wire.Server](), reflect.TypeFor[*scenario.Fixture]()} {
		for i := range typ.Elem().NumField() {
			if f := typ.Elem().Field(i); f.IsExported() && f.Type == policyType {
				t.Errorf("%v.%s is the policy", typ, f.Name)
			}
		}
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			for j := range m.Type.NumOut() {
				if m.Type.Out(j) == policyType {
					t.Errorf("%v.%s returns the policy", typ, m.Name)
				}
			}
		}
	}
	var seen *policy.Policy
	if _, err := assemble.Assemble("127.0.0.1:9", assemble.Config{Issuer: "https://as.invalid", Tokens: token,
		Configure: func(c *wire.Config) { seen = c.Policy }}); err != nil {
		t.Fatal(err)
	}
	if seen != nil {
		t.Error("Configure was handed the policy")
	}
}
