package probe

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"rawmcp/wire/client"
)

// Options configure a run.
type Options struct {
	// Token is a valid token for the target ("" for a target without
	// authorization); Token2 is a second principal's.
	Token, Token2 string
	// Named are the tokens of named kinds (NamedKinds): kind → token.
	Named map[string]string
	// Only and Skip select checks by id or group code (ParseIDs). PRE-01
	// always runs: every other check depends on it.
	Only, Skip []string
	// Strict makes hardening not met a fail.
	Strict bool
	// Timeout bounds each exchange; 0 means 5 s.
	Timeout time.Duration
	// Trace, if set, receives every exchange curl -v style, redacted,
	// one check's block at a time.
	Trace io.Writer
	// Concurrency is how many checks run at once; 0 means 4.
	Concurrency int
	// Sessions is how many sessions the run may hold at once; 0 means 6,
	// under rawmcp serve's default of 8 live sessions.
	Sessions int
	// RootCAs verify an https target; nil means the system roots
	// (rawmcp probe -cacert adds its PEM file to them).
	RootCAs *x509.CertPool
	// Slow runs the checks that hold a stream for minutes (DP-08).
	Slow bool
}

// ErrNotMCP reports a target where PRE-01 failed: no MCP endpoint at the
// URL, or the token was refused. The report's PRE-01 result says which.
var ErrNotMCP = errors.New("probe: the target is not an MCP endpoint that accepts the token (PRE-01)")

// Report is the outcome of a run.
type Report struct {
	Target          string
	Reached         *Reached        // nil when the target could not be reached
	Server          json.RawMessage // serverInfo from initialize
	ProtocolVersion string          // the version initialize negotiated
	Started         time.Time
	Duration        time.Duration
	Results         []Result // in catalogue order
}

// Result is one check's outcome and its evidence.
type Result struct {
	Check   Check
	Verdict Verdict
	Reason  string // one line: why the verdict
	// Expected and Actual are the evidence where the verdict rests on an
	// answer: "403" and "200 text/event-stream with a result for
	// Origin: http://evil.example"; "" where the check has none to show.
	Expected, Actual string
	Exchanges        []Exchange
}

// Counts is the number of results per verdict, every verdict present.
func (r *Report) Counts() map[Verdict]int {
	counts := make(map[Verdict]int, len(Verdicts))
	for _, v := range Verdicts {
		counts[v] = 0
	}
	for _, res := range r.Results {
		counts[res.Verdict]++
	}
	return counts
}

// MustIDs returns the ids of the checks at level MUST with verdict v.
func (r *Report) MustIDs(v Verdict) []string {
	var ids []string
	for _, res := range r.Results {
		if res.Check.Level == Must && res.Verdict == v {
			ids = append(ids, res.Check.ID)
		}
	}
	return ids
}

// prober is one run's shared state.
type prober struct {
	target  Target
	opts    Options
	dialer  *client.Dialer // nil: plain TCP
	secrets *client.Redactor
	tracer  client.Tracer
	traceMu sync.Mutex
	slots   *budget
	markers markers

	// What the preflight learned.
	auth        bool   // the target refuses a request without a token
	version     string // negotiated protocol version
	sampleID    string // a session id the target issued ("" if none)
	server      json.RawMessage
	listMethods []string // list methods the server declares, e.g. "resources/list"

	mu       sync.Mutex
	finished []*Result // every check done so far, for the scans
}

func (p *prober) timeout() time.Duration {
	if p.opts.Timeout <= 0 {
		return 5 * time.Second
	}
	return p.opts.Timeout
}

// authorization is the Authorization value for the run's token.
func (p *prober) authorization() string {
	if p.opts.Token == "" {
		return ""
	}
	return "Bearer " + p.opts.Token
}

// checkTimeout bounds one check, cleanup aside: the slowest (LF-07's
// trickle, SE-09's 64 initializes against a slow target) stay well under.
const checkTimeout = 45 * time.Second

// Run probes target with the selected checks and returns the report. It
// fails with ErrNotMCP when PRE-01 fails (the report then holds PRE-01's
// result), and with an *IDError for a selection naming no check.
func Run(ctx context.Context, target Target, opts Options) (*Report, error) {
	selected, err := Select(opts.Only, opts.Skip)
	if err != nil {
		return nil, err
	}
	p, rep, err := start(ctx, target, opts)
	if err != nil {
		return rep, err
	}

	results := make(map[string]*Result, len(selected))
	for _, ph := range []phase{phaseConcurrent, phaseAlone, phaseScan, phaseEchoScan} {
		var batch []*Check
		for _, c := range selected {
			if c.phase == ph {
				batch = append(batch, c)
			}
		}
		for id, res := range p.runAll(ctx, batch) {
			results[id] = res
		}
	}
	for _, c := range selected {
		rep.Results = append(rep.Results, *results[c.ID])
	}
	rep.Duration = time.Since(rep.Started)
	return rep, nil
}

