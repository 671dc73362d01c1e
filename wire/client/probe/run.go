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
	// Budget bounds the whole run; 0 means 60 s (with Slow, 60 s more
	// than DP-08's hold). A check not finished when it runs out is an
	// error whose reason begins "not run:" or "not finished:", and the
	// report is Incomplete.
	Budget time.Duration
	// Progress, if set, is told as each check starts and as it finishes,
	// from the goroutine that runs it: it must be safe for concurrent use.
	Progress func(Progress)
}

// budgetTime is the run's bound (Options.Budget with its default).
func (o Options) budgetTime() time.Duration {
	switch {
	case o.Budget > 0:
		return o.Budget
	case o.Slow:
		return defaultBudget + idleHold
	}
	return defaultBudget
}

// defaultBudget bounds a run without -budget: a CI job can rely on it.
const defaultBudget = 60 * time.Second

// ErrNotMCP reports a target where PRE-01 failed: no MCP endpoint at the
// URL, the token was refused, or a rate limit that could not be waited
// out answered first. The report's PRE-01 result says which.
var ErrNotMCP = errors.New("probe: the target is not an MCP endpoint that accepts the token (PRE-01)")

// Report is the outcome of a run.
type Report struct {
	Target          string
	Reached         *Reached        // nil when the target could not be reached
	Server          json.RawMessage // serverInfo from initialize
	ProtocolVersion string          // the version initialize negotiated
	// Revisions are the MCP revisions PRE-01 found served: the version
	// initialize negotiated ("2025-11-25", or an earlier one the server
	// chose), "2026-07-28" (server/discover), or both.
	Revisions []string
	// Negotiated are the versions the run's initialize answers chose when
	// the probe proposed 2025-11-25, each once, oldest first: one, unless
	// the server answers sessions differently.
	Negotiated []string
	// Stopped says why the run halted, "" when it did not: the target
	// rate limited it ("rate limited (Retry-After: 60 s)"), or stopped
	// answering ("the target stopped answering (see PRE-03)": PRE-03's
	// reason names the last request answered and the first that was not).
	Stopped string
	// Incomplete: the budget ran out, or the run halted (Stopped), before
	// every check finished; those that did not are errors saying so.
	Incomplete bool
	Started    time.Time
	Duration   time.Duration
	Results    []Result // in catalogue order
	// Baseline is the run compared with a baseline (Report.Compare), set
	// by the caller for the reports to show; nil for none.
	Baseline *Comparison
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
	// Broke is, for a fail or warn, the level of the rule found broken:
	// the check's own, or a lower one where the check judges a point
	// beside its rule (JR-10's ranges are hardening beside its MUST).
	Broke     Level
	Exchanges []Exchange

	unfinished bool // the budget ran out before the check finished
}

