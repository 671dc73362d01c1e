package probe

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Baseline is the verdicts a deployment is known to have, check id →
// verdict: a team's CI compares each run with it, as the official
// conformance suite does with its expected failures. A check it does not
// list is expected to pass.
type Baseline map[string]Verdict

// ErrBadBaseline reports a baseline that is neither form ParseBaseline
// reads.
var ErrBadBaseline = errors.New(`probe: the baseline is neither a -json report nor an object of check id → verdict ({"HO-01": "warn"})`)

// ParseBaseline reads a baseline in either form: the probe's own -json
// document (its checks' id and verdict), or a small object of check id →
// verdict. An unknown check id or verdict is an error: a typo must not
// pass for an expected verdict.
func ParseBaseline(data []byte) (Baseline, error) {
	var report struct {
		Checks *[]struct {
			ID      string  `json:"id"`
			Verdict Verdict `json:"verdict"`
		} `json:"checks"`
	}
	b := Baseline{}
	if json.Unmarshal(data, &report) == nil && report.Checks != nil {
		for _, c := range *report.Checks {
			b[c.ID] = c.Verdict
		}
	} else if json.Unmarshal(data, &b) != nil {
		return nil, ErrBadBaseline
	}
	for id, v := range b {
		if lookup(id) == nil {
			return nil, fmt.Errorf("probe: the baseline names %q, which is no check id", id)
		}
		if rank(v) < 0 {
			return nil, fmt.Errorf("probe: the baseline gives %s the verdict %q, which is none of pass, info, skip, warn, error, fail", id, v)
		}
	}
	return b, nil
}

// Drift is a check whose verdict is not its baseline's.
type Drift struct {
	ID       string
	Was, Now Verdict
}

// Compare returns the checks of the run worse than the baseline
// (regressions) and better (baseline entries that no longer hold), in
// catalogue order. A check not listed is expected to pass (info, a
// report, meets that too); a listed check the run did not select is not
// judged.
func (r *Report) Compare(b Baseline) (worse, better []Drift) {
	for _, res := range r.Results {
		was, listed := b[res.Check.ID]
		if !listed {
			was = Pass
			if res.Verdict == Info {
				continue
			}
		}
		d := Drift{ID: res.Check.ID, Was: was, Now: res.Verdict}
		switch {
		case rank(d.Now) > rank(d.Was):
			worse = append(worse, d)
		case rank(d.Now) < rank(d.Was):
			better = append(better, d)
		}
	}
	return worse, better
}

// rank orders verdicts from best to worst, every one distinct, so any
// change is either a regression or an entry to update; -1 for none.
func rank(v Verdict) int {
	for i, w := range []Verdict{Pass, Info, Skip, Warn, Error, Fail} {
		if v == w {
			return i
		}
	}
	return -1
}

// lookup is the catalogue's check id, nil if none.
func lookup(id string) *Check {
	for _, c := range Catalogue() {
		if c.ID == id {
			return c
		}
	}
	return nil
}
