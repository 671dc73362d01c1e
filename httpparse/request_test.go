package httpparse

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wire writes a request readably: each LF in s becomes CRLF on the wire,
// as net/http's reqBytes does. Cases about bare LF or CR spell their bytes
// out instead.
func wire(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// nextRequest is appended after a case to check that Parse stops at the
// end of the first head.
const nextRequest = "GET /next HTTP/1.1\r\nHost: next\r\n\r\n"

type fieldView struct{ Name, Value string }

// reqView is a Request with its slices turned into strings, for cmp.
type reqView struct {
	Method         Method
	MethodToken    string
	Path           string
	Fields         []fieldView
	ContentLength  int64
	ExpectContinue bool
	Close          bool
	HTTP10         bool
}

// outcome is everything Parse returns.
type outcome struct {
	N        int
	Req      *reqView
	Err      *Error
	NeedMore bool
}

func viewOf(r *Request) *reqView {
	v := &reqView{
		Method:         r.Method,
		MethodToken:    string(r.MethodToken),
		Path:           string(r.Path),
		ContentLength:  r.ContentLength,
		ExpectContinue: r.ExpectContinue,
		Close:          r.Close,
		HTTP10:         r.HTTP10,
	}
	for _, f := range r.Fields {
		v.Fields = append(v.Fields, fieldView{string(f.Name), string(f.Value)})
	}
	return v
}

func outcomeOf(t testing.TB, n int, err error, req *Request) outcome {
	t.Helper()
	var perr *Error
	switch {
	case err == nil:
		return outcome{N: n, Req: viewOf(req)}
	case err == ErrNeedMore:
		return outcome{NeedMore: true}
	case errors.As(err, &perr):
		return outcome{Err: perr}
	}
	t.Fatalf("Parse returned an error of type %T", err)
	return outcome{}
}

func parseWhole(t testing.TB, buf []byte, lim Limits) outcome {
	t.Helper()
	var req Request
	n, err := Parse(buf, 0, lim, &req)
	return outcomeOf(t, n, err, &req)
}

// parseIncrementally feeds buf in steps of step bytes, passing the length
// of the previous call's buffer as scanned, and stops at the first result
// that is not ErrNeedMore. Every call gets a fresh copy of the prefix, so
// the slices of the result must come from the last buffer.
func parseIncrementally(t testing.TB, buf []byte, step int, lim Limits) outcome {
	t.Helper()
	var req Request
	scanned := 0
	for end := min(step, len(buf)); ; end = min(end+step, len(buf)) {
		prefix := slices.Clone(buf[:end])
		n, err := Parse(prefix, scanned, lim, &req)
		if err != ErrNeedMore || end == len(buf) {
			return outcomeOf(t, n, err, &req)
		}
		scanned = end
	}
}

// checkThreeWays parses buf whole, byte at a time, and followed by the
// next request (h11's test_io "tr"), and wants the same outcome each time.
func checkThreeWays(t *testing.T, buf []byte, lim Limits, want outcome) {
	t.Helper()
	if diff := cmp.Diff(want, parseWhole(t, buf, lim)); diff != "" {
		t.Errorf("whole buffer (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, parseIncrementally(t, buf, 1, lim)); diff != "" {
		t.Errorf("byte at a time (-want +got):\n%s", diff)
	}
	if want.NeedMore {
		return // more bytes would complete the head differently
	}
	trailing := append(slices.Clone(buf), nextRequest...)
	if diff := cmp.Diff(want, parseWhole(t, trailing, lim)); diff != "" {
		t.Errorf("with the next request after it (-want +got):\n%s", diff)
	}
}

// fault400 and failWith build the expected *Error outcome.
func fault400(reason Reason, offset int) outcome { return failWith(400, reason, offset) }

func failWith(status int, reason Reason, offset int) outcome {
	return outcome{Err: &Error{Status: status, Reason: reason, Offset: offset}}
}

// accept builds the expected success for a head of length n.
func accept(n int, req reqView) outcome { return outcome{N: n, Req: &req} }

func get(path string, fields ...fieldView) reqView {
	return reqView{Method: MethodGET, MethodToken: "GET", Path: path, Fields: fields}
}

type parseCase struct {
	name string
	raw  string
	lim  func(*Limits) // changes to DefaultLimits, or nil
	want outcome
}

func (c parseCase) limits() Limits {
	lim := DefaultLimits()
	if c.lim != nil {
		c.lim(&lim)
	}
	return lim
}

func runParseCases(t *testing.T, cases []parseCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkThreeWays(t, []byte(c.raw), c.limits(), c.want)
		})
	}
}

