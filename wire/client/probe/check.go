package probe

import (
	"strings"

	"rawmcp/wire/rule"
)

// Level is how binding a check is (CHECKS.md, "Levels and verdicts").
type Level string

const (
	// Must: the spec or an RFC requires it; not met is a fail.
	Must Level = "MUST"
	// Should: recommended; not met is a warn.
	Should Level = "SHOULD"
	// Hardening: stricter than the spec (the profile's own rule or a known
	// attack's fix); not met is a warn, a fail with Options.Strict.
	Hardening Level = "H"
	// Informational: reported, never judged.
	Informational Level = "info"
)

// Verdict is a check's outcome.
type Verdict string

const (
	Pass Verdict = "pass"
	Fail Verdict = "fail"
	Warn Verdict = "warn"
	// Skip: the run lacks what the check needs (a token, a server that
	// issues sessions, a prerequisite), with the reason.
	Skip Verdict = "skip"
	// Error: the check could not run, because the target broke the
	// exchange or answered what the check could not judge.
	Error Verdict = "error"
	// Info: a report, not a judgement (PV-04).
	Info Verdict = "info"
)

// Verdicts lists every verdict in the order reports count them.
var Verdicts = []Verdict{Pass, Fail, Warn, Skip, Error, Info}

// verdictFor is what "not met" means at level l.
func verdictFor(l Level, strict bool) Verdict {
	switch l {
	case Must:
		return Fail
	case Hardening:
		if strict {
			return Fail
		}
		return Warn
	case Informational:
		return Info
	}
	return Warn
}

// Need is what a check needs beyond the URL: options the run was given,
// and what the target is, which the runner decides once per run (the
// preflight learns most; metadata and event streams are asked for the
// first time a check needs them). A check whose need the run lacks is a
// skip with the runner's reason, never a warn or an error: its run
// function never sees a target it cannot judge.
type Need uint16

const (
	// NeedToken: a valid token (-token).
	NeedToken Need = 1 << iota
	// NeedToken2: a second principal's valid token (-token2).
	NeedToken2
	// NeedNamed: a token of a named kind (-tokens FILE).
	NeedNamed
	// NeedSessions: the target issues Mcp-Session-Id on initialize.
	NeedSessions
	// NeedAuth: the target refuses a request without a token.
	NeedAuth
	// NeedMetadata: the target serves Protected Resource Metadata (at the
	// challenge's resource_metadata or a well-known path, without a token).
	NeedMetadata
	// NeedSSE: the target answers some request of a session as an event
	// stream (GET, or a POST of a list method or ping).
	NeedSSE
	// NeedLegacy: the target speaks MCP 2025-11-25 (initialize is served).
	NeedLegacy
	// NeedModern: the target speaks MCP 2026-07-28 (server/discover is
	// served).
	NeedModern
	// NeedSlow: the run may hold a stream for minutes (-slow).
	NeedSlow
)

// needNames are the needs as CHECKS.md's Needs column writes them, in
// its order.
var needNames = []struct {
	need Need
	name string
}{{NeedToken, "T"}, {NeedToken2, "T2"}, {NeedNamed, "X"}, {NeedSlow, "slow"}, {NeedAuth, "auth"}, {NeedSessions, "sessions"},
	{NeedMetadata, "metadata"}, {NeedSSE, "SSE"}, {NeedLegacy, "legacy"}, {NeedModern, "modern"}}

