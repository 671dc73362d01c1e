package wire_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"rawmcp/wire"
)

// BenchmarkE2E runs MCP round trips over real loopback sockets against
// rawmcp, the net/http reference and the echo floor in its two forms
// (echo_bench_test.go: echo reads as net.Conn does, echorecv as rawmcp
// does) in the same run:
//
//	go test -run='^$' -bench=E2E -count=5 ./wire/ | tee e2e.txt
//	benchstat e2e.txt
//
// The servers run in this process, pinned to one CPU with GOMAXPROCS=1;
// the load runs in a child process per server, pinned to another CPU, so
// the CPU time of this process in the measured window is the server's
// alone. Each benchmark gives b.N requests to each server, in five rounds
// that rotate which server goes first, so drift in the machine's load
// falls on all alike. A client keeps one request outstanding per
// connection, all connections in one session.
//
// Per server (rawmcp, nethttp, echo, echorecv): X-req/s is throughput, X-cpu-ns/req
// the server's CPU time (user + system, getrusage) per request, X-allocs/req
// and X-B/req its heap allocations. vs-X-req/s is rawmcp's throughput
// divided by X's (higher is better), vs-X-cpu rawmcp's CPU per request
// divided by X's (lower is better). ns/op is left out: an op is one
// request to each server.
//
// -e2e.only=rawmcp runs one server alone, for -cpuprofile and -trace.
func BenchmarkE2E(b *testing.B) {
	clientCPU := pinBenchServers(b)
	// A server's connections idle while the other two take their rounds,
	// which on a busy machine can outlast the default idle timeouts.
	raw, _ := startBenchRawmcp(b, benchTableConfig(), func(cfg *wire.Config) { cfg.IdleTimeout = benchIdle })
	addr, token := startReferenceWith(b, benchTableConfig(), benchIdle)
	ref := benchServer{name: "nethttp", addr: addr, token: token}
	for _, m := range benchMethods {
		for _, conns := range []int{1, 8, 64, 0} {
			name := m.name + "/conns=" + strconv.Itoa(conns)
			if conns == 0 {
				name = m.name + "/newconn"
			}
			b.Run(name, func(b *testing.B) { benchPaired(b, raw, ref, m, conns, clientCPU) })
		}
	}
}

const benchIdle = time.Minute

var e2eOnly = flag.String("e2e.only", "", "BenchmarkE2E measures only this server (rawmcp, nethttp, echo or echorecv), for profiles")

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

// e2eTarget is one server of a paired benchmark, its load process and what
// its rounds measured.
type e2eTarget struct {
	name          string
	load          *loadChild
	requests      int
	wall, cpu     time.Duration
	mallocs, heap uint64
}

// benchPaired measures b.N requests of m on each server. conns == 0 makes
// each request on a new connection that the server closes after the
// answer (Connection: close), one at a time.
func benchPaired(b *testing.B, raw, ref benchServer, m benchMethod, conns, clientCPU int) {
	// rawmcp's answer is what the floor sends back.
	rawReq, rawResp := benchPrepare(b, raw, m, conns == 0)
	refReq, _ := benchPrepare(b, ref, m, conns == 0)
	echoAddr := startEcho(b, len(rawReq), rawResp, false)
	echoRecvAddr := startEcho(b, len(rawReq), rawResp, true)
	var targets []*e2eTarget
	for _, t := range []struct {
		name, addr string
		req        []byte
	}{{"rawmcp", raw.addr, rawReq}, {"nethttp", ref.addr, refReq}, {"echo", echoAddr, rawReq}, {"echorecv", echoRecvAddr, rawReq}} {
		if *e2eOnly != "" && *e2eOnly != t.name {
			continue
		}
		spec := loadSpec{Addr: t.addr, Conns: conns, Request: t.req, ContentType: m.contentType, Mark: m.mark, CPU: clientCPU}
		targets = append(targets, &e2eTarget{name: t.name, load: startLoadChild(b, spec)})
	}
	if len(targets) == 0 {
		b.Fatalf("-e2e.only=%q names no server", *e2eOnly)
	}
	b.ResetTimer()
	rounds := min(b.N, 5)
	for r := range rounds {
		n := b.N / rounds
		if r < b.N%rounds {
			n++
		}
		for i := range targets {
			targets[(r+i)%len(targets)].measure(b, n)
		}
	}
	b.StopTimer()
	reportPaired(b, targets)
}