// requestLine is the length of "GET / HTTP/1.1\r\n", where the header
// section of most cases starts.
const requestLine = len("GET / HTTP/1.1\r\n")

var hostA = fieldView{"Host", "a"}

func acceptedCases() []parseCase {
	typicalPost := wire("POST /mcp HTTP/1.1\n" +
		"Host: 127.0.0.1:8080\n" +
		"Authorization: Bearer abc.def\n" +
		"Accept: application/json, text/event-stream\n" +
		"Content-Type: application/json\n" +
		"Mcp-Session-Id: 0123abcd\n" +
		"MCP-Protocol-Version: 2025-11-25\n" +
		"Content-Length: 2\n\n")
	cases := []parseCase{
		{
			name: "H-01/minimal GET",
			raw:  wire("GET /mcp HTTP/1.1\nHost: 127.0.0.1:8080\n\n"),
			want: accept(len(wire("GET /mcp HTTP/1.1\nHost: 127.0.0.1:8080\n\n")),
				get("/mcp", fieldView{"Host", "127.0.0.1:8080"})),
		},
		{
			name: "T-P14/typical MCP POST",
			raw:  typicalPost,
			want: accept(len(typicalPost), reqView{
				Method: MethodPOST, MethodToken: "POST", Path: "/mcp",
				Fields: []fieldView{
					{"Host", "127.0.0.1:8080"},
					{"Authorization", "Bearer abc.def"},
					{"Accept", "application/json, text/event-stream"},
					{"Content-Type", "application/json"},
					{"Mcp-Session-Id", "0123abcd"},
					{"MCP-Protocol-Version", "2025-11-25"},
					{"Content-Length", "2"},
				},
				ContentLength: 2,
			}),
		},
		{
			name: "H-04/one empty line before the request line is skipped",
			raw:  wire("\nGET / HTTP/1.1\nHost: a\n\n"),
			want: accept(len(wire("\nGET / HTTP/1.1\nHost: a\n\n")), get("/", hostA)),
		},
		{
			name: "H-08/unknown method token is not a parse error",
			raw:  wire("BREW / HTTP/1.1\nHost: a\n\n"),
			want: accept(len(wire("BREW / HTTP/1.1\nHost: a\n\n")),
				reqView{Method: MethodUnknown, MethodToken: "BREW", Path: "/", Fields: []fieldView{hostA}}),
		},
		{
			name: "H-08/method compared case-sensitively",
			raw:  wire("get / HTTP/1.1\nHost: a\n\n"),
			want: accept(len(wire("get / HTTP/1.1\nHost: a\n\n")),
				reqView{Method: MethodUnknown, MethodToken: "get", Path: "/", Fields: []fieldView{hostA}}),
		},
		{
			name: "H-08/method with every tchar kind",
			raw:  wire("A1!#$%&'*+-.^_`|~ / HTTP/1.1\nHost: a\n\n"),
			lim:  func(l *Limits) { l.MaxMethod = 32 },
			want: accept(len(wire("A1!#$%&'*+-.^_`|~ / HTTP/1.1\nHost: a\n\n")),
				reqView{Method: MethodUnknown, MethodToken: "A1!#$%&'*+-.^_`|~", Path: "/", Fields: []fieldView{hostA}}),
		},
		{
			name: "H-13/path with every pchar kind and escapes",
			raw:  wire("GET /a-._~!$&'()*+,;=:@/%2F%c3%A9/ HTTP/1.1\nHost: a\n\n"),
			want: accept(len(wire("GET /a-._~!$&'()*+,;=:@/%2F%c3%A9/ HTTP/1.1\nHost: a\n\n")),
				get("/a-._~!$&'()*+,;=:@/%2F%c3%A9/", hostA)),
		},
		{
			name: "H-18/OWS around a value is removed",
			raw:  wire("GET / HTTP/1.1\nHost: a\nX-A: \t a \t b \t \n\n"),
			want: accept(len(wire("GET / HTTP/1.1\nHost: a\nX-A: \t a \t b \t \n\n")),
				get("/", hostA, fieldView{"X-A", "a \t b"})),
		},
		{
			name: "H-18/empty value and value without OWS",
			raw:  wire("GET / HTTP/1.1\nHost: a\nX-Empty:\nX-Blank:  \nX-Tight:v\n\n"),
			want: accept(len(wire("GET / HTTP/1.1\nHost: a\nX-Empty:\nX-Blank:  \nX-Tight:v\n\n")),
				get("/", hostA, fieldView{"X-Empty", ""}, fieldView{"X-Blank", ""}, fieldView{"X-Tight", "v"})),
		},
		{
			name: "H-P04/obs-text kept as opaque bytes",
			raw:  wire("GET / HTTP/1.1\nHost: a\nX-Text: \x80caf\xc3\xa9\xff\n\n"),
			want: accept(len(wire("GET / HTTP/1.1\nHost: a\nX-Text: \x80caf\xc3\xa9\xff\n\n")),
				get("/", hostA, fieldView{"X-Text", "\x80caf\xc3\xa9\xff"})),
		},
		{
			name: "H-21/field names keep their case and repeat in order",
			raw:  wire("GET / HTTP/1.1\nhOST: a\nAccept: text/event-stream\naccept: application/json\n\n"),
			want: accept(len(wire("GET / HTTP/1.1\nhOST: a\nAccept: text/event-stream\naccept: application/json\n\n")),
				get("/", fieldView{"hOST", "a"}, fieldView{"Accept", "text/event-stream"}, fieldView{"accept", "application/json"})),
		},
		{
			name: "H-24/Content-Length with leading zeros",
			raw:  wire("POST / HTTP/1.1\nHost: a\nContent-Length: 007\n\n"),
			want: accept(len(wire("POST / HTTP/1.1\nHost: a\nContent-Length: 007\n\n")), reqView{
				Method: MethodPOST, MethodToken: "POST", Path: "/",
				Fields: []fieldView{hostA, {"Content-Length", "007"}}, ContentLength: 7,
			}),
		},
		{
			name: "H-37/Connection close found in a list, any case",
			raw:  wire("GET / HTTP/1.1\nHost: a\nConnection: keep-alive, , Close\n\n"),
			want: accept(len(wire("GET / HTTP/1.1\nHost: a\nConnection: keep-alive, , Close\n\n")), reqView{
				Method: MethodGET, MethodToken: "GET", Path: "/",
				Fields: []fieldView{hostA, {"Connection", "keep-alive, , Close"}}, Close: true,
			}),
		},
		{
			name: "H-37/Connection without close",
			raw:  wire("GET / HTTP/1.1\nHost: a\nConnection: keep-alive\nconnection: upgrade\n\n"),
			want: accept(len(wire("GET / HTTP/1.1\nHost: a\nConnection: keep-alive\nconnection: upgrade\n\n")),
				get("/", hostA, fieldView{"Connection", "keep-alive"}, fieldView{"connection", "upgrade"})),
		},
		{
			name: "H-39/HTTP/1.0 accepted and marked",
			raw:  wire("GET /mcp HTTP/1.0\nHost: a\n\n"),
			want: accept(len(wire("GET /mcp HTTP/1.0\nHost: a\n\n")), reqView{
				Method: MethodGET, MethodToken: "GET", Path: "/mcp", Fields: []fieldView{hostA}, HTTP10: true,
			}),
		},
		{
			name: "H-39/HTTP/1.0 keep-alive parsed, Close unset",
			raw:  wire("POST /mcp HTTP/1.0\nHost: a\nConnection: keep-alive\nContent-Length: 2\n\n"),
			want: accept(len(wire("POST /mcp HTTP/1.0\nHost: a\nConnection: keep-alive\nContent-Length: 2\n\n")), reqView{
				Method: MethodPOST, MethodToken: "POST", Path: "/mcp",
				Fields:        []fieldView{hostA, {"Connection", "keep-alive"}, {"Content-Length", "2"}},
				ContentLength: 2, HTTP10: true,
			}),
		},
		{
			name: "H-51/Expect 100-continue ignored on HTTP/1.0",
			raw:  wire("POST / HTTP/1.0\nHost: a\nExpect: 100-continue\nContent-Length: 5\n\n"),
			want: accept(len(wire("POST / HTTP/1.0\nHost: a\nExpect: 100-continue\nContent-Length: 5\n\n")), reqView{
				Method: MethodPOST, MethodToken: "POST", Path: "/",
				Fields:        []fieldView{hostA, {"Expect", "100-continue"}, {"Content-Length", "5"}},
				ContentLength: 5, HTTP10: true,
			}),
		},
		{
			name: "H-51/Expect 100-continue, any case",
			raw:  wire("POST / HTTP/1.1\nHost: a\nExpect: 100-Continue\nContent-Length: 5\n\n"),
			want: accept(len(wire("POST / HTTP/1.1\nHost: a\nExpect: 100-Continue\nContent-Length: 5\n\n")), reqView{
				Method: MethodPOST, MethodToken: "POST", Path: "/",
				Fields:        []fieldView{hostA, {"Expect", "100-Continue"}, {"Content-Length", "5"}},
				ContentLength: 5, ExpectContinue: true,
			}),
		},
	}
	return cases
}

