package h1_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
	"rawmcp/wire/h1"
)

// The peer's end after its last chunk.
const (
	peerCloses = "eof"     // the peer closes (or the socket fails)
	peerStalls = "timeout" // the wait's deadline passes
)

// connCase is one connection from its first byte: the chunks the peer
// sends, how it ends, what the caller decides, and the decisions the
// connection must make, in order, ending with how it ended. The decisions
// leave out the waits and reads, so the same list holds however the bytes
// are split.
type connCase struct {
	name   string
	chunks []string
	end    string
	// refuseHead answers every head with this status, without its body;
	// 0 reads the body and answers answerStatus.
	refuseHead   int
	answerStatus int
	// shutting says the server is shutting down.
	shutting bool
	// overCapacity: the server refuses the connection before reading it.
	overCapacity bool
	// failAnswer makes the write of that answer fail (1: the first); 0,
	// none. failContinue makes the write of 100 Continue fail.
	failAnswer   int
	failContinue bool
	// atOnce: the case is about bytes arriving together (a body already
	// in hand needs no 100 Continue), so it has no byte-at-a-time form.
	atOnce bool
	// cutShort: the peer's end comes in the middle of a request, so a
	// byte after the chunks would be that request's, not a next one.
	cutShort bool
	want     []string
}

const (
	get       = "GET /mcp HTTP/1.1\r\nHost: a\r\n\r\n"
	get10     = "GET /mcp HTTP/1.0\r\nHost: a\r\n\r\n"
	getClose  = "GET /mcp HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
	postHead  = "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n"
	expectHd  = "POST /mcp HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
	expect10  = "POST /mcp HTTP/1.0\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
	badHead   = "GET /mcp HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n"
	smuggling = "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n"
)

// The ends a case's last decision can name.
const (
	peerLeft    = "close: peer left"
	peerCutH33  = "close: peer left H-33"
	idleTimeout = "close: idle timeout"
	writeFailed = "close: write failed"
)