// start prepares a run's prober and runs what every run begins with:
// reaching the target and PRE-01. The report holds their results; the
// error is ErrNotMCP when either failed.
func start(ctx context.Context, target Target, opts Options) (*prober, *Report, error) {
	p := &prober{target: target, opts: opts, dialer: target.dialer(opts.RootCAs), secrets: &client.Redactor{}, markers: newMarkers()}
	p.tracer = client.Tracer{Secrets: p.secrets}
	if target.Scheme != "https" && !target.Loopback && len(p.tokens()) > 0 {
		return nil, nil, ErrCleartextToken
	}
	for _, tok := range p.tokens() {
		p.secrets.AddToken(tok)
	}
	sessions := opts.Sessions
	if sessions <= 0 {
		sessions = 6
	}
	p.slots = newBudget(sessions)
	rep := &Report{Target: target.URL, Started: time.Now()}

	reached, failed := p.reach()
	if failed != nil {
		p.finish(failed, nil)
		rep.Results = append(rep.Results, *failed)
		rep.Duration = time.Since(rep.Started)
		return nil, rep, ErrNotMCP
	}
	rep.Reached = reached
	pre := p.runCheck(ctx, preflight)
	reached.announced(pre)
	rep.Results = append(rep.Results, *pre)
	if pre.Verdict != Pass {
		rep.Duration = time.Since(rep.Started)
		return nil, rep, ErrNotMCP
	}
	rep.Server, rep.ProtocolVersion = p.server, p.version
	return p, rep, nil
}

// tokens are the run's real tokens: what must never come back.
func (p *prober) tokens() []string {
	var out []string
	for _, tok := range []string{p.opts.Token, p.opts.Token2} {
		if tok != "" {
			out = append(out, tok)
		}
	}
	for _, kind := range NamedKinds {
		if tok := p.opts.Named[kind]; tok != "" {
			out = append(out, tok)
		}
	}
	return out
}

// runAll runs checks concurrently, Options.Concurrency at a time, each
// once its sessions fit the budget.
func (p *prober) runAll(ctx context.Context, checks []*Check) map[string]*Result {
	workers := p.opts.Concurrency
	if workers <= 0 {
		workers = 4
	}
	queue := make(chan *Check)
	var mu sync.Mutex
	out := make(map[string]*Result, len(checks))
	var wg sync.WaitGroup
	for range min(workers, max(len(checks), 1)) {
		wg.Go(func() {
			for c := range queue {
				res := p.runCheck(ctx, c)
				mu.Lock()
				out[c.ID] = res
				mu.Unlock()
			}
		})
	}
	for _, c := range checks {
		queue <- c
	}
	close(queue)
	wg.Wait()
	return out
}

// runCheck runs one check: its needs first, then its run function within
// the budget and time bound, then the cleanup of its sessions.
func (p *prober) runCheck(ctx context.Context, c *Check) *Result {
	res := &Result{Check: *c}
	if missing := p.missing(c.Needs); missing != "" {
		res.Verdict, res.Reason = Skip, "needs "+missing
		p.finish(res, nil)
		return res
	}
	p.slots.acquire(c.Sessions)
	defer p.slots.release(c.Sessions)
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	t := &checkRun{ctx: cctx, p: p, check: c}
	o := c.run(t)
	cancel()
	// The sessions are deleted even when the run was interrupted.
	t.ctx = context.Background()
	t.cleanup()
	res.Verdict, res.Reason, res.Exchanges = o.verdict, o.reason, t.exchanges
	res.Expected, res.Actual = o.expected, o.actual
	p.finish(res, t)
	return res
}

// missing names the options a check needs that the run lacks.
func (p *prober) missing(n Need) string {
	var parts []string
	if n&NeedToken != 0 && p.opts.Token == "" {
		parts = append(parts, "-token")
	}
	if n&NeedToken2 != 0 && p.opts.Token2 == "" {
		parts = append(parts, "-token2")
	}
	if n&NeedNamed != 0 && len(p.opts.Named) == 0 {
		parts = append(parts, "-tokens")
	}
	if len(parts) == 0 {
		return ""
	}
	s := parts[0]
	for _, part := range parts[1:] {
		s += " and " + part
	}
	return s
}

// finish keeps a result for the scans and writes its trace block.
func (p *prober) finish(res *Result, t *checkRun) {
	p.mu.Lock()
	p.finished = append(p.finished, res)
	p.mu.Unlock()
	if p.opts.Trace == nil {
		return
	}
	p.traceMu.Lock()
	defer p.traceMu.Unlock()
	if t != nil {
		io.WriteString(p.opts.Trace, t.trace.String())
	}
	line := "= " + res.Check.ID + " " + string(res.Verdict)
	if res.Reason != "" {
		line += ": " + p.secrets.Redact(res.Reason)
	}
	if res.Expected != "" || res.Actual != "" {
		line += "\n  expected: " + p.secrets.Redact(res.Expected) + "\n    actual: " + p.secrets.Redact(res.Actual)
	}
	io.WriteString(p.opts.Trace, line+"\n\n")
}

// earlier returns the results finished before the call, for a scan.
func (p *prober) earlier() []*Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*Result(nil), p.finished...)
}

// budget is a weighted semaphore of session slots.
type budget struct {
	mu   sync.Mutex
	cond *sync.Cond
	free int
	size int
}

func newBudget(n int) *budget {
	b := &budget{free: n, size: n}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *budget) acquire(n int) {
	n = min(n, b.size)
	b.mu.Lock()
	for b.free < n {
		b.cond.Wait()
	}
	b.free -= n
	b.mu.Unlock()
}

func (b *budget) release(n int) {
	n = min(n, b.size)
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// markers are the run's random values for EH-01, one per place a server
// might echo a request byte, so a leak says where it came from.
type markers struct {
	host, origin, version, session, token, query, name, body string
}

func newMarkers() markers {
	m := func(prefix string) string {
		b := make([]byte, 8)
		rand.Read(b)
		return prefix + hex.EncodeToString(b)
	}
	return markers{host: m("h"), origin: m("o"), version: m("v"), session: m("s"),
		token: m("t"), query: m("q"), name: m("n"), body: m("b")}
}
