package wire_test

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
	"rawmcp/state"
	"rawmcp/wire"
)

// Floods: more clients, slower clients or more sessions than the server
// has room for. Each test checks that the excess is refused at once and
// fails closed, that what was accepted still completes correctly, and
// that goroutines and heap return to the baseline afterwards.

// slowloris opens n connections that each send a request head one byte
// every interval, and stop once the server answers; the head, padded to
// 2 KB, would take 2000 intervals to send. It returns when every connection
// has sent its first byte; wait returns what each got, stop closes them
// all from the client's side.
func slowloris(t *testing.T, addr string, n int, interval time.Duration) (wait func() []slowClient, stop func()) {
	t.Helper()
	head := []byte("POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nX-Pad: " + strings.Repeat("x", 2000))
	clients := make([]slowClient, n)
	conns := make([]*net.TCPConn, n)
	var started, done sync.WaitGroup
	started.Add(n)
	for i := range clients {
		nc := dialRaw(t, addr)
		conns[i] = nc
		done.Go(func() {
			clients[i] = trickle(nc, head, interval, started.Done)
		})
	}
	started.Wait()
	wait = func() []slowClient {
		done.Wait()
		return clients
	}
	stop = func() {
		for _, nc := range conns {
			nc.Close()
		}
	}
	return wait, stop
}

// slowClient is what one slowloris connection saw: its responses, any
// bytes after them, whether it got its whole head out, and how long after
// its first byte the server cut it.
type slowClient struct {
	responses []httpparse.Response
	rest      []byte
	wholeHead bool
	cut       time.Duration
	// answered is when the first byte of the server's answer arrived.
	answered time.Time
}

// trickle writes head a byte at a time, waiting interval for an answer
// after each byte, so it stops writing as soon as the server answers
// (writing on would race the server's close into a reset that can
// discard the answer).
func trickle(nc net.Conn, head []byte, interval time.Duration, firstByteSent func()) slowClient {
	var c slowClient
	start := time.Now()
	var got []byte
	buf := make([]byte, 512)
	sent := 0
	for sent < len(head) {
		_, err := nc.Write(head[sent : sent+1])
		if sent == 0 {
			firstByteSent()
		}
		if err != nil {
			break
		}
		sent++
		nc.SetReadDeadline(time.Now().Add(interval))
		if n, _ := nc.Read(buf); n > 0 {
			c.answered = time.Now()
			got = append(got, buf[:n]...)
			break
		}
	}
	more, _ := readRaw(nc, 5*time.Second)
	c.cut = time.Since(start)
	c.wholeHead = sent == len(head)
	c.responses, c.rest = splitResponses(append(got, more...))
	return c
}

// TestResilienceSlowloris: connections that trickle a head, a byte every
// 20 ms, hold nothing a normal client waits for (neither a lock nor, below
// the connection cap, a slot), and each is cut with 408 by a read deadline
// counted from its first byte. Each case waits for events, not for a
// window: the cuts come at a deadline of 1 s that the trickle, 40 s long,
// cannot outlast however late a loaded machine brings them; the normal
// client is served under a deadline of a minute, so its answer comes while
// every slow connection is held, however late it comes.
func TestResilienceSlowloris(t *testing.T) {
	t.Run("H-P08/100 slowloris connections are each cut with 408 by a deadline from their first byte", func(t *testing.T) {
		const readTimeout = time.Second
		srv, _ := startBenchRawmcp(t, state.DefaultConfig(), func(cfg *wire.Config) { cfg.ReadTimeout = readTimeout })
		base := takeBaseline()
		wait, _ := slowloris(t, srv.addr, 100, 20*time.Millisecond)
		peak := takeMemorySnapshot()
		slow := wait()
		for i, c := range slow {
			if diff := cmp.Diff([]int{408}, statusesOf(c.responses)); diff != "" || len(c.rest) != 0 {
				t.Errorf("slow client %d: statuses (-want +got):\n%s\nand %d stray bytes", i, diff, len(c.rest))
				continue
			}
			// A lower bound only: a loaded machine cuts later, never
			// sooner; and the head was not out, so the deadline was not
			// re-armed by the trickle's reads.
			if c.cut < readTimeout || c.wholeHead {
				t.Errorf("slow client %d cut after %v (deadline %v), whole head sent: %v", i, c.cut, readTimeout, c.wholeHead)
			}
		}
		base.check(t, peak)
		if resp := pingOnce(t, srv, ""); !answersPing(resp) {
			t.Errorf("after the flood a ping got %d %q", resp.Status, resp.Body)
		}
	})
	for _, tc := range []struct {
		name     string
		maxConns int
		slow     int
		// normal is the status the normal client gets while the slow
		// connections trickle: served, or 503 because they hold every
		// connection slot.
		normal int
	}{
		{"H-P08/a normal client is served while 100 slowloris connections trickle", 512, 100, 200},
		{"H-P15/slowloris holding every connection slot: a new client gets 503 at once", 40, 40, 503},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := startBenchRawmcp(t, state.DefaultConfig(), func(cfg *wire.Config) {
				cfg.ReadTimeout = time.Minute
				cfg.MaxConns = tc.maxConns
			})
			base := takeBaseline()
			wait, stop := slowloris(t, srv.addr, tc.slow, 20*time.Millisecond)

			// Every slow connection was accepted before the normal one,
			// and the server counts connections in accept order.
			resp := pingOnce(t, srv, "")
			peak := takeMemorySnapshot()
			if resp.Status != tc.normal {
				t.Errorf("the normal client got %d, want %d", resp.Status, tc.normal)
			}
			if tc.normal == 503 {
				if v, _ := resp.Get("Retry-After"); v != "1" {
					t.Errorf("503 Retry-After = %q, want 1", v)
				}
			}
			stop()
			for i, c := range wait() {
				if len(c.responses) != 0 || len(c.rest) != 0 {
					t.Errorf("slow client %d was answered %v before its deadline", i, statusesOf(c.responses))
				}
			}
			base.check(t, peak)
			if resp := pingOnce(t, srv, ""); !answersPing(resp) {
				t.Errorf("after the flood a ping got %d %q", resp.Status, resp.Body)
			}
		})
	}
}