func connCases() []connCase {
	return []connCase{
		{name: "RFC 9112 §9.3 an HTTP/1.1 connection persists: two requests, then the peer closes",
			chunks: []string{get, get}, end: peerCloses, answerStatus: 200,
			want: []string{"begin", "head", "request", "200 keeps", "begin", "head", "request", "200 keeps", peerLeft}},
		{name: "an idle wait that times out closes in silence",
			chunks: []string{get}, end: peerStalls, answerStatus: 200,
			want: []string{"begin", "head", "request", "200 keeps", idleTimeout}},
		{name: "H-41 pipelined requests are answered in order from the bytes kept",
			chunks: []string{get + postHead + "{}" + get}, end: peerCloses, answerStatus: 200,
			want: []string{"begin", "head", "request", "200 keeps", "begin", "head", "request", "200 keeps", "begin", "head", "request", "200 keeps", peerLeft}},
		{name: "H-37 Connection: close closes after the answer; what follows is never read",
			chunks: []string{getClose + get}, end: peerCloses, answerStatus: 200,
			want: []string{"begin", "head", "request", "200 closes H-37", "drain: answer H-37"}},
		{name: "H-39 HTTP/1.0 is answered once and closed",
			chunks: []string{get10 + get}, end: peerCloses, answerStatus: 200,
			want: []string{"begin", "head", "request", "200 closes H-39", "drain: answer H-39"}},
		{name: "H-40 once the server is shutting down, the answer closes",
			chunks: []string{get + get}, end: peerCloses, answerStatus: 200, shutting: true,
			want: []string{"begin", "head", "request", "200 closes H-40", "drain: answer H-40"}},
		{name: "T-P14 an error answer closes; the request after it is never read",
			chunks: []string{get + get}, end: peerCloses, answerStatus: 404,
			want: []string{"begin", "head", "request", "404 closes T-P14", "drain: answer T-P14"}},
		{name: "T-P14 at the limit: a 400 closes",
			chunks: []string{get + get}, end: peerCloses, answerStatus: 400,
			want: []string{"begin", "head", "request", "400 closes T-P14", "drain: answer T-P14"}},
		{name: "T-P14 one below: a 399 keeps the connection",
			chunks: []string{get}, end: peerCloses, answerStatus: 399,
			want: []string{"begin", "head", "request", "399 keeps", peerLeft}},
		{name: "T-P14 a head refused without its body closes; the body is never read as a request",
			chunks: []string{postHead + "GE"}, end: peerCloses, refuseHead: 415,
			want: []string{"begin", "head", "415 closes T-P14", "drain: answer T-P14"}},
		{name: "T-P14 even a 2xx given before the body was read closes; the body is never read as a request",
			chunks: []string{postHead + "GE"}, end: peerCloses, refuseHead: 200,
			want: []string{"begin", "head", "200 closes T-P14", "drain: answer T-P14"}},
		{name: "H-P09 a parse error is answered with its status and closes",
			chunks: []string{badHead + get}, end: peerCloses,
			want: []string{"begin", "refuse 400 whitespace between field name and colon", "400 closes H-P09", "drain: answer H-P09"}},
		{name: "H-P06 Transfer-Encoding with Content-Length is refused, never framed; the parse error closes (H-P09)",
			chunks: []string{smuggling + "{}" + get}, end: peerCloses,
			want: []string{"begin", "refuse 400 Transfer-Encoding with Content-Length", "400 closes H-P09", "drain: answer H-P09"}},
		{name: "H-P08 a head that stops coming is 408",
			chunks: []string{"GET /mcp HT"}, end: peerStalls, cutShort: true,
			want: []string{"begin", "refuse 408 H-P08", "408 closes H-P08", "drain: answer H-P08"}},
		{name: "H-P08 a body that stops coming is 408",
			chunks: []string{postHead, "{"}, end: peerStalls, cutShort: true,
			want: []string{"begin", "head", "refuse 408 H-P08 after its head", "408 closes H-P08", "drain: answer H-P08"}},
		{name: "H-33 a head cut short by the peer closes without an answer",
			chunks: []string{"GET /mcp HT"}, end: peerCloses, cutShort: true,
			want: []string{"begin", peerCutH33}},
		{name: "H-33 a body cut short by the peer closes without an answer",
			chunks: []string{postHead, "{"}, end: peerCloses, cutShort: true,
			want: []string{"begin", "head", peerCutH33}},
		{name: "H-51 100 Continue when the body has yet to come, once",
			chunks: []string{expectHd, "{", "}"}, end: peerCloses, answerStatus: 200,
			want: []string{"begin", "head", "continue", "request", "200 keeps", peerLeft}},
		{name: "H-P13 no 100 Continue for a head refused before its body",
			chunks: []string{expectHd, "{}"}, end: peerCloses, refuseHead: 401,
			want: []string{"begin", "head", "401 closes T-P14", "drain: answer T-P14"}},
		{name: "H-51 no 100 Continue when the body came with the head",
			chunks: []string{expectHd + "{}"}, end: peerCloses, answerStatus: 200, atOnce: true,
			want: []string{"begin", "head", "request", "200 keeps", peerLeft}},
		{name: "H-51 no 100 Continue for an empty body: none has yet to come",
			chunks: []string{strings.Replace(expectHd, "Content-Length: 2", "Content-Length: 0", 1)}, end: peerCloses, answerStatus: 200,
			want: []string{"begin", "head", "request", "200 keeps", peerLeft}},
		{name: "H-51 Expect is ignored on HTTP/1.0",
			chunks: []string{expect10, "{}"}, end: peerCloses, answerStatus: 200,
			want: []string{"begin", "head", "request", "200 closes H-39", "drain: answer H-39"}},
		{name: "H-P15 a connection over the cap is answered 503 before anything is read, and closed",
			chunks: []string{get}, end: peerCloses, overCapacity: true,
			want: []string{"refuse 503 H-P15", "503 closes H-P15", "drain: answer H-P15"}},
		{name: "a failed write of an answer closes without a drain; the request after it is never read",
			chunks: []string{get + get}, end: peerCloses, answerStatus: 200, failAnswer: 1,
			want: []string{"begin", "head", "request", "200 write fails", writeFailed}},
		{name: "a failed write of a closing answer closes without a drain",
			chunks: []string{getClose}, end: peerCloses, answerStatus: 200, failAnswer: 1,
			want: []string{"begin", "head", "request", "200 write fails", writeFailed}},
		{name: "a failed write of the second answer ends a kept connection",
			chunks: []string{get, get}, end: peerCloses, answerStatus: 200, failAnswer: 2,
			want: []string{"begin", "head", "request", "200 keeps", "begin", "head", "request", "200 write fails", writeFailed}},
		{name: "H-51 a failed write of 100 Continue closes; the body is never read",
			chunks: []string{expectHd, "{}"}, end: peerCloses, answerStatus: 200, failContinue: true,
			want: []string{"begin", "head", "continue write fails", writeFailed}},
		{name: "a peer that sends nothing closes in silence",
			end: peerCloses, want: []string{peerLeft}},
		{name: "a peer that sends nothing in time closes in silence",
			end: peerStalls, want: []string{idleTimeout}},
	}
}

