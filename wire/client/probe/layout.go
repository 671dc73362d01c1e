package probe

import (
	"slices"
	"strings"
)

// layout is a report as the text and HTML forms show it: the findings
// first, each with the checks that rest on it; the skips collapsed to one
// line per group and reason; then the reports and the passes.
type layout struct {
	failed, warned, errored []finding
	skipped                 []skipLine
	info, passed            []Result
	counts                  map[Verdict]int
}

// finding is a check that failed, warned or could not run: its result,
// the skipped checks that rest on it (their reason is "see ID"), and
// where a baseline puts it.
type finding struct {
	Result
	Dependents []Result
	// Standing is "regression", "accepted" or "new" when the run was
	// compared with a baseline; AcceptReason the entry's reason.
	Standing, AcceptReason string
}

// skipLine is the checks of one group skipped for one reason.
type skipLine struct {
	Group  Group
	Reason string
	IDs    []string
}

// findingSection is one kind of finding, as a heading names it.
type findingSection struct {
	title, anchor string
	verdict       Verdict
	findings      []finding
}

func (l layout) findingSections() []findingSection {
	return []findingSection{
		{"Failed", "failed", Fail, l.failed},
		{"Warnings", "warnings", Warn, l.warned},
		{"Could not run", "errors", Error, l.errored},
	}
}

// skipCount is how many skips the skipped lines hold: those resting on
// a finding are counted under it.
func (l layout) skipCount() int {
	n := 0
	for _, s := range l.skipped {
		n += len(s.IDs)
	}
	return n
}

func (r *Report) layout() layout {
	l := layout{counts: r.Counts()}
	standing := map[string]finding{}
	if c := r.Baseline; c != nil {
		for kind, ds := range map[string][]Drift{"regression": c.Regressions, "accepted": c.Accepted, "new": c.New} {
			for _, d := range ds {
				standing[d.ID] = finding{Standing: kind, AcceptReason: d.Reason}
			}
		}
	}
	resting := map[string][]Result{} // finding's id → the skips that rest on it
	for _, res := range r.Results {
		if on := restsOn(res); on != "" {
			resting[on] = append(resting[on], res)
		}
	}
	for _, res := range r.Results {
		f := standing[res.Check.ID]
		f.Result, f.Dependents = res, resting[res.Check.ID]
		if f.Standing != "accepted" {
			f.AcceptReason = ""
		}
		switch res.Verdict {
		case Fail:
			l.failed = append(l.failed, f)
		case Warn:
			l.warned = append(l.warned, f)
		case Error:
			l.errored = append(l.errored, f)
		case Info:
			l.info = append(l.info, res)
		case Pass:
			l.passed = append(l.passed, res)
		case Skip:
			if on := restsOn(res); on != "" && slices.ContainsFunc(r.Results, func(x Result) bool { return x.Check.ID == on && isFinding(x.Verdict) }) {
				continue // shown under its finding
			}
			l.skip(res)
		}
	}
	return l
}

// skip adds a skipped check to the line of its group and reason.
func (l *layout) skip(res Result) {
	for i, s := range l.skipped {
		if s.Group.Code == res.Check.Group && s.Reason == res.Reason {
			l.skipped[i].IDs = append(l.skipped[i].IDs, res.Check.ID)
			return
		}
	}
	g := Group{Code: res.Check.Group, Title: res.Check.Group}
	for _, x := range Groups {
		if x.Code == res.Check.Group {
			g = x
		}
	}
	l.skipped = append(l.skipped, skipLine{Group: g, Reason: res.Reason, IDs: []string{res.Check.ID}})
}

// restsOn is the check a skipped result defers to ("see HO-02 (fail):
// ..."), "" for none: one defect is reported once, under its finding.
func restsOn(res Result) string {
	if res.Verdict != Skip {
		return ""
	}
	for _, id := range res.Check.After {
		if strings.HasPrefix(res.Reason, "see "+id+" (") {
			return id
		}
	}
	return ""
}
