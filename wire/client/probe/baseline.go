package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// Baseline is what a team accepts of its deployment, as its CI compares
// each run with it: per check id or group code, the worst verdict
// accepted, and why and until when. A check it does not cover may pass,
// skip or report (info); one that newly fails, warns or errors is a
// regression.
type Baseline struct {
	// Edition is the catalogue edition the baseline was written against:
	// a check a later edition added is new to it, never a regression. A
	// baseline that does not say is of edition 1, the first that could be
	// compared.
	Edition int
	// Accepted is keyed by check id ("HO-02") or group code ("V2"); a
	// check's own entry wins over its group's.
	Accepted map[string]Accepted
}

// Accepted is one baseline entry.
type Accepted struct {
	Verdict Verdict `json:"verdict"`
	Reason  string  `json:"reason,omitempty"`
	// Expires is the last day (UTC, "2027-01-31") the entry holds; from
	// the day after it no longer accepts anything and is reported.
	Expires string `json:"expires,omitempty"`
}

// UnmarshalJSON reads an entry as a verdict alone ("warn") or an object
// ({"verdict": "fail", "reason": "...", "expires": "2027-01-31"}); a
// member it does not know is an error, so a typo ("expiry") cannot leave
// an entry that never expires.
func (a *Accepted) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		return json.Unmarshal(data, &a.Verdict)
	}
	type plain Accepted
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		if strings.HasPrefix(err.Error(), "json: unknown field") {
			return &baselineError{"probe: a baseline entry has the " + strings.TrimPrefix(err.Error(), "json: ") + " (an entry has verdict, reason and expires)"}
		}
		return err
	}
	*a = Accepted(p)
	return nil
}

// ErrBadBaseline reports a baseline in none of the forms ParseBaseline
// reads.
var ErrBadBaseline = errors.New(`probe: the baseline is neither a -json report, a -write-baseline file ({"catalogue_edition": 1, "accepted": {...}}) nor an object of check id or group → verdict ({"HO-01": "warn", "V2": "skip"})`)

// ParseBaseline reads a baseline in any of its forms: the probe's own
// -json report (each check's id and verdict), a file -write-baseline
// wrote,
//
//	{"catalogue_edition": 1, "target": "...", "written": "2026-12-05",
//	 "accepted": {"HO-02": {"verdict": "fail", "reason": "...", "expires": "2027-01-31"}, "V2": "skip"}}
//
// or the accepted object alone ({"HO-01": "warn"}). An unknown check id,
// group or verdict, an unreadable expiry or an unknown member is an
// error: a typo must not pass for an accepted verdict. A JSON syntax
// error says at which byte.
func ParseBaseline(data []byte) (*Baseline, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		if where, ok := syntaxError(data, err); ok {
			return nil, &baselineError{"probe: the baseline is not JSON: " + where}
		}
		return nil, ErrBadBaseline
	}
	b := &Baseline{Edition: 1, Accepted: map[string]Accepted{}}
	var err error
	switch _, isReport := top["checks"]; {
	case isReport:
		err = b.fromReport(data)
	case top["accepted"] != nil:
		err = b.fromFile(data)
	default:
		err = json.Unmarshal(data, &b.Accepted)
	}
	if err != nil {
		var bad *baselineError
		if errors.As(err, &bad) {
			return nil, err
		}
		return nil, ErrBadBaseline
	}
	if b.Edition < 1 || b.Edition > CatalogueEdition {
		return nil, &baselineError{fmt.Sprintf("probe: the baseline is of catalogue edition %d; this rawmcp knows editions 1 to %d", b.Edition, CatalogueEdition)}
	}
	for _, key := range slices.Sorted(maps.Keys(b.Accepted)) {
		a := b.Accepted[key]
		switch {
		case lookup(key) == nil && !isGroup(key):
			return nil, fmt.Errorf("probe: the baseline names %q, which is no check id or group", key)
		case rank(a.Verdict) < 0:
			return nil, fmt.Errorf("probe: the baseline gives %s the verdict %q, which is none of pass, info, skip, warn, error, fail", key, a.Verdict)
		case a.Expires != "":
			if _, err := time.Parse(time.DateOnly, a.Expires); err != nil {
				return nil, fmt.Errorf("probe: the baseline's %s expires %q, which is no date (2027-01-31)", key, a.Expires)
			}
		}
	}
	return b, nil
}