// Level is the level a report shows beside a result: the level of the
// rule a finding broke, else the check's.
func (r Result) Level() Level {
	if r.Broke != "" {
		return r.Broke
	}
	return r.Check.Level
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
	auth      bool // the target refuses a request without a token
	tokenless bool // auth, and the run has no token: checks that need one skip
	legacy    bool // initialize is served (MCP 2025-11-25)
	modern    bool // server/discover is served (MCP 2026-07-28)
	// listed is the supportedVersions of the preflight's server/discover
	// result, nil when it answered none: a server that answers it without
	// 2026-07-28 (the Go SDK v1.8.0) is not modern, but it does serve it.
	listed      []string
	version     string        // negotiated protocol version
	sampleID    string        // a session id the target issued ("" if none)
	pace        time.Duration // how long PRE-01's initialize took to be answered whole
	server      json.RawMessage
	listMethods []string // list methods the server declares, e.g. "resources/list"

	// What the runner decides the first time a check needs it.
	metadataNeed, sseNeed lazyNeed

	halt       halt            // rate limits and the target's liveness (halt.go)
	negotiated map[string]bool // the versions initialize answers chose (Report.Negotiated)

	wire wireLog // every JSON-RPC message received, for JR-11

	mu       sync.Mutex
	finished []*Result          // every check done so far, for the scans
	results  map[string]*Result // by id, for After
	done     map[string]chan struct{}
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
//
// The order: PRE-01 alone; then the concurrent checks, Options.Concurrency
// at a time, and beside them the long lane (checks that wait on purpose,
// each in its own goroutine from the start); then the checks that run
// alone, then the scans of the answers (which see what the long lane had
// finished by then); last, PRE-03 asks whether the target still answers.
// Everything is bounded by Options.Budget. A target that rate limits the
// run beyond a short Retry-After, or stops answering, halts it: the
// checks not finished are errors saying so, and Report.Stopped says why.
func Run(ctx context.Context, target Target, opts Options) (*Report, error) {
	selected, err := Select(opts.Only, opts.Skip)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.budgetTime())
	defer cancel()
	p, rep, err := start(ctx, target, opts)
	if err != nil {
		return rep, err
	}
	p.results = make(map[string]*Result, len(selected))
	p.done = make(map[string]chan struct{}, len(selected))
	for _, c := range selected {
		p.done[c.ID] = make(chan struct{})
	}

	var long sync.WaitGroup
	for _, c := range selected {
		if c.long && c.phase == phaseConcurrent {
			long.Go(func() { p.runQueued(ctx, c) })
		}
	}
	for _, ph := range []phase{phaseConcurrent, phaseAlone, phaseScan, phaseEchoScan} {
		var batch []*Check
		for _, c := range selected {
			if c.phase == ph && !c.long {
				batch = append(batch, c)
			}
		}
		p.runAll(ctx, dependenciesFirst(batch))
	}
	long.Wait()
	p.runLast(ctx)
	p.unjudgeDying()
	for _, c := range selected {
		res := p.results[c.ID]
		rep.Incomplete = rep.Incomplete || res.unfinished
		rep.Results = append(rep.Results, *res)
	}
	if last := p.results[pre03.ID]; !isSelected(selected, pre03.ID) && last.Verdict == Fail {
		// A target that stopped answering is reported even when PRE-03
		// was not asked for: it is why the rest did not run.
		rep.Results = append(rep.Results, *last)
	}
	rep.Negotiated = p.negotiatedVersions()
	if why := p.halted(); why != "" {
		rep.Stopped, rep.Incomplete = why, true
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
		rep.Stopped = p.halted()
		rep.Incomplete = pre.unfinished
		rep.Duration = time.Since(rep.Started)
		return nil, rep, ErrNotMCP
	}
	rep.Server, rep.ProtocolVersion, rep.Revisions = p.server, p.version, p.revisions()
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
// once its sessions fit the budget. The queue hands them out in order, so
// a check listed after its After dependencies (dependenciesFirst) waits
// only for checks a worker already runs: no deadlock.
func (p *prober) runAll(ctx context.Context, checks []*Check) {
	workers := p.opts.Concurrency
	if workers <= 0 {
		workers = 4
	}
	queue := make(chan *Check)
	var wg sync.WaitGroup
	for range min(workers, max(len(checks), 1)) {
		wg.Go(func() {
			for c := range queue {
				p.runQueued(ctx, c)
			}
		})
	}
	for _, c := range checks {
		queue <- c
	}
	close(queue)
	wg.Wait()
}

// dependenciesFirst orders a batch so that every check comes after the
// checks of the batch it lists in After, otherwise keeping the order.
func dependenciesFirst(checks []*Check) []*Check {
	out := make([]*Check, 0, len(checks))
	placed := map[string]bool{}
	var place func(c *Check)
	place = func(c *Check) {
		if placed[c.ID] {
			return
		}
		placed[c.ID] = true
		for _, id := range c.After {
			for _, d := range checks {
				if d.ID == id {
					place(d)
				}
			}
		}
		out = append(out, c)
	}
	for _, c := range checks {
		place(c)
	}
	return out
}

// runQueued runs c and keeps its result for the report and its
// dependents.
func (p *prober) runQueued(ctx context.Context, c *Check) {
	res := p.runCheck(ctx, c)
	p.mu.Lock()
	p.results[c.ID] = res
	p.mu.Unlock()
	close(p.done[c.ID])
}

// runCheck runs one check: its preconditions first (the budget, the
// checks it comes after, its needs), then the sessions it opens and its
// run function within the time bound, then the cleanup of its sessions.
func (p *prober) runCheck(ctx context.Context, c *Check) *Result {
	res := &Result{Check: *c}
	notRun := func() *Result {
		res.Verdict, res.Reason, res.unfinished = Error, "not run: the "+p.opts.budgetTime().String()+" budget ran out", true
		p.finish(res, nil)
		return res
	}
	halted := func() *Result {
		res.Verdict, res.Reason, res.unfinished = Error, "not run: "+p.halted(), true
		p.finish(res, nil)
		return res
	}
	if ctx.Err() != nil {
		return notRun()
	}
	if p.halted() != "" && c.phase != phaseLast {
		return halted()
	}
	// A check this target's revisions cannot run does not rest on another
	// check's finding: it says what it lacks (below). Otherwise the checks
	// it comes after may have run into the budget.
	reason := ""
	if !p.wrongEra(c) {
		reason = p.seeFirst(c)
	}
	if ctx.Err() != nil {
		return notRun()
	}
	if p.halted() != "" && c.phase != phaseLast {
		return halted()
	}
	if reason == "" {
		reason = p.notInRevision(c)
	}
	if reason == "" {
		reason = p.missing(ctx, c)
	}
	if reason != "" && p.halted() != "" && c.phase != phaseLast {
		// The need was asked of a target that had stopped answering.
		return halted()
	}
	if reason != "" {
		res.Verdict, res.Reason = Skip, reason
		p.finish(res, nil)
		return res
	}
	if !p.slots.acquire(ctx, c.Sessions) {
		return notRun()
	}
	defer p.slots.release(c.Sessions)
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if !c.long {
		// A long check is bounded by the budget alone: its wait is the
		// point.
		cctx, cancel = context.WithTimeout(ctx, checkTimeout)
	}
	t := &checkRun{ctx: cctx, p: p, check: c}
	p.progress(c.ID, "")
	o := t.runJudged()
	cancel()
	// The sessions are deleted even when the run was interrupted.
	t.ctx = context.Background()
	t.cleanup()
	// A read deadline taken from the budget can pass before the
	// context's own timer fires: the deadline decides, as in outOfTime.
	if d, ok := ctx.Deadline(); ctx.Err() != nil || ok && !time.Now().Before(d) {
		o = outcome{verdict: Error, reason: "not finished: the " + p.opts.budgetTime().String() + " budget ran out (" + string(o.verdict) + " so far: " + o.reason + ")"}
		res.unfinished = true
	}
	res.Verdict, res.Reason, res.Exchanges = o.verdict, o.reason, t.exchanges
	res.Expected, res.Actual = o.expected, o.actual
	if o.verdict == Fail || o.verdict == Warn {
		res.Broke = o.level
	}
	res.unfinished = res.unfinished || o.unfinished
	p.finish(res, t)
	return res
}

// runJudged opens the check's sessions and runs its function; a check
// that ends early on an answer it cannot judge (checkRun.must) ends here
// with that outcome.
func (t *checkRun) runJudged() (o outcome) {
	t.judging = true
	defer func() {
		t.judging = false
		if v := recover(); v != nil {
			e, ok := v.(ended)
			if !ok {
				panic(v)
			}
			o = e.outcome
		}
	}()
	for range t.check.Opens {
		if t.p.modernOnly() {
			break
		}
		s, failed := t.open(t.p.authorization(), false)
		if failed != nil && t.p.sampleID == "" && s != nil {
			// Without sessions there is nothing for the notification to
			// initialize: its answer is MM-06's finding, not a reason
			// this check cannot run.
			failed = nil
		}
		if failed != nil {
			return *failed
		}
		if t.check.Needs&NeedSessions != 0 && s.id == "" {
			return t.errored("an initialize issued no session id, though the preflight's did")
		}
		t.sessions = append(t.sessions, s)
	}
	if len(t.sessions) > 0 {
		t.session = t.sessions[0]
	}
	return t.check.run(t)
}

// seeFirst is the skip reason of a check one of whose After checks
// failed or could not run, "" if none (a warn is a finding of its own
// weight, not one the dependent would repeat): it waits for them, which dependenciesFirst and
// the phase order make safe.
func (p *prober) seeFirst(c *Check) string {
	for _, id := range c.After {
		done, ok := p.done[id]
		if !ok {
			continue // not selected: no finding to defer to
		}
		<-done
		p.mu.Lock()
		res := p.results[id]
		p.mu.Unlock()
		if res.Verdict == Fail || res.Verdict == Error {
			return "see " + id + " (" + string(res.Verdict) + "): this check rests on its finding, and one defect is reported once"
		}
	}
	return ""
}

// finish keeps a result for the scans and writes its trace block.
func (p *prober) finish(res *Result, t *checkRun) {
	p.mu.Lock()
	p.finished = append(p.finished, res)
	p.mu.Unlock()
	p.progress(res.Check.ID, res.Verdict)
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

// acquire takes n slots, waiting for them; false when ctx ended first.
func (b *budget) acquire(ctx context.Context, n int) bool {
	n = min(n, b.size)
	stop := context.AfterFunc(ctx, func() {
		b.mu.Lock()
		b.cond.Broadcast()
		b.mu.Unlock()
	})
	defer stop()
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.free < n {
		if ctx.Err() != nil {
			return false
		}
		b.cond.Wait()
	}
	b.free -= n
	return true
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
