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