// baselineError is a baseline readable as JSON but wrong in a way worth
// saying precisely.
type baselineError struct{ msg string }

func (e *baselineError) Error() string { return e.msg }

func (b *Baseline) fromReport(data []byte) error {
	var report struct {
		Edition *int `json:"catalogue_edition"`
		Checks  []struct {
			ID      string  `json:"id"`
			Verdict Verdict `json:"verdict"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(data, &report); err != nil {
		return err
	}
	if report.Edition != nil {
		b.Edition = *report.Edition
	}
	for _, c := range report.Checks {
		b.Accepted[c.ID] = Accepted{Verdict: c.Verdict}
	}
	return nil
}

// baselineFile is what -write-baseline writes.
type baselineFile struct {
	Edition  int                 `json:"catalogue_edition"`
	Target   string              `json:"target,omitempty"`
	Written  string              `json:"written,omitempty"`
	Accepted map[string]Accepted `json:"accepted"`
}

func (b *Baseline) fromFile(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	f := baselineFile{Edition: 1}
	if err := dec.Decode(&f); err != nil {
		var bad *baselineError
		if strings.HasPrefix(err.Error(), "json: unknown field") && !errors.As(err, &bad) {
			return &baselineError{"probe: the baseline file has the " + strings.TrimPrefix(err.Error(), "json: ") + " (it has catalogue_edition, target, written and accepted)"}
		}
		return err
	}
	b.Edition, b.Accepted = f.Edition, f.Accepted
	return nil
}

// WriteBaseline writes the run's findings (fail, warn, error; checks the
// budget cut off are left out) as a baseline file that accepts exactly
// them, dated today (now, UTC): the file a team commits, then adds a
// reason and an expiry to each entry it keeps.
func (r *Report) WriteBaseline(w io.Writer, now time.Time) error {
	f := baselineFile{Edition: CatalogueEdition, Target: r.Target, Written: now.UTC().Format(time.DateOnly), Accepted: map[string]Accepted{}}
	for _, res := range r.Results {
		if isFinding(res.Verdict) && !res.unfinished {
			f.Accepted[res.Check.ID] = Accepted{Verdict: res.Verdict}
		}
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// MarshalJSON writes an entry with neither reason nor expiry as its
// verdict alone, the way a team writes it by hand.
func (a Accepted) MarshalJSON() ([]byte, error) {
	if a.Reason == "" && a.Expires == "" {
		return json.Marshal(a.Verdict)
	}
	type plain Accepted
	return json.Marshal(plain(a))
}

// Comparison is a run compared with a baseline; every list is in
// catalogue order.
type Comparison struct {
	Edition int `json:"catalogue_edition"` // the baseline's
	// Regressions: checks that newly fail, warn or error (the exit
	// status is 1).
	Regressions []Drift `json:"regressions"`
	// Accepted: findings the baseline accepts.
	Accepted []Drift `json:"accepted"`
	// New: findings of checks a later edition than the baseline's added,
	// reported and never a regression.
	New []Drift `json:"new"`
	// Expired: entries past their expiry, which accept nothing any more.
	Expired []Expired `json:"expired"`
	// Improved: checks doing better than their entry accepts; the entry
	// may go.
	Improved []Drift `json:"improved"`
}

// Drift is one check of the run against its baseline entry: Key is the
// entry that applies (the check's id or its group's code, "" for none),
// Accepted its verdict (pass where none applies).
type Drift struct {
	ID       string  `json:"id"`
	Verdict  Verdict `json:"verdict"`
	Key      string  `json:"key,omitempty"`
	Accepted Verdict `json:"accepted"`
	Reason   string  `json:"reason,omitempty"` // the entry's
}

// Expired is an entry past its date.
type Expired struct {
	Key     string  `json:"key"`
	Verdict Verdict `json:"verdict"`
	Expires string  `json:"expires"`
	Reason  string  `json:"reason,omitempty"`
}

// Compare compares the run with b on day now: each finding (fail, warn,
// error) is accepted by its entry, new (its check came after the
// baseline's edition) or a regression; a check the budget cut off is
// none of these (the run is incomplete instead). An entry past its expiry
// accepts nothing and is listed as expired.
func (r *Report) Compare(b *Baseline, now time.Time) *Comparison {
	out := &Comparison{Edition: b.Edition, Regressions: []Drift{}, Accepted: []Drift{}, New: []Drift{}, Expired: []Expired{}, Improved: []Drift{}}
	today := now.UTC().Format(time.DateOnly)
	expired := func(a Accepted) bool { return a.Expires != "" && a.Expires < today }
	for _, key := range slices.Sorted(maps.Keys(b.Accepted)) {
		if a := b.Accepted[key]; expired(a) {
			out.Expired = append(out.Expired, Expired{Key: key, Verdict: a.Verdict, Expires: a.Expires, Reason: a.Reason})
		}
	}
	for _, res := range r.Results {
		if res.unfinished {
			continue
		}
		d := Drift{ID: res.Check.ID, Verdict: res.Verdict, Accepted: Pass}
		for _, key := range []string{res.Check.ID, res.Check.Group} {
			if a, ok := b.Accepted[key]; ok && !expired(a) {
				d.Key, d.Accepted, d.Reason = key, a.Verdict, a.Reason
				break
			}
		}
		switch {
		case isFinding(d.Verdict) && rank(d.Verdict) <= rank(d.Accepted):
			out.Accepted = append(out.Accepted, d)
		case isFinding(d.Verdict) && editionOf(d.ID) > b.Edition:
			out.New = append(out.New, d)
		case isFinding(d.Verdict):
			out.Regressions = append(out.Regressions, d)
		case d.Key == d.ID && isFinding(d.Accepted):
			out.Improved = append(out.Improved, d)
		}
	}
	return out
}

// Line is the comparison as the summary line ends: "baseline: no
// regression, 2 accepted, 1 expired entry (HO-02)".
func (c *Comparison) Line() string {
	ids := func(ds []Drift) string {
		var out []string
		for _, d := range ds {
			out = append(out, d.ID)
		}
		return strings.Join(out, ", ")
	}
	line := "baseline: no regression"
	if n := len(c.Regressions); n > 0 {
		line = "baseline: " + plural(n, "regression") + " (" + ids(c.Regressions) + ")"
	}
	if n := len(c.Accepted); n > 0 {
		line += fmt.Sprintf(", %d accepted", n)
	}
	if n := len(c.Expired); n > 0 {
		var keys []string
		for _, e := range c.Expired {
			keys = append(keys, e.Key)
		}
		line += ", " + entries(n, "expired ") + " (" + strings.Join(keys, ", ") + ")"
	}
	if n := len(c.New); n > 0 {
		line += fmt.Sprintf(", %d new in edition %d (%s)", n, CatalogueEdition, ids(c.New))
	}
	if n := len(c.Improved); n > 0 {
		line += ", " + entries(n, "") + " no longer needed (" + ids(c.Improved) + ")"
	}
	return line
}

// entries is "1 entry" or "n entries", with an adjective between.
func entries(n int, adjective string) string {
	if n == 1 {
		return "1 " + adjective + "entry"
	}
	return fmt.Sprintf("%d %sentries", n, adjective)
}

// isFinding reports whether v is a finding: what a baseline accepts or a
// regression is made of.
func isFinding(v Verdict) bool { return v == Fail || v == Warn || v == Error }

// rank orders verdicts from best to worst; -1 for none.
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

func isGroup(code string) bool {
	return slices.ContainsFunc(Groups, func(g Group) bool { return g.Code == code })
}
