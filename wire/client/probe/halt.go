package probe

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"rawmcp/wire/client"
)

// What the runner decides about the run as a whole, not any one check:
// a target that rate limits it, and a target that stops answering. Both
// are facts of the run, never a check's verdict: a 429 is never judged
// as the answer a check asked about, and no check passes on a
// connection a dying process closed.

// halt is the run's state of rate limits and of the target's liveness.
type halt struct {
	mu sync.Mutex
	// gate: no request goes out before it (a short Retry-After, paced).
	gate time.Time
	// limited is why the run stopped sending: "rate limited
	// (Retry-After: 60 s)"; "" while it goes on.
	limited string
	// last is the latest answer of the run, by when its head came.
	last heard
	// dead is set once the target stopped answering.
	dead *stopped
	// aliveAt is when the last liveness request that was answered went
	// out: a request sent before it that got no answer was not the
	// target's death.
	aliveAt time.Time

	// asking serializes the liveness requests: one at a time, and a
	// request that failed while another asked waits for its verdict.
	asking sync.Mutex
}

// heard is one answered exchange: which check's, which step, the status,
// when the request went out and when its head came.
type heard struct {
	check, step string
	status      int
	sent, at    time.Time
}

// stopped is the run's record of a target that stopped answering: the
// last answer before, and the first request that got none.
type stopped struct {
	last              heard
	firstCheck, first string // the check and step of the first request without an answer
	why               string // what that request got: "connection refused"
}

// Rate limits: a Retry-After up to paceLimit is waited for, and the
// request sent again, at most retryLimit times; a longer one, or one the
// budget cannot cover, stops the run.
const (
	paceLimit  = 5 * time.Second
	retryLimit = 3
)

// retryAfter says whether r is the target shedding load rather than
// answering: a 429, or a 503 with Retry-After (a 503 without one is an
// answer a check may judge, a server's session cap among them); and how
// long it asks the client to wait: Retry-After's seconds or date, else
// the reset of the RateLimit fields (RateLimit-Reset: 50, or RateLimit:
// limit=100, remaining=0, reset=50), else 1 s. capacity says the check
// judges a 503 itself (SE-09), so only a 429 is load shedding to it.
func retryAfter(r *reply, capacity bool) (wait time.Duration, shown string, limited bool) {
	switch st := r.status(); {
	case st == 429:
	case st == 503 && !capacity && r.header("Retry-After") != "":
	default:
		return 0, "", false
	}
	if v := r.header("Retry-After"); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s >= 0 {
			return time.Duration(s) * time.Second, "Retry-After: " + v + " s", true
		}
		if at, err := time.Parse(time.RFC1123, v); err == nil {
			d := max(time.Until(at), 0).Round(time.Second)
			return d, "Retry-After: " + strconv.Itoa(int(d/time.Second)) + " s", true
		}
	}
	if v := r.header("RateLimit-Reset"); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s >= 0 {
			return time.Duration(s) * time.Second, "RateLimit-Reset: " + v + " s", true
		}
	}
	for _, item := range strings.Split(r.header("RateLimit"), ",") {
		name, v, _ := strings.Cut(strings.TrimSpace(item), "=")
		if s, err := strconv.Atoi(v); name == "reset" && err == nil && s >= 0 {
			return time.Duration(s) * time.Second, "RateLimit reset=" + v + " s", true
		}
	}
	return time.Second, "no Retry-After", true
}

