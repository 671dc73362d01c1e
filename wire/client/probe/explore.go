package probe

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"time"

	"rawmcp/wire/client"
)

// Op is one letter of the explorer's alphabet: what a client can do to a
// server it sees only from outside.
type Op string

// The alphabet. Every op but initialize acts on one of the walk's
// sessions (Step.Session), live or ended: an op on an ended one is the
// reuse of an ended id.
const (
	OpInitialize   Op = "initialize"           // opens the walk's next session
	OpInitialized  Op = "initialized"          // notifications/initialized
	OpPing         Op = "ping"                 //
	OpList         Op = "list"                 // the first list method the server declares (ping if none)
	OpGet          Op = "get"                  // GET without a cursor
	OpGetLastGet   Op = "get-after-get-event"  // GET with the session's last GET event id
	OpGetLastPost  Op = "get-after-post-event" // GET with the session's last POST stream event id
	OpGetForeign   Op = "get-after-foreign-event"
	OpGetMalformed Op = "get-after-malformed-event"
	OpDelete       Op = "delete"
	OpOther        Op = "list-as-token2"   // the list with the second principal's token
	OpBadVersion   Op = "list-bad-version" // MCP-Protocol-Version: an unsupported one
	OpGetBadVer    Op = "get-bad-version"
	OpNoVersion    Op = "list-no-version" // without MCP-Protocol-Version
)

// alphabet is the order ops are drawn in: a walk is a function of the
// seed and this list.
var alphabet = []Op{OpInitialize, OpInitialized, OpPing, OpList, OpGet, OpGetLastGet, OpGetLastPost,
	OpGetForeign, OpGetMalformed, OpDelete, OpOther, OpBadVersion, OpGetBadVer, OpNoVersion}

// unsupportedVersion is a well-formed MCP-Protocol-Version no server
// supports; malformedCursor a Last-Event-ID no server issued.
const (
	unsupportedVersion = "2099-12-31"
	malformedCursor    = "rawmcp-not-an-event-id"
)

// Step is one op of a walk; Session indexes the walk's sessions in the
// order its initialize steps opened them (0 for the first).
type Step struct {
	Op      Op  `json:"op"`
	Session int `json:"session"`
}

func (s Step) String() string {
	if s.Op == OpInitialize {
		return string(s.Op)
	}
	return string(s.Op) + " on session " + strconv.Itoa(s.Session+1)
}

// Walk is a sequence of steps, each sent once, in order.
type Walk struct {
	Steps []Step `json:"steps"`
}

// Bounds of an exploration.
const (
	// maxWalkSessions is the most sessions a walk opens: two, enough for
	// a foreign cursor, within any session budget.
	maxWalkSessions = 2
	// maxShrinkRuns bounds the re-runs that shrink one finding's walk.
	maxShrinkRuns = 40
)

// ExploreOptions configure Explore.
type ExploreOptions struct {
	Walks int    // how many random walks
	Seed  uint64 // walk i is drawn from (Seed, i) alone
	// Steps bounds a walk's length; 0 means 8.
	Steps int
	// MaxRequests bounds the requests of the whole exploration, shrinking
	// and cleanup included; 0 means 4000. Walks that would pass it are
	// not run.
	MaxRequests int
	// Window bounds the read of a GET stream after its head; 0 means
	// exploreWindow.
	Window time.Duration
	// Replay, if set, are the walks run instead of random ones, each once
	// and not shrunk (-explore-replay).
	Replay []Walk
	// Progress, if set, is told after each walk how many of how many
	// are done.
	Progress func(done, total int)
}

// exploreWindow is how long a walk reads a GET stream after its head
// when ExploreOptions.Window is 0.
const exploreWindow = 500 * time.Millisecond

func (x ExploreOptions) steps() int {
	if x.Steps <= 0 {
		return 8
	}
	return x.Steps
}

// ErrExploreBounds reports walks of fewer than two steps or more than 64.
var ErrExploreBounds = errors.New("probe: -explore walks have 2 to 64 steps")

// Exploration is the outcome of Explore.
type Exploration struct {
	Target   string    `json:"target"`
	Seed     uint64    `json:"seed"`
	Steps    int       `json:"max_steps"`
	Requests int       `json:"requests"`
	Capped   int       `json:"walks_not_run,omitempty"` // walks the request cap left out
	Replayed bool      `json:"replayed,omitempty"`      // the walks came from a file (-explore-replay)
	Started  time.Time `json:"started"`
	Duration string    `json:"duration"`
	// Walks are every walk run, without exchanges; Findings each rule
	// broken, once, with the shortest walk that still breaks it.
	Walks    []WalkResult `json:"walks"`
	Findings []Finding    `json:"findings"`

	secrets *client.Redactor
}

// WalkResult is one walk run against the target.
type WalkResult struct {
	Index   int          `json:"index"` // 1-based, in the exploration
	Verdict Verdict      `json:"verdict"`
	Steps   []StepResult `json:"steps"`
}

// Walk is the walk a result ran.
func (w WalkResult) Walk() Walk {
	var out Walk
	for _, s := range w.Steps {
		out.Steps = append(out.Steps, s.Step)
	}
	return out
}

// StepResult is one step and what came back: Actual as in a check's
// evidence ("404", "200 text/event-stream with a result"), or NotSent
// saying why the step sent nothing (its session was never opened, no
// cursor of that kind was seen).
type StepResult struct {
	Step
	Actual    string     `json:"actual,omitempty"`
	NotSent   string     `json:"not_sent,omitempty"`
	Findings  []Finding  `json:"findings,omitempty"`
	Exchanges []Exchange `json:"exchanges,omitempty"` // shrunk and replayed walks only
}

