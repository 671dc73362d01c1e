package wire_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"rawmcp/wire"
)

// BenchmarkMemory reports what a server holds for each idle keep-alive
// connection, rawmcp, the net/http reference and the echo floor side by
// side, and for each live session:
//
//	go test -run='^$' -bench=Memory -benchtime=1x -count=5 ./wire/
//
// For the connections each server runs alone in a child process (this test
// binary), warmed by one answered ping. This process then opens 500
// connections that make one ping each and stay idle, and reads the child's
// growth per connection twice. First as the connections left it, with no
// collection since: rss-B/conn is the growth of the resident set, what the
// machine pays, and stack-B/conn that of goroutine stacks, which keep the
// size a request grew them to until a collection shrinks them. Then after
// three collections and a return of free memory to the OS: gc-rss-B/conn,
// gc-heap-B/conn (live heap) and gc-stack-B/conn. B/session is live heap
// per session after initialize, measured in this process.
func BenchmarkMemory(b *testing.B) {
	const conns = 500
	for _, name := range []string{"rawmcp", "nethttp", "echo"} {
		b.Run("idle-conn/server="+name, func(b *testing.B) {
			for range b.N {
				per := idleConnMemory(b, name, conns)
				b.ReportMetric(per.rss, "rss-B/conn")
				b.ReportMetric(per.stacks, "stack-B/conn")
				b.ReportMetric(per.gcRSS, "gc-rss-B/conn")
				b.ReportMetric(per.gcHeap, "gc-heap-B/conn")
				b.ReportMetric(per.gcStacks, "gc-stack-B/conn")
			}
		})
	}
	for _, name := range []string{"rawmcp", "nethttp"} {
		b.Run("flood/server="+name, func(b *testing.B) {
			for range b.N {
				f := floodMemory(b, name)
				b.ReportMetric(float64(f.base)/(1<<20), "base-rss-MiB")
				b.ReportMetric(float64(f.flooded)/(1<<20), "flood-rss-MiB")
				b.ReportMetric(float64(f.after)/(1<<20), "after10s-rss-MiB")
				b.ReportMetric(float64(f.after)/float64(f.base), "after10s/base")
			}
		})
	}
	for _, name := range []string{"rawmcp", "nethttp"} {
		b.Run("session/server="+name, func(b *testing.B) {
			for range b.N {
				b.ReportMetric(sessionMemory(b, name, 1000), "B/session")
			}
		})
	}
}

// memorySnapshot is the live heap and goroutine stacks after GC, and the
// resident set size.
type memorySnapshot struct {
	heap, stacks, rss uint64
}

func takeMemorySnapshot() memorySnapshot {
	// Three collections: stacks shrink by half per cycle while a parked
	// goroutine uses under a quarter of its stack.
	for range 3 {
		runtime.GC()
	}
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memorySnapshot{heap: ms.HeapAlloc, stacks: ms.StackInuse, rss: residentBytes()}
}

func (m memorySnapshot) live() uint64 { return m.heap + m.stacks }

