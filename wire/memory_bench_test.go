package wire_test

import (
	"bufio"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"rawmcp/wire"
)

// BenchmarkMemory reports what memory a server holds for each idle
// keep-alive connection and for each live session, with rawmcp and the
// net/http reference side by side:
//
//	go test -run='^$' -bench=Memory -benchtime=1x -count=5 ./wire/
//
// B/conn is live heap plus goroutine stacks after GC per idle connection
// that has served one ping, stack-B/conn the stacks alone; the clients run
// in a child process, so none of their memory is counted. rss-B/conn is
// the growth of the resident set, runtime and allocator overhead
// included. B/session is live heap per session after initialize.
func BenchmarkMemory(b *testing.B) {
	const conns = 1000
	for _, name := range []string{"rawmcp", "nethttp"} {
		b.Run("idle-conn/server="+name, func(b *testing.B) {
			srv := startIdleServer(b, name, conns)
			for range b.N {
				per := idleConnMemory(b, srv, conns)
				b.ReportMetric(per.live, "B/conn")
				b.ReportMetric(per.stacks, "stack-B/conn")
				b.ReportMetric(per.rss, "rss-B/conn")
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

// startIdleServer starts the named server with room for conns idle
// connections for longer than a measurement takes.
func startIdleServer(tb testing.TB, name string, conns int) benchServer {
	tb.Helper()
	tableCfg := benchTableConfig()
	if name == "rawmcp" {
		srv, _ := startBenchRawmcp(tb, tableCfg, func(cfg *wire.Config) {
			cfg.MaxConns = 2 * conns
			cfg.IdleTimeout = 30 * time.Second
		})
		return srv
	}
	addr, token := startReferenceWith(tb, tableCfg, 30*time.Second)
	return benchServer{name: "nethttp", addr: addr, token: token}
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

// perConn is memory growth per connection, in bytes: live heap plus
// stacks, the stacks alone, and the resident set.
type perConn struct{ live, stacks, rss float64 }

// idleConnMemory opens conns connections from a child process, each
// making one ping and then idling, and returns the growth per connection.
func idleConnMemory(tb testing.TB, srv benchServer, conns int) perConn {
	tb.Helper()
	c := newBenchConn(tb, srv.addr)
	session := benchInitialize(tb, c, srv)
	c.close()
	before := takeMemorySnapshot()
	stop := startIdleClients(tb, srv, session, conns)
	during := takeMemorySnapshot()
	stop()
	benchEndSession(tb, srv, session)
	growth := func(after, before uint64) float64 { return float64(int64(after)-int64(before)) / float64(conns) }
	return perConn{
		live:   growth(during.live(), before.live()),
		stacks: growth(during.stacks, before.stacks),
		rss:    growth(during.rss, before.rss),
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

// The child process of idleConnMemory: it dials, pings once on each
// connection, says "ready" and holds the connections until its stdin
// closes.
const idleClientsEnv = "RAWMCP_IDLE_CLIENTS"

func startIdleClients(tb testing.TB, srv benchServer, session string, conns int) (stop func()) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestIdleClientsChild$")
	cmd.Env = append(os.Environ(), idleClientsEnv+"="+strings.Join([]string{srv.addr, srv.token, session, strconv.Itoa(conns)}, " "))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		stdin.Close()
		cmd.Wait()
		tb.Fatalf("idle clients did not get ready: %v", err)
	}
	return func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			tb.Errorf("idle clients: %v", err)
		}
	}
}

// TestIdleClientsChild is the child process of the memory benchmark; it
// does nothing in a normal test run.
func TestIdleClientsChild(t *testing.T) {
	spec := os.Getenv(idleClientsEnv)
	if spec == "" {
		t.Skip("only runs as the child process of BenchmarkMemory")
	}
	parts := strings.Fields(spec)
	conns, _ := strconv.Atoi(parts[3])
	srv := benchServer{addr: parts[0], token: parts[1]}
	raw := srv.ping(parts[2])
	held := make([]net.Conn, 0, conns)
	for range conns {
		c, err := dialBench(srv.addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.expect(raw, 200); err != nil {
			t.Fatal(err)
		}
		held = append(held, c.nc)
	}
	os.Stdout.WriteString("ready\n")
	io.Copy(io.Discard, os.Stdin)
	for _, nc := range held {
		nc.Close()
	}
}
