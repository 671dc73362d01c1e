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

// Need is what a check needs beyond the URL.
type Need uint8

const (
	// NeedToken: a valid token (-token).
	NeedToken Need = 1 << iota
	// NeedToken2: a second principal's valid token (-token2).
	NeedToken2
	// NeedNamed: a token of a named kind (-tokens FILE).
	NeedNamed
)

func (n Need) String() string {
	var parts []string
	for _, p := range []struct {
		need Need
		name string
	}{{NeedToken, "T"}, {NeedToken2, "T2"}, {NeedNamed, "X"}} {
		if n&p.need != 0 {
			parts = append(parts, p.name)
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

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
	phaseScan                    // scans the run's answers (EH-02)
	phaseEchoScan                // scans the run's answers, the scan's too (EH-01)
)

// Check is one entry of the catalogue: a value, so that a caller (rawmcp
// probe, rawmcp attack) runs the same check the same way.
type Check struct {
	ID     string  // stable: "HO-02"
	Group  string  // the Group's Code
	Level  Level   // the main level; a check with a hardening part says so in Help
	Source string  // the spec section or RFC
	Rule   rule.ID // the rule tested, "" where the rule table has none
	Needs  Need
	Line   string // one line: what must hold
	// Sends and Passes are the check's help, a phrase each: what the
	// check sends ("initialize with Origin: http://evil.example") and what
	// evidence passes ("403 only"). How the answer is judged in detail is
	// the run function's, right below the check.
	Sends, Passes string
	// Sessions is the most sessions the check may hold at once, including
	// ones a server creates when it should have refused; the runner keeps
	// the sum within the target's limits.
	Sessions int

	phase phase
	run   func(*checkRun) outcome
}
