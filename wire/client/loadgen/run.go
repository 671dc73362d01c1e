package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"rawmcp/wire/client"
	"sync"
	"sync/atomic"
	"time"

	"rawmcp/wire/jsonrpc"
)

// Config is one bench run.
type Config struct {
	Target   Target
	Token    string // bearer token; "" sends no Authorization
	Conns    int    // keep-alive connections, each with one request outstanding
	Sessions int    // sessions the connections share, round robin
	Method   Method
	// Requests, if positive, is how many requests the run makes in all;
	// otherwise it runs for Duration.
	Requests int
	Duration time.Duration
	// Timeout bounds each round trip.
	Timeout time.Duration
	// Progress, if set, gets a line every ProgressEvery while the run
	// lasts.
	Progress      io.Writer
	ProgressEvery time.Duration
}

// ErrConfig reports a Config that cannot run.
var ErrConfig = errors.New("loadgen: conns and sessions must be positive, sessions at most conns, and one of requests and duration positive")

// Run initializes the sessions, runs the load and ends the sessions. It
// stops early, with what it measured so far, when ctx ends. It fails only
// when the run cannot start: a bad Config or a refused handshake.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Conns <= 0 || cfg.Sessions <= 0 || cfg.Sessions > cfg.Conns || cfg.Requests <= 0 && cfg.Duration <= 0 {
		return Result{}, ErrConfig
	}
	r := newRequester(cfg.Target, cfg.Token)
	sessions, err := r.openSessions(cfg)
	if err != nil {
		return Result{}, err
	}
	defer r.endSessions(cfg, sessions)

	b := &bench{cfg: cfg, requester: r, budget: int64(cfg.Requests)}
	workers := make([]*worker, cfg.Conns)
	for i := range workers {
		workers[i] = &worker{b: b, session: sessions[i%len(sessions)], client: r.client(cfg.Timeout)}
	}
	// The measured window and the -duration deadline start at the same
	// instant, so requests/s is never taken over a shorter window than
	// the run had.
	start := time.Now()
	if cfg.Requests <= 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, start.Add(cfg.Duration))
		defer cancel()
	}
	stopProgress := b.reportProgress(start)
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() { w.run(ctx) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopProgress()

	for _, w := range workers {
		w.client.Close()
	}
	return b.result(workers, elapsed), nil
}

// openSessions initializes cfg.Sessions sessions; if one is refused, it
// ends those already made and fails.
func (r *requester) openSessions(cfg Config) ([]*session, error) {
	c := r.client(cfg.Timeout)
	defer c.Close()
	var sessions []*session
	for range cfg.Sessions {
		id, version, err := r.handshake(c)
		if err != nil {
			r.endSessions(cfg, sessions)
			return nil, err
		}
		sessions = append(sessions, &session{id: id, version: version})
	}
	return sessions, nil
}

// endSessions deletes the sessions on a connection of its own: the one
// they were opened on has likely idled out during the run.
func (r *requester) endSessions(cfg Config, sessions []*session) {
	c := r.client(cfg.Timeout)
	defer c.Close()
	for _, s := range sessions {
		id, version, _ := s.current()
		r.end(c, id, version)
	}
}

// requester renders the requests of a run.
type requester struct {
	target Target
	base   client.MCP // the fields every request carries, rendered once
}

// newRequester is the requester for target with token ("" sends no
// Authorization).
func newRequester(target Target, token string) *requester {
	base := client.MCP{Host: target.Host, Path: target.Path, UserAgent: "rawmcp-bench/" + client.Version}
	if token != "" {
		base.Authorization = "Bearer " + token
	}
	return &requester{target: target, base: base}
}

func (r *requester) client(timeout time.Duration) *client.Client {
	c := client.New(r.target.Dial)
	if timeout > 0 {
		c.Timeout = timeout
	}
	return c
}

// mcp is what the run's requests carry (client.MCP: the fields of a
// 2025-11-25 client); MCP-Protocol-Version is sent once a version was
// negotiated.
func (r *requester) mcp(session, version string) client.MCP {
	m := r.base
	m.Session, m.Version = session, version
	return m
}

func (r *requester) post(session, version string, body []byte) []byte {
	return r.mcp(session, version).Post(body).Bytes()
}