func (n Need) String() string {
	var parts []string
	for _, p := range needNames {
		if n&p.need != 0 {
			parts = append(parts, p.name)
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// ask is the request a check of a boundary group builds on, which
// decides whether it can be judged on a 2026-07-28 target.
type ask uint8

const (
	// askOwn: requests of the check's own making, fit for either revision
	// (a PUT, a broken frame), or none.
	askOwn ask = iota
	// askEither: requests of the revision the target speaks: on a
	// 2025-11-25 target initialize (checkRun.opening) or requests on a
	// session, on a 2026-07-28-only one server/discover with that
	// revision's headers (checkRun.opening, postRPC). Such a check has a
	// modern form.
	askEither
	// askSession: a 2025-11-25 session (initialize, Mcp-Session-Id, its
	// GET stream or DELETE), which 2026-07-28 has not: the check needs a
	// target that speaks 2025-11-25 (NeedLegacy).
	askSession
)

// Party is whom the requirement a check rests on binds.
type Party string

const (
	// Server: the MCP server (or the resource server in front of it).
	Server Party = "server"
	// Client: the sender of the request; a server that tolerates a client
	// breaking it breaks no rule of its own, so such a check is Hardening
	// at most.
	Client Party = "client"
	// Deployment: a hop in front of the server (a proxy, a load balancer,
	// TLS termination).
	Deployment Party = "deployment"
	// Profile: the profile's own stricter rule, binding no party of the
	// spec.
	Profile Party = "profile"
)

// Group is one section of the catalogue.
type Group struct {
	Code  string // the id prefix: "HO"
	Title string
}

// Groups are the catalogue's sections, in its order.
var Groups = func() []Group {
	out := make([]Group, len(groups))
	for i, g := range groups {
		out[i] = g.Group
	}
	return out
}()

// phase orders the run: the preflight gates everything; most checks run
// concurrently; a check that fills the target's session table runs alone
// after them; then the scans of every response, the echo scan (EH-01)
// last of all, so it also reads the other scan's answers.
type phase uint8

// The phases in run order, but for phaseConcurrent, the zero value, so
// that a check names a phase only when it runs apart.
const (
	phaseConcurrent phase = iota // with the others, after the preflight
	phasePreflight               // PRE-01, first and alone
	phaseAlone                   // one at a time, after the concurrent ones
	phaseScan                    // reads what the run's other checks received (EH-02, JR-11 and the rest doc.go names)
	phaseEchoScan                // scans the run's answers, the scan's too (EH-01)
	phaseLast                    // after everything, even a halted run: does the target still answer (PRE-03)
)

// Check is one entry of the catalogue: a value, so that a caller (rawmcp
// probe, rawmcp attack) runs the same check the same way.
type Check struct {
	ID     string  // stable: "HO-02"
	Group  string  // the Group's Code
	Level  Level   // the main level; a check with a hardening part says so in Help
	Source string  // the spec section or RFC
	Rule   rule.ID // the rule tested, "" where the rule table has none
	// The obligation the level rests on: the section that states it
	// ("MCP Transports 2025-11-25 §Sending messages to the server"), its
	// keyword ("MUST", "SHOULD", "MAY", "" for the profile's own) and the
	// party it binds. A check whose requirement binds the client is
	// Hardening at most.
	Section string
	Keyword string
	Binds   Party
	Needs   Need
	// Since is the first MCP revision whose rule the check applies ("" for
	// every revision): a target that negotiated an earlier one is not
	// judged by it, and the check skips with the reason (the
	// MCP-Protocol-Version header arrived in 2025-06-18).
	Since string
	// After lists checks whose finding is this check's precondition: the
	// runner runs them first, and when one of them failed or could not run
	// this check skips with "see ID", so that one defect is reported once
	// (a warn is a finding of its own weight, no precondition). A
	// check not in the run's selection is no precondition.
	After []string
	// Opens is how many sessions the runner opens (initialize, then
	// notifications/initialized, with the run's token) before the run
	// function, in checkRun.sessions; checkRun.session is the first. With
	// NeedSessions each carries an id; without, a target that issues none
	// gives sessionless ones. Failing to open one is the check's error.
	// On a target that speaks only 2026-07-28 none is opened: a check
	// that has a modern form (askEither) sends its requests without one.
	Opens int
	Title string // one line: what must hold ("Foreign Origin refused")
	// Fix is what a server author changes when the check does not pass,
	// in one to three sentences, naming where it usually lives (the SDK's
	// transport options, the web framework's router or body limit, the
	// proxy's configuration); Link is the https URL of the exact section
	// the check rests on (the specification page and anchor of the
	// revision it judges, or the RFC section). Every report shows both
	// under a check that did not pass.
	Fix, Link string
	// Sends and Passes are the check's help, a phrase each: what the
	// check sends ("initialize with Origin: http://evil.example") and what
	// evidence passes ("403 only"). How the answer is judged in detail is
	// the run function's, right below the check.
	Sends, Passes string
	// Sessions is the most sessions the check may hold at once, including
	// ones a server creates when it should have refused; the runner keeps
	// the sum within the target's limits.
	Sessions int

	// asks is the request a check of a boundary group builds on;
	// legacyFor, for one that asks a 2025-11-25 session, says what of it
	// the check needs, for its skip on a target that speaks only
	// 2026-07-28 ("a session's GET stream, which 2026-07-28 removed").
	asks      ask
	legacyFor string

	phase phase
	// long marks a check that waits for seconds on purpose (a trickled
	// head, a held stream): it runs in its own lane, started with the
	// concurrent checks, so its wait is not added to theirs.
	long bool
	run  func(*checkRun) outcome
}