// waitGate waits until the run's gate opens; false when ctx ended first.
func (p *prober) waitGate(ctx context.Context) bool {
	p.halt.mu.Lock()
	gate := p.halt.gate
	p.halt.mu.Unlock()
	wait := time.Until(gate)
	if wait <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// waitOut decides what to do about a limited answer: wait out a short
// Retry-After (the gate holds every request of the run back until then)
// and say so, or give up when it is long or the budget cannot cover it.
func (p *prober) waitOut(ctx context.Context, wait time.Duration) bool {
	if wait > paceLimit {
		return false
	}
	if d, ok := ctx.Deadline(); ok && time.Until(d) < wait+p.timeout() {
		return false
	}
	p.halt.mu.Lock()
	if until := time.Now().Add(wait); until.After(p.halt.gate) {
		p.halt.gate = until
	}
	p.halt.mu.Unlock()
	return p.waitGate(ctx)
}

// rateLimited stops the run for a limit it cannot wait out.
func (p *prober) rateLimited(shown string) string {
	p.halt.mu.Lock()
	defer p.halt.mu.Unlock()
	if p.halt.limited == "" {
		p.halt.limited = "rate limited (" + shown + ")"
	}
	return p.halt.limited
}

// halted is why no more requests go out ("" while they do): the run was
// rate limited, or the target stopped answering. It is Report.Stopped;
// PRE-03's reason says the rest of a death, once.
func (p *prober) halted() string {
	p.halt.mu.Lock()
	defer p.halt.mu.Unlock()
	switch {
	case p.halt.limited != "":
		return p.halt.limited
	case p.halt.dead != nil:
		return "the target stopped answering (see " + pre03.ID + ")"
	}
	return ""
}

// heardFrom notes an answered exchange, keeping the latest.
func (p *prober) heardFrom(h heard) {
	p.halt.mu.Lock()
	defer p.halt.mu.Unlock()
	if h.at.After(p.halt.last.at) {
		p.halt.last = h
	}
}

// hungUp reports an exchange that got no answer because the connection
// was refused, reset or closed: what a target that died looks like, and
// also what a server that closes on purpose looks like, which only a
// liveness request tells apart.
func hungUp(err error) bool {
	return hangUp(err) != ""
}

// hangUp names how a connection ended without an answer, for a reason:
// "connection refused", "connection reset", "closed"; "" for any other
// error (a deadline, bytes that are not HTTP).
func hangUp(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connection reset"
	case errors.Is(err, client.ErrClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "closed without an answer"
	}
	return ""
}

// answering reports whether the target still answers, for a request sent
// at sent that got no answer (step of check, why; "" for the runner's own
// question, which then says what it got). An answer to any request sent
// after it says so at once; otherwise the runner asks itself, and if that
// gets no answer either, the target stopped answering: it records so
// once, with the last answer before.
func (p *prober) answering(ctx context.Context, sent time.Time, check, step, why string) bool {
	p.halt.asking.Lock()
	defer p.halt.asking.Unlock()
	p.halt.mu.Lock()
	dead, last, alive := p.halt.dead, p.halt.last, p.halt.aliveAt
	p.halt.mu.Unlock()
	switch {
	case dead != nil:
		return false
	case last.at.IsZero():
		// A target that never answered did not stop: PRE-01 says it was
		// not reached.
		return true
	case last.at.After(sent), alive.After(sent):
		return true
	}
	asked := time.Now()
	ok, got := p.alive(ctx)
	if ok {
		p.halt.mu.Lock()
		p.halt.aliveAt = asked
		p.halt.mu.Unlock()
		return true
	}
	if ctx.Err() != nil {
		// The run's own time ran out, not the target's.
		return true
	}
	p.halt.mu.Lock()
	defer p.halt.mu.Unlock()
	if why == "" {
		why = got
	}
	if p.halt.dead == nil {
		p.halt.dead = &stopped{last: p.halt.last, firstCheck: check, first: step, why: why}
	}
	return false
}

// alive asks the target with what PRE-01 was answered (initialize, or
// server/discover on a target that speaks only 2026-07-28): any answer at
// all, a 401 or a 429 included, means it is there, and so does a request
// that only ran out of time (a slow target is no dead one). It asks
// twice, a moment apart, so one connection lost in passing is not a
// death; a session the answer opens is deleted. When both were refused,
// reset or closed, got is how the second was.
func (p *prober) alive(ctx context.Context) (ok bool, got string) {
	for try := range 2 {
		if try > 0 {
			select {
			case <-ctx.Done():
				return false, errText(ctx.Err())
			case <-time.After(livenessPause):
			}
		}
		t := &checkRun{ctx: ctx, p: p}
		var raw []byte
		if p.legacy {
			req, _ := t.initialize()
			raw = req.Bytes()
		} else {
			req, _ := t.modernRequest("server/discover", "")
			raw = req.Bytes()
		}
		r := p.roundTrip(ctx, raw, toHead, 0)
		r.close()
		if r.resp == nil {
			if got = hangUp(r.err); got == "" {
				return true, ""
			}
			continue
		}
		if id := r.header("Mcp-Session-Id"); id != "" {
			p.secrets.AddSession(id)
			del := p.roundTrip(context.Background(), t.request("DELETE", &session{id: id, version: negotiatedVersion(r), authorization: p.authorization()}, nil).Bytes(), toHead, 0)
			del.close()
		}
		return true, ""
	}
	return false, got
}

// livenessPause is the moment between the two liveness requests.
const livenessPause = 250 * time.Millisecond

// deathRecord is the run's record of the target's death, nil while it
// answers.
func (p *prober) deathRecord() *stopped {
	p.halt.mu.Lock()
	defer p.halt.mu.Unlock()
	return p.halt.dead
}

// String says in one line when the target stopped answering.
func (s *stopped) String() string {
	last := "no request of the run was answered"
	if s.last.check != "" {
		last = "the last answer was to " + s.last.check + "'s request \"" + s.last.step + "\" (" + strconv.Itoa(s.last.status) + ")"
	}
	return "the target stopped answering: " + last + "; the first request without one was " + s.firstCheck + "'s \"" + s.first + "\" (" + s.why + ")"
}

// lastWord is PRE-03 as the catalogue holds it: the run's last check.
var lastWord = func() *Check {
	for i := range catalogue {
		if catalogue[i].ID == pre03.ID {
			return &catalogue[i]
		}
	}
	panic("probe: PRE-03 is not in the catalogue")
}()

// runLast runs PRE-03 after every other check, the long lane included,
// selected or not, and even when the run halted: whether the target
// still answers is the run's last word.
func (p *prober) runLast(ctx context.Context) {
	if _, ok := p.done[lastWord.ID]; !ok {
		p.done[lastWord.ID] = make(chan struct{})
	}
	p.runQueued(ctx, lastWord)
}

// unjudgeDying takes back what a dying target seemed to show: a check
// with a connection refused, reset or closed after the request answered
// last went out (LF-07's "closed" was the process exiting, whether or not
// the probe had read that last answer yet), and the pass of the check
// whose request was answered last (HO-02's 403 went out just before the
// process died). PRE-03 reports the death once.
func (p *prober) unjudgeDying() {
	d := p.deathRecord()
	if d == nil {
		return
	}
	for id, res := range p.results {
		if id == lastWord.ID || res.Verdict == Skip || res.unfinished {
			continue
		}
		cut := false
		for _, x := range res.Exchanges {
			cut = cut || x.hung && x.done.After(d.last.sent)
		}
		switch {
		case cut:
			res.Verdict, res.Reason, res.Expected, res.Actual = Error,
				"not judged: a connection of this check was refused, reset or closed when the target stopped answering (see "+pre03.ID+")", "", ""
		case id == d.last.check && (res.Verdict == Pass || res.Verdict == Info):
			res.Verdict, res.Reason, res.Expected, res.Actual = Error,
				"not judged: the target stopped answering right after this check's request \""+d.last.step+"\" (see "+pre03.ID+")", "", ""
		}
	}
}

func isSelected(checks []*Check, id string) bool {
	for _, c := range checks {
		if c.ID == id {
			return true
		}
	}
	return false
}