// benchPrepare opens a session on srv and returns the request of m in it
// and the server's whole answer to it.
func benchPrepare(b *testing.B, srv benchServer, m benchMethod, closeAfter bool) (req, resp []byte) {
	setup := newBenchConn(b, srv.addr)
	session := benchInitialize(b, setup, srv)
	b.Cleanup(func() { benchEndSession(b, srv, session) })
	if closeAfter {
		req = srv.post(session, m.body, [2]string{"Connection", "close"})
	} else {
		req = srv.post(session, m.body)
	}
	c := newBenchConn(b, srv.addr)
	if err := c.send(req); err != nil {
		b.Fatal(err)
	}
	r, err := c.read()
	if err == nil {
		err = m.check(r)
	}
	if err != nil {
		b.Fatalf("%s: %v", srv.name, err)
	}
	return req, bytes.Clone(r.raw)
}

// measure runs one round of n requests. The collection before it keeps
// one server's garbage from being collected in another's window.
func (t *e2eTarget) measure(b *testing.B, n int) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mallocs, heap := ms.Mallocs, ms.TotalAlloc
	cpu := benchProcessCPU()
	start := time.Now()
	if err := t.load.run(n); err != nil {
		b.Fatalf("%s: %v", t.name, err)
	}
	t.wall += time.Since(start)
	t.cpu += benchProcessCPU() - cpu
	runtime.ReadMemStats(&ms)
	t.mallocs += ms.Mallocs - mallocs
	t.heap += ms.TotalAlloc - heap
	t.requests += n
}

func (t *e2eTarget) reqPerSec() float64 { return float64(t.requests) / t.wall.Seconds() }
func (t *e2eTarget) cpuPerReq() float64 { return float64(t.cpu.Nanoseconds()) / float64(t.requests) }

func reportPaired(b *testing.B, targets []*e2eTarget) {
	b.ReportMetric(0, "ns/op")
	var rawmcp *e2eTarget
	for _, t := range targets {
		b.ReportMetric(t.reqPerSec(), t.name+"-req/s")
		b.ReportMetric(t.cpuPerReq(), t.name+"-cpu-ns/req")
		if !strings.HasPrefix(t.name, "echo") {
			b.ReportMetric(float64(t.mallocs)/float64(t.requests), t.name+"-allocs/req")
			b.ReportMetric(float64(t.heap)/float64(t.requests), t.name+"-B/req")
		}
		if t.name == "rawmcp" {
			rawmcp = t
		}
	}
	if rawmcp == nil {
		return
	}
	for _, t := range targets {
		if t != rawmcp {
			b.ReportMetric(rawmcp.reqPerSec()/t.reqPerSec(), "vs-"+t.name+"-req/s")
			b.ReportMetric(rawmcp.cpuPerReq()/t.cpuPerReq(), "vs-"+t.name+"-cpu")
		}
	}
}

// benchProcessCPU is this process's CPU time (user + system).
func benchProcessCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadSpec tells a load process what to send where.
type loadSpec struct {
	Addr string
	// Conns keep-alive connections share each round; 0 dials a new
	// connection per request.
	Conns             int
	Request           []byte
	ContentType, Mark string // what every answer must carry
	CPU               int    // the CPU to pin to; -1: not pinned
}

// The load process is this test binary running TestE2ELoadChild: it dials
// and warms its connections, says "ready", then for each line "n" on its
// stdin makes n round trips and says "done", until its stdin closes.
const loadChildEnv = "RAWMCP_E2E_LOAD"

type loadChild struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startLoadChild(tb testing.TB, spec loadSpec) *loadChild {
	tb.Helper()
	cmd, in, out := startTestChild(tb, "TestE2ELoadChild", loadChildEnv, spec)
	l := &loadChild{cmd: cmd, in: in, out: out}
	tb.Cleanup(l.stop)
	if line, err := l.out.ReadString('\n'); line != "ready\n" {
		tb.Fatalf("load process: %q, %v", line, err)
	}
	return l
}

// startTestChild runs this test binary again as a child that runs only
// the test named, with spec as JSON in the environment variable env; the
// parent talks to it in lines over its stdin and stdout.
func startTestChild(tb testing.TB, test, env string, spec any) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	tb.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env+"="+string(raw))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return cmd, in, bufio.NewReader(out)
}

