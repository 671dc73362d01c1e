package wire_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"rawmcp/httpparse"
)

// What every resilience test shares: real loopback sockets, a check that
// the server's goroutines and heap come back to where they were once the
// abuse ends, and a reader that sorts what a client got into whole
// responses and a cut remainder.

// serverBaseline is the goroutine count and heap of the process with the
// server up and idle.
type serverBaseline struct {
	goroutines int
	mem        memorySnapshot
}

func takeBaseline() serverBaseline {
	settleGoroutines(0, 5*time.Second)
	return serverBaseline{goroutines: runtime.NumGoroutine(), mem: takeMemorySnapshot()}
}

// settleGoroutines waits until at most want goroutines remain (want 0:
// until the count has held still for steadySamples polls in a row, so a
// baseline is not taken while a previous test's goroutines still end) and
// returns the count. It polls: the runtime has no event for a goroutine's
// end, and patience only bounds how long it tries.
func settleGoroutines(want int, patience time.Duration) int {
	const steadySamples = 10
	deadline := time.Now().Add(patience)
	last, steady := runtime.NumGoroutine(), 0
	for {
		time.Sleep(10 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n == last {
			steady++
		} else {
			steady = 0
		}
		if want > 0 && n <= want || want == 0 && steady >= steadySamples || time.Now().After(deadline) {
			return n
		}
		last = n
	}
}

// heapSlack is how far above the baseline the live heap may end after a
// flood: the pools, the date cache and the runtime's own tables may keep
// a little, a leak of a connection's buffers would not fit.
const heapSlack = 4 << 20

// check fails the test unless the goroutines return to the baseline
// within a few seconds (connections that were cut drain for at most
// 500 ms) and the live heap returns to within heapSlack; it logs the
// figures either way.
func (b serverBaseline) check(t *testing.T, peak memorySnapshot) {
	t.Helper()
	if n := settleGoroutines(b.goroutines, 5*time.Second); n > b.goroutines {
		var dump strings.Builder
		pprof.Lookup("goroutine").WriteTo(&dump, 1)
		t.Errorf("%d goroutines after the flood, %d before: a leak\n%s", n, b.goroutines, dump.String())
	}
	after := takeMemorySnapshot()
	t.Logf("live heap+stacks: baseline %d KiB, during %d KiB, after %d KiB; RSS: baseline %d KiB, during %d KiB, after %d KiB",
		b.mem.live()>>10, peak.live()>>10, after.live()>>10, b.mem.rss>>10, peak.rss>>10, after.rss>>10)
	if after.heap > b.mem.heap+heapSlack {
		t.Errorf("live heap %d KiB after the flood, %d KiB before: it did not return to the baseline", after.heap>>10, b.mem.heap>>10)
	}
}

// dialRaw opens a loopback connection the test closes when it ends.
func dialRaw(t *testing.T, addr string) *net.TCPConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc.(*net.TCPConn)
}

// received is everything a client read until the server closed: the whole
// responses, and whatever followed the last of them.
type received struct {
	responses []httpparse.Response
	rest      []byte
	closed    bool // the server closed (EOF or reset), not our deadline
}

// readUntilClosed reads until the server closes the connection or patience
// runs out, and splits the bytes into responses.
func readUntilClosed(nc net.Conn, patience time.Duration) received {
	raw, closed := readRaw(nc, patience)
	r := received{closed: closed}
	r.responses, r.rest = splitResponses(raw)
	return r
}

// readRaw reads until the server closes the connection (closed) or
// patience runs out.
func readRaw(nc net.Conn, patience time.Duration) (raw []byte, closed bool) {
	nc.SetReadDeadline(time.Now().Add(patience))
	raw, err := io.ReadAll(nc)
	var ne net.Error
	return raw, !(errors.As(err, &ne) && ne.Timeout())
}

// splitResponses parses whole responses off the front of raw.
func splitResponses(raw []byte) ([]httpparse.Response, []byte) {
	var out []httpparse.Response
	for len(raw) > 0 {
		resp, n, err := httpparse.ParseResponse(raw, false, true, httpparse.DefaultResponseLimits())
		if err != nil {
			return out, raw
		}
		out = append(out, resp)
		raw = raw[n:]
	}
	return out, nil
}

// statusesOf lists the statuses of rs, for diffs.
func statusesOf(rs []httpparse.Response) []int {
	s := []int{}
	for _, r := range rs {
		s = append(s, r.Status)
	}
	return s
}

// requestHead returns the head of a rendered request, up to and including
// its empty line.
func requestHead(raw []byte) []byte {
	return raw[:bytes.Index(raw, []byte("\r\n\r\n"))+4]
}

// answersPing reports whether resp is the correct answer to the rig's ping.
func answersPing(resp httpparse.Response) bool {
	ct, _ := resp.Get("Content-Type")
	return resp.Status == 200 && ct == "application/json" && string(resp.Body) == `{"jsonrpc":"2.0","id":1,"result":{}}`
}

// pingOnce makes one ping on a new connection and returns the response.
func pingOnce(t *testing.T, srv benchServer, session string) httpparse.Response {
	t.Helper()
	nc := dialRaw(t, srv.addr)
	nc.Write(srv.ping(session))
	nc.CloseWrite()
	got := readUntilClosed(nc, 5*time.Second)
	if len(got.responses) != 1 {
		t.Fatalf("ping: %d responses and %d more bytes", len(got.responses), len(got.rest))
	}
	return got.responses[0]
}

// holdInProcessing sends the head of a ping with Expect: 100-continue and
// waits for the 100: the server sends it from inside the request's
// processing (H-P13), so the request then provably holds an in-flight
// place. It returns the connection and the body still to send.
func holdInProcessing(t *testing.T, srv benchServer) (*net.TCPConn, []byte) {
	t.Helper()
	raw := srv.post("", benchPingBody, [2]string{"Expect", "100-continue"})
	head := requestHead(raw)
	nc := dialRaw(t, srv.addr)
	nc.Write(head)
	const interim = "HTTP/1.1 100 Continue\r\n\r\n"
	got := make([]byte, len(interim))
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(nc, got); err != nil || string(got) != interim {
		t.Fatalf("no 100 Continue: %q, %v", got, err)
	}
	return nc, raw[len(head):]
}
