package scenario

import (
	"context"
	"rawmcp/wire/client"
	"rawmcp/wire/rule"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
	"rawmcp/wire"
)

// TestTraceOfEveryScenario traces the demo, the attacks and the
// experiments in one run and reads the trace as an attacker would.
func TestTraceOfEveryScenario(t *testing.T) {
	var trace strings.Builder
	r := newRun(context.Background(), RunOptions{Trace: &trace})
	if v := r.demo(); v.Verdict != "PASS" {
		t.Fatalf("demo: %s at %s: %s", v.Verdict, v.FailedStep, v.Detail)
	}
	if v := r.verdict(r.probeChecks(), Attacks()); v.Verdict != "BLOCK" {
		t.Fatalf("attacks: %s", v.Verdict)
	}
	if v := r.experiments(Experiments()); v.Verdict != "PASS" {
		t.Fatalf("experiments: %s", v.Verdict)
	}
	text := trace.String()

	t.Run("A-33/no token or session id appears", func(t *testing.T) {
		labels := regexp.MustCompile(`<(token|session):[0-9a-f]{8}>`).FindAllString(text, -1)
		distinct := map[string]bool{}
		for _, l := range labels {
			distinct[l] = true
		}
		if len(distinct) < 100 {
			t.Fatalf("the trace names only %d secrets: the check would prove little", len(distinct))
		}
		if found := r.secret.Found([]byte(text)); len(found) > 0 {
			t.Errorf("the trace carries the secrets labelled %v", found)
		}
	})
	t.Run("A-33/secrets appear as correlation ids in heads and bodies", func(t *testing.T) {
		for _, want := range []*regexp.Regexp{
			regexp.MustCompile(`(?m)^> Authorization: Bearer <token:[0-9a-f]{8}>$`),
			regexp.MustCompile(`(?m)^> Mcp-Session-Id: <session:[0-9a-f]{8}>$`),
			regexp.MustCompile(`(?m)^< Mcp-Session-Id: <session:[0-9a-f]{8}>$`),
			regexp.MustCompile(`(?m)^> POST /mcp\?access_token=<token:[0-9a-f]{8}> HTTP/1\.1$`),
		} {
			if !want.MatchString(text) {
				t.Errorf("no line matches %s", want)
			}
		}
	})
	t.Run("T-P14/every response is annotated with the rule that decided it", func(t *testing.T) {
		// The probe's checks run concurrently, as from outside: their
		// exchanges (a step line "* HO-02: ...", "* V2-01: ...", "* L-01:
		// ...") carry no server decision.
		probeStep := regexp.MustCompile(`^\* [A-Z][A-Z0-9]{0,2}-[0-9]{2}: `)
		var inside strings.Builder
		probing := false
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "* ") {
				probing = probeStep.MatchString(line)
			}
			if !probing {
				inside.WriteString(line + "\n")
			}
		}
		responses := regexp.MustCompile(`(?m)^< HTTP/1\.1 `).FindAllString(inside.String(), -1)
		rules := regexp.MustCompile(`(?m)^= [A-Z]-[A-Za-z0-9-]+: \S.*$`).FindAllString(inside.String(), -1)
		if len(responses) == 0 || len(responses) != len(rules) {
			t.Errorf("%d responses, %d rule annotations with an explanation", len(responses), len(rules))
		}
	})
	t.Run("H-P01/a bare LF stays visible", func(t *testing.T) {
		if !strings.Contains(text, "> POST /mcp HTTP/1.1\\n\n") {
			t.Error(`no request line shown ending in a visible \n`)
		}
	})
}

// TestTraceExchange pins the format of one exchange.
func TestTraceExchange(t *testing.T) {
	const token, session = "dG9rZW4tZm9yLXRoZS10cmFjZQ", "c2Vzc2lvbi1mb3ItdGhlLXRyYWNlLWlk"
	resp := &httpparse.Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK",
		Header: []httpparse.HeaderLine{{Name: "Content-Type", Value: "text/event-stream"}, {Name: "Mcp-Session-Id", Value: session}},
		Body:   []byte("id: g1-2\ndata: {\"s\":\"" + session + "\"}\n\n")}
	decision := &wire.Decision{Status: 200, Rule: rule.RequestAnsweredSSE}
	tests := []struct {
		name string
		raw  string
		resp *httpparse.Response
		err  error
		d    *wire.Decision
		want string
	}{
		{
			name: "A-33/heads and bodies are redacted, the rule annotated",
			raw:  "POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + token + "\r\nMcp-Session-Id: " + session + "\r\n\r\n{\"t\":\"" + token + "\"}",
			resp: resp, d: decision,
			want: "* step\n" +
				"> POST /mcp HTTP/1.1\n> Authorization: Bearer " + client.TokenLabel(token) + "\n> Mcp-Session-Id: " + client.SessionLabel(session) + "\n>\n" +
				"{\"t\":\"" + client.TokenLabel(token) + "\"}\n" +
				"< HTTP/1.1 200 OK\n< Content-Type: text/event-stream\n< Mcp-Session-Id: " + client.SessionLabel(session) + "\n<\n" +
				"id: g1-2\ndata: {\"s\":\"" + client.SessionLabel(session) + "\"}\n\n" +
				"= T-14: " + rule.RequestAnsweredSSE.Text() + "\n\n",
		},
		{
			name: "A-33/a secret the run never learned is redacted by its field",
			raw:  "DELETE /mcp HTTP/1.1\r\nAuthorization: Bearer unknown-token\r\nMcp-Session-Id: forged\r\n\r\n",
			err:  client.ErrClosed,
			want: "* step\n> DELETE /mcp HTTP/1.1\n> Authorization: Bearer " + client.TokenLabel("unknown-token") +
				"\n> Mcp-Session-Id: " + client.SessionLabel("forged") + "\n>\n! no response: " + client.ErrClosed.Error() + "\n\n",
		},
		{
			name: "H-P03/obs-fold, bare CR and NUL are shown, not repaired",
			raw:  "GET /mcp HTTP/1.1\r\nX: a\r\n folded\r\nY: b\rc\x00\r\n\r\n",
			resp: &httpparse.Response{Proto: "HTTP/1.1", Status: 400, Reason: "Bad Request"},
			want: "* step\n> GET /mcp HTTP/1.1\n> X: a\n>  folded\n> Y: b\\rc\\x00\n>\n< HTTP/1.1 400 Bad Request\n<\n" +
				"= (the server recorded no decision)\n\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			secrets := &client.Redactor{}
			secrets.AddToken(token)
			secrets.AddSession(session)
			tr := &tracer{w: &b, secret: secrets}
			tr.exchange("step", []byte(tt.raw), tt.resp, tt.err, tt.d)
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("trace (-want +got):\n%s", diff)
			}
		})
	}
}