// bench is the state the connections of a run share.
type bench struct {
	cfg       Config
	requester *requester
	// budget counts down the requests left when the run is by count.
	budget int64
	// done and failed count answered requests for the progress line.
	done, failed atomic.Int64
}

// take claims the next request of the budget.
func (b *bench) take(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	if b.cfg.Requests <= 0 {
		return true
	}
	return atomic.AddInt64(&b.budget, -1) >= 0
}

// worker is one keep-alive connection and what it measured.
type worker struct {
	b       *bench
	session *session
	client  *client.Client
	nextID  int64

	latency  histogram
	requests int64
	errors   map[Fault]int64
	renewed  int64
	redials  int64
	dialled  bool
}

func (w *worker) run(ctx context.Context) {
	for w.b.take(ctx) {
		fault := w.roundTrip()
		w.requests++
		w.b.done.Add(1)
		if fault != "" {
			if w.errors == nil {
				w.errors = map[Fault]int64{}
			}
			w.errors[fault]++
			w.b.failed.Add(1)
		}
	}
}

// roundTrip makes one request and checks the answer; a 404 for the
// session initializes a new one (Transports §2.5 item 4) and retries once.
func (w *worker) roundTrip() Fault {
	for attempt := 0; ; attempt++ {
		id, version, generation := w.session.current()
		w.nextID++
		reqID := jsonrpc.IntID(w.nextID)
		raw := w.b.requester.post(id, version, jsonrpc.AppendRequest(nil, reqID, w.b.cfg.Method.rpcName(), nil))
		if w.client.Closed() && w.dialled {
			w.redials++
		}
		w.dialled = true
		start := time.Now()
		resp, err := w.client.Do(raw, false)
		elapsed := time.Since(start)
		if err != nil {
			// Whatever broke, the next request starts on a new
			// connection: a half-written request must not be followed
			// by another on the same one.
			w.client.Close()
			return faultOf(err)
		}
		if !isSessionGone(resp, id) {
			w.latency.record(elapsed)
			return checkAnswer(resp, w.b.cfg.Method, reqID)
		}
		if attempt > 0 {
			return FaultSessionLost
		}
		renewed, err := w.session.renew(generation, func() (string, string, error) { return w.b.requester.handshake(w.client) })
		if err != nil {
			return FaultSessionLost
		}
		if renewed {
			w.renewed++
		}
	}
}

// reportProgress writes a line every ProgressEvery until stopped.
func (b *bench) reportProgress(start time.Time) (stop func()) {
	if b.cfg.Progress == nil || b.cfg.ProgressEvery <= 0 {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(b.cfg.ProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case now := <-tick.C:
				elapsed := now.Sub(start)
				done := b.done.Load()
				fmt.Fprintf(b.cfg.Progress, "bench: %5.1fs %10d requests %10.0f req/s %6d errors\n",
					elapsed.Seconds(), done, float64(done)/elapsed.Seconds(), b.failed.Load())
			}
		}
	})
	return func() {
		close(quit)
		wg.Wait()
	}
}

// result merges what the workers measured.
func (b *bench) result(workers []*worker, elapsed time.Duration) Result {
	res := Result{
		URL:      "http://" + b.cfg.Target.Host + pathOnly(b.cfg.Target.Path),
		Method:   string(b.cfg.Method),
		Conns:    b.cfg.Conns,
		Sessions: b.cfg.Sessions,
		Seconds:  elapsed.Seconds(),
	}
	var all histogram
	for _, w := range workers {
		all.merge(&w.latency)
		res.Requests += w.requests
		res.SessionsRenewed += w.renewed
		res.Reconnects += w.redials
		for fault, n := range w.errors {
			if res.Errors == nil {
				res.Errors = map[Fault]int64{}
			}
			res.Errors[fault] += n
			res.Failed += n
		}
	}
	if res.Seconds > 0 {
		res.RequestsPerSecond = float64(res.Requests) / res.Seconds
	}
	res.Latency = Latency{
		P50: millis(all.percentile(50)),
		P90: millis(all.percentile(90)),
		P99: millis(all.percentile(99)),
		Max: millis(all.max),
	}
	return res
}
