package httpparse

import (
	"fmt"
	"strings"
	"testing"
)

// fieldLines builds field lines "X-Fill-i: vvv..." totalling exactly
// total bytes with their CRLFs, each value no longer than maxValue.
func fieldLines(total, maxValue int) string {
	var b strings.Builder
	for i := 0; b.Len() < total; i++ {
		prefix := fmt.Sprintf("X-Fill-%02d: ", i)
		room := total - b.Len() - len(prefix) - len("\r\n")
		n := min(room, maxValue)
		if rest := room - n; rest > 0 && rest < len(prefix)+len("\r\n")+1 {
			n -= len(prefix) + len("\r\n") + 1 // leave room for one more short line
		}
		b.WriteString(prefix + strings.Repeat("v", n) + "\r\n")
	}
	return b.String()
}

// limitCases put every limit of DefaultLimits at its value and one
// past it (H-P07).
func limitCases() []parseCase {
	lim := DefaultLimits()
	target := func(n int) string { return "/" + strings.Repeat("a", n-1) }
	method := func(n int) string { return strings.Repeat("M", n) }
	fields := func(n int) (string, []fieldView) { // Host plus n-1 more lines
		s, views := "Host: a\r\n", []fieldView{hostA}
		for i := 1; i < n; i++ {
			s += fmt.Sprintf("X-%d: v\r\n", i)
			views = append(views, fieldView{fmt.Sprintf("X-%d", i), "v"})
		}
		return s, views
	}
	atFields, atViews := fields(lim.MaxFields)
	pastFields, _ := fields(lim.MaxFields + 1)
	section := func(n int) string { return "Host: a\r\n" + fieldLines(n-len("Host: a\r\n"), lim.MaxValue) }
	value := strings.Repeat("v", lim.MaxValue)
	body := func(n int64) string {
		return wire(fmt.Sprintf("POST / HTTP/1.1\nHost: a\nContent-Length: %d\n\n", n))
	}
	bodyView := func(n int64) reqView {
		return reqView{Method: MethodPOST, MethodToken: "POST", Path: "/", ContentLength: n,
			Fields: []fieldView{hostA, {"Content-Length", fmt.Sprint(n)}}}
	}
	headerStart := len("GET / HTTP/1.1\r\n")

	cases := []parseCase{
		{
			name: "H-09/method at MaxMethod",
			raw:  method(lim.MaxMethod) + " / HTTP/1.1\r\nHost: a\r\n\r\n",
			want: accept(lim.MaxMethod+len(" / HTTP/1.1\r\nHost: a\r\n\r\n"),
				reqView{MethodToken: method(lim.MaxMethod), Path: "/", Fields: []fieldView{hostA}}),
		},
		{
			name: "H-09/method one past MaxMethod",
			raw:  method(lim.MaxMethod+1) + " / HTTP/1.1\r\nHost: a\r\n\r\n",
			want: failWith(501, ReasonMethodTooLong, lim.MaxMethod),
		},
		{
			name: "H-11/target at MaxTarget",
			raw:  "GET " + target(lim.MaxTarget) + " HTTP/1.1\r\nHost: a\r\n\r\n",
			want: accept(len("GET  HTTP/1.1\r\nHost: a\r\n\r\n")+lim.MaxTarget, get(target(lim.MaxTarget), hostA)),
		},
		{
			name: "H-11/target one past MaxTarget",
			raw:  "GET " + target(lim.MaxTarget+1) + " HTTP/1.1\r\nHost: a\r\n\r\n",
			want: failWith(414, ReasonTargetTooLong, len("GET ")+lim.MaxTarget),
		},
		{
			name: "H-11/target one past MaxTarget, rest of the line not sent",
			raw:  "GET " + target(lim.MaxTarget+1),
			want: failWith(414, ReasonTargetTooLong, len("GET ")+lim.MaxTarget),
		},
		{
			name: "H-11/CR right after MaxTarget bytes",
			raw:  "GET " + target(lim.MaxTarget) + "\r\n",
			want: failWith(414, ReasonTargetTooLong, len("GET ")+lim.MaxTarget),
		},
		{
			name: "H-11/escape running past MaxTarget",
			raw:  "GET " + target(lim.MaxTarget-1) + "%41 HTTP/1.1\r\n",
			want: failWith(414, ReasonTargetTooLong, len("GET ")+lim.MaxTarget),
		},
		{
			name: "H-12/request line of 8000 bytes with a raised MaxTarget",
			raw:  "GET " + target(8000-len("GET  HTTP/1.1")) + " HTTP/1.1\r\nHost: a\r\n\r\n",
			lim:  func(l *Limits) { l.MaxTarget = 8000 },
			want: accept(8000+len("\r\nHost: a\r\n\r\n"), get(target(8000-len("GET  HTTP/1.1")), hostA)),
		},
		{
			name: "H-P07/MaxFields field lines",
			raw:  "GET / HTTP/1.1\r\n" + atFields + "\r\n",
			want: accept(headerStart+len(atFields)+2, get("/", atViews...)),
		},
		{
			name: "H-P07/one field line past MaxFields",
			raw:  "GET / HTTP/1.1\r\n" + pastFields + "\r\n",
			want: failWith(431, ReasonTooManyFields, headerStart+len(atFields)),
		},
		{
			name: "H-P07/header section at MaxHeaderBytes",
			raw:  "GET / HTTP/1.1\r\n" + section(lim.MaxHeaderBytes) + "\r\n",
			want: accept(headerStart+lim.MaxHeaderBytes+2, viewOfSection(section(lim.MaxHeaderBytes))),
		},
		{
			name: "H-P07/header section one past MaxHeaderBytes",
			raw:  "GET / HTTP/1.1\r\n" + section(lim.MaxHeaderBytes+1) + "\r\n",
			want: failWith(431, ReasonHeaderSectionTooLarge, headerStart+lim.MaxHeaderBytes),
		},
		{
			name: "H-P07/header section past MaxHeaderBytes, no end sent",
			raw:  "GET / HTTP/1.1\r\n" + section(lim.MaxHeaderBytes+1),
			want: failWith(431, ReasonHeaderSectionTooLarge, headerStart+lim.MaxHeaderBytes),
		},
		{
			name: "H-P07/value at MaxValue",
			raw:  "GET / HTTP/1.1\r\nHost: a\r\nX: " + value + "\r\n\r\n",
			want: accept(headerStart+len("Host: a\r\nX: \r\n\r\n")+lim.MaxValue, get("/", hostA, fieldView{"X", value})),
		},
		{
			name: "H-P07/value at MaxValue followed by trailing OWS",
			raw:  "GET / HTTP/1.1\r\nHost: a\r\nX: " + value + " \t \r\n\r\n",
			want: accept(headerStart+len("Host: a\r\nX:  \t \r\n\r\n")+lim.MaxValue, get("/", hostA, fieldView{"X", value})),
		},
		{
			name: "H-P07/value one past MaxValue",
			raw:  "GET / HTTP/1.1\r\nHost: a\r\nX: " + value + "v\r\n\r\n",
			want: failWith(431, ReasonFieldValueTooLong, headerStart+len("Host: a\r\nX: ")+lim.MaxValue),
		},
		{
			name: "H-P07/value one past MaxValue after inner OWS",
			raw:  "GET / HTTP/1.1\r\nHost: a\r\nX: " + value + "  v\r\n\r\n",
			want: failWith(431, ReasonFieldValueTooLong, headerStart+len("Host: a\r\nX: ")+lim.MaxValue+2),
		},
		{
			name: "H-36/Content-Length at MaxBody",
			raw:  body(lim.MaxBody),
			want: accept(len(body(lim.MaxBody)), bodyView(lim.MaxBody)),
		},
		{
			name: "H-36/Content-Length one past MaxBody",
			raw:  body(lim.MaxBody + 1),
			want: failWith(413, ReasonBodyTooLarge, len("POST / HTTP/1.1\r\nHost: a\r\n")),
		},
	}
	return cases
}

