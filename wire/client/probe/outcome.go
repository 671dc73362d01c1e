package probe

import (
	"fmt"
	"strings"
)

// outcome is what a run function decides.
type outcome struct {
	verdict Verdict
	reason  string
}

func (t *checkRun) pass(format string, args ...any) outcome {
	return outcome{Pass, fmt.Sprintf(format, args...)}
}

// unmet is "not met" at the check's level.
func (t *checkRun) unmet(format string, args ...any) outcome {
	return t.unmetAt(t.check.Level, format, args...)
}

// unmetAt is "not met" at level l, for the part of a check that is at
// another level than its main one.
func (t *checkRun) unmetAt(l Level, format string, args ...any) outcome {
	return outcome{verdictFor(l, t.p.opts.Strict), fmt.Sprintf(format, args...)}
}

func (t *checkRun) skip(format string, args ...any) outcome {
	return outcome{Skip, fmt.Sprintf(format, args...)}
}

func (t *checkRun) errored(format string, args ...any) outcome {
	return outcome{Error, fmt.Sprintf(format, args...)}
}

func (t *checkRun) info(format string, args ...any) outcome {
	return outcome{Info, fmt.Sprintf(format, args...)}
}

// unjudgeable is the outcome for an answer no check can judge: none at
// all, a 401 to the run's valid token, or load shedding. Checks that test
// a refusal call it first, so a target that refused for another reason is
// never counted as having refused for the right one.
func (t *checkRun) unjudgeable(r *reply) *outcome {
	var o outcome
	switch {
	case r.resp == nil:
		o = t.errored("%s: %s", r.step, r.describe())
	case r.status() == 401 && t.p.auth:
		o = t.errored("answered 401 to a request with the run's valid token: the check cannot see its own refusal behind the token's")
	case r.status() == 429 || r.status() == 503:
		o = t.errored("answered %d: the target is shedding load, so the answer says nothing about this check", r.status())
	default:
		return nil
	}
	return &o
}

// skipWithoutAuth is the outcome of an authorization check on a target
// that serves requests without a token.
func (t *checkRun) skipWithoutAuth() (outcome, bool) {
	if t.p.auth {
		return outcome{}, false
	}
	return t.skip("the target serves requests without a token: no authorization to check"), true
}

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