func TestParseAccepts(t *testing.T) { runParseCases(t, acceptedCases()) }

func needMoreCases() []parseCase {
	cases := []parseCase{
		{name: "H-23/empty buffer", raw: "", want: outcome{NeedMore: true}},
		{name: "H-04/a lone CR at the start", raw: "\r", want: outcome{NeedMore: true}},
		{name: "H-04/one empty line only", raw: "\r\n", want: outcome{NeedMore: true}},
		{name: "H-23/request line only", raw: wire("GET / HTTP/1.1\n"), want: outcome{NeedMore: true}},
		{name: "H-23/CR awaiting its LF", raw: "GET / HTTP/1.1\r", want: outcome{NeedMore: true}},
		{name: "H-23/no final empty line", raw: wire("GET / HTTP/1.1\nHost: a\n"), want: outcome{NeedMore: true}},
		{name: "H-23/final CR awaiting its LF", raw: wire("GET / HTTP/1.1\nHost: a\n") + "\r", want: outcome{NeedMore: true}},
		{name: "H-23/value CR awaiting its LF", raw: wire("GET / HTTP/1.1\n") + "Host: a\r", want: outcome{NeedMore: true}},
		{name: "H-23/percent-escape cut short", raw: "GET /%4", want: outcome{NeedMore: true}},
		{name: "H-09/method at its limit, end not seen", raw: strings.Repeat("A", 16), want: outcome{NeedMore: true}},
	}
	return cases
}

