package probe

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChallenges reads WWW-Authenticate as RFC 9110 §11.6.1 writes it.
func TestChallenges(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   []challenge
	}{
		{"rawmcp's bare challenge", []string{`Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", scope="mcp:connect"`},
			[]challenge{{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", "scope": "mcp:connect"}}}},
		{"an error code, names in any case", []string{`bearer Error="invalid_token"`},
			[]challenge{{Scheme: "bearer", Params: map[string]string{"error": "invalid_token"}}}},
		{"two challenges in one field, a comma inside quotes", []string{`Basic realm="a, b", Bearer scope="x y"`},
			[]challenge{{Scheme: "Basic", Params: map[string]string{"realm": "a, b"}}, {Scheme: "Bearer", Params: map[string]string{"scope": "x y"}}}},
		{"two fields", []string{"Basic realm=x", "Bearer"},
			[]challenge{{Scheme: "Basic", Params: map[string]string{"realm": "x"}}, {Scheme: "Bearer", Params: map[string]string{}}}},
		{"a token68", []string{"Negotiate abc=="}, []challenge{{Scheme: "Negotiate", Params: map[string]string{"": "abc=="}}}},
		{"a quoted-pair", []string{`Bearer error_description="say \"no\""`},
			[]challenge{{Scheme: "Bearer", Params: map[string]string{"error_description": `say "no"`}}}},
		{"A-07/a repeated parameter", []string{`Bearer scope="a", scope="b"`},
			[]challenge{{Scheme: "Bearer", Params: map[string]string{"scope": "b"}, Repeated: []string{"scope"}}}},
		{"an unterminated quote is skipped", []string{`Bearer error="invalid`}, []challenge{{Scheme: "Bearer", Params: map[string]string{}}}},
		{"a parameter before any scheme is skipped", []string{`error="x", Bearer`}, []challenge{{Scheme: "Bearer", Params: map[string]string{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, challenges(tt.values)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzChallenges: any field value parses without panicking, and every
// scheme and parameter name it yields is a token: nothing malformed is
// repaired into something the server did not send.
func FuzzChallenges(f *testing.F) {
	for _, seed := range []string{`Bearer error="invalid_token", scope="a b"`, `Basic realm="a, b", Bearer`, `Negotiate abc==`, `x="\"`, `,,`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		for _, c := range challenges([]string{value}) {
			if !isToken(c.Scheme) {
				t.Fatalf("scheme %q is no token", c.Scheme)
			}
			for name := range c.Params {
				if name != "" && !isToken(name) {
					t.Fatalf("parameter name %q is no token", name)
				}
			}
		}
	})
}