// Finding is one rule a step broke.
type Finding struct {
	Rule     string  `json:"rule"`
	Level    Level   `json:"level"`
	Verdict  Verdict `json:"verdict"`
	Source   string  `json:"source"`
	Step     int     `json:"step"` // 1-based
	Reason   string  `json:"reason"`
	Expected string  `json:"expected"`
	Actual   string  `json:"actual"`
	// In Exploration.Findings: the first walk that broke the rule, how
	// many did, and its shrunk form with the exchanges (Reruns: the
	// re-runs shrinking took).
	Walk   int         `json:"walk,omitempty"`
	Walks  int         `json:"walks,omitempty"`
	Shrunk *WalkResult `json:"shrunk,omitempty"`
	Reruns int         `json:"reruns,omitempty"`
}

// MustFailed reports whether a finding at level MUST was made.
func (e *Exploration) MustFailed() bool {
	for _, f := range e.Findings {
		if f.Verdict == Fail {
			return true
		}
	}
	return false
}

// RandomWalk is walk i of seed: it starts with initialize, has 2 to
// steps steps, draws each op from the alphabet (list-as-token2 only with
// a second token, initialize only while fewer than two sessions are
// open) and each session among those opened. It depends on nothing the
// server answers, so a seed names the same walks against any server.
func RandomWalk(seed uint64, i, steps int, token2 bool) Walk {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	n := 2 + rng.IntN(steps-1)
	w := Walk{Steps: []Step{{Op: OpInitialize}}}
	opened := 1
	for len(w.Steps) < n {
		var ops []Op
		for _, op := range alphabet {
			if (op == OpOther && !token2) || (op == OpInitialize && opened == maxWalkSessions) {
				continue
			}
			ops = append(ops, op)
		}
		op := ops[rng.IntN(len(ops))]
		if op == OpInitialize {
			w.Steps = append(w.Steps, Step{Op: op, Session: opened})
			opened++
			continue
		}
		w.Steps = append(w.Steps, Step{Op: op, Session: rng.IntN(opened)})
	}
	return w
}

// ErrExploreNeedsLegacy reports a target that serves no initialize: the
// walks are MCP 2025-11-25 sessions.
var ErrExploreNeedsLegacy = errors.New("probe: -explore walks MCP 2025-11-25 sessions, and the target serves no initialize (it speaks 2026-07-28 only)")

// Explore reaches the target, runs PRE-01, then Walks random walks (or
// the Replay walks), judging every answer by the rules of the explore
// judge; each rule broken is reported once, with its first walk shrunk
// to a shortest one that still breaks it. The error is ErrNotMCP when
// PRE-01 failed (the report then says why), ErrExploreNeedsLegacy when
// the target speaks only 2026-07-28.
func Explore(ctx context.Context, target Target, opts Options, x ExploreOptions) (*Exploration, *Report, error) {
	if steps := x.steps(); steps < 2 || steps > 64 {
		return nil, nil, ErrExploreBounds
	}
	for _, w := range x.Replay {
		if len(w.Steps) > 64 {
			return nil, nil, ErrExploreBounds
		}
	}
	p, rep, err := start(ctx, target, opts)
	if err != nil {
		return nil, rep, err
	}
	if !p.legacy {
		// The walks are 2025-11-25 sessions: initialize first.
		return nil, rep, ErrExploreNeedsLegacy
	}
	e := &explorer{p: p, cap: x.MaxRequests}
	if e.cap <= 0 {
		e.cap = 4000
	}
	if e.window = x.Window; e.window <= 0 {
		e.window = exploreWindow
	}
	out := &Exploration{secrets: p.secrets, Target: target.URL, Seed: x.Seed, Steps: x.steps(), Started: time.Now(), Replayed: x.Replay != nil}
	walks := x.Replay
	if walks == nil {
		for i := range x.Walks {
			walks = append(walks, RandomWalk(x.Seed, i, x.steps(), opts.Token2 != ""))
		}
	}
	byRule := map[string]int{} // rule → index in out.Findings
	for i, w := range walks {
		// A walk needs a request per step and a DELETE per session.
		if e.requests+len(w.Steps)+maxWalkSessions > e.cap || ctx.Err() != nil {
			out.Capped = len(walks) - i
			break
		}
		res := e.run(ctx, w, x.Replay != nil)
		res.Index = i + 1
		for _, f := range res.findings() {
			if k, seen := byRule[f.Rule]; seen {
				out.Findings[k].Walks++
				continue
			}
			f.Walk, f.Walks = res.Index, 1
			if x.Replay != nil {
				kept := res
				f.Shrunk = &kept
			} else {
				shrunk, reruns := e.shrink(ctx, res, f.Rule)
				f.Shrunk, f.Reruns = &shrunk, reruns
				f.Shrunk.Index = res.Index
			}
			byRule[f.Rule] = len(out.Findings)
			out.Findings = append(out.Findings, f)
		}
		if x.Replay == nil {
			res.dropExchanges()
		}
		out.Walks = append(out.Walks, res)
		if x.Progress != nil {
			x.Progress(i+1, len(walks))
		}
	}
	out.Requests = e.requests
	out.Duration = time.Since(out.Started).Round(time.Millisecond).String()
	return out, rep, nil
}

// findings are the walk's findings, each rule once (its first step).
func (w WalkResult) findings() []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, s := range w.Steps {
		for _, f := range s.Findings {
			if !seen[f.Rule] {
				seen[f.Rule] = true
				out = append(out, f)
			}
		}
	}
	return out
}

func (w WalkResult) breaks(rule string) bool {
	for _, f := range w.findings() {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

func (w *WalkResult) dropExchanges() {
	for i := range w.Steps {
		w.Steps[i].Exchanges = nil
	}
}