func TestParseLimits(t *testing.T) { runParseCases(t, limitCases()) }

// viewOfSection is the request "GET /" with the given field lines, each
// "Name: value".
func viewOfSection(section string) reqView {
	v := get("/")
	for line := range strings.SplitSeq(strings.TrimSuffix(section, "\r\n"), "\r\n") {
		name, value, _ := strings.Cut(line, ": ")
		v.Fields = append(v.Fields, fieldView{name, value})
	}
	return v
}

// TestParseLimitsCapFields checks that MaxFields above the array inside
// Request is held to MaxFieldsCap.
func TestParseLimitsCapFields(t *testing.T) {
	lines := "Host: a\r\n"
	for i := 1; i <= MaxFieldsCap; i++ {
		lines += fmt.Sprintf("X-%d: v\r\n", i)
	}
	raw := "GET / HTTP/1.1\r\n" + lines + "\r\n"
	lim := DefaultLimits()
	lim.MaxFields = MaxFieldsCap + 10
	want := failWith(431, ReasonTooManyFields, len(raw)-len("X-64: v\r\n\r\n"))
	checkThreeWays(t, []byte(raw), lim, want)
}

// TestMaxRequestBytes checks the value for the profile's limits, and that
// it is tight: a request at every limit at once parses and is exactly that
// long, and one byte more anywhere is over some limit (each limit's own
// case is in limitCases).
func TestMaxRequestBytes(t *testing.T) {
	lim := DefaultLimits()
	// 2 + 16 + 2048 + 12 + 12288 + 2 + 16384
	if got, want := lim.MaxRequestBytes(), 30752; got != want {
		t.Fatalf("DefaultLimits().MaxRequestBytes() = %d, want %d", got, want)
	}

	fixed := fmt.Sprintf("Host: a\r\nContent-Length: %d\r\n", lim.MaxBody)
	section := fixed + fieldLines(lim.MaxHeaderBytes-len(fixed), lim.MaxValue)
	method := strings.Repeat("M", lim.MaxMethod)
	target := "/" + strings.Repeat("a", lim.MaxTarget-1)
	raw := "\r\n" + method + " " + target + " HTTP/1.1\r\n" + section + "\r\n" + strings.Repeat("b", int(lim.MaxBody))
	if len(raw) != lim.MaxRequestBytes() {
		t.Fatalf("request at every limit is %d bytes, MaxRequestBytes() = %d", len(raw), lim.MaxRequestBytes())
	}
	var req Request
	n, err := Parse([]byte(raw), 0, lim, &req)
	if err != nil {
		t.Fatalf("request at every limit: %v", err)
	}
	if got := n + int(req.ContentLength); got != len(raw) {
		t.Errorf("head %d + body %d = %d bytes, want %d", n, req.ContentLength, got, len(raw))
	}
}