// TestConnectionRules drives each case with its chunks as given, a byte
// at a time, and with bytes after them: the decisions hold however the
// bytes are split, and bytes after a closing answer change nothing.
func TestConnectionRules(t *testing.T) {
	for _, tc := range connCases() {
		t.Run(tc.name, func(t *testing.T) {
			got := drive(t, tc, tc.chunks, largeBuffer)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("chunks as given (-want +got):\n%s", diff)
			}
			if !tc.atOnce {
				got = drive(t, tc, byteAtATime(tc.chunks), largeBuffer)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("a byte at a time (-want +got):\n%s", diff)
				}
			}
			if !tc.cutShort {
				got = drive(t, tc, withTrailing(tc.chunks, trailing(tc)), largeBuffer)
				if diff := cmp.Diff(trailingWant(tc), got); diff != "" {
					t.Errorf("with trailing bytes (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// trailing is what the peer sends after a case's chunks: after an end
// that came while the connection waited for a request, one byte, which
// begins a request; after any other end (a closing answer, a failed
// write) a whole request, which must never be read.
func trailing(tc connCase) string {
	if waitedAtEnd(tc) {
		return "G"
	}
	return get
}

// waitedAtEnd says the case ended while the connection waited for a
// request: the peer left, or the idle wait timed out.
func waitedAtEnd(tc connCase) bool {
	last := tc.want[len(tc.want)-1]
	return last == peerLeft || last == idleTimeout
}

// trailingWant is what a case decides with trailing's bytes after its
// chunks: nothing changes after a closing answer or a failed write;
// otherwise the byte begins a request that the peer's end cuts short
// (silence) or leaves late (408).
func trailingWant(tc connCase) []string {
	if !waitedAtEnd(tc) {
		return tc.want
	}
	want := append([]string(nil), tc.want[:len(tc.want)-1]...)
	if tc.end == peerCloses {
		return append(want, "begin", peerCutH33)
	}
	return append(want, "begin", "refuse 408 H-P08", "408 closes H-P08", "drain: answer H-P08")
}

// TestBufferLimit: a head that fills the whole buffer is 431, answered
// rather than trusted; one byte less still parses.
func TestBufferLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		space int
		want  []string
	}{
		{"a head exactly as long as the buffer parses", len(get),
			[]string{"begin", "head", "request", "200 keeps", peerLeft}},
		{"one byte past is 431", len(get) - 1,
			[]string{"begin", "refuse 431 buffer full", "431 closes H-P09", "drain: answer H-P09"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := connCase{chunks: []string{get}, end: peerCloses, answerStatus: 200}
			for _, chunks := range [][]string{c.chunks, byteAtATime(c.chunks)} {
				if diff := cmp.Diff(tc.want, drive(t, c, chunks, tc.space)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestBodyLimit: the connection reads a body of MaxBody bytes; one past
// is the parser's 413, answered before any body byte is read.
func TestBodyLimit(t *testing.T) {
	limits := httpparse.DefaultLimits()
	for _, tc := range []struct {
		name   string
		length int64
		want   []string
	}{
		{"a body of MaxBody bytes is read", limits.MaxBody,
			[]string{"begin", "head", "request", "200 keeps", peerLeft}},
		{"one byte past is 413 and closes", limits.MaxBody + 1,
			[]string{"begin", "refuse 413 content too large", "413 closes H-P09", "drain: answer H-P09"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n", tc.length)
			c := connCase{chunks: []string{head, strings.Repeat("x", int(tc.length))}, end: peerCloses, answerStatus: 200}
			if diff := cmp.Diff(tc.want, drive(t, c, c.chunks, largeBuffer)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPipelinedBytesKept: a kept answer drops exactly its request's
// bytes; the next request's are moved to the start of the buffer.
func TestPipelinedBytesKept(t *testing.T) {
	buf := make([]byte, largeBuffer)
	var req httpparse.Request
	c := h1.New(httpparse.DefaultLimits(), largeBuffer)
	in := postHead + "{}" + "GET /x"
	var steps []h1.Action
	step := func(act func() error) {
		t.Helper()
		steps = append(steps, c.Next(buf, &req))
		if err := act(); err != nil {
			t.Fatal(err)
		}
	}
	step(func() error { return c.Received(copy(buf, in)) })
	step(c.Began)
	step(c.ReadBody)
	steps = append(steps, c.Next(buf, &req))
	if diff := cmp.Diff([]h1.Action{h1.Wait, h1.Begin, h1.Head, h1.Request}, steps); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if body, err := c.Body(buf); string(body) != "{}" || err != nil {
		t.Errorf("Body = %q, %v; want %q", body, err, "{}")
	}
	if got, err := c.RequestBytes(); got != len(postHead)+2 || err != nil {
		t.Errorf("RequestBytes = %d, %v; want %d", got, err, len(postHead)+2)
	}
	if _, _, err := c.Answering(200, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Answered(buf); err != nil {
		t.Fatal(err)
	}
	if got := string(buf[:c.Filled()]); got != "GET /x" {
		t.Errorf("input kept = %q, want %q", got, "GET /x")
	}
}

// TestBeginIsNotLost: Next tells Begin again until the caller says it
// began the request; only then is the head parsed.
func TestBeginIsNotLost(t *testing.T) {
	buf := make([]byte, largeBuffer)
	var req httpparse.Request
	c := h1.New(httpparse.DefaultLimits(), largeBuffer)
	c.Next(buf, &req)
	if err := c.Received(copy(buf, get)); err != nil {
		t.Fatal(err)
	}
	got := []h1.Action{c.Next(buf, &req), c.Next(buf, &req)}
	if err := c.Began(); err != nil {
		t.Fatal(err)
	}
	got = append(got, c.Next(buf, &req))
	if diff := cmp.Diff([]h1.Action{h1.Begin, h1.Begin, h1.Head}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// largeBuffer is the buffer the server sizes from the default limits.
var largeBuffer = httpparse.DefaultLimits().MaxRequestBytes()

// drive runs a connection the way the server's loop does, feeding chunks
// one per wait or read, and returns its decisions, the last of them how
// it ended. Any call the connection refuses fails the test.
func drive(t *testing.T, tc connCase, chunks []string, space int) []string {
	t.Helper()
	// Consumed below; a read never brings no bytes.
	chunks = slices.DeleteFunc(slices.Clone(chunks), func(ch string) bool { return ch == "" })
	buf := make([]byte, space)
	var req httpparse.Request
	c := h1.New(httpparse.DefaultLimits(), space)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	if tc.overCapacity {
		must(c.OverCapacity())
	}
	var log []string
	answers := 0
	answer := func(status int) string {
		t.Helper()
		closes, why, err := c.Answering(status, tc.shutting)
		must(err)
		if answers++; answers == tc.failAnswer {
			must(c.WriteFailed())
			return fmt.Sprintf("%d write fails", status)
		}
		must(c.Answered(buf))
		if closes {
			return fmt.Sprintf("%d closes %s", status, why)
		}
		return fmt.Sprintf("%d keeps", status)
	}
	for range 100000 {
		a := c.Next(buf, &req)
		switch a {
		case h1.Wait, h1.Read:
			if len(chunks) == 0 {
				if tc.end == peerCloses {
					must(c.Gone())
				} else {
					must(c.TimedOut())
				}
				continue
			}
			n := copy(buf[c.Filled():], chunks[0])
			if chunks[0] = chunks[0][n:]; chunks[0] == "" {
				chunks = chunks[1:]
			}
			must(c.Received(n))
		case h1.Begin:
			log = append(log, "begin")
			must(c.Began())
		case h1.Head:
			log = append(log, "head")
			if tc.refuseHead != 0 {
				log = append(log, answer(tc.refuseHead))
				continue
			}
			must(c.ReadBody())
		case h1.Continue:
			if tc.failContinue {
				log = append(log, "continue write fails")
				must(c.WriteFailed())
				continue
			}
			log = append(log, "continue")
			must(c.ContinueSent())
		case h1.Request:
			_, err := c.Body(buf)
			must(err)
			log = append(log, "request", answer(tc.answerStatus))
		case h1.Refuse:
			r, err := c.Refused()
			must(err)
			why := string(r.Rule)
			if r.Err != nil {
				why = string(r.Err.Reason)
			}
			if r.HeadParsed {
				why += " after its head"
			}
			log = append(log, fmt.Sprintf("refuse %d %s", r.Status, why), answer(r.Status))
		case h1.Drain, h1.Close:
			return append(log, a.String()+": "+c.Ended().String())
		default:
			t.Fatalf("Next = %v", a)
		}
	}
	t.Fatal("the connection never ended")
	return nil
}

func byteAtATime(chunks []string) []string {
	var out []string
	for _, ch := range chunks {
		for i := range len(ch) {
			out = append(out, ch[i:i+1])
		}
	}
	return out
}

func withTrailing(chunks []string, tail string) []string {
	return append(append([]string(nil), chunks...), tail)
}
