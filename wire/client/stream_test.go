package client

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
)

// scripted starts a listener whose one connection runs script, and
// returns a client for it.
func scripted(t *testing.T, script func(nc net.Conn)) *Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		script(nc)
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return New(ln.Addr().String())
}

// lines renders readable test bytes with CRLF line ends.
func lines(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// pieces reads the request, writes each piece, pausing between them,
// then holds the connection open for hold, or until the client hangs up
// if hold is untilClosed. (Closing with the request unread would reset
// the connection.)
func pieces(hold time.Duration, parts ...string) func(net.Conn) {
	return func(nc net.Conn) {
		nc.Read(make([]byte, 4096))
		for _, p := range parts {
			nc.Write([]byte(p))
			time.Sleep(20 * time.Millisecond)
		}
		if hold == untilClosed {
			io.Copy(io.Discard, nc)
			return
		}
		time.Sleep(hold)
	}
}

// untilClosed holds a scripted connection open until the client closes
// it: a case about a deadline then never races a server that gave up
// first, however slowly a loaded machine runs either side.
const untilClosed time.Duration = -1

// Deadlines of the scripted cases: one the answer must arrive within,
// generous for a loaded machine (a case that ends returns as soon as it
// does), and one a case waits out on purpose, kept short.
const (
	arrives   = 10 * time.Second
	waitedOut = time.Second
)

const sseHead = "HTTP/1.1 200 OK\nContent-Type: text/event-stream\nTransfer-Encoding: chunked\n\n"

func TestReadStream(t *testing.T) {
	firstEvent := func(body []byte) bool { return len(Events(body)) > 0 }
	tests := []struct {
		name     string
		script   func(net.Conn)
		enough   func([]byte) bool
		deadline time.Duration
		body     string
		ended    bool
	}{
		{"a Content-Length body is read to its end",
			pieces(0, lines("HTTP/1.1 200 OK\nContent-Length: 5\n\nhel"), "lo"), nil, arrives, "hello", true},
		{"a 100 Continue is skipped",
			pieces(0, lines("HTTP/1.1 100 Continue\n\nHTTP/1.1 204 No Content\n\n")), nil, arrives, "", true},
		{"a chunked stream held open stops once enough has come",
			pieces(untilClosed, lines(sseHead)+"15\r\n", "id: 1\ndata: {\"a\":1}\n\n\r\n"), firstEvent, arrives, "id: 1\ndata: {\"a\":1}\n\n", false},
		{"a chunked stream that ends is whole",
			pieces(0, lines(sseHead)+"9\r\ndata: x\n\n\r\n0\r\n\r\n"), firstEvent, arrives, "data: x\n\n", true},
		{"a stream held open stops at the deadline with what came",
			pieces(untilClosed, lines(sseHead)+"5\r\n: hi\n\r\n"), nil, waitedOut, ": hi\n", false},
		{"a close-delimited body ends at the close",
			pieces(0, lines("HTTP/1.1 200 OK\n\nall of it")), nil, arrives, "all of it", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := scripted(t, tt.script)
			defer c.Close()
			if err := c.Send([]byte(lines("GET / HTTP/1.1\nHost: x\n\n"))); err != nil {
				t.Fatal(err)
			}
			s, err := c.ReadStream(false, time.Now().Add(tt.deadline), tt.enough)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.body, string(s.Response.Body)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if s.Ended != tt.ended {
				t.Errorf("Ended = %v, want %v", s.Ended, tt.ended)
			}
			if !bytes.HasPrefix(s.Raw, []byte("HTTP/1.1 ")) {
				t.Errorf("Raw %q is not the response's bytes", s.Raw)
			}
		})
	}
}

func TestReadStreamFailsWithoutAHead(t *testing.T) {
	tests := []struct {
		name     string
		script   func(net.Conn)
		deadline time.Duration
		want     error
	}{
		// The server reads the request first: closing with it unread
		// would reset the connection whenever it had arrived, a race.
		{"a close before any byte is ErrClosed", pieces(0), arrives, ErrClosed},
		{"silence is the deadline", pieces(untilClosed), waitedOut, os.ErrDeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := scripted(t, tt.script)
			defer c.Close()
			c.Send([]byte(lines("GET / HTTP/1.1\nHost: x\n\n")))
			_, err := c.ReadStream(false, time.Now().Add(tt.deadline), nil)
			if !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
		})
	}
	t.Run("bytes that are not HTTP/1.1 are a parse error", func(t *testing.T) {
		c := scripted(t, pieces(0, "SSH-2.0-OpenSSH\r\n\r\n"))
		defer c.Close()
		c.Send([]byte(lines("GET / HTTP/1.1\nHost: x\n\n")))
		_, err := c.ReadStream(false, time.Now().Add(arrives), nil)
		var pe *httpparse.Error
		if !errors.As(err, &pe) {
			t.Errorf("error %v, want an *httpparse.Error", err)
		}
	})
}

