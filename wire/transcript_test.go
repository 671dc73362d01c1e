package wire_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"rawmcp/wire/client"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
	"rawmcp/wire"
	"rawmcp/wire/scenario"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/transcripts")

// exchange is one step of a transcript: a heading in prose and a request.
type exchange struct {
	title string
	req   func(s *transcriptState) []byte
}

// transcriptState carries what later steps need from earlier answers.
type transcriptState struct {
	f   *scenario.Fixture
	sid string
	// lastEventID is the last SSE id the GET stream delivered.
	lastEventID string
}

// TestTranscripts renders raw request bytes and raw response bytes of the
// happy path and of one request per error status, so the wire behaviour
// can be reviewed as text. Run with -update after an intended change.
// Random values (port, tokens, session ids, event-id handles, Date) are
// replaced by stable placeholders before comparing.
func TestTranscripts(t *testing.T) {
	for _, tc := range []struct {
		file  string
		intro string
		steps []exchange
	}{
		{"happy_path.txt", "The happy path of MCP 2025-11-25 over Streamable HTTP, one request per connection.", happyPath},
		{"errors.txt", "One request for each error status rawmcp sends, with the rule that decided it.", errorStatuses},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f := startFixture(t, func(c *wire.Config) { c.MaxInFlight = 64 })
			got := renderTranscript(t, f, tc.intro, tc.steps)
			path := filepath.Join("testdata", "transcripts", tc.file)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./wire -run TestTranscripts -update)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", path, diff)
			}
		})
	}
}

func renderTranscript(t *testing.T, f *scenario.Fixture, intro string, steps []exchange) string {
	t.Helper()
	st := &transcriptState{f: f}
	var b strings.Builder
	b.WriteString("# " + intro + "\n# '>' is what the client sent, '<' what rawmcp answered, '=' the rule that decided it.\n# Head lines end in CRLF on the wire; body lines are shown split at LF.\n")
	for i, step := range steps {
		raw := step.req(st)
		f.TakeDecisions()
		c := client.New(f.Addr)
		if err := c.Send(raw); err != nil {
			t.Fatal(err)
		}
		resp, err := c.Read(strings.HasPrefix(string(raw), "HEAD "))
		c.Close()
		if err != nil {
			t.Fatalf("step %d (%s): %v", i+1, step.title, err)
		}
		if found := leaked(responseText(resp), secretsOf(f, st.sid)); len(found) > 0 {
			t.Errorf("step %d (%s): the response carries %v", i+1, step.title, found)
		}
		if sid, ok := resp.Get("Mcp-Session-Id"); ok {
			st.sid = sid
		}
		if ids := eventIDs.FindAllStringSubmatch(string(resp.Body), -1); len(ids) > 0 {
			st.lastEventID = ids[len(ids)-1][1]
		}
		rule := "none"
		if d := f.TakeDecisions(); len(d) == 1 {
			rule = string(d[0].Rule) + ": " + d[0].Rule.Text()
		}
		fmt.Fprintf(&b, "\n## %d. %s\n\n", i+1, step.title)
		b.WriteString(indent("> ", string(raw)))
		b.WriteString(indent("< ", renderResponse(resp)))
		b.WriteString("= " + rule + "\n")
	}
	return normalize(f, st, b.String())
}

var eventIDs = regexp.MustCompile(`(?m)^id: (\S+)$`)

