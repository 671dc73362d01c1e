package probe

import (
	"context"
	"io"
	"strings"
	"sync"
)

// missing is why a check with needs n cannot run on this target, "" when
// nothing is missing: the options first, then what the preflight learned,
// then what the runner asks the target the first time a check needs it.
func (p *prober) missing(ctx context.Context, c *Check) string {
	n := c.Needs
	var options []string
	// Without the token a target asks for, no session opens and the era
	// it speaks stays unknown: what needs either needs the token.
	needsSession := c.Opens > 0 || n&(NeedSessions|NeedSSE|NeedModern) != 0
	if n&NeedToken != 0 && p.opts.Token == "" || p.tokenless && needsSession {
		options = append(options, "-token")
	}
	if n&NeedToken2 != 0 && p.opts.Token2 == "" {
		options = append(options, "-token2")
	}
	if n&NeedNamed != 0 && len(p.opts.Named) == 0 {
		options = append(options, "-tokens")
	}
	if n&NeedSlow != 0 && !p.opts.Slow {
		options = append(options, "-slow (it holds a stream up to "+idleHold.String()+")")
	}
	switch {
	case len(options) > 0:
		return "needs " + strings.Join(options, " and ")
	case n&NeedLegacy != 0 && !p.legacy && c.asks == askSession:
		return "needs a target that speaks MCP 2025-11-25, for " + c.legacyFor + ": this one serves no initialize (it speaks " + strings.Join(p.revisions(), ", ") + ")"
	case n&NeedLegacy != 0 && !p.legacy:
		return "needs a target that speaks MCP 2025-11-25: this one serves no initialize (it speaks " + strings.Join(p.revisions(), ", ") + ")"
	case n&NeedModern != 0 && !p.modern && len(p.listed) > 0:
		return "needs a target that speaks MCP 2026-07-28: this one's server/discover result lists only " + strings.Join(p.listed, ", ")
	case n&NeedModern != 0 && !p.modern:
		return "needs a target that speaks MCP 2026-07-28: this one serves no server/discover"
	case n&NeedAuth != 0 && !p.auth:
		return "needs a target that refuses requests without a token: this one serves them, no authorization to check"
	case n&NeedSessions != 0 && p.sampleID == "":
		return "needs a target that issues session ids: this one issues none (stateless)"
	case n&NeedMetadata != 0:
		if why := p.metadataNeed.decide(ctx, p, c, decideMetadata); why != "" {
			return why
		}
	}
	if n&NeedSSE != 0 {
		return p.sseNeed.decide(ctx, p, c, decideSSE)
	}
	return ""
}

// wrongEra reports a check that needs a revision the target was found
// not to speak; a run without the token it needs never learns which it
// speaks.
func (p *prober) wrongEra(c *Check) bool {
	if p.tokenless {
		return false
	}
	return c.Needs&NeedLegacy != 0 && !p.legacy || c.Needs&NeedModern != 0 && !p.modern
}

// revisions are the MCP revisions the preflight found served.
func (p *prober) revisions() []string {
	var out []string
	if p.legacy && p.version != "" && p.version < modernVersion {
		out = append(out, p.version)
	}
	if p.modern {
		out = append(out, modernVersion)
	}
	return out
}

// lazyNeed is a need the runner decides once, the first time a check
// has it, by asking the target: why is the skip reason, "" when the
// target has what is needed.
type lazyNeed struct {
	once sync.Once
	why  string
}

// decide runs ask once, on a check run of its own that holds one session
// slot; its exchanges go to the trace under the id of the check that
// first needed it (first, whose result does not hold them).
func (l *lazyNeed) decide(ctx context.Context, p *prober, first *Check, ask func(*checkRun) string) string {
	l.once.Do(func() {
		if !p.slots.acquire(ctx, 1) {
			l.why = "not decided: " + errText(ctx.Err())
			return
		}
		defer p.slots.release(1)
		t := &checkRun{ctx: ctx, p: p, check: first}
		l.why = ask(t)
		t.ctx = context.Background()
		t.cleanup()
		if p.opts.Trace != nil {
			p.traceMu.Lock()
			io.WriteString(p.opts.Trace, t.trace.String())
			p.traceMu.Unlock()
		}
	})
	return l.why
}

// decideMetadata: is there Protected Resource Metadata where a client
// looks for it? Served without a token, or refused for the lack of one
// (401, 403): either way a document is there; the token itself is never
// sent to those paths. Absent, AU-02 reports it.
func decideMetadata(t *checkRun) string {
	doc, _, tried, broke := t.metadata()
	switch {
	case broke != nil:
		return "needs a target that serves Protected Resource Metadata: " + broke.reason
	case doc != nil:
		return ""
	}
	for _, x := range t.exchanges {
		if x.resp != nil && strings.HasPrefix(x.Request, "GET ") && (x.resp.Status == 401 || x.resp.Status == 403) {
			return ""
		}
	}
	return "needs a target that serves Protected Resource Metadata: none at " + joinAnd(tried) + " (see AU-02)"
}

// decideSSE: does the target answer any request of a session as an event
// stream? GET first (its head says it), then each list method and ping.
func decideSSE(t *checkRun) string {
	s, o := t.open(t.p.authorization(), false)
	if o != nil {
		return "needs a target that answers event streams: " + o.reason
	}
	if t.send("the runner asks for an event stream: GET", t.request("GET", s, nil).Bytes(), toHead, getWindow).isSSE() {
		return ""
	}
	tried := []string{"GET"}
	for _, method := range t.sseCandidates() {
		body, _ := rpc(method, "")
		if t.send("the runner asks for an event stream: "+method, t.request("POST", s, body).Bytes(), toResponse, 0).isSSE() {
			return ""
		}
		tried = append(tried, "POST "+method)
	}
	return "needs a target that answers event streams: " + joinAnd(tried) + " got none"
}

// needsToken is the skip reason of a check a run without the token a
// target asks for cannot judge.
const needsToken = "needs -token"
