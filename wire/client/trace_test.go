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
		{"A-33/the token and session in the head, by position",
			"POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + testToken + "\r\nMcp-Session-Id: " + testSession + "\r\n\r\n{}",
			1000, "POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + tok + "\r\nMcp-Session-Id: " + sess + "\r\n\r\n{}"},
		{"A-33/an unknown credential is hidden by position too",
			"GET / HTTP/1.1\r\nauthorization: Basic cHJvYmU6cHJvYmU=\r\n\r\n",
			1000, "GET / HTTP/1.1\r\nauthorization: Basic " + TokenLabel("cHJvYmU6cHJvYmU=") + "\r\n\r\n"},
		{"A-33/a known secret echoed in a body",
			"HTTP/1.1 200 OK\r\nContent-Length: 30\r\n\r\n{\"t\":\"" + testToken + "\"}",
			1000, "HTTP/1.1 200 OK\r\nContent-Length: 30\r\n\r\n{\"t\":\"" + tok + "\"}"},
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

func TestFound(t *testing.T) {
	r := testRedactor()
	got := r.Found([]byte("x" + testSession + "y"))
	if diff := cmp.Diff([]string{SessionLabel(testSession)}, got); diff != "" {
		t.Errorf("Found (-want +got):\n%s", diff)
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
		{"A-33/a bearer token keeps its scheme", "authorization", "Bearer abc", "Bearer " + TokenLabel("abc")},
		{"A-33/a value without a scheme is one secret", "Authorization", "abc", TokenLabel("abc")},
		{"A-33/a session id becomes its correlation id", "MCP-SESSION-ID", "xyz", SessionLabel("xyz")},
		{"A-33/other fields stay as they are", "Last-Event-ID", "g1-2", "g1-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RedactField(tt.field, tt.value); got != tt.want {
				t.Errorf("RedactField(%q, %q) = %q, want %q", tt.field, tt.value, got, tt.want)
			}
		})
	}
}

func TestRedactorPrefersLongerSecrets(t *testing.T) {
	r := &Redactor{}
	r.AddToken("abc")
	r.AddToken("abcdef")
	if got, want := r.Redact("abcdef abc"), TokenLabel("abcdef")+" "+TokenLabel("abc"); got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
	if got := r.Found([]byte("xx abcdef")); !cmp.Equal(got, []string{TokenLabel("abcdef"), TokenLabel("abc")}) {
		t.Errorf("Found = %q, want both labels: the shorter secret is inside the longer", got)
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
