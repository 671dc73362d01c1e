package client

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
)

const (
	testToken   = "tok-alice-3fQ9zW"
	testSession = "sess-0123456789abcdef"
)

func testRedactor() *Redactor {
	r := &Redactor{}
	r.AddToken(testToken)
	r.AddSession(testSession)
	return r
}

func TestCorrelate(t *testing.T) {
	// SHA-256("") begins e3b0c442.
	if got := Correlate(nil); got != "e3b0c442" {
		t.Errorf("Correlate(\"\") = %q", got)
	}
	if got := TokenLabel(""); got != "<token:e3b0c442>" {
		t.Errorf("TokenLabel = %q", got)
	}
}

func TestWire(t *testing.T) {
	tok, sess := TokenLabel(testToken), SessionLabel(testSession)
	tests := []struct {
		name  string
		raw   string
		limit int
		want  string
	}{
		{"A-P07/the token and session in the head, by position",
			"POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + testToken + "\r\nMcp-Session-Id: " + testSession + "\r\n\r\n{}",
			1000, "POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + tok + "\r\nMcp-Session-Id: " + sess + "\r\n\r\n{}"},
		{"A-P07/an unknown credential is hidden by position too",
			"GET / HTTP/1.1\r\nauthorization: Basic cHJvYmU6cHJvYmU=\r\n\r\n",
			1000, "GET / HTTP/1.1\r\nauthorization: Basic " + TokenLabel("cHJvYmU6cHJvYmU=") + "\r\n\r\n"},
		{"A-P07/a known secret echoed in a body",
			"HTTP/1.1 200 OK\r\nContent-Length: 30\r\n\r\n{\"t\":\"" + testToken + "\"}",
			1000, "HTTP/1.1 200 OK\r\nContent-Length: 30\r\n\r\n{\"t\":\"" + tok + "\"}"},
		{"A-P07/a short token is hidden in its field, and only there",
			"POST /mcp HTTP/1.1\r\nAuthorization: Bearer t\r\n\r\n{\"t\":1}",
			1000, "POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + TokenLabel("t") + "\r\n\r\n{\"t\":1}"},
		{"binary bytes are escaped, line ends kept", "a\x00b\xff\r\n", 100, "a\\x00b\\xff\r\n"},
		{"a cut keeps no half secret", "x: " + testToken, 8, "x: " + tok[:5] + "… (" + strconv.Itoa(len("x: "+tok)) + " bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, testRedactor().Wire([]byte(tt.raw), tt.limit)); diff != "" {
				t.Errorf("Wire (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTracerExchange(t *testing.T) {
	raw := "POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + testToken + "\nX: y\r\n\r\n{}"
	resp := &httpparse.Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK",
		Header: []httpparse.HeaderLine{{Name: "Mcp-Session-Id", Value: testSession}}, Body: []byte("{\"ok\":\"" + testToken + "\"}\n")}
	var b strings.Builder
	Tracer{Secrets: testRedactor()}.Exchange(&b, "initialize", []byte(raw), resp, nil)
	want := "* initialize\n" +
		"> POST /mcp HTTP/1.1\n" +
		"> Authorization: Bearer " + TokenLabel(testToken) + `\n` + "\n" +
		"> X: y\n" +
		">\n" +
		"{}\n" +
		"< HTTP/1.1 200 OK\n" +
		"< Mcp-Session-Id: " + SessionLabel(testSession) + "\n" +
		"<\n" +
		"{\"ok\":\"" + TokenLabel(testToken) + "\"}\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// TestFound (A-P07): an echo scan finds a secret of MinSecret bytes or
// more anywhere, inside a longer token too; a shorter one is never
// reported, its bytes being everywhere.
func TestFound(t *testing.T) {
	long := "abcdefgh" // MinSecret bytes
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    []string
	}{
		{"A-P07/an echo between other bytes", []string{testSession}, "x" + testSession + "y", []string{SessionLabel(testSession)}},
		{"A-P07/a secret of MinSecret bytes inside a longer token", []string{long}, "zz" + long + "zz", []string{SessionLabel(long)}},
		{"A-P07/a secret of MinSecret-1 bytes is not looked for", []string{long[:MinSecret-1]}, long[:MinSecret-1], nil},
		{"A-P07/session id 1 is not found in HTTP/1.1", []string{"1"}, "HTTP/1.1 200 OK\r\n", nil},
		{"A-P07/a secret inside a longer one is found too", []string{long, long + "ij"}, long + "ij", []string{SessionLabel(long + "ij"), SessionLabel(long)}},
		{"A-P07/nothing known, nothing found", nil, testSession, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Redactor{}
			for _, s := range tt.secrets {
				r.AddSession(s)
			}
			if diff := cmp.Diff(tt.want, r.Found([]byte(tt.in))); diff != "" {
				t.Errorf("Found (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRedact (A-P07): outside its header field a known secret is replaced
// only as a whole token and only from MinSecret bytes on.
func TestRedact(t *testing.T) {
	long, longer := "abcdefgh", "abcdefghij"
	tok := TokenLabel(long)
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"A-P07/a secret of MinSecret bytes alone", []string{long}, long, tok},
		{"A-P07/a secret of MinSecret-1 bytes stays", []string{long[:MinSecret-1]}, long[:MinSecret-1], long[:MinSecret-1]},
		{"A-P07/a short secret never touches a status line", []string{"1"}, "HTTP/1.1 200 OK", "HTTP/1.1 200 OK"},
		{"A-P07/in a JSON string", []string{long}, `{"t":"` + long + `"}`, `{"t":"` + tok + `"}`},
		{"A-P07/after a scheme", []string{long}, "Bearer " + long, "Bearer " + tok},
		{"A-P07/after = in a query", []string{long}, "/mcp?session_id=" + long + "&x=1", "/mcp?session_id=" + tok + "&x=1"},
		{"A-P07/every occurrence", []string{long}, long + " " + long, tok + " " + tok},
		{"A-P07/inside a longer token it stays", []string{long}, "x" + long, "x" + long},
		{"A-P07/followed by a token character it stays", []string{long}, long + "x", long + "x"},
		{"A-P07/followed by = it stays: b64token padding", []string{long}, long + "==", long + "=="},
		{"A-P07/a secret that is a prefix of another", []string{long, longer}, longer + " " + long, TokenLabel(longer) + " " + tok},
		{"A-P07/a secret standing inside a longer one's place is part of its label", []string{long, "x:" + long}, "x:" + long + " " + long, TokenLabel("x:"+long) + " " + tok},
		{"A-P07/a prefix of an unknown longer token stays", []string{long}, longer, longer},
		{"A-P07/a secret with non-token edges matches beside anything", []string{"{" + long + "}"}, "x{" + long + "}x", "x" + TokenLabel("{"+long+"}") + "x"},
		{"A-P07/a secret ending in = followed by a letter", []string{long + "="}, long + "=x", TokenLabel(long+"=") + "x"},
		{"nothing known, nothing changed", nil, long, long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Redactor{}
			for _, s := range tt.secrets {
				r.AddToken(s)
			}
			if diff := cmp.Diff(tt.want, r.Redact(tt.in)); diff != "" {
				t.Errorf("Redact(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestShortSessionID (A-P07): against a server whose session id is "1",
// the id is hidden in its own header fields, request and response, and
// nowhere else: the status line stays HTTP/1.1 200 OK.
func TestShortSessionID(t *testing.T) {
	r := &Redactor{}
	r.AddSession("1")
	sess := SessionLabel("1")
	raw := "POST /mcp HTTP/1.1\r\nMcp-Session-Id: 1\r\nContent-Length: 11\r\n\r\n{\"id\":1}"
	resp := &httpparse.Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK",
		Header: []httpparse.HeaderLine{{Name: "Mcp-Session-Id", Value: "1"}, {Name: "Content-Length", Value: "1"}}, Body: []byte("1")}
	var b strings.Builder
	Tracer{Secrets: r}.Exchange(&b, "ping 1", []byte(raw), resp, nil)
	want := "* ping 1\n" +
		"> POST /mcp HTTP/1.1\n" +
		"> Mcp-Session-Id: " + sess + "\n" +
		"> Content-Length: 11\n" +
		">\n" +
		"{\"id\":1}\n" +
		"< HTTP/1.1 200 OK\n" +
		"< Mcp-Session-Id: " + sess + "\n" +
		"< Content-Length: 1\n" +
		"<\n" +
		"1\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	wire := "HTTP/1.1 200 OK\r\nMcp-Session-Id: 1\r\nContent-Length: 1\r\n\r\n1"
	wantWire := "HTTP/1.1 200 OK\r\nMcp-Session-Id: " + sess + "\r\nContent-Length: 1\r\n\r\n1"
	if diff := cmp.Diff(wantWire, r.Wire([]byte(wire), 1000)); diff != "" {
		t.Errorf("Wire (-want +got):\n%s", diff)
	}
}

// TestTracerCutsLongLines (H-P07): a line is cut after its redaction, so
// a cut never leaves half a secret; a line of exactly traceLineLimit
// bytes is whole, one byte more is cut to traceLineKeep.
func TestTracerCutsLongLines(t *testing.T) {
	pad := func(n int) string { return strings.Repeat("a", n-len("X-Pad: ")) }
	tests := []struct{ name, raw, want string }{
		{"a long line is cut", "GET /mcp HTTP/1.1\r\nX-Pad: " + strings.Repeat("a", 300) + "\r\n\r\n",
			"> GET /mcp HTTP/1.1\n> X-Pad: " + strings.Repeat("a", 113) + "… (307 bytes)\n>\n"},
		{"traceLineLimit bytes are shown whole", "GET /mcp HTTP/1.1\r\nX-Pad: " + pad(traceLineLimit) + "\r\n\r\n",
			"> GET /mcp HTTP/1.1\n> X-Pad: " + pad(traceLineLimit) + "\n>\n"},
		{"one byte past traceLineLimit is cut", "GET /mcp HTTP/1.1\r\nX-Pad: " + pad(traceLineLimit+1) + "\r\n\r\n",
			"> GET /mcp HTTP/1.1\n> X-Pad: " + pad(traceLineKeep) + "… (" + strconv.Itoa(traceLineLimit+1) + " bytes)\n>\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			Tracer{Secrets: &Redactor{}}.Request(&b, []byte(tt.raw))
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRedactField(t *testing.T) {
	tests := []struct{ name, field, value, want string }{
		{"A-P07/a bearer token keeps its scheme", "authorization", "Bearer abc", "Bearer " + TokenLabel("abc")},
		{"A-P07/a value without a scheme is one secret", "Authorization", "abc", TokenLabel("abc")},
		{"A-P07/a session id becomes its correlation id", "MCP-SESSION-ID", "xyz", SessionLabel("xyz")},
		{"A-P07/other fields stay as they are", "Last-Event-ID", "g1-2", "g1-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RedactField(tt.field, tt.value); got != tt.want {
				t.Errorf("RedactField(%q, %q) = %q, want %q", tt.field, tt.value, got, tt.want)
			}
		})
	}
}

func TestEscapeBinary(t *testing.T) {
	tests := []struct {
		name, in  string
		keepLines bool
		want      string
	}{
		{"H-P03/bare CR", "a\rb", false, `a\rb`},
		{"H-P01/bare LF", "a\nb", false, `a\nb`},
		{"a rendered message keeps its lines", "a\r\nb", true, "a\r\nb"},
		{"H-P04/NUL and DEL", "a\x00\x7fb", false, `a\x00\x7fb`},
		{"H-P04/HTAB stays", "a\tb", false, "a\tb"},
		{"T-02/UTF-8 stays, invalid bytes are escaped", "Zürich\xff", false, `Zürich\xff`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := escapeBinary(tt.in, tt.keepLines); got != tt.want {
				t.Errorf("escapeBinary(%q, %v) = %q, want %q", tt.in, tt.keepLines, got, tt.want)
			}
		})
	}
}
