package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParseBaseline: the probe's own -json report, a -write-baseline
// file and the accepted object alone are read alike; group keys, reasons
// and expiries are kept; a typo anywhere is an error that says where.
func TestParseBaseline(t *testing.T) {
	var doc bytes.Buffer
	sampleReport().WriteJSON(&doc)
	tests := []struct {
		name string
		in   string
		want *Baseline
		err  string
	}{
		{"the -json report, of the current edition", doc.String(),
			&Baseline{Edition: CatalogueEdition, Accepted: map[string]Accepted{"PRE-01": {Verdict: Pass}, "HO-01": {Verdict: Pass}, "HO-02": {Verdict: Fail}, "PV-04": {Verdict: Info}, "SE-07": {Verdict: Skip}}}, ""},
		{"a -json report that names no edition is of edition 1", `{"checks": [{"id": "HO-02", "verdict": "fail"}]}`,
			&Baseline{Edition: 1, Accepted: map[string]Accepted{"HO-02": {Verdict: Fail}}}, ""},
		{"the accepted object alone", `{"HO-01": "warn", "AU-02": "fail"}`,
			&Baseline{Edition: 1, Accepted: map[string]Accepted{"HO-01": {Verdict: Warn}, "AU-02": {Verdict: Fail}}}, ""},
		{"a group key", `{"V2": "skip", "HO-02": "fail"}`,
			&Baseline{Edition: 1, Accepted: map[string]Accepted{"V2": {Verdict: Skip}, "HO-02": {Verdict: Fail}}}, ""},
		{"a -write-baseline file with a reason and an expiry", `{"catalogue_edition": 1, "target": "http://127.0.0.1:1/mcp", "written": "2026-12-01",
			"accepted": {"HO-02": {"verdict": "fail", "reason": "the Origin check ships in 2.3", "expires": "2027-01-31"}, "V2": "skip"}}`,
			&Baseline{Edition: 1, Accepted: map[string]Accepted{"HO-02": {Verdict: Fail, Reason: "the Origin check ships in 2.3", Expires: "2027-01-31"}, "V2": {Verdict: Skip}}}, ""},
		{"an empty object: every check passes or skips", `{}`, &Baseline{Edition: 1, Accepted: map[string]Accepted{}}, ""},
		{"an unknown id", `{"HO-99": "warn"}`, nil, `probe: the baseline names "HO-99", which is no check id or group`},
		{"an unknown group", `{"XX": "warn"}`, nil, `probe: the baseline names "XX", which is no check id or group`},
		{"an unknown verdict", `{"HO-01": "warning"}`, nil, `probe: the baseline gives HO-01 the verdict "warning", which is none of pass, info, skip, warn, error, fail`},
		{"an unknown verdict in a report", `{"checks": [{"id": "HO-01", "verdict": "ok"}]}`, nil, `probe: the baseline gives HO-01 the verdict "ok", which is none of pass, info, skip, warn, error, fail`},
		{"an expiry that is no date", `{"HO-01": {"verdict": "warn", "expires": "31/01/2027"}}`, nil, `probe: the baseline's HO-01 expires "31/01/2027", which is no date (2027-01-31)`},
		{"a misspelt entry member", `{"HO-01": {"verdict": "warn", "expiry": "2027-01-31"}}`, nil,
			`probe: a baseline entry has the unknown field "expiry" (an entry has verdict, reason and expires)`},
		{"a misspelt file member", `{"catalogue_edition": 1, "acepted": {}, "accepted": {}}`, nil,
			`probe: the baseline file has the unknown field "acepted" (it has catalogue_edition, target, written and accepted)`},
		{"an edition this rawmcp does not know", `{"catalogue_edition": 99, "accepted": {}}`, nil,
			"probe: the baseline is of catalogue edition 99; this rawmcp knows editions 1 to " + itoa(CatalogueEdition)},
		{"a JSON syntax error says where", "{\n  \"HO-01\": \"warn\",\n}", nil, "probe: the baseline is not JSON: invalid character '}' looking for beginning of object key string at line 3, column 1"},
		{"a list", `["HO-01"]`, nil, ErrBadBaseline.Error()},
		{"a verdict that is no string", `{"HO-01": 1}`, nil, ErrBadBaseline.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBaseline([]byte(tt.in))
			if (err == nil) != (tt.err == "") || err != nil && err.Error() != tt.err {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := ParseBaseline([]byte(`[]`)); !errors.Is(err, ErrBadBaseline) {
		t.Errorf("a list: %v, want ErrBadBaseline", err)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// comparedReport is a run with one finding of each kind: HO-02 fails,
// HO-06 warns, JR-01 errored, SE-07 skipped, PV-04 reports, and AU-03
// was cut off by the budget.
func comparedReport() *Report {
	rep := sampleReport()
	rep.Results = append(rep.Results,
		Result{Check: *lookup("HO-06"), Verdict: Warn, Reason: "answered 200"},
		Result{Check: *lookup("JR-01"), Verdict: Error, Reason: "no answer"},
		Result{Check: *lookup("AU-03"), Verdict: Error, Reason: "not finished: the 60s budget ran out", unfinished: true})
	return rep
}

// TestCompare: a finding is accepted by its entry (the check's own, else
// its group's), new when its check came after the baseline's edition,
// else a regression; a check not covered may pass, skip or report; an
// expired entry accepts nothing and is listed; an entry its check now
// does better than is no longer needed; a check the budget cut off is
// none of these.
func TestCompare(t *testing.T) {
	day := time.Date(2027, 2, 1, 12, 0, 0, 0, time.UTC)
	drift := func(id string, v Verdict, key string, accepted Verdict) Drift {
		return Drift{ID: id, Verdict: v, Key: key, Accepted: accepted}
	}
	tests := []struct {
		name     string
		baseline *Baseline
		want     *Comparison
	}{
		{"no entry: every finding is a regression, skip and info are not",
			&Baseline{Edition: 1},
			&Comparison{Edition: 1, Regressions: []Drift{drift("HO-02", Fail, "", Pass), drift("HO-06", Warn, "", Pass), drift("JR-01", Error, "", Pass)}}},
		{"each finding accepted",
			&Baseline{Edition: 1, Accepted: map[string]Accepted{"HO-02": {Verdict: Fail}, "HO-06": {Verdict: Warn}, "JR-01": {Verdict: Error}}},
			&Comparison{Edition: 1, Accepted: []Drift{drift("HO-02", Fail, "HO-02", Fail), drift("HO-06", Warn, "HO-06", Warn), drift("JR-01", Error, "JR-01", Error)}}},
		{"a group key accepts its checks",
			&Baseline{Edition: 1, Accepted: map[string]Accepted{"HO": {Verdict: Fail, Reason: "no Origin check yet"}, "JR": {Verdict: Error}}},
			&Comparison{Edition: 1, Accepted: []Drift{{ID: "HO-02", Verdict: Fail, Key: "HO", Accepted: Fail, Reason: "no Origin check yet"},
				{ID: "HO-06", Verdict: Warn, Key: "HO", Accepted: Fail, Reason: "no Origin check yet"}, drift("JR-01", Error, "JR", Error)}}},
		{"a check's own entry wins over its group's",
			&Baseline{Edition: 1, Accepted: map[string]Accepted{"HO": {Verdict: Fail}, "HO-06": {Verdict: Pass}, "JR-01": {Verdict: Error}}},
			&Comparison{Edition: 1, Accepted: []Drift{drift("HO-02", Fail, "HO", Fail), drift("JR-01", Error, "JR-01", Error)},
				Regressions: []Drift{drift("HO-06", Warn, "HO-06", Pass)}}},
		{"a warn accepted, now a fail, regresses",
			&Baseline{Edition: 1, Accepted: map[string]Accepted{"HO-02": {Verdict: Warn}, "HO-06": {Verdict: Warn}, "JR-01": {Verdict: Error}}},
			&Comparison{Edition: 1, Regressions: []Drift{drift("HO-02", Fail, "HO-02", Warn)}, Accepted: []Drift{drift("HO-06", Warn, "HO-06", Warn), drift("JR-01", Error, "JR-01", Error)}}},
		{"an expired entry accepts nothing and is listed",
			&Baseline{Edition: 1, Accepted: map[string]Accepted{"HO-02": {Verdict: Fail, Reason: "ships in 2.3", Expires: "2027-01-31"}, "HO-06": {Verdict: Warn, Expires: "2027-02-01"}, "JR-01": {Verdict: Error}}},
			&Comparison{Edition: 1, Regressions: []Drift{drift("HO-02", Fail, "", Pass)}, Accepted: []Drift{drift("HO-06", Warn, "HO-06", Warn), drift("JR-01", Error, "JR-01", Error)},
				Expired: []Expired{{Key: "HO-02", Verdict: Fail, Expires: "2027-01-31", Reason: "ships in 2.3"}}}},
		{"an expired check entry leaves its group's in force",
			&Baseline{Edition: 1, Accepted: map[string]Accepted{"HO-02": {Verdict: Fail, Expires: "2026-12-31"}, "HO": {Verdict: Fail}, "JR-01": {Verdict: Error}}},
			&Comparison{Edition: 1, Accepted: []Drift{drift("HO-02", Fail, "HO", Fail), drift("HO-06", Warn, "HO", Fail), drift("JR-01", Error, "JR-01", Error)},
				Expired: []Expired{{Key: "HO-02", Verdict: Fail, Expires: "2026-12-31"}}}},
		{"checks after the baseline's edition are new, never regressions",
			&Baseline{Edition: 0, Accepted: map[string]Accepted{"HO-02": {Verdict: Fail}}},
			&Comparison{Edition: 0, Accepted: []Drift{drift("HO-02", Fail, "HO-02", Fail)}, New: []Drift{drift("HO-06", Warn, "", Pass), drift("JR-01", Error, "", Pass)}}},
		{"an entry its check does better than is no longer needed",
			&Baseline{Edition: 1, Accepted: map[string]Accepted{"HO-01": {Verdict: Warn}, "HO-02": {Verdict: Fail}, "HO-06": {Verdict: Warn}, "JR-01": {Verdict: Error}, "SE-07": {Verdict: Skip}}},
			&Comparison{Edition: 1, Accepted: []Drift{drift("HO-02", Fail, "HO-02", Fail), drift("HO-06", Warn, "HO-06", Warn), drift("JR-01", Error, "JR-01", Error)},
				Improved: []Drift{drift("HO-01", Pass, "HO-01", Warn)}}},
	}
	empty := cmp.Transformer("empty", func(ds []Drift) []Drift {
		if ds == nil {
			return []Drift{}
		}
		return ds
	})
	emptyExpired := cmp.Transformer("emptyExpired", func(es []Expired) []Expired {
		if es == nil {
			return []Expired{}
		}
		return es
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := comparedReport().Compare(tt.baseline, day)
			if diff := cmp.Diff(tt.want, got, empty, emptyExpired); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestComparisonLine: the summary line says the regressions by id, then
// only what there is.
func TestComparisonLine(t *testing.T) {
	tests := []struct {
		name string
		c    Comparison
		want string
	}{
		{"nothing to say", Comparison{}, "baseline: no regression"},
		{"accepted only", Comparison{Accepted: []Drift{{ID: "HO-02"}, {ID: "HO-06"}}}, "baseline: no regression, 2 accepted"},
		{"one regression", Comparison{Regressions: []Drift{{ID: "HO-06"}}}, "baseline: 1 regression (HO-06)"},
		{"everything", Comparison{Regressions: []Drift{{ID: "HO-06"}, {ID: "JR-01"}}, Accepted: []Drift{{ID: "HO-02"}},
			Expired: []Expired{{Key: "HO-02"}}, New: []Drift{{ID: "V2-01"}}, Improved: []Drift{{ID: "HO-01"}, {ID: "AU-02"}}},
			"baseline: 2 regressions (HO-06, JR-01), 1 accepted, 1 expired entry (HO-02), 1 new in edition " + itoa(CatalogueEdition) + " (V2-01), 2 entries no longer needed (HO-01, AU-02)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.Line(); got != tt.want {
				t.Errorf("%q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestWriteBaselineHolds: a baseline written from a run accepts that
// run (no regression), and one finding more is a regression naming it.
func TestWriteBaselineHolds(t *testing.T) {
	day := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	var file bytes.Buffer
	if err := comparedReport().WriteBaseline(&file, day); err != nil {
		t.Fatal(err)
	}
	want := `{
  "catalogue_edition": ` + itoa(CatalogueEdition) + `,
  "target": "http://127.0.0.1:8080/mcp",
  "written": "2026-12-05",
  "accepted": {
    "HO-02": "fail",
    "HO-06": "warn",
    "JR-01": "error"
  }
}
`
	if diff := cmp.Diff(want, file.String()); diff != "" {
		t.Errorf("the file (-want +got):\n%s", diff)
	}
	b, err := ParseBaseline(file.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if c := comparedReport().Compare(b, day); len(c.Regressions) != 0 || c.Line() != "baseline: no regression, 3 accepted" {
		t.Errorf("the next run: %s", c.Line())
	}
	worse := comparedReport()
	worse.Results[1].Verdict = Fail // HO-01
	if c := worse.Compare(b, day); c.Line() != "baseline: 1 regression (HO-01), 3 accepted" {
		t.Errorf("one finding more: %s", c.Line())
	}
}

// TestSummaryCarriesTheBaseline: the summary line ends with the
// comparison, and -json carries it whole.
func TestSummaryCarriesTheBaseline(t *testing.T) {
	rep := comparedReport()
	rep.Baseline = rep.Compare(&Baseline{Edition: 1, Accepted: map[string]Accepted{"HO-02": {Verdict: Fail}}}, time.Now())
	if got, want := rep.Summary(), "; baseline: 2 regressions (HO-06, JR-01), 1 accepted"; !strings.HasSuffix(got, want) {
		t.Errorf("summary %q, want it to end %q", got, want)
	}
	var doc bytes.Buffer
	rep.WriteJSON(&doc)
	var got struct {
		Baseline *Comparison `json:"baseline"`
	}
	if err := json.Unmarshal(doc.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep.Baseline, got.Baseline); diff != "" {
		t.Errorf("-json's baseline (-want +got):\n%s", diff)
	}
}

// FuzzParseBaseline: an accepted baseline names only catalogue checks or
// groups, verdicts and dates.
func FuzzParseBaseline(f *testing.F) {
	for _, seed := range []string{`{"HO-01": "warn"}`, `{"checks": [{"id": "AU-02", "verdict": "fail"}]}`, `{}`, `{"checks": null}`, `[`,
		`{"catalogue_edition": 1, "accepted": {"V2": {"verdict": "skip", "expires": "2027-01-31"}}}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseBaseline(data)
		if err != nil {
			return
		}
		for key, a := range b.Accepted {
			if lookup(key) == nil && !isGroup(key) || rank(a.Verdict) < 0 {
				t.Fatalf("%q: %q accepted", key, a.Verdict)
			}
			if _, err := time.Parse(time.DateOnly, a.Expires); a.Expires != "" && err != nil {
				t.Fatalf("%q: expiry %q accepted", key, a.Expires)
			}
		}
	})
}
