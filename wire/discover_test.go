package wire_test

import (
	"rawmcp/wire/rule"
	"testing"
	"time"
)

// TestServerDiscoverIsRefusedFast: the 2026 draft's server/discover, which
// some SDK clients POST first, gets an immediate 400 and creates no
// session, so the client falls back to initialize.
func TestServerDiscoverIsRefusedFast(t *testing.T) {
	f := startFixture(t, nil)
	discover := `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}`
	for _, tc := range []struct {
		name  string
		extra [][2]string
		rule  rule.ID
	}{
		{"T-P08/with the Draft MCP-Protocol-Version, as the Go SDK sends it",
			[][2]string{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "server/discover"}}, rule.VersionRequired},
		{"T-42/without a protocol version or session", nil, rule.SessionRequired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.Sessions.Len(time.Now())
			f.TakeDecisions()
			resp := do(t, f, post(f, f.Tokens["alice"], discover, tc.extra...).Bytes())
			if resp.Status != 400 {
				t.Errorf("status = %d, want 400", resp.Status)
			}
			if d := f.TakeDecisions(); len(d) != 1 || d[0].Rule != tc.rule {
				t.Errorf("decisions = %+v, want rule %s", d, tc.rule)
			}
			if after := f.Sessions.Len(time.Now()); after != before {
				t.Errorf("sessions: %d before, %d after: a probe must not create one", before, after)
			}
		})
	}
}