// residentBytes reads the resident set size from /proc/self/statm; 0
// where there is none.
func residentBytes() uint64 {
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(raw))
	if len(fields) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(fields[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// perConn is memory growth per idle connection, in bytes: as held, and
// after collection.
type perConn struct{ rss, stacks, gcRSS, gcHeap, gcStacks float64 }

// idleConnMemory measures a server of the given name in a child process
// with conns idle connections.
func idleConnMemory(tb testing.TB, name string, conns int) perConn {
	tb.Helper()
	spec := memoryChildSpec{Server: name}
	var ping []byte
	if name == "echo" {
		ping, spec.EchoResponse = echoPingExchange(tb)
		spec.EchoRequestLen = len(ping)
	}
	child := startMemoryChild(tb, spec)
	srv := benchServer{name: name, addr: child.Addr, token: child.Token}
	if ping == nil {
		c := newBenchConn(tb, srv.addr)
		ping = srv.ping(benchInitialize(tb, c, srv))
		c.close()
	}
	warm := newBenchConn(tb, srv.addr)
	if err := benchRoundTrip(warm, ping, benchMethods[0]); err != nil {
		tb.Fatalf("%s: warm-up ping: %v", name, err)
	}
	warm.close()
	before := child.snapshot(tb, memoryCollected)
	held := make([]*benchConn, conns)
	for i := range held {
		held[i] = newBenchConn(tb, srv.addr)
		if err := benchRoundTrip(held[i], ping, benchMethods[0]); err != nil {
			tb.Fatalf("%s: ping %d: %v", name, i, err)
		}
	}
	asHeld := child.snapshot(tb, memoryAsHeld)
	collected := child.snapshot(tb, memoryCollected)
	for _, c := range held {
		c.close()
	}
	growth := func(after, before uint64) float64 { return float64(int64(after)-int64(before)) / float64(conns) }
	return perConn{
		rss:      growth(asHeld.rss, before.rss),
		stacks:   growth(asHeld.stacks, before.stacks),
		gcRSS:    growth(collected.rss, before.rss),
		gcHeap:   growth(collected.heap, before.heap),
		gcStacks: growth(collected.stacks, before.stacks),
	}
}

// floodRSS is a server's resident set before a flood, as the flood ended
// and floodSettle later.
type floodRSS struct{ base, flooded, after uint64 }

const (
	floodConns    = 64
	floodRequests = 2000 // per connection
	floodSettle   = 10 * time.Second
)

// floodMemory floods a server alone in a child process, never collecting
// there: floodConns connections at once, their first requests all in
// progress together, then floodRequests pings each one at a time, then all
// of them closed. The resident set is read before (after one
// warm ping), as the last connection closed, and floodSettle later: what
// the server returned of what the flood grew, by itself.
func floodMemory(tb testing.TB, name string) floodRSS {
	tb.Helper()
	child := startMemoryChild(tb, memoryChildSpec{Server: name})
	srv := benchServer{name: name, addr: child.Addr, token: child.Token}
	c := newBenchConn(tb, srv.addr)
	ping := srv.ping(benchInitialize(tb, c, srv))
	if err := benchRoundTrip(c, ping, benchMethods[0]); err != nil {
		tb.Fatalf("%s: warm-up ping: %v", name, err)
	}
	c.close()
	var f floodRSS
	f.base = child.snapshot(tb, memoryAsHeld).rss
	conns := make([]*benchConn, floodConns)
	for i := range conns {
		conns[i] = newBenchConn(tb, srv.addr)
	}
	// Every connection's first request comes in two parts, all the first
	// parts before any last byte, so the server holds floodConns requests
	// in progress at once: the peak the flood's buffers grow to.
	for _, c := range conns {
		if err := c.send(ping[:len(ping)-1]); err != nil {
			tb.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond) // let the server read every first part
	failed := make(chan error, floodConns)
	for _, c := range conns {
		go func() {
			if err := c.send(ping[len(ping)-1:]); err != nil {
				failed <- err
				return
			}
			if r, err := c.read(); err != nil || benchMethods[0].check(r) != nil {
				failed <- fmt.Errorf("first answer: %v", err)
				return
			}
			for range floodRequests {
				if err := benchRoundTrip(c, ping, benchMethods[0]); err != nil {
					failed <- err
					return
				}
			}
			failed <- nil
		}()
	}
	for range conns {
		if err := <-failed; err != nil {
			tb.Fatalf("%s: flood: %v", name, err)
		}
	}
	for _, c := range conns {
		c.close()
	}
	f.flooded = child.snapshot(tb, memoryAsHeld).rss
	time.Sleep(floodSettle)
	f.after = child.snapshot(tb, memoryAsHeld).rss
	return f
}

// echoPingExchange is a ping and rawmcp's answer to it, for the floor to
// count and send back, from a rawmcp in this process.
func echoPingExchange(tb testing.TB) (req, resp []byte) {
	tb.Helper()
	srv, _ := startBenchRawmcp(tb, benchTableConfig(), nil)
	c := newBenchConn(tb, srv.addr)
	req = srv.ping(benchInitialize(tb, c, srv))
	if err := c.send(req); err != nil {
		tb.Fatal(err)
	}
	r, err := c.read()
	if err == nil {
		err = benchMethods[0].check(r)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return req, bytes.Clone(r.raw)
}

// The memory child is this test binary running TestMemoryServerChild: it
// serves, prints a JSON memoryChildAddr line, then answers each command
// line on its stdin (memoryAsHeld, memoryCollected) with a JSON
// memoryReport line, until its stdin closes.
const memoryChildEnv = "RAWMCP_MEMORY_SERVER"

type memoryChildSpec struct {
	Server         string // rawmcp, nethttp or echo
	EchoRequestLen int
	EchoResponse   []byte
}

type memoryChildAddr struct{ Addr, Token string }

type memoryReport struct{ RSS, Heap, Stacks uint64 }

const (
	memoryAsHeld    = "held"      // read memory as it is
	memoryCollected = "collected" // collect and free first
)

type memoryChild struct {
	memoryChildAddr
	in  io.WriteCloser
	out *bufio.Reader
}

func startMemoryChild(tb testing.TB, spec memoryChildSpec) *memoryChild {
	tb.Helper()
	cmd, in, out := startTestChild(tb, "TestMemoryServerChild", memoryChildEnv, spec)
	c := &memoryChild{in: in, out: out}
	tb.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil {
			tb.Errorf("memory child: %v", err)
		}
	})
	line, err := c.out.ReadBytes('\n')
	if err != nil || json.Unmarshal(line, &c.memoryChildAddr) != nil {
		tb.Fatalf("memory child did not start: %q, %v", line, err)
	}
	return c
}

func (c *memoryChild) snapshot(tb testing.TB, command string) memorySnapshot {
	tb.Helper()
	if _, err := io.WriteString(c.in, command+"\n"); err != nil {
		tb.Fatal(err)
	}
	line, err := c.out.ReadBytes('\n')
	var r memoryReport
	if err != nil || json.Unmarshal(line, &r) != nil {
		tb.Fatalf("memory child: %q, %v", line, err)
	}
	return memorySnapshot{heap: r.Heap, stacks: r.Stacks, rss: r.RSS}
}

// TestMemoryServerChild is the child process of the memory benchmark; it
// does nothing in a normal test run.
func TestMemoryServerChild(t *testing.T) {
	raw := os.Getenv(memoryChildEnv)
	if raw == "" {
		t.Skip("only runs as the child process of BenchmarkMemory")
	}
	var spec memoryChildSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		t.Fatal(err)
	}
	var addr memoryChildAddr
	switch spec.Server {
	case "rawmcp":
		srv, _ := startBenchRawmcp(t, benchTableConfig(), func(cfg *wire.Config) {
			cfg.MaxConns = 2 << 10
			cfg.IdleTimeout = time.Minute
		})
		addr = memoryChildAddr{srv.addr, srv.token}
	case "nethttp":
		addr.Addr, addr.Token = startReferenceWith(t, benchTableConfig(), time.Minute)
	case "echo":
		addr.Addr = startEcho(t, spec.EchoRequestLen, spec.EchoResponse, false)
	default:
		t.Fatalf("unknown server %q", spec.Server)
	}
	line, _ := json.Marshal(addr)
	os.Stdout.Write(append(line, '\n'))
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var m memorySnapshot
		switch in.Text() {
		case memoryCollected:
			m = takeMemorySnapshot()
		default:
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			m = memorySnapshot{heap: ms.HeapAlloc, stacks: ms.StackInuse, rss: residentBytes()}
		}
		line, _ := json.Marshal(memoryReport{RSS: m.rss, Heap: m.heap, Stacks: m.stacks})
		os.Stdout.Write(append(line, '\n'))
	}
}

// sessionMemory initializes n sessions and returns the live heap growth
// per session.
func sessionMemory(tb testing.TB, name string, n int) float64 {
	tb.Helper()
	tableCfg := benchTableConfig()
	tableCfg.MaxSessions = 2 * n
	var srv benchServer
	if name == "rawmcp" {
		srv, _ = startBenchRawmcp(tb, tableCfg, nil)
	} else {
		addr, token := startReferenceWith(tb, tableCfg, 2*time.Second)
		srv = benchServer{name: name, addr: addr, token: token}
	}
	c := newBenchConn(tb, srv.addr)
	// One session first, so the connection and its pools are warm.
	benchInitialize(tb, c, srv)
	before := takeMemorySnapshot()
	for range n {
		if err := c.send(srv.initialize()); err != nil {
			tb.Fatal(err)
		}
		if r, err := c.read(); err != nil || r.status != 200 {
			tb.Fatalf("initialize: status %d, %v", r.status, err)
		}
	}
	after := takeMemorySnapshot()
	return float64(int64(after.heap)-int64(before.heap)) / float64(n)
}