func (l *loadChild) run(n int) error {
	if _, err := fmt.Fprintf(l.in, "%d\n", n); err != nil {
		return err
	}
	line, err := l.out.ReadString('\n')
	if line != "done\n" {
		return fmt.Errorf("load process: %q, %v", line, err)
	}
	return nil
}

func (l *loadChild) stop() {
	l.in.Close()
	l.cmd.Wait()
}

// TestE2ELoadChild is the load process of BenchmarkE2E; it does nothing in
// a normal test run.
func TestE2ELoadChild(t *testing.T) {
	raw := os.Getenv(loadChildEnv)
	if raw == "" {
		t.Skip("only runs as the load process of BenchmarkE2E")
	}
	var spec loadSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		t.Fatal(err)
	}
	if spec.CPU >= 0 {
		var m cpuMask
		m.set(spec.CPU)
		if err := pinProcess(m); err != nil {
			t.Fatal(err)
		}
		runtime.GOMAXPROCS(1)
	}
	m := benchMethod{contentType: spec.ContentType, mark: spec.Mark}
	clients := make([]*benchConn, spec.Conns)
	for i := range clients {
		c, err := dialBench(spec.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		if err := benchRoundTrip(c, spec.Request, m); err != nil {
			t.Fatalf("warm-up: %v", err)
		}
		clients[i] = c
	}
	os.Stdout.WriteString("ready\n")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		n, err := strconv.Atoi(in.Text())
		if err == nil {
			err = runLoad(spec, clients, m, n)
		}
		if err != nil {
			fmt.Fprintf(os.Stdout, "error: %v\n", err)
			continue
		}
		os.Stdout.WriteString("done\n")
	}
}

// runLoad makes n round trips: shared among the keep-alive clients, each
// with one request outstanding, or one new connection after another.
func runLoad(spec loadSpec, clients []*benchConn, m benchMethod, n int) error {
	if len(clients) == 0 {
		// One client buffer for all connections: the cost per request is
		// then only the dial.
		c := &benchConn{}
		for range n {
			nc, err := net.DialTimeout("tcp", spec.Addr, 5*time.Second)
			if err != nil {
				return err
			}
			c.nc, c.filled, c.consumed = nc, 0, 0
			err = benchRoundTrip(c, spec.Request, m)
			nc.Close()
			if err != nil {
				return err
			}
		}
		return nil
	}
	var next atomic.Int64
	var failure atomic.Pointer[error]
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if err := benchRoundTrip(c, spec.Request, m); err != nil {
					failure.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := failure.Load(); err != nil {
		return *err
	}
	return nil
}

// cpuMask is a CPU set as sched_setaffinity(2) takes it (up to 1024 CPUs).
type cpuMask [16]uint64

func (m *cpuMask) set(cpu int) { m[cpu/64] |= 1 << (cpu % 64) }

func (m *cpuMask) cpus() []int {
	var cpus []int
	for i := range len(m) * 64 {
		if m[i/64]&(1<<(i%64)) != 0 {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

// threadAffinity is the CPU set of the calling thread.
func threadAffinity() (cpuMask, error) {
	var m cpuMask
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m)))
	if e != 0 {
		return m, e
	}
	return m, nil
}

// pinProcess puts every thread of this process on the CPUs of m. A thread
// the runtime starts later inherits the set of the thread that starts it,
// so a second pass catches those started during the first.
func pinProcess(m cpuMask) error {
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		for _, task := range tasks {
			tid, err := strconv.Atoi(task.Name())
			if err != nil {
				continue
			}
			_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m)))
			if e != 0 && !errors.Is(e, syscall.ESRCH) { // ESRCH: the thread has exited
				return e
			}
		}
	}
	return nil
}

// pinBenchServers puts this process, where the servers run, on the first
// CPU it may use with GOMAXPROCS=1 until b ends, and returns the CPU for
// the load processes: the second. With fewer than two CPUs nothing is
// pinned and it returns -1.
func pinBenchServers(b *testing.B) int {
	orig, err := threadAffinity()
	cpus := orig.cpus()
	if err != nil || len(cpus) < 2 {
		b.Logf("servers and load not pinned: CPUs %v, %v", cpus, err)
		return -1
	}
	var server cpuMask
	server.set(cpus[0])
	b.Cleanup(func() {
		pinProcess(orig)
		runtime.SetDefaultGOMAXPROCS()
	})
	if err := pinProcess(server); err != nil {
		b.Logf("servers and load not pinned: %v", err)
		return -1
	}
	runtime.GOMAXPROCS(1)
	return cpus[1]
}
