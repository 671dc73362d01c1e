package wiretest_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"rawmcp/policy"
	"rawmcp/wire/client"
	"rawmcp/wire/wiretest"
)

func token(canonical string) ([]policy.TokenFileEntry, error) {
	return []policy.TokenFileEntry{{Token: "wiretest-token-0123456789", Record: policy.TokenRecord{
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
	s, err := wiretest.Start("127.0.0.1:0", wiretest.Config{Issuer: "https://as.invalid", Tokens: token, Origins: []string{"http://app.example"}})
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
				{"Content-Type", "application/json"}, {"Authorization", "Bearer wiretest-token-0123456789"},
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
	for i, cfg := range []wiretest.Config{{Tokens: token}, {Issuer: "https://as.invalid"}} {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			if _, err := wiretest.Assemble("127.0.0.1:8080", cfg); !errors.Is(err, wiretest.ErrConfig) {
				t.Errorf("err = %v, want ErrConfig", err)
			}
		})
	}
}
