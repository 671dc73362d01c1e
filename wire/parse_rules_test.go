package wire_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire"
	"rawmcp/wire/rule"
)

// TestParseRefusalRules: a request the parser refuses is answered and
// logged with the rule of its own fault, not a neighbour's. Each line is
// broken in one way after a valid request line and Host.
func TestParseRefusalRules(t *testing.T) {
	f := startFixture(t, nil)
	const start = "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	for _, tc := range []struct {
		name string
		raw  string
		want wire.Decision
	}{
		{"H-17/whitespace between field name and colon", "GET /mcp HTTP/1.1\r\nHost : x\r\n\r\n", wire.Decision{Status: 400, Rule: rule.SpaceBeforeColon, Closed: rule.ParseErrorCloses}},
		{"H-21/a field name that is not a token", start + "Bad@Name: x\r\n\r\n", wire.Decision{Status: 400, Rule: rule.FieldNameNotToken, Closed: rule.ParseErrorCloses}},
		{"H-21/an empty field name", start + ": x\r\n\r\n", wire.Decision{Status: 400, Rule: rule.FieldNameNotToken, Closed: rule.ParseErrorCloses}},
		{"H-06/a field line without a colon", start + "NoColon\r\n\r\n", wire.Decision{Status: 400, Rule: rule.GrammarViolation, Closed: rule.ParseErrorCloses}},
		{"H-06/a Connection option that is not a token", start + "Connection: clo se\r\n\r\n", wire.Decision{Status: 400, Rule: rule.GrammarViolation, Closed: rule.ParseErrorCloses}},
		{"H-P03/obs-fold stays its own rule", start + "X-A: a\r\n b\r\n\r\n", wire.Decision{Status: 400, Rule: rule.NeverRepaired, Closed: rule.ParseErrorCloses}},
		{"H-P04/a control byte in a value", start + "X-A: a\x01b\r\n\r\n", wire.Decision{Status: 400, Rule: rule.ControlByteInValue, Closed: rule.ParseErrorCloses}},
		{"H-P01/a bare LF", "GET /mcp HTTP/1.1\nHost: x\r\n\r\n", wire.Decision{Status: 400, Rule: rule.BareLF, Closed: rule.ParseErrorCloses}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.TakeDecisions()
			resp := do(t, f, []byte(tc.raw))
			got := f.TakeDecisions()
			if diff := cmp.Diff([]wire.Decision{tc.want}, got); diff != "" || resp.Status != tc.want.Status {
				t.Errorf("status %d, decisions (-want +got):\n%s", resp.Status, diff)
			}
		})
	}
}