func TestParseNeedsMore(t *testing.T) { runParseCases(t, needMoreCases()) }

func requestLineFaultCases() []parseCase {
	cases := []parseCase{
		{name: "H-P01/bare LF ends the request line", raw: "GET / HTTP/1.1\nHost: a\r\n\r\n", want: fault400(ReasonBareLF, 14)},
		{name: "H-P01/bare LF after the method", raw: "GET\n", want: fault400(ReasonBareLF, 3)},
		{name: "H-P01/bare LF in the target", raw: "GET /a\n", want: fault400(ReasonBareLF, 6)},
		{name: "H-P01/bare LF before the request line", raw: "\nGET / HTTP/1.1\r\n", want: fault400(ReasonBareLF, 0)},
		{name: "H-P01/bare LF after the skipped empty line", raw: "\r\n\nGET", want: fault400(ReasonBareLF, 2)},
		{name: "H-03/bare CR after the version", raw: "GET / HTTP/1.1\rHost: a\r\n\r\n", want: fault400(ReasonBareCR, 14)},
		{name: "H-03/bare CR before the request line", raw: "\rGET", want: fault400(ReasonBareCR, 0)},
		{name: "H-04/two empty lines before the request line", raw: "\r\n\r\nGET / HTTP/1.1\r\n", want: fault400(ReasonLeadingEmptyLines, 2)},
		{name: "H-P02/leading SP", raw: " GET / HTTP/1.1\r\n", want: fault400(ReasonInvalidRequestLine, 0)},
		{name: "H-P02/two SPs after the method", raw: "GET  / HTTP/1.1\r\n", want: fault400(ReasonInvalidRequestLine, 4)},
		{name: "H-P02/two SPs before the version", raw: "GET /  HTTP/1.1\r\n", want: fault400(ReasonInvalidVersion, 6)},
		{name: "H-P02/SP after the version", raw: "GET / HTTP/1.1 \r\n", want: fault400(ReasonInvalidVersion, 6)},
		{name: "H-P02/HTAB as separator", raw: "GET\t/ HTTP/1.1\r\n", want: fault400(ReasonInvalidMethod, 3)},
		{name: "H-P02/no version", raw: "GET /\r\n", want: fault400(ReasonInvalidRequestLine, 5)},
		{name: "H-P02/empty version", raw: "GET / \r\n", want: fault400(ReasonInvalidVersion, 6)},
		{name: "H-08/non-tchar in the method", raw: "GE(T / HTTP/1.1\r\n", want: fault400(ReasonInvalidMethod, 2)},
		{name: "H-08/empty request line", raw: "\r\n\r\n", want: fault400(ReasonLeadingEmptyLines, 2)},
		{name: "H-08/CR right after the method", raw: "GET\r\n", want: fault400(ReasonInvalidMethod, 3)},
		{name: "H-07/lowercase http", raw: "GET / http/1.1\r\n", want: fault400(ReasonInvalidVersion, 6)},
		{name: "H-07/two-digit minor", raw: "GET / HTTP/1.10\r\n", want: fault400(ReasonInvalidVersion, 6)},
		{name: "H-07/no minor", raw: "GET / HTTP/1\r\n", want: fault400(ReasonInvalidVersion, 6)},
		{name: "H-07/letters for digits", raw: "GET / HTTP/x.y\r\n", want: fault400(ReasonInvalidVersion, 6)},
		{name: "H-50/HTTP/0.9 has no version", raw: "GET /\r\n\r\n", want: fault400(ReasonInvalidRequestLine, 5)},
		{name: "H-50/HTTP/1.9 refused", raw: "GET / HTTP/1.9\r\n", want: failWith(505, ReasonVersionNotSupported, 6)},
		{name: "H-50/HTTP/0.9 as a version refused", raw: "GET / HTTP/0.9\r\n", want: failWith(505, ReasonVersionNotSupported, 6)},
		{name: "H-50/HTTP/3.0 refused", raw: "GET / HTTP/3.0\r\n", want: failWith(505, ReasonVersionNotSupported, 6)},
		{name: "H-07/HTTP/1.0 in lowercase", raw: "GET / http/1.0\r\n", want: fault400(ReasonInvalidVersion, 6)},
		{name: "H-P02/HTTP/1.0 with a trailing SP", raw: "GET / HTTP/1.0 \r\n", want: fault400(ReasonInvalidVersion, 6)},
		{name: "H-50/HTTP/1.2 refused", raw: "GET / HTTP/1.2\r\n", want: failWith(505, ReasonVersionNotSupported, 6)},
		{name: "H-50/HTTP/2.0 refused", raw: "GET / HTTP/2.0\r\n", want: failWith(505, ReasonVersionNotSupported, 6)},
		{name: "H-13/asterisk-form", raw: "OPTIONS * HTTP/1.1\r\n", want: fault400(ReasonTargetNotOriginForm, 8)},
		{name: "H-13/absolute-form", raw: "GET http://a/ HTTP/1.1\r\n", want: fault400(ReasonTargetNotOriginForm, 4)},
		{name: "H-13/authority-form", raw: "CONNECT a:443 HTTP/1.1\r\n", want: fault400(ReasonTargetNotOriginForm, 8)},
		{name: "H-13/DQUOTE in the path", raw: "GET /a\"b HTTP/1.1\r\n", want: fault400(ReasonInvalidTarget, 6)},
		{name: "H-13/NUL in the path", raw: "GET /a\x00 HTTP/1.1\r\n", want: fault400(ReasonInvalidTarget, 6)},
		{name: "H-13/non-ASCII in the path", raw: "GET /\xc3\xa9 HTTP/1.1\r\n", want: fault400(ReasonInvalidTarget, 5)},
		{name: "H-13/HTAB in the path", raw: "GET /a\tb HTTP/1.1\r\n", want: fault400(ReasonInvalidTarget, 6)},
		{name: "H-13/percent without hex", raw: "GET /%zz HTTP/1.1\r\n", want: fault400(ReasonInvalidPercentEscape, 6)},
		{name: "H-13/percent with one hex digit", raw: "GET /%4 HTTP/1.1\r\n", want: fault400(ReasonInvalidPercentEscape, 7)},
		{name: "H-13/percent at the end", raw: "GET /a% HTTP/1.1\r\n", want: fault400(ReasonInvalidPercentEscape, 7)},
		{name: "T-P14/query refused", raw: "GET /mcp?x=1 HTTP/1.1\r\n", want: fault400(ReasonTargetQuery, 8)},
		{name: "T-P14/empty query refused", raw: "GET /mcp? HTTP/1.1\r\n", want: fault400(ReasonTargetQuery, 8)},
		{name: "T-P14/fragment refused", raw: "GET /mcp#x HTTP/1.1\r\n", want: fault400(ReasonTargetFragment, 8)},
	}
	return cases
}

