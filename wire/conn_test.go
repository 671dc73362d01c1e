package wire_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
	"rawmcp/wire"
)

// readAll reads from nc until the server closes it (or the deadline), and
// splits what came into responses.
func readAll(t *testing.T, nc net.Conn) ([]*httpparse.Response, []byte) {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	raw, err := io.ReadAll(nc)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the server did not close the connection: %v", err)
		}
	}
	var out []*httpparse.Response
	rest := raw
	for len(rest) > 0 {
		resp, n, err := httpparse.ParseResponse(rest, false, true, httpparse.DefaultResponseLimits())
		if err != nil {
			t.Fatalf("response %d does not parse: %v", len(out), err)
		}
		out = append(out, &resp)
		rest = rest[n:]
	}
	return out, raw
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

func statuses(rs []*httpparse.Response) []int {
	var s []int
	for _, r := range rs {
		s = append(s, r.Status)
	}
	return s
}

// TestConnection checks the connection rules over real loopback sockets:
// what keeps a connection, what closes it, and that bytes after a refused
// request are never parsed as a request.
func TestConnection(t *testing.T) {
	f := startFixture(t, nil)
	alice := f.Tokens["alice"]
	sid := openSession(t, f, "alice")
	ping := func(id string) []byte {
		return post(f, alice, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, inSession(sid)...).Bytes()
	}
	closing := func(b []byte) []byte {
		return bytes.Replace(b, []byte("\r\n\r\n"), []byte("\r\nConnection: close\r\n\r\n"), 1)
	}
	cases := []struct {
		name  string
		input []byte
		want  []int
	}{
		{"H-41/pipelined requests are answered in order",
			concat(ping("1"), ping("2"), closing(ping("3"))), []int{200, 200, 200}},
		{"H-37/Connection: close ends the connection after a 2xx",
			concat(closing(ping("1")), ping("2")), []int{200}},
		{"H-P09/nothing after a refused request is answered",
			concat(ping("1"), []byte("GET /mcp HTTP/1.1\nHost: x\n\n"), ping("2")), []int{200, 400}},
		{"H-26/CL+TE smuggling: the smuggled request is never parsed",
			concat([]byte("POST /mcp HTTP/1.1\r\nHost: "+f.Addr+"\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), ping("2")), []int{400}},
		{"H-P05/duplicate Content-Length closes after 400",
			concat([]byte("POST /mcp HTTP/1.1\r\nHost: "+f.Addr+"\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}"), ping("2")), []int{400}},
		{"H-P07/413 is answered before the body is read, and the body is never parsed",
			concat([]byte("POST /mcp HTTP/1.1\r\nHost: "+f.Addr+"\r\nContent-Length: 16385\r\n\r\n"), ping("1")), []int{413}},
		{"T-P14/an early 4xx closes with the body unread",
			concat(post(f, alice, pingBody, [2]string{"Accept", "text/html"}).Bytes(), ping("2")), []int{406}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nc := dial(t, f.Addr)
			if _, err := nc.Write(tc.input); err != nil {
				t.Fatal(err)
			}
			got, _ := readAll(t, nc)
			if diff := cmp.Diff(tc.want, statuses(got)); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
		})
	}
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestBodyLimit checks H-P07 at the limit and one byte past it, through the
// whole server: a 16 KiB JSON body is answered, 16 KiB + 1 is 413.
func TestBodyLimit(t *testing.T) {
	f := startFixture(t, nil)
	sid := openSession(t, f, "alice")
	const limit = 16 << 10
	body := func(size int) string {
		head := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"pad":"`
		tail := `"}}}`
		return head + strings.Repeat("x", size-len(head)-len(tail)) + tail
	}
	for _, tc := range []struct {
		name string
		size int
		want int
	}{
		{"H-P07/a body of exactly 16 KiB is served", limit, 200},
		{"H-P07/a body one byte past 16 KiB is 413", limit + 1, 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := do(t, f, post(f, f.Tokens["alice"], body(tc.size), inSession(sid)...).Bytes())
			if resp.Status != tc.want {
				t.Errorf("status = %d, want %d", resp.Status, tc.want)
			}
		})
	}
}

// TestDeadlines checks H-P08 with a short read timeout: a request that
// trickles in is cut with 408; an idle connection is closed silently.
// Each case waits for the server's answer or close, never for a time. The
// 408 cases run on a server whose idle timeout is a minute, so a loaded
// machine that brings a request's first byte late cannot turn the case
// into an idle close; the idle case has a server of its own.
func TestDeadlines(t *testing.T) {
	const readTimeout, idleTimeout = 200 * time.Millisecond, 300 * time.Millisecond
	f := startFixture(t, func(c *wire.Config) {
		c.ReadTimeout, c.SSERetry, c.IdleTimeout = readTimeout, 100*time.Millisecond, time.Minute
	})
	idle := startFixture(t, func(c *wire.Config) {
		c.ReadTimeout, c.SSERetry, c.IdleTimeout = readTimeout, 100*time.Millisecond, idleTimeout
	})
	t.Run("H-P08/a head trickling in is cut by the whole-request deadline with 408", func(t *testing.T) {
		// A byte every 10 ms would take 20 s to send this head, and no
		// single pause comes near the deadline: only a deadline counted
		// from the first byte, not re-armed by each read, cuts it before
		// the head is out. The trickle stops at the first byte of the
		// answer, however late a loaded machine brings it.
		head := []byte("GET /mcp HTTP/1.1\r\nHost: " + f.Addr + "\r\nX-Pad: " + strings.Repeat("x", 2000))
		c := trickle(dial(t, f.Addr), head, 10*time.Millisecond, func() {})
		if diff := cmp.Diff([]int{408}, statusesOf(c.responses)); diff != "" || len(c.rest) != 0 {
			t.Errorf("statuses (-want +got):\n%s\nand %d stray bytes", diff, len(c.rest))
		}
		if c.wholeHead || c.cut < readTimeout {
			t.Errorf("cut after %v (deadline %v), whole head sent: %v", c.cut, readTimeout, c.wholeHead)
		}
	})
	t.Run("H-P08/an idle connection is closed without an answer", func(t *testing.T) {
		// Before the dial: the server counts from its accept, which may
		// come before the dial returns here.
		start := time.Now()
		nc := dial(t, idle.Addr)
		got, raw := readAll(t, nc)
		if len(got) != 0 || len(raw) != 0 {
			t.Errorf("idle close sent %q", raw)
		}
		// A lower bound only: a loaded machine closes later, never sooner.
		if waited := time.Since(start); waited < idleTimeout {
			t.Errorf("closed after %v, before the idle timeout %v", waited, idleTimeout)
		}
	})
	t.Run("H-P08/a body that never comes is 408", func(t *testing.T) {
		nc := dial(t, f.Addr)
		req := post(f, f.Tokens["alice"], pingBody).Bytes()
		start := time.Now()
		nc.Write(req[:len(req)-5])
		got, _ := readAll(t, nc)
		if diff := cmp.Diff([]int{408}, statuses(got)); diff != "" {
			t.Errorf("statuses (-want +got):\n%s", diff)
		}
		if waited := time.Since(start); waited < readTimeout {
			t.Errorf("408 after %v, before the read timeout %v", waited, readTimeout)
		}
	})
}

// TestIdleOutlastsRetry is the interop regression found with the
// TypeScript SDK: a client that waits the priming event's retry and then
// reuses its keep-alive connection must find it open. The client here is
// a raw socket, so a close the server sends while it waits cannot go
// unseen: the next request on that same socket must be answered.
func TestIdleOutlastsRetry(t *testing.T) {
	const retry = 200 * time.Millisecond
	f := startFixture(t, func(c *wire.Config) {
		// Idle is well past the retry, so a loaded machine's slow wake-up
		// from the client's wait cannot reach it.
		c.ReadTimeout, c.SSERetry, c.IdleTimeout = 100*time.Millisecond, retry, 3*time.Second
	})
	sid := openSession(t, f, "alice")
	nc := dial(t, f.Addr)
	get := sessionRequest(f, "GET", f.Tokens["alice"], sid).Bytes()
	for i := 0; i < 3; i++ {
		if _, err := nc.Write(get); err != nil {
			t.Fatalf("GET %d after waiting the retry: %v", i, err)
		}
		resp := readOne(t, nc)
		if resp.Status != 200 {
			t.Fatalf("GET %d: status %d", i, resp.Status)
		}
		if !strings.Contains(string(resp.Body), "retry: 200\n") {
			t.Fatalf("GET %d: no retry: 200 in %q", i, resp.Body)
		}
		time.Sleep(retry) // what the client does: it waits the retry it was told
	}
}

func TestNewServerRefusesIdleNotAboveRetry(t *testing.T) {
	cfg := ownConfig(t)
	cfg.IdleTimeout = cfg.SSERetry
	if _, err := wire.NewServer(cfg); err == nil {
		t.Error("NewServer accepted IdleTimeout == SSERetry")
	}
}

// TestExpectContinue checks H-P13: header checks run before 100 is sent;
// 100 comes only when the body will be read.
func TestExpectContinue(t *testing.T) {
	f := startFixture(t, nil)
	sid := openSession(t, f, "alice")
	expect := [2]string{"Expect", "100-continue"}
	t.Run("H-P13/a request that will be read gets 100, then its answer", func(t *testing.T) {
		nc := dial(t, f.Addr)
		req := post(f, f.Tokens["alice"], pingBody, append(inSession(sid), expect)...).Bytes()
		headEnd := bytes.Index(req, []byte("\r\n\r\n")) + 4
		nc.Write(req[:headEnd])
		buf := make([]byte, 64)
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := nc.Read(buf)
		if err != nil || string(buf[:n]) != "HTTP/1.1 100 Continue\r\n\r\n" {
			t.Fatalf("interim answer = %q, %v", buf[:n], err)
		}
		nc.Write(req[headEnd:])
		nc.(*net.TCPConn).CloseWrite()
		got, _ := readAll(t, nc)
		if diff := cmp.Diff([]int{200}, statuses(got)); diff != "" {
			t.Errorf("statuses (-want +got):\n%s", diff)
		}
	})
	t.Run("H-P13/a request refused on its headers gets the refusal at once, no 100", func(t *testing.T) {
		nc := dial(t, f.Addr)
		req := post(f, f.Tokens["alice"], pingBody, expect, [2]string{"Content-Type", "text/plain"}).Bytes()
		nc.Write(req[:bytes.Index(req, []byte("\r\n\r\n"))+4])
		got, _ := readAll(t, nc)
		if diff := cmp.Diff([]int{415}, statuses(got)); diff != "" {
			t.Errorf("statuses (-want +got):\n%s", diff)
		}
	})
	t.Run("H-52/another expectation is 417", func(t *testing.T) {
		resp := do(t, f, post(f, f.Tokens["alice"], pingBody, [2]string{"Expect", "200-ok"}).Bytes())
		if resp.Status != 417 {
			t.Errorf("status = %d, want 417", resp.Status)
		}
	})
}

// TestInFlightGate checks that the 65th request in processing gets 503
// with Retry-After at once, while the 64 in processing are unaffected.
func TestInFlightGate(t *testing.T) {
	const gate = 4
	// The held requests must outlast the test however slowly a loaded
	// machine runs it, so their read deadline is far away.
	const held = 30 * time.Second
	f := startFixture(t, func(c *wire.Config) { c.MaxInFlight = gate; c.ReadTimeout = held })
	sid := openSession(t, f, "alice")
	req := post(f, f.Tokens["alice"], pingBody, inSession(sid)...).Bytes()
	headEnd := bytes.Index(req, []byte("\r\n\r\n")) + 4
	// Each held connection has sent a whole head and part of the body, so
	// its request is in processing while the server waits for the rest.
	holding := make([]net.Conn, gate)
	for i := range holding {
		holding[i] = dial(t, f.Addr)
		holding[i].Write(req[:headEnd+1])
	}
	// The gate is full once the server has read every held head; a loaded
	// machine may take a while to get there, so the test waits for it.
	waitFor(t, "every held request is in processing", func() bool { return wire.InFlight(f.Server) == gate })
	start := time.Now()
	resp := do(t, f, req)
	waited := time.Since(start)
	if resp.Status != 503 {
		t.Fatalf("status = %d, want 503", resp.Status)
	}
	if v, _ := resp.Get("Retry-After"); v != "1" {
		t.Errorf("Retry-After = %q, want 1", v)
	}
	// Waiting for a slot would last until a held request ends: the test
	// releases them only below, so a 503 that waited never comes before
	// their read deadline.
	if waited >= held/2 {
		t.Errorf("the 503 took %v: it must come at once, not after a wait", waited)
	}
	for i, nc := range holding {
		nc.Write(req[headEnd+1:])
		nc.(*net.TCPConn).CloseWrite()
		got, _ := readAll(t, nc)
		if diff := cmp.Diff([]int{200}, statuses(got)); diff != "" {
			t.Errorf("held request %d (-want +got):\n%s", i, diff)
		}
	}
}

// TestListen checks T-06: only 127.0.0.1 is ever bound.
func TestListen(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "[::1]:0", "localhost:0", "127.0.0.2:0", "10.0.0.1:0"} {
		t.Run("T-06/"+addr+" is refused", func(t *testing.T) {
			ln, err := wire.Listen(addr)
			if !errors.Is(err, wire.ErrNotLoopback) {
				if ln != nil {
					ln.Close()
				}
				t.Errorf("Listen(%q) error = %v, want ErrNotLoopback", addr, err)
			}
		})
	}
	t.Run("T-06/127.0.0.1:0 is bound", func(t *testing.T) {
		ln, err := wire.Listen("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		if ip := ln.Addr().(*net.TCPAddr).IP; !ip.Equal(net.IPv4(127, 0, 0, 1)) {
			t.Errorf("bound to %v", ip)
		}
	})
}

// TestKeepAliveReceive checks the socket's receive (socket.receive):
// after answering, a keep-alive connection waits for its next request in
// the poller, which forgets on each wait's entry that the socket became
// readable, so whatever comes after an answer, even before the wait
// began, must still be seen at once: the next request, the rest of one
// split across two writes, the client's half-close. The idle
// timeout is a minute, so a connection left waiting for an event that
// never comes fails readAll's 5 s deadline instead of closing as idle.
func TestKeepAliveReceive(t *testing.T) {
	f := startFixture(t, func(c *wire.Config) { c.IdleTimeout = time.Minute })
	sid := openSession(t, f, "alice")
	ping := post(f, f.Tokens["alice"], pingBody, inSession(sid)...).Bytes()
	closing := bytes.Replace(ping, []byte("\r\n\r\n"), []byte("\r\nConnection: close\r\n\r\n"), 1)
	headEnd := bytes.Index(ping, []byte("\r\n\r\n")) + 4
	type write struct {
		bytes     []byte
		halfClose bool // after the bytes
		answered  bool // wait for one answer before the next write
		headOnly  bool // the bytes are a head: wait until the server reads it
	}
	cases := []struct {
		name   string
		writes []write
		want   []int
	}{
		{"RFC 9112 §9.3/requests each sent after the last answer are answered on the kept connection",
			[]write{{ping, false, true, false}, {ping, false, true, false}, {ping, false, true, false}, {closing, false, false, false}},
			[]int{200, 200, 200, 200}},
		{"a request and the half-close right after it: answered, then closed at once",
			[]write{{ping, false, true, false}, {ping, true, false, false}},
			[]int{200, 200}},
		{"a half-close alone after an answer closes at once",
			[]write{{ping, false, true, false}, {nil, true, false, false}},
			[]int{200}},
		{"H-41/a request split across writes is answered, and the whole one after it",
			[]write{{ping[:headEnd], false, false, true}, {ping[headEnd:], false, true, false}, {closing, false, false, false}},
			[]int{200, 200}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nc := dial(t, f.Addr)
			var got []int
			for i, w := range tc.writes {
				if i > 0 && tc.writes[i-1].headOnly {
					// The server has the head in processing and now waits
					// for the body.
					waitFor(t, "the head is in processing", func() bool { return wire.InFlight(f.Server) == 1 })
				}
				if _, err := nc.Write(w.bytes); err != nil {
					t.Fatal(err)
				}
				if w.halfClose {
					nc.(*net.TCPConn).CloseWrite()
				}
				if w.answered {
					got = append(got, readOne(t, nc).Status)
				}
			}
			rest, _ := readAll(t, nc)
			got = append(got, statuses(rest)...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
		})
	}
}

// readOne reads one response from nc, and no byte after it.
func readOne(t *testing.T, nc net.Conn) *httpparse.Response {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var buf []byte
	one := make([]byte, 1)
	for {
		resp, _, err := httpparse.ParseResponse(buf, false, false, httpparse.DefaultResponseLimits())
		if err == nil {
			return &resp
		}
		if err != httpparse.ErrNeedMore {
			t.Fatalf("the answer does not parse: %v", err)
		}
		if _, err := nc.Read(one); err != nil {
			t.Fatalf("reading the answer: %v", err)
		}
		buf = append(buf, one[0])
	}
}

// waitFor polls cond until it holds, for state the server exposes no
// event for. The limit only fails the test: it is far past anything a
// loaded machine needs, and nothing passes because it ran out.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s, and still not: %s", what)
		}
	}
}