// TestReadStreamFailsOnABrokenBody: a head that came does not make a
// response whole; a body the server cuts short by closing is an error,
// as Read's is.
func TestReadStreamFailsOnABrokenBody(t *testing.T) {
	c := scripted(t, pieces(0, lines("HTTP/1.1 200 OK\nContent-Length: 5\n\nhel")))
	defer c.Close()
	c.Send([]byte(lines("GET / HTTP/1.1\nHost: x\n\n")))
	_, err := c.ReadStream(false, time.Now().Add(arrives), nil)
	var ae *AnswerError
	if !errors.As(err, &ae) || ae.Err.Reason != httpparse.RespReasonIncompleteBody {
		t.Errorf("error %v, want an AnswerError for a body cut short", err)
	}
}

func TestMoreReadsOnAfterEnough(t *testing.T) {
	c := scripted(t, pieces(0, lines(sseHead)+"9\r\ndata: x\n\n\r\n", "0\r\n\r\n"))
	defer c.Close()
	c.Send([]byte(lines("GET / HTTP/1.1\nHost: x\n\n")))
	s, err := c.ReadStream(false, time.Now().Add(arrives), func(b []byte) bool { return len(b) > 0 })
	if err != nil || s.Ended {
		t.Fatalf("ReadStream: %v, Ended %v", err, s.Ended)
	}
	if err := s.More(time.Now().Add(arrives), nil); err != nil || !s.Ended {
		t.Fatalf("More: %v, Ended %v", err, s.Ended)
	}
	if s.Response.Framing != httpparse.FramingChunked || string(s.Response.Body) != "data: x\n\n" {
		t.Errorf("the ended stream is %v %q", s.Response.Framing, s.Response.Body)
	}
}

// TestMoreReadsOnAfterADeadline: on a stream whose head came, a deadline
// is a quiet moment, not an end: the connection stays, and a later More
// reads what comes after it (DP-08 holds an idle stream this way).
func TestMoreReadsOnAfterADeadline(t *testing.T) {
	second := make(chan struct{})
	c := scripted(t, func(nc net.Conn) {
		nc.Read(make([]byte, 4096))
		nc.Write([]byte(lines(sseHead) + "9\r\ndata: x\n\n\r\n"))
		<-second
		nc.Write([]byte("9\r\ndata: y\n\n\r\n0\r\n\r\n"))
		io.Copy(io.Discard, nc)
	})
	defer c.Close()
	c.Send([]byte(lines("GET / HTTP/1.1\nHost: x\n\n")))
	s, err := c.ReadStream(false, time.Now().Add(arrives), func(b []byte) bool { return len(b) > 0 })
	if err != nil || s.Ended {
		t.Fatalf("ReadStream: %v, Ended %v", err, s.Ended)
	}
	first := len(s.Response.Body)
	if err := s.More(time.Now().Add(50*time.Millisecond), func(b []byte) bool { return len(b) > first }); err != nil || s.Ended {
		t.Fatalf("a quiet stream past its deadline: More = %v, Ended %v; want nil, still open", err, s.Ended)
	}
	close(second)
	if err := s.More(time.Now().Add(arrives), nil); err != nil || !s.Ended {
		t.Fatalf("More after the quiet moment: %v, Ended %v", err, s.Ended)
	}
	if got := string(s.Response.Body); got != "data: x\n\ndata: y\n\n" {
		t.Errorf("body %q, want both events", got)
	}
}

func TestWaitClose(t *testing.T) {
	answer := lines("HTTP/1.1 400 Bad Request\nContent-Length: 0\nConnection: close\n\n")
	second := lines("HTTP/1.1 404 Not Found\nContent-Length: 0\n\n")
	tests := []struct {
		name     string
		script   func(net.Conn)
		deadline time.Duration
		closed   bool
		extra    string
	}{
		{"a server that closes after its answer", pieces(0, answer), arrives, true, ""},
		{"a server that answers a second request", pieces(untilClosed, answer, second), waitedOut, false, second},
		{"a server that keeps the connection", pieces(untilClosed, answer), waitedOut, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := scripted(t, tt.script)
			defer c.Close()
			c.Send([]byte(lines("GET / HTTP/1.1\nHost: x\n\n")))
			if _, err := c.ReadStream(false, time.Now().Add(arrives), nil); err != nil {
				t.Fatal(err)
			}
			closed, extra := c.WaitClose(time.Now().Add(tt.deadline))
			if closed != tt.closed || string(extra) != tt.extra {
				t.Errorf("WaitClose = %v, %q; want %v, %q", closed, extra, tt.closed, tt.extra)
			}
		})
	}
}

