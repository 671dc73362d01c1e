package httpparse

import (
	"fmt"
	"strings"
	"testing"
)

func duplicateSingletonCases() []parseCase {
	lines := []struct{ first, second string }{
		{"Host: a", "Host: a"},
		{"Content-Length: 5", "Content-Length: 5"},
		{"Content-Type: application/json", "content-type: application/json"},
		{"Authorization: Bearer x", "Authorization: Bearer x"},
		{"Origin: http://127.0.0.1", "ORIGIN: http://127.0.0.1"},
		{"Mcp-Session-Id: abc", "MCP-SESSION-ID: abc"},
		{"MCP-Protocol-Version: 2025-11-25", "mcp-protocol-version: 2025-11-25"},
		{"Last-Event-ID: 1", "Last-Event-Id: 2"},
		{"Expect: 100-continue", "Expect: 100-continue"},
	}
	var cases []parseCase
	for _, l := range lines {
		head := "POST / HTTP/1.1\r\n" + l.first + "\r\nX-Between: 1\r\n"
		cases = append(cases, parseCase{
			name: "H-P05/repeated " + l.first[:strings.IndexByte(l.first, ':')],
			raw:  head + wire(l.second+"\nHost: b\n\n"),
			want: fault400(ReasonDuplicateField, len(head)),
		})
	}
	return cases
}

func TestParseDuplicateSingletons(t *testing.T) { runParseCases(t, duplicateSingletonCases()) }

