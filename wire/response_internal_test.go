package wire

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var testDate = []byte("Mon, 30 Nov 2026 03:00:00 GMT")

// appendResponse is an answer's bytes as conn.finish writes them.
func appendResponse(dst []byte, r *response, date []byte) []byte {
	return appendEnd(appendHead(dst, r, date), r)
}

// TestAppendResponse pins the exact bytes the writer produces.
func TestAppendResponse(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    response
		want string
	}{
		{"H-49/202 is framed with Content-Length: 0",
			response{status: 202},
			"HTTP/1.1 202 Accepted\r\nDate: Mon, 30 Nov 2026 03:00:00 GMT\r\nCache-Control: no-store\r\nContent-Length: 0\r\n\r\n"},
		{"H-47/204 has no Content-Length and no body",
			response{status: 204, body: []byte("ignored")},
			"HTTP/1.1 204 No Content\r\nDate: Mon, 30 Nov 2026 03:00:00 GMT\r\nCache-Control: no-store\r\n\r\n"},
		{"H-40/an error closes and says so",
			response{status: 400, contentType: "application/json", body: []byte("{}"), close: true},
			"HTTP/1.1 400 Bad Request\r\nDate: Mon, 30 Nov 2026 03:00:00 GMT\r\nCache-Control: no-store\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"},
		{"RFC 9110 §9.3.2/a HEAD answer has the framing of GET and no body",
			response{status: 405, headers: []header{{"Allow", "GET"}}, body: []byte("abc"), headRequest: true},
			"HTTP/1.1 405 Method Not Allowed\r\nDate: Mon, 30 Nov 2026 03:00:00 GMT\r\nCache-Control: no-store\r\nAllow: GET\r\nContent-Length: 3\r\n\r\n"},
		{"H-P10/a header value with CR LF becomes a 500, never a split response",
			response{status: 200, headers: []header{{"Mcp-Session-Id", "x\r\nSet-Cookie: a=b"}}, body: []byte("ok")},
			"HTTP/1.1 500 Internal Server Error\r\nDate: Mon, 30 Nov 2026 03:00:00 GMT\r\nCache-Control: no-store\r\nContent-Type: application/json\r\nContent-Length: 75\r\n\r\n" + `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Internal Server Error"}}`},
		{"H-P10/a NUL in a header value is refused too",
			response{status: 200, headers: []header{{"WWW-Authenticate", "a\x00b"}}},
			"HTTP/1.1 500 Internal Server Error\r\nDate: Mon, 30 Nov 2026 03:00:00 GMT\r\nCache-Control: no-store\r\nContent-Type: application/json\r\nContent-Length: 75\r\n\r\n" + `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Internal Server Error"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			if diff := cmp.Diff(tc.want, string(appendResponse(nil, guarded(&r), testDate))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDateFormat checks H-43's IMF-fixdate and that the cache follows the clock.
func TestDateFormat(t *testing.T) {
	var d dateCache
	now := time.Date(1994, 11, 6, 8, 49, 37, 0, time.FixedZone("X", 3600))
	if got := string(d.get(now)); got != "Sun, 06 Nov 1994 07:49:37 GMT" {
		t.Errorf("date = %q", got)
	}
	if got := string(d.get(now.Add(time.Second))); got != "Sun, 06 Nov 1994 07:49:38 GMT" {
		t.Errorf("next second = %q", got)
	}
}

// TestStatusText: every status rawmcp emits has its reason phrase of RFC
// 9110 §15 (413 and 414 with their current names), and any other has none.
func TestStatusText(t *testing.T) {
	want := map[int]string{
		100: "Continue", 200: "OK", 202: "Accepted", 204: "No Content",
		400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
		405: "Method Not Allowed", 406: "Not Acceptable", 408: "Request Timeout",
		411: "Length Required", 413: "Content Too Large", 414: "URI Too Long",
		415: "Unsupported Media Type", 417: "Expectation Failed",
		431: "Request Header Fields Too Large", 500: "Internal Server Error",
		501: "Not Implemented", 503: "Service Unavailable", 505: "HTTP Version Not Supported",
		201: "", 302: "", 418: "", 502: "",
	}
	got := map[int]string{}
	for status := range want {
		got[status] = statusText(status)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reason phrases (-want +got):\n%s", diff)
	}
}