// TestResilienceInFlightFlood holds the profile's 64 requests in
// processing (whole heads answered with 100 Continue, bodies not yet
// sent) and floods the server with
// more: each extra request gets 503 with Retry-After while the 64 are
// provably still unfinished, so nobody waited for them; then the 64
// complete, each correctly.
func TestResilienceInFlightFlood(t *testing.T) {
	const gate, flood = 64, 100
	srv, _ := startBenchRawmcp(t, benchTableConfig(), func(cfg *wire.Config) {
		// Long enough for the flood to pass while the 64 wait for their
		// bodies under the race detector.
		cfg.ReadTimeout = 10 * time.Second
	})
	base := takeBaseline()
	raw := srv.ping("")
	held := make([]*net.TCPConn, gate)
	bodies := make([][]byte, gate)
	for i := range held {
		held[i], bodies[i] = holdInProcessing(t, srv)
	}

	refused := make([]received, flood)
	var wg sync.WaitGroup
	for i := range refused {
		nc := dialRaw(t, srv.addr)
		wg.Go(func() {
			nc.Write(raw)
			refused[i] = readUntilClosed(nc, 5*time.Second)
		})
	}
	wg.Wait()
	peak := takeMemorySnapshot()
	for i, got := range refused {
		if diff := cmp.Diff([]int{503}, statusesOf(got.responses)); diff != "" || !got.closed {
			t.Errorf("flood request %d: statuses (-want +got):\n%s\nclosed: %v", i, diff, got.closed)
			continue
		}
		resp := got.responses[0]
		if v, _ := resp.Get("Retry-After"); v != "1" || !resp.Close {
			t.Errorf("flood request %d: Retry-After %q, Connection: close %v; want 1, true", i, v, resp.Close)
		}
	}

	for i, nc := range held {
		nc.Write(bodies[i])
		nc.CloseWrite()
		got := readUntilClosed(nc, 5*time.Second)
		if len(got.responses) != 1 || !answersPing(got.responses[0]) || len(got.rest) != 0 {
			t.Errorf("held request %d: statuses %v and %d stray bytes, want one correct ping answer", i, statusesOf(got.responses), len(got.rest))
		}
	}
	base.check(t, peak)
	if resp := pingOnce(t, srv, ""); !answersPing(resp) {
		t.Errorf("after the flood a ping got %d", resp.Status)
	}
}

// TestResilienceSessionFlood fills the session table and floods it with
// initializes: every one past capacity fails closed with 503, nobody is
// evicted, and the existing sessions keep working.
func TestResilienceSessionFlood(t *testing.T) {
	const capacity, flood = 8, 50
	srv, _ := startBenchRawmcp(t, state.DefaultConfig(), nil)
	base := takeBaseline()

	// T-P18: of 50 concurrent initializes on an empty table,
	// exactly 8 succeed.
	statuses := make([]int, flood)
	sessions := make([]string, flood)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Go(func() {
			c, err := dialBench(srv.addr)
			if err != nil {
				return
			}
			defer c.close()
			if c.send(srv.initialize()) != nil {
				return
			}
			if r, err := c.read(); err == nil {
				statuses[i], sessions[i] = r.status, string(r.session)
			}
		})
	}
	wg.Wait()
	peak := takeMemorySnapshot()
	count := map[int]int{}
	var live []string
	for i, status := range statuses {
		count[status]++
		if status == 200 {
			live = append(live, sessions[i])
		}
	}
	if diff := cmp.Diff(map[int]int{200: capacity, 503: flood - capacity}, count); diff != "" {
		t.Fatalf("initialize statuses (-want +got):\n%s", diff)
	}

	// Existing sessions are unaffected: each finishes its handshake and
	// is served.
	for i, session := range live {
		c := newBenchConn(t, srv.addr)
		if err := c.expect(srv.initialized(session), 202); err != nil {
			t.Errorf("session %d: initialized: %v", i, err)
		}
		if err := benchRoundTrip(c, srv.resources(session), benchMethods[1]); err != nil {
			t.Errorf("session %d: resources/list: %v", i, err)
		}
		c.close()
	}
	// A full table still refuses, with Retry-After, and evicts nobody.
	c := newBenchConn(t, srv.addr)
	c.send(srv.initialize())
	if r, err := c.read(); err != nil || r.status != 503 {
		t.Errorf("initialize on a full table: status %d, %v; want 503", r.status, err)
	}
	c.close()
	// Ending one session makes room for exactly one more.
	benchEndSession(t, srv, live[0])
	c = newBenchConn(t, srv.addr)
	benchInitialize(t, c, srv)
	c.close()
	for i, session := range live[1:] {
		c := newBenchConn(t, srv.addr)
		if err := benchRoundTrip(c, srv.ping(session), benchMethods[0]); err != nil {
			t.Errorf("session %d after the flood: ping: %v", i+1, err)
		}
		c.close()
	}
	base.check(t, peak)
}