func headCheckCases() []parseCase {
	post := func(lines string) string { return wire("POST / HTTP/1.1\n" + lines + "\n") }
	line := func(lines string, n int) int { // offset of line n (0-based) of lines
		off := len("POST / HTTP/1.1\r\n")
		for range n {
			i := strings.IndexByte(lines, '\n')
			off += i + 2
			lines = lines[i+1:]
		}
		return off
	}
	cases := []parseCase{
		{name: "H-15/missing Host", raw: post("X: 1\n"), want: fault400(ReasonMissingHost, line("", 0))},
		{name: "H-15/missing Host on HTTP/1.0 too", raw: wire("POST / HTTP/1.0\nX: 1\n\n"), want: fault400(ReasonMissingHost, line("", 0))},
		{name: "H-28/chunked on HTTP/1.0 still refused", raw: wire("POST / HTTP/1.0\nHost: a\nTransfer-Encoding: chunked\n\n"), want: failWith(501, ReasonTransferEncodingNotImplemented, line("Host: a\n", 1))},
		{name: "H-P06/Transfer-Encoding with Content-Length on HTTP/1.0", raw: wire("POST / HTTP/1.0\nHost: a\nContent-Length: 5\nTransfer-Encoding: chunked\n\n"), want: fault400(ReasonTransferEncodingWithContentLength, line("Host: a\nContent-Length: 5\n", 2))},
		{name: "H-52/another expectation on HTTP/1.0 still 417", raw: wire("POST / HTTP/1.0\nHost: a\nExpect: x\n\n"), want: failWith(417, ReasonUnsupportedExpectation, line("Host: a\n", 1))},
		{name: "H-16/invalid Host", raw: post("X: 1\nHost: a b\n"), want: fault400(ReasonInvalidHost, line("X: 1\n", 1))},
		{name: "H-16/empty Host", raw: post("Host:\n"), want: fault400(ReasonInvalidHost, line("", 0))},
		{name: "H-24/Content-Length with a sign", raw: post("Host: a\nContent-Length: +5\n"), want: fault400(ReasonInvalidContentLength, line("Host: a\n", 1))},
		{name: "H-24/negative Content-Length", raw: post("Host: a\nContent-Length: -1\n"), want: fault400(ReasonInvalidContentLength, line("Host: a\n", 1))},
		{name: "H-24/Content-Length list of equal values", raw: post("Host: a\nContent-Length: 5, 5\n"), want: fault400(ReasonInvalidContentLength, line("Host: a\n", 1))},
		{name: "H-24/space inside Content-Length", raw: post("Host: a\nContent-Length: 1 0\n"), want: fault400(ReasonInvalidContentLength, line("Host: a\n", 1))},
		{name: "H-24/hex Content-Length", raw: post("Host: a\nContent-Length: 0x10\n"), want: fault400(ReasonInvalidContentLength, line("Host: a\n", 1))},
		{name: "H-24/empty Content-Length", raw: post("Host: a\nContent-Length:\n"), want: fault400(ReasonInvalidContentLength, line("Host: a\n", 1))},
		{name: "H-24/Content-Length one past int64", raw: post("Host: a\nContent-Length: 9223372036854775808\n"), want: fault400(ReasonInvalidContentLength, line("Host: a\n", 1))},
		{name: "H-24/Content-Length of twenty nines", raw: post("Host: a\nContent-Length: 99999999999999999999\n"), want: fault400(ReasonInvalidContentLength, line("Host: a\n", 1))},
		{name: "H-36/Content-Length at int64 max is too large, not invalid", raw: post("Host: a\nContent-Length: 9223372036854775807\n"), want: failWith(413, ReasonBodyTooLarge, line("Host: a\n", 1))},
		{name: "H-P06/Transfer-Encoding with Content-Length", raw: post("Host: a\nContent-Length: 5\nTransfer-Encoding: chunked\n"), want: fault400(ReasonTransferEncodingWithContentLength, line("Host: a\nContent-Length: 5\n", 2))},
		{name: "H-P06/Content-Length after Transfer-Encoding", raw: post("Host: a\nTransfer-Encoding: chunked\nContent-Length: 5\n"), want: fault400(ReasonTransferEncodingWithContentLength, line("Host: a\n", 1))},
		{name: "H-27/only gzip", raw: post("Host: a\nTransfer-Encoding: gzip\n"), want: fault400(ReasonChunkedNotFinal, line("Host: a\n", 1))},
		{name: "H-27/chunked before gzip", raw: post("Host: a\nTransfer-Encoding: chunked, gzip\n"), want: fault400(ReasonChunkedNotFinal, line("Host: a\n", 1))},
		{name: "H-27/chunked twice", raw: post("Host: a\nTransfer-Encoding: chunked\nTransfer-Encoding: chunked\n"), want: fault400(ReasonChunkedNotFinal, line("Host: a\n", 1))},
		{name: "H-27/chunked with a parameter", raw: post("Host: a\nTransfer-Encoding: chunked;x=1\n"), want: fault400(ReasonInvalidTransferEncoding, line("Host: a\n", 1))},
		{name: "H-27/empty Transfer-Encoding", raw: post("Host: a\nTransfer-Encoding:\n"), want: fault400(ReasonInvalidTransferEncoding, line("Host: a\n", 1))},
		{name: "H-27/non-token coding", raw: post("Host: a\nTransfer-Encoding: g@zip, chunked\n"), want: fault400(ReasonInvalidTransferEncoding, line("Host: a\n", 1))},
		{name: "H-28/chunked is not implemented", raw: post("Host: a\nTransfer-Encoding: chunked\n"), want: failWith(501, ReasonTransferEncodingNotImplemented, line("Host: a\n", 1))},
		{name: "H-28/chunked in any case", raw: post("Host: a\nTransfer-Encoding: ChUnKeD\n"), want: failWith(501, ReasonTransferEncodingNotImplemented, line("Host: a\n", 1))},
		{name: "H-28/gzip then chunked", raw: post("Host: a\nTransfer-Encoding: gzip;level=1, chunked\n"), want: failWith(501, ReasonTransferEncodingNotImplemented, line("Host: a\n", 1))},
		{name: "H-28/lines joined into one list", raw: post("Host: a\nTransfer-Encoding: gzip\nX: 1\ntransfer-encoding: chunked\n"), want: failWith(501, ReasonTransferEncodingNotImplemented, line("Host: a\n", 1))},
		{name: "H-28/lines joined into one list, the first the head's first line", raw: post("Transfer-Encoding: gzip\nHost: a\nTransfer-Encoding: chunked\n"), want: failWith(501, ReasonTransferEncodingNotImplemented, line("", 0))},
		{name: "H-06/non-token Connection option", raw: post("Host: a\nConnection: close, k@\n"), want: fault400(ReasonInvalidConnection, line("Host: a\n", 1))},
		{name: "H-52/unknown expectation", raw: post("Host: a\nExpect: 200-ok\n"), want: failWith(417, ReasonUnsupportedExpectation, line("Host: a\n", 1))},
		{name: "H-52/100-continue with a parameter", raw: post("Host: a\nExpect: 100-continue;x=1\n"), want: failWith(417, ReasonUnsupportedExpectation, line("Host: a\n", 1))},
		{name: "H-52/empty Expect", raw: post("Host: a\nExpect:\n"), want: failWith(417, ReasonUnsupportedExpectation, line("Host: a\n", 1))},
	}
	return cases
}

func TestParseHeadChecks(t *testing.T) { runParseCases(t, headCheckCases()) }