func TestParseRequestLineFaults(t *testing.T) { runParseCases(t, requestLineFaultCases()) }

func fieldFaultCases() []parseCase {
	head := wire("GET / HTTP/1.1\nHost: a\n")
	cases := []parseCase{
		{name: "H-P01/bare LF ends a field line", raw: "GET / HTTP/1.1\r\nHost: a\n\r\n", want: fault400(ReasonBareLF, 23)},
		{name: "H-P01/bare LF as the final empty line", raw: head + "\n", want: fault400(ReasonBareLF, len(head))},
		{name: "H-P01/bare LF found before any terminator", raw: head + "X: a\nb", want: fault400(ReasonBareLF, len(head)+4)},
		{name: "H-P01/bare LF in a field name", raw: head + "X\n", want: fault400(ReasonBareLF, len(head)+1)},
		{name: "H-P01/bare LF right after the colon", raw: head + "X:\n", want: fault400(ReasonBareLF, len(head)+2)},
		{name: "H-03/bare CR in a value", raw: head + "X: a\rb\r\n\r\n", want: fault400(ReasonBareCR, len(head)+4)},
		{name: "H-03/bare CR ending a value", raw: head + "X: a\r\r\n\r\n", want: fault400(ReasonBareCR, len(head)+4)},
		{name: "H-03/bare CR as the final empty line", raw: head + "\rX", want: fault400(ReasonBareCR, len(head))},
		{name: "H-05/whitespace-prefixed line after the request line", raw: wire("GET / HTTP/1.1\n Host: a\n\n"), want: fault400(ReasonWhitespaceAfterRequestLine, requestLine)},
		{name: "H-05/HTAB-prefixed line after the request line", raw: wire("GET / HTTP/1.1\n\tHost: a\n\n"), want: fault400(ReasonWhitespaceAfterRequestLine, requestLine)},
		{name: "H-P03/obs-fold with SP", raw: head + wire(" folded\n\n"), want: fault400(ReasonObsFold, len(head))},
		{name: "H-P03/obs-fold with HTAB", raw: head + wire("\tfolded\n\n"), want: fault400(ReasonObsFold, len(head))},
		{name: "H-17/SP before the colon", raw: wire("GET / HTTP/1.1\nHost : a\n\n"), want: fault400(ReasonSpaceBeforeColon, requestLine+4)},
		{name: "H-17/HTAB before the colon", raw: wire("GET / HTTP/1.1\nHost\t: a\n\n"), want: fault400(ReasonSpaceBeforeColon, requestLine+4)},
		{name: "H-21/empty field name", raw: head + wire(": a\n\n"), want: fault400(ReasonEmptyFieldName, len(head))},
		{name: "H-21/non-tchar in a name", raw: head + wire("X@Y: a\n\n"), want: fault400(ReasonInvalidFieldName, len(head)+1)},
		{name: "H-21/non-ASCII in a name", raw: head + wire("Caf\xc3\xa9: a\n\n"), want: fault400(ReasonInvalidFieldName, len(head)+3)},
		{name: "H-21/line without a colon", raw: head + wire("NoColon\n\n"), want: fault400(ReasonMissingColon, len(head)+7)},
		{name: "H-20/NUL in a value", raw: head + wire("X: a\x00b\n\n"), want: fault400(ReasonInvalidFieldValue, len(head)+4)},
		{name: "H-P04/DEL in a value", raw: head + wire("X: a\x7fb\n\n"), want: fault400(ReasonInvalidFieldValue, len(head)+4)},
		{name: "H-P04/VT in a value", raw: head + wire("X: a\vb\n\n"), want: fault400(ReasonInvalidFieldValue, len(head)+4)},
		{name: "H-P04/ESC leading a value", raw: head + wire("X: \x1b[31m\n\n"), want: fault400(ReasonInvalidFieldValue, len(head)+3)},
		{name: "H-P04/control byte after trailing OWS", raw: head + wire("X: a \x01\n\n"), want: fault400(ReasonInvalidFieldValue, len(head)+5)},
	}
	return cases
}