func TestFeed(t *testing.T) {
	t.Run("an early answer stops the writing", func(t *testing.T) {
		c := scripted(t, func(nc net.Conn) {
			nc.Read(make([]byte, 100))
			nc.Write([]byte(lines("HTTP/1.1 413 Content Too Large\nContent-Length: 0\nConnection: close\n\n")))
		})
		f := c.Feed(bytes.Repeat([]byte("x"), 1<<20), 1024, time.Millisecond, time.Now().Add(5*time.Second))
		if f.Err != nil || f.Stream == nil || f.Stream.Response.Status != 413 {
			t.Fatalf("Feed = %+v", f)
		}
		if f.Written >= 1<<20 {
			t.Errorf("wrote all %d bytes after the answer", f.Written)
		}
	})
	t.Run("a close ends a trickle", func(t *testing.T) {
		c := scripted(t, func(nc net.Conn) { io.ReadFull(nc, make([]byte, 3)) })
		// The deadline is far past the bound on Elapsed, so a Feed that
		// waited for it instead of the close cannot pass.
		f := c.Feed([]byte("GET / HTTP/1.1\r\n"), 1, 10*time.Millisecond, time.Now().Add(3*arrives))
		if !errors.Is(f.Err, ErrClosed) || f.Written < 3 || f.Elapsed > arrives {
			t.Errorf("Feed = %+v, want ErrClosed soon after 3 bytes", f)
		}
	})
	t.Run("a server that never answers leaves the deadline", func(t *testing.T) {
		c := scripted(t, func(nc net.Conn) { io.Copy(io.Discard, nc) })
		f := c.Feed([]byte("GET / HTTP/1.1\r\n"), 1, 10*time.Millisecond, time.Now().Add(300*time.Millisecond))
		if !errors.Is(f.Err, os.ErrDeadlineExceeded) {
			t.Errorf("Feed error %v, want the deadline", f.Err)
		}
	})
}

func TestChunkedPrefix(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"whole chunks and the last chunk", "3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n", "abcde"},
		{"a chunk still arriving", "3\r\nabc\r\n5\r\nde", "abcde"},
		{"a size line still arriving", "3\r\nabc\r\n5", "abc"},
		{"uppercase hex", "A\r\n0123456789\r\n", "0123456789"},
		{"a size that is no hex stops", "3\r\nabc\r\nzz\r\nxx", "abc"},
		{"a chunk without its CRLF stops after its data", "3\r\nabcXY5\r\n", "abc"},
		{"whitespace after a size stops, as ParseResponse refuses it", "3\r\nabc\r\n2 \r\nde\r\n", "abc"},
		{"a malformed extension stops", "3\r\nabc\r\n2;=\r\nde\r\n", "abc"},
		{"nothing yet", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(ChunkedPrefix([]byte(tt.in))); got != tt.want {
				t.Errorf("ChunkedPrefix(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzChunkedPrefix: for a chunked body ParseResponse accepts, the prefix
// decode of every prefix of it is a prefix of the body, and of the whole
// of it the body itself.
func FuzzChunkedPrefix(f *testing.F) {
	for _, seed := range []string{"3\r\nabc\r\n0\r\n\r\n", "1;a=b\r\nx\r\n0\r\nT: v\r\n\r\n", "0\r\n\r\n", "a\r\n0123456789\r\n0\r\n\r\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, chunked []byte) {
		raw := append([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), chunked...)
		resp, n, err := httpparse.ParseResponse(raw, false, true, httpparse.DefaultResponseLimits())
		if err != nil {
			ChunkedPrefix(chunked) // must not panic
			return
		}
		body := chunked[:n-(len(raw)-len(chunked))]
		for i := 0; i <= len(body); i++ {
			if got := ChunkedPrefix(body[:i]); !bytes.HasPrefix(resp.Body, got) {
				t.Fatalf("prefix %q decodes to %q, not a prefix of %q", body[:i], got, resp.Body)
			}
		}
		if got := ChunkedPrefix(body); !bytes.Equal(got, resp.Body) {
			t.Fatalf("whole body decodes to %q, want %q", got, resp.Body)
		}
	})
}
