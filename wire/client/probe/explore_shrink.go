package probe

import "context"

// shrink finds a shortest walk that still breaks rule, from res, a walk
// that broke it: the steps after the first breach are cut (they cannot
// have caused it), then single steps are dropped, last first, each drop
// re-run against the server and kept when the rule still breaks, until
// no drop is kept (the walk is then 1-minimal: without any one of its
// steps it passes) or maxShrinkRuns re-runs were spent. It returns the
// shortest failing run, with its exchanges, and the re-runs spent.
func (e *explorer) shrink(ctx context.Context, res WalkResult, rule string) (WalkResult, int) {
	steps := res.Walk().Steps
	for i, s := range res.Steps {
		if breaks(s, rule) {
			steps = steps[:i+1]
			break
		}
	}
	var best WalkResult
	reruns := 0
	try := func(cand []Step) bool {
		if reruns >= maxShrinkRuns || e.requests+len(cand)+maxWalkSessions > e.cap || ctx.Err() != nil {
			return false
		}
		reruns++
		r := e.run(ctx, Walk{Steps: cand}, true)
		if r.breaks(rule) {
			best = r
			return true
		}
		return false
	}
	// The cut walk is re-run first, for its exchanges; a breach that does
	// not come again is reported on the walk as it ran, unshrunk.
	if !try(steps) {
		return res, reruns
	}
	for changed := true; changed; {
		changed = false
		for i := len(steps) - 1; i >= 0 && len(steps) > 1; i-- {
			cand := append(append([]Step(nil), steps[:i]...), steps[i+1:]...)
			if try(cand) {
				steps, changed = cand, true
			}
		}
	}
	return best, reruns
}

func breaks(s StepResult, rule string) bool {
	for _, f := range s.Findings {
		if f.Rule == rule {
			return true
		}
	}
	return false
}