// precedenceCases pin the order in which faults are reported when a
// head has several: scan order through the bytes, then Host, Transfer-
// Encoding, Content-Length, Connection, Expect, body size.
func precedenceCases() []parseCase {
	post := func(lines string) string { return wire("POST / HTTP/1.1\n" + lines + "\n") }
	const at1 = len("POST / HTTP/1.1\r\n") // offset of the first field line
	cases := []parseCase{
		{name: "H-06/request line fault before a field fault", raw: "GET /? HTTP/1.1\r\nX\x00: a\r\n\r\n", want: fault400(ReasonTargetQuery, 5)},
		{name: "H-06/earlier field line first", raw: post("X: \x00\nHost : a\n"), want: fault400(ReasonInvalidFieldValue, at1+3)},
		{name: "H-P05/duplicate before missing Host", raw: post("Expect: x\nExpect: y\n"), want: fault400(ReasonDuplicateField, at1+11)},
		{name: "H-15/missing Host before Transfer-Encoding", raw: post("Transfer-Encoding: chunked\n"), want: fault400(ReasonMissingHost, at1)},
		{name: "H-16/invalid Host before Transfer-Encoding", raw: post("Transfer-Encoding: chunked\nHost: a:b\n"), want: fault400(ReasonInvalidHost, at1+28)},
		{name: "H-28/Transfer-Encoding before an invalid Content-Length", raw: post("Content-Length: x\nTransfer-Encoding: gzip\nHost: a\n"), want: fault400(ReasonTransferEncodingWithContentLength, at1+19)},
		{name: "H-24/Content-Length before Connection", raw: post("Host: a\nConnection: @\nContent-Length: x\n"), want: fault400(ReasonInvalidContentLength, at1+24)},
		{name: "H-06/Connection before Expect", raw: post("Host: a\nExpect: x\nConnection: @\n"), want: fault400(ReasonInvalidConnection, at1+20)},
		{name: "H-52/Expect before body size", raw: post("Host: a\nContent-Length: 99999\nExpect: x\n"), want: failWith(417, ReasonUnsupportedExpectation, at1+32)},
	}
	return cases
}

func TestParsePrecedence(t *testing.T) { runParseCases(t, precedenceCases()) }

func TestParseHost(t *testing.T) {
	cases := []struct {
		value string
		ok    bool
	}{
		{"127.0.0.1:8080", true},
		{"localhost", true},
		{"example.com:1", true},
		{"a:65535", true},
		{"a:0", true},
		{"ex%41mple", true},
		{"!$&'()*+,;=-._~", true},
		{"999.999.999.999", true}, // a reg-name, if no IPv4address
		{"[::1]", true},
		{"[::1]:8080", true},
		{"[::]", true},
		{"[1:2:3:4:5:6:7:8]", true},
		{"[1::8]", true},
		{"[1:2:3:4:5:6:7::]", true},
		{"[::2:3:4:5:6:7:8]", true},
		{"[::ffff:192.0.2.1]", true},
		{"[::ffff:255.255.255.255]", true},
		{"[1:2:3:4:5:6:1.2.3.4]", true},
		{"[ABCD:ef01::]", true},
		{"[v1.x:y]", true},
		{"[V1f.a]", true},
		{"", false},
		{":80", false},
		{"a:", false},
		{"a:65536", false},
		{"a:123456", false},
		{"a:8x", false},
		{"a:8:9", false},
		{"a b", false},
		{"a\tb", false},
		{"user@a", false},
		{"a/b", false},
		{"a%4", false},
		{"a%zz", false},
		{"\xc3\xa9", false},
		{"[::1", false},
		{"[::1]x", false},
		{"[::1]:", false},
		{"[]", false},
		{"[:1]", false},
		{"[1:]", false},
		{"[:::]", false},
		{"[1::2::3]", false},
		{"[1:2:3:4:5:6:7:8:9]", false},
		{"[1:2:3:4:5:6:7]", false},
		{"[1:2:3:4:5:6:7:8::]", false},
		{"[12345::]", false},
		{"[g::]", false},
		{"[::1.2.3]", false},
		{"[::1.2.3.256]", false},
		{"[::01.2.3.4]", false},
		{"[::1.2.3.4:5]", false},
		{"[1.2.3.4::]", false},
		{"[1:2:3:4:5:6:7:1.2.3.4]", false},
		{"[fe80::1%25eth0]", false},
		{"[v1]", false},
		{"[v.x]", false},
		{"[v1.]", false},
		{"[v1.x/y]", false},
	}
	for _, c := range cases {
		name := fmt.Sprintf("H-16/Host %q", c.value)
		t.Run(name, func(t *testing.T) {
			raw := wire("GET / HTTP/1.1\nHost: " + c.value + "\n\n")
			want := fault400(ReasonInvalidHost, requestLine)
			if c.ok {
				want = accept(len(raw), get("/", fieldView{"Host", c.value}))
			}
			checkThreeWays(t, []byte(raw), DefaultLimits(), want)
		})
	}
}
