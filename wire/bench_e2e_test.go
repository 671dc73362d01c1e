package wire_test

import (
	"bytes"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkE2E runs MCP round trips over real loopback sockets against
// rawmcp and the net/http reference in the same run, so their figures
// share the machine's state. One op is one request answered and checked.
// Names end in /server=rawmcp and /server=nethttp for
//
//	go test -run='^$' -bench=E2E -benchmem -count=5 ./wire/ | tee e2e.txt
//	benchstat -col /server e2e.txt
//
// cpu-ns/op is the process's user+system CPU time per request, client
// included: both servers are measured with the same client, so the
// difference is the servers'. The client allocates nothing per round trip,
// so B/op and allocs/op are the server's.
func BenchmarkE2E(b *testing.B) {
	servers := benchServers(b)
	for _, m := range benchMethods {
		for _, conns := range []int{1, 8, 64} {
			for _, srv := range servers {
				b.Run(m.name+"/conns="+strconv.Itoa(conns)+"/server="+srv.name, func(b *testing.B) {
					benchKeepAlive(b, srv, m, conns)
				})
			}
		}
		for _, srv := range servers {
			b.Run(m.name+"/newconn/server="+srv.name, func(b *testing.B) {
				benchNewConnections(b, srv, m)
			})
		}
	}
}

// benchMethod is one request kind of the benchmarks and the answer it must
// get.
type benchMethod struct {
	name        string
	body        string
	contentType string
	// mark is bytes every correct answer contains: the result member.
	mark string
}

var benchMethods = []benchMethod{
	{"ping", benchPingBody, "application/json", `"result":{}`},
	{"resources", benchResourcesBody, "text/event-stream", `"uri":"kb://tenant/acme"`},
}

// check verifies one answer without allocating.
func (m benchMethod) check(r benchResponse) error {
	if r.status != 200 || string(r.contentType) != m.contentType || !bytes.Contains(r.body, []byte(m.mark)) {
		return errBenchAnswer
	}
	return nil
}

// benchKeepAlive shares b.N requests among conns keep-alive connections,
// each with one request outstanding, all in one session.
func benchKeepAlive(b *testing.B, srv benchServer, m benchMethod, conns int) {
	setup := newBenchConn(b, srv.addr)
	session := benchInitialize(b, setup, srv)
	defer benchEndSession(b, srv, session)
	raw := srv.post(session, m.body)
	clients := make([]*benchConn, conns)
	for i := range clients {
		clients[i] = newBenchConn(b, srv.addr)
		if err := benchRoundTrip(clients[i], raw, m); err != nil {
			b.Fatalf("%s: warm-up: %v", srv.name, err)
		}
	}
	var next atomic.Int64
	var failure atomic.Pointer[error]
	var wg sync.WaitGroup
	cpu := startBenchCPU()
	b.ReportAllocs()
	b.ResetTimer()
	for _, c := range clients {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if err := benchRoundTrip(c, raw, m); err != nil {
					failed := err
					failure.CompareAndSwap(nil, &failed)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	cpu.report(b)
	if err := failure.Load(); err != nil {
		b.Fatalf("%s: %v", srv.name, *err)
	}
}

// benchNewConnections makes each request on a connection of its own,
// dialled for it and closed by the server after the answer
// (Connection: close), one at a time. B/op and allocs/op include the
// dial, the accept and the closes (about 30 allocations between them,
// the same for both servers).
func benchNewConnections(b *testing.B, srv benchServer, m benchMethod) {
	setup := newBenchConn(b, srv.addr)
	session := benchInitialize(b, setup, srv)
	defer benchEndSession(b, srv, session)
	raw := srv.post(session, m.body, [2]string{"Connection", "close"})
	// One client buffer for all connections: the client's cost per op is
	// then only its dial.
	c := &benchConn{}
	cpu := startBenchCPU()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		nc, err := net.DialTimeout("tcp", srv.addr, 5*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		c.nc, c.filled, c.consumed = nc, 0, 0
		err = benchRoundTrip(c, raw, m)
		nc.Close()
		if err != nil {
			b.Fatalf("%s: %v", srv.name, err)
		}
	}
	b.StopTimer()
	cpu.report(b)
}

func benchRoundTrip(c *benchConn, raw []byte, m benchMethod) error {
	if err := c.send(raw); err != nil {
		return err
	}
	r, err := c.read()
	if err != nil {
		return err
	}
	return m.check(r)
}

// benchCPU reads the process's CPU time (user + system).
type benchCPU struct{ start time.Duration }

func startBenchCPU() benchCPU { return benchCPU{benchProcessCPU()} }

func (c benchCPU) report(b *testing.B) {
	b.ReportMetric(float64(benchProcessCPU()-c.start)/float64(b.N), "cpu-ns/op")
}

func benchProcessCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