// renderResponse writes the parsed response back as the bytes it came as
// (the parser keeps every field in order; the body is identity-framed).
func renderResponse(resp *httpparse.Response) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d %s\r\n", resp.Proto, resp.Status, resp.Reason)
	for _, h := range resp.Header {
		b.WriteString(h.Name + ": " + h.Value + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(resp.Body)
	return b.String()
}

// indent renders wire bytes readably: head lines end at CRLF, body lines
// at LF (SSE and JSON bodies use LF), and any other control byte is shown
// escaped, so a bare LF or CR in a head is visible.
func indent(prefix, s string) string {
	head, body, hasBody := strings.Cut(s, "\r\n\r\n")
	lines := strings.Split(head, "\r\n")
	if hasBody {
		lines = append(lines, "")
		if body != "" {
			lines = append(lines, strings.Split(strings.TrimSuffix(body, "\n"), "\n")...)
		}
	}
	var b strings.Builder
	for _, line := range lines {
		b.WriteString(prefix)
		for _, r := range line {
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, r)
				continue
			}
			b.WriteRune(r)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// normalize replaces what changes from run to run with placeholders.
func normalize(f *scenario.Fixture, st *transcriptState, s string) string {
	names := make([]string, 0, len(f.Tokens))
	for name := range f.Tokens {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s = strings.ReplaceAll(s, f.Tokens[name], "<token:"+name+">")
	}
	s = strings.ReplaceAll(s, f.Addr, "127.0.0.1:<port>")
	s = sessionIDs.ReplaceAllString(s, "${1}<session-id>")
	s = handles.ReplaceAllString(s, "${1}<handle>-")
	s = dates.ReplaceAllString(s, "Date: <date>")
	return s
}

var (
	sessionIDs = regexp.MustCompile(`((?:Mcp-Session-Id|mcp-session-id): )[A-Za-z0-9_-]{32}`)
	handles    = regexp.MustCompile(`((?:id: |Last-Event-ID: )[gp])[A-Za-z0-9_-]{16}-`)
	dates      = regexp.MustCompile(`Date: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT`)
)

func (s *transcriptState) post(token, body string, extra ...[2]string) []byte {
	if s.sid != "" {
		extra = append(inSession(s.sid), extra...)
	}
	return post(s.f, s.f.Tokens[token], body, extra...).Bytes()
}

func fixed(raw func(s *transcriptState) string) func(s *transcriptState) []byte {
	return func(s *transcriptState) []byte { return []byte(raw(s)) }
}

var happyPath = []exchange{
	{"Protected Resource Metadata: public, no token (A-22, A-23)", fixed(func(s *transcriptState) string {
		return "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: " + s.f.Addr + "\r\n\r\n"
	})},
	{"initialize proposing the 2026 Draft: the answer is 2025-11-25 and a session id (T-53, T-38)", func(s *transcriptState) []byte {
		return post(s.f, s.f.Tokens["alice"], strings.Replace(initializeBody, "2025-11-25", "2026-07-28", 1)).Bytes()
	}},
	{"notifications/initialized: 202 with an empty, framed body (T-11, H-49)", func(s *transcriptState) []byte {
		return s.post("alice", initializedBody)
	}},
	{"ping: answered as application/json (T-59)", func(s *transcriptState) []byte { return s.post("alice", pingBody) }},
	{"resources/list: answered as one SSE event holding the response (T-14)", func(s *transcriptState) []byte {
		return s.post("alice", listBody)
	}},
	{"GET: a priming event with retry, then the queued notification; the stream ends (T-25, S-P05)", func(s *transcriptState) []byte {
		return sessionRequest(s.f, "GET", s.f.Tokens["alice"], s.sid).Bytes()
	}},
	{"GET with Last-Event-ID of the last event: nothing is repeated (T-36, T-P11)", func(s *transcriptState) []byte {
		return sessionRequest(s.f, "GET", s.f.Tokens["alice"], s.sid, [2]string{"Last-Event-ID", s.lastEventID}).Bytes()
	}},
	{"DELETE ends the session: 204, no Content-Length (T-45, H-47)", func(s *transcriptState) []byte {
		return sessionRequest(s.f, "DELETE", s.f.Tokens["alice"], s.sid).Bytes()
	}},
	{"the same session afterwards: 404 (T-43)", func(s *transcriptState) []byte { return s.post("alice", pingBody) }},
}

var errorStatuses = []exchange{
	{"400: a bare LF ends a line (H-P01)", fixed(func(s *transcriptState) string {
		return "GET /mcp HTTP/1.1\nHost: " + s.f.Addr + "\r\n\r\n"
	})},
	{"400: a query string, even one carrying a token, is refused and never echoed (A-P01)", fixed(func(s *transcriptState) string {
		return "GET /mcp?access_token=" + s.f.Tokens["alice"] + " HTTP/1.1\r\nHost: " + s.f.Addr + "\r\n\r\n"
	})},
	{"400: Content-Length and Transfer-Encoding together (H-P06)", fixed(func(s *transcriptState) string {
		return "POST /mcp HTTP/1.1\r\nHost: " + s.f.Addr + "\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
	})},
	{"400: duplicate member names in the body (T-P13)", func(s *transcriptState) []byte {
		return post(s.f, s.f.Tokens["alice"], `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`).Bytes()
	}},
	{"400: a malformed Authorization: Bearer with two tokens (A-P02)", func(s *transcriptState) []byte {
		return post(s.f, "", pingBody, [2]string{"Authorization", "Bearer a b"}).Bytes()
	}},
	{"401: no token (A-08)", func(s *transcriptState) []byte { return post(s.f, "", pingBody).Bytes() }},
	{"401: another scheme is no bearer credential: a bare challenge (A-08, RFC 6750 §3.1)", func(s *transcriptState) []byte {
		return post(s.f, "", pingBody, [2]string{"Authorization", "Basic YTpi"}).Bytes()
	}},
	{"401: a token minted for another resource (A-10, A-12)", func(s *transcriptState) []byte {
		return post(s.f, s.f.Tokens["wrong-audience"], pingBody).Bytes()
	}},
	{"403: a DNS-rebinding Host (T-P15)", func(s *transcriptState) []byte {
		return post(s.f, s.f.Tokens["alice"], pingBody, [2]string{"Host", "evil.example"}).Bytes()
	}},
	{"403: an Origin not on the allowlist (T-P16)", func(s *transcriptState) []byte {
		return post(s.f, s.f.Tokens["alice"], pingBody, [2]string{"Origin", "https://evil.example"}).Bytes()
	}},
	{"403: a token without resources:read asks for a step-up (A-14)", func(s *transcriptState) []byte {
		sid := s.sid
		s.sid = ""
		body := post(s.f, s.f.Tokens["no-resources-scope"], initializeBody).Bytes()
		c := client.New(s.f.Addr)
		defer c.Close()
		resp, err := c.Do(body, false)
		if err == nil {
			sid, _ = resp.Get("Mcp-Session-Id")
			c.Do(post(s.f, s.f.Tokens["no-resources-scope"], initializedBody, inSession(sid)...).Bytes(), false)
		}
		return post(s.f, s.f.Tokens["no-resources-scope"], listBody, inSession(sid)...).Bytes()
	}},
	{"403: a tenant this server does not serve (no challenge)", func(s *transcriptState) []byte {
		return post(s.f, s.f.Tokens["other-tenant"], pingBody).Bytes()
	}},
	{"404: a path that is not served (H-P11)", fixed(func(s *transcriptState) string {
		return "GET /MCP HTTP/1.1\r\nHost: " + s.f.Addr + "\r\n\r\n"
	})},
	{"404: a session this server does not know (T-43)", func(s *transcriptState) []byte {
		return post(s.f, s.f.Tokens["alice"], pingBody, inSession(strings.Repeat("A", 32))...).Bytes()
	}},
	{"405: PUT on /mcp (H-P12)", fixed(func(s *transcriptState) string {
		return "PUT /mcp HTTP/1.1\r\nHost: " + s.f.Addr + "\r\nContent-Length: 0\r\n\r\n"
	})},
	{"406: Accept without text/event-stream (T-P02)", func(s *transcriptState) []byte {
		return post(s.f, s.f.Tokens["alice"], pingBody, [2]string{"Accept", "application/json"}).Bytes()
	}},
	{"411: POST without Content-Length (H-35)", fixed(func(s *transcriptState) string {
		return "POST /mcp HTTP/1.1\r\nHost: " + s.f.Addr + "\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\r\n"
	})},
	{"413: Content-Length past 16 KiB, answered before the body (H-P07)", fixed(func(s *transcriptState) string {
		return "POST /mcp HTTP/1.1\r\nHost: " + s.f.Addr + "\r\nContent-Length: 16385\r\n\r\n"
	})},
	{"414: a target past 2 KiB (H-P07)", fixed(func(s *transcriptState) string {
		return "GET /" + strings.Repeat("a", 2048) + " HTTP/1.1\r\nHost: " + s.f.Addr + "\r\n\r\n"
	})},
	{"415: Content-Type text/plain (T-P01)", func(s *transcriptState) []byte {
		return post(s.f, s.f.Tokens["alice"], pingBody, [2]string{"Content-Type", "text/plain"}).Bytes()
	}},
	{"417: an expectation other than 100-continue (H-52)", func(s *transcriptState) []byte {
		return post(s.f, s.f.Tokens["alice"], pingBody, [2]string{"Expect", "200-ok"}).Bytes()
	}},
	{"431: a header value past 2 KiB (H-P07)", fixed(func(s *transcriptState) string {
		return "GET /mcp HTTP/1.1\r\nHost: " + s.f.Addr + "\r\nX-Big: " + strings.Repeat("a", 2049) + "\r\n\r\n"
	})},
	{"501: a method nobody defined (H-P12)", fixed(func(s *transcriptState) string {
		return "BREW /mcp HTTP/1.1\r\nHost: " + s.f.Addr + "\r\n\r\n"
	})},
	{"505: HTTP/1.2 (H-50)", fixed(func(s *transcriptState) string {
		return "GET /mcp HTTP/1.2\r\nHost: " + s.f.Addr + "\r\n\r\n"
	})},
}