func TestParseFieldFaults(t *testing.T) { runParseCases(t, fieldFaultCases()) }

// TestParseResumes checks the scanned contract beyond byte-at-a-time:
// every step size gives the same outcome, and a scanned value that does
// not belong to req makes Parse start over rather than trust it.
func TestParseResumes(t *testing.T) {
	raw := []byte(wire("POST /mcp HTTP/1.1\nHost: a\nX-Long: " + strings.Repeat("%v ", 300) + "\nContent-Length: 0\n\n"))
	lim := DefaultLimits()
	want := parseWhole(t, raw, lim)
	if want.Req == nil {
		t.Fatalf("whole parse failed: %+v", want)
	}
	for step := 1; step <= 64; step++ {
		if diff := cmp.Diff(want, parseIncrementally(t, raw, step, lim)); diff != "" {
			t.Errorf("step %d (-want +got):\n%s", step, diff)
		}
	}

	t.Run("H-23/bytes already scanned are not examined again", func(t *testing.T) {
		var req Request
		first := []byte(wire("GET / HTTP/1.1\nHost: a\nX-A: 1\n"))
		if _, err := Parse(first, 0, lim, &req); err != ErrNeedMore {
			t.Fatalf("prefix: got %v, want ErrNeedMore", err)
		}
		// The caller broke the contract by changing the scanned prefix: a
		// rescan would refuse "X@A", a resumed scan never looks at it.
		second := []byte(wire("GET / HTTP/1.1\nHost: a\nX@A: 1\n\n"))
		n, err := Parse(second, len(first), lim, &req)
		want := accept(len(second), get("/", hostA, fieldView{"X@A", "1"}))
		if diff := cmp.Diff(want, outcomeOf(t, n, err, &req)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("H-23/a call with no new bytes resumes too", func(t *testing.T) {
		var req Request
		first := []byte(wire("GET / HTTP/1.1\nHost: a\nX-A: 1\n"))
		if _, err := Parse(first, 0, lim, &req); err != ErrNeedMore {
			t.Fatalf("prefix: got %v, want ErrNeedMore", err)
		}
		// As above, a rescan would refuse "X@A"; resumed, Parse has
		// nothing new to look at.
		same := []byte(wire("GET / HTTP/1.1\nHost: a\nX@A: 1\n"))
		if _, err := Parse(same, len(first), lim, &req); err != ErrNeedMore {
			t.Errorf("got %v, want ErrNeedMore", err)
		}
	})
	t.Run("H-23/scanned from another Request is ignored", func(t *testing.T) {
		var other, req Request
		if _, err := Parse(raw[:40], 0, lim, &other); err != ErrNeedMore {
			t.Fatalf("prefix: got %v, want ErrNeedMore", err)
		}
		n, err := Parse(raw, 40, lim, &req)
		if diff := cmp.Diff(want, outcomeOf(t, n, err, &req)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("H-23/Request reused after a complete head", func(t *testing.T) {
		var req Request
		if _, err := Parse([]byte(wire("GET /first HTTP/1.1\nHost: z\nX-A: 1\n\n")), 0, lim, &req); err != nil {
			t.Fatal(err)
		}
		n, err := Parse(raw, 0, lim, &req)
		if diff := cmp.Diff(want, outcomeOf(t, n, err, &req)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

func TestRequestAccessors(t *testing.T) {
	raw := []byte(wire("POST /mcp HTTP/1.1\nHost: a\nAccept: text/event-stream\nmcp-session-id: s1\nACCEPT: application/json\nX-Empty:\n\n"))
	var req Request
	if _, err := Parse(raw, 0, DefaultLimits(), &req); err != nil {
		t.Fatal(err)
	}
	type got struct {
		Value string
		OK    bool
	}
	gets := []struct {
		name string
		s    Singleton
		want got
	}{
		{"H-21/Get finds a singleton whatever its case", SingletonSessionID, got{"s1", true}},
		{"H-21/Get of Host", SingletonHost, got{"a", true}},
		{"H-21/Get of an absent singleton", SingletonAuthorization, got{"", false}},
		{"H-21/Get of a value outside the enum", Singleton(200), got{"", false}},
		{"H-21/Get of the first value past the enum", singletonCount, got{"", false}},
	}
	for _, c := range gets {
		t.Run(c.name, func(t *testing.T) {
			v, ok := req.Get(c.s)
			if diff := cmp.Diff(c.want, got{string(v), ok}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	values := []struct {
		name  string
		field string
		want  []string
	}{
		{"H-21/Values of a repeated field, in order, any case", "accept", []string{"text/event-stream", "application/json"}},
		{"H-21/Values of an empty field", "X-EMPTY", []string{""}},
		{"H-21/Values of an absent field", "Origin", nil},
	}
	for _, c := range values {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for v := range req.Values(c.field) {
				got = append(got, string(v))
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("H-21/Values stops when the loop breaks", func(t *testing.T) {
		count := 0
		for range req.Values("Accept") {
			count++
			break
		}
		if count != 1 {
			t.Errorf("loop ran %d times, want 1", count)
		}
	})
}

// appendTo appends the head in canonical form: the request line, each
// field as "Name: value" in arrival order, and the empty line. Parsing the
// result yields the same Request: FuzzParse's round trip.
func (r *Request) appendTo(dst []byte) []byte {
	dst = append(dst, r.MethodToken...)
	dst = append(dst, ' ')
	dst = append(dst, r.Path...)
	if r.HTTP10 {
		dst = append(dst, " HTTP/1.0\r\n"...)
	} else {
		dst = append(dst, " HTTP/1.1\r\n"...)
	}
	for _, f := range r.Fields {
		dst = append(dst, f.Name...)
		dst = append(dst, ':')
		if len(f.Value) > 0 {
			dst = append(dst, ' ')
			dst = append(dst, f.Value...)
		}
		dst = append(dst, "\r\n"...)
	}
	return append(dst, "\r\n"...)
}

func TestAppendTo(t *testing.T) {
	raw := []byte("\r\nPOST /a%2F HTTP/1.1\r\nHost:a\r\nX-Ows: \t v  w \t\r\nX-Empty:   \r\nContent-Length: 3\r\n\r\n")
	var req Request
	if _, err := Parse(raw, 0, DefaultLimits(), &req); err != nil {
		t.Fatal(err)
	}
	got := string(req.appendTo([]byte("prefix|")))
	want := "prefix|POST /a%2F HTTP/1.1\r\nHost: a\r\nX-Ows: v  w\r\nX-Empty:\r\nContent-Length: 3\r\n\r\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("appendTo (-want +got):\n%s", diff)
	}
	var again Request
	n, err := Parse([]byte(got[len("prefix|"):]), 0, DefaultLimits(), &again)
	if err != nil || n != len(got)-len("prefix|") {
		t.Fatalf("re-parse: n=%d err=%v", n, err)
	}
	if diff := cmp.Diff(viewOf(&req), viewOf(&again)); diff != "" {
		t.Errorf("re-parsed request (-want +got):\n%s", diff)
	}
}

// TestClassifyName checks the word compare of classifyName against an
// ASCII case fold (H-P05 needs every spelling of a singleton caught, and
// only those): each interpreted name in three spellings, then every one of
// its bytes replaced by every other tchar, which must make it another
// name, and a length with no interpreted name.
func TestClassifyName(t *testing.T) {
	type class struct {
		Class  nameClass
		Single Singleton
	}
	byName := map[string]class{}
	for _, keys := range knownNames {
		for _, k := range keys {
			byName[k.name] = class{k.class, k.single}
		}
	}
	if len(byName) != 11 {
		t.Fatalf("knownNames holds %d names, want 11", len(byName))
	}
	check := func(name string, want class) {
		t.Helper()
		c, single := classifyName([]byte(name))
		if diff := cmp.Diff(want, class{c, single}); diff != "" {
			t.Errorf("H-P05/classifyName(%q) (-want +got):\n%s", name, diff)
		}
	}
	for name, want := range byName {
		check(name, want)
		check(strings.ToUpper(name), want)
		mixed := []byte(name)
		for i := 0; i < len(mixed); i += 2 {
			mixed[i] = byte(strings.ToUpper(string(mixed[i]))[0])
		}
		check(string(mixed), want)
		for i := range name {
			for c := range 256 {
				if !tcharSet[c] || lowerASCII(byte(c)) == name[i] {
					continue
				}
				b := []byte(name)
				b[i] = byte(c)
				check(string(b), byName[strings.ToLower(string(b))])
			}
		}
	}
	check("x-unknown-name-of-thirty-bytes", class{})
	check("accept", class{})
	check("te", class{})
}

func TestMethodString(t *testing.T) {
	got := []string{}
	for m := MethodUnknown; m <= MethodPATCH+1; m++ {
		got = append(got, m.String())
	}
	want := []string{"unknown", "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "unknown"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("H-10/Method.String (-want +got):\n%s", diff)
	}
	for m := MethodGET; m <= MethodPATCH; m++ {
		if got := lookupMethod([]byte(m.String())); got != m {
			t.Errorf("H-10/lookupMethod(%q) = %v, want %v", m.String(), got, m)
		}
	}
}

func TestErrorIs(t *testing.T) {
	err := error(&Error{Status: 400, Reason: ReasonBareLF, Offset: 7})
	if !errors.Is(err, &Error{Status: 400, Reason: ReasonBareLF}) {
		t.Error("errors.Is ignores the offset: got false, want true")
	}
	if errors.Is(err, &Error{Status: 400, Reason: ReasonBareCR}) {
		t.Error("errors.Is with another reason: got true, want false")
	}
	if errors.Is(err, ErrNeedMore) {
		t.Error("errors.Is(ErrNeedMore): got true, want false")
	}
}

// TestParseAllocs checks that the typical POST parses without allocating
// once the Request exists.
func TestParseAllocs(t *testing.T) {
	raw := []byte(typicalPostHead)
	lim := DefaultLimits()
	var req Request
	json, sse := media("application/json"), media("text/event-stream")
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := Parse(raw, 0, lim, &req); err != nil {
			t.Fatal(err)
		}
		if okJSON, okSSE := req.AcceptsBoth(json, sse); !okJSON || !okSSE {
			t.Fatal("typical POST does not accept both types")
		}
		if !req.Accepts(json) || !ContentTypeIs(req.Fields[4].Value, json) {
			t.Fatal("typical POST not acceptable")
		}
	})
	if allocs != 0 {
		t.Errorf("Parse + AcceptsBoth + Accepts + ContentTypeIs allocated %v times per run, want 0", allocs)
	}
}

// allParseCases is every table above, the seeds of FuzzParse.
func allParseCases() []parseCase {
	return slices.Concat(acceptedCases(), needMoreCases(), requestLineFaultCases(), fieldFaultCases(),
		duplicateSingletonCases(), headCheckCases(), precedenceCases(), limitCases())
}
