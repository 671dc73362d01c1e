package probe

import (
	"fmt"
	"strings"
)

// outcome is what a run function decides: a verdict, its reason in one
// line, and for a verdict on an answer, the evidence as h2spec reports
// it: what the check expected and what actually came back (with).
type outcome struct {
	verdict  Verdict
	reason   string
	expected string
	actual   string
	// level is the level of the rule a fail or warn found broken: the
	// check's own, or a lower one for a point judged beside its rule.
	level Level
	// unfinished: the run halted before the check could finish (a rate
	// limit, a target that stopped answering); the report is incomplete.
	unfinished bool
}

// with sets the evidence: expected ("403") and actual ("200
// text/event-stream with a result", usually reply.actual).
func (o outcome) with(expected, actual string) outcome {
	o.expected, o.actual = expected, actual
	return o
}

func (t *checkRun) pass(format string, args ...any) outcome {
	return outcome{verdict: Pass, reason: fmt.Sprintf(format, args...)}
}

// unmet is "not met" at the check's level.
func (t *checkRun) unmet(format string, args ...any) outcome {
	return t.unmetAt(t.check.Level, format, args...)
}

// unmetAt is "not met" at level l, for the part of a check that is at
// another level than its main one.
func (t *checkRun) unmetAt(l Level, format string, args ...any) outcome {
	return outcome{verdict: verdictFor(l, t.p.opts.Strict), level: l, reason: fmt.Sprintf(format, args...)}
}

func (t *checkRun) skip(format string, args ...any) outcome {
	return outcome{verdict: Skip, reason: fmt.Sprintf(format, args...)}
}

// errored is the Error verdict: the check could not run, because the
// target broke the exchange or answered what the check cannot judge.
func (t *checkRun) errored(format string, args ...any) outcome {
	return outcome{verdict: Error, reason: fmt.Sprintf(format, args...)}
}

func (t *checkRun) info(format string, args ...any) outcome {
	return outcome{verdict: Info, reason: fmt.Sprintf(format, args...)}
}

// unjudgeable is the outcome for an answer no check can judge: none at
// all, a 401 to the run's valid token (or, in a run without one, a 401 to
// a request the check needs judged: "needs -token"), or load shedding.
// Checks that test a refusal call it first, so a target that refused for
// another reason is never counted as having refused for the right one.
func (t *checkRun) unjudgeable(r *reply) *outcome {
	var o outcome
	switch {
	case r.resp == nil && t.outOfTime():
		o = t.errored("%s: the check's own time ran out before an answer came: not the server's silence", r.step).
			with("an answer", "none before the check's time ran out")
	case r.resp == nil:
		o = t.errored("%s: %s", r.step, r.describe()).with("an answer", r.actual())
	case r.status() == 401 && t.p.tokenless:
		o = t.skip("%s: %s answered 401: the target asks for the token before it judges the request", needsToken, r.step)
	case r.status() == 401 && t.p.auth:
		o = t.errored("answered 401 to a request with the run's valid token: the check cannot see its own refusal behind the token's").
			with("an answer to the valid token", r.actual())
	case r.status() == 429 || r.status() == 503:
		o = t.errored("answered %d: the target is shedding load, so the answer says nothing about this check", r.status()).
			with("an answer that served or refused the request", r.actual())
	default:
		return nil
	}
	return &o
}

// must returns r when it can be judged; otherwise it ends the check with
// the unjudgeable outcome (the runner recovers it), so a run function
// holds only its judgement.
func (t *checkRun) must(r *reply) *reply {
	if o := t.unjudgeable(r); o != nil {
		t.stop(*o)
	}
	return r
}

// stop ends the check with o, from anywhere in its run function.
func (t *checkRun) stop(o outcome) {
	panic(ended{o})
}

// ended carries a check's outcome from stop to the runner.
type ended struct{ outcome }

// plural is "1 x" or "n xs".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// joinAnd lists parts as "a, b and c".
func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
