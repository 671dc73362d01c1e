package probe

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseBaseline: the probe's own -json document and the small
// id → verdict object are read alike; a typo is an error.
func TestParseBaseline(t *testing.T) {
	var doc bytes.Buffer
	sampleReport().WriteJSON(&doc)
	tests := []struct {
		name string
		in   string
		want Baseline
		err  string
	}{
		{"the -json report", doc.String(), Baseline{"PRE-01": Pass, "HO-01": Pass, "HO-02": Fail, "PV-04": Info, "SE-07": Skip}, ""},
		{"the small form", `{"HO-01": "warn", "AU-02": "fail"}`, Baseline{"HO-01": Warn, "AU-02": Fail}, ""},
		{"an empty object: every check passes", `{}`, Baseline{}, ""},
		{"a report with no checks", `{"checks": []}`, Baseline{}, ""},
		{"an unknown id", `{"HO-99": "warn"}`, nil, `probe: the baseline names "HO-99", which is no check id`},
		{"an unknown verdict", `{"HO-01": "warning"}`, nil, `probe: the baseline gives HO-01 the verdict "warning", which is none of pass, info, skip, warn, error, fail`},
		{"an unknown verdict in a report", `{"checks": [{"id": "HO-01", "verdict": "ok"}]}`, nil, `probe: the baseline gives HO-01 the verdict "ok", which is none of pass, info, skip, warn, error, fail`},
		{"not JSON", `HO-01 warn`, nil, ErrBadBaseline.Error()},
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

// TestCompare: a verdict worse than its baseline's is a regression, a
// better one an entry that no longer holds; a check not listed must pass
// (info meets that), a listed check the run did not select is not judged.
func TestCompare(t *testing.T) {
	// The sample: PRE-01 pass, HO-01 pass, HO-02 fail, PV-04 info, SE-07 skip.
	tests := []struct {
		name          string
		baseline      Baseline
		worse, better []Drift
	}{
		{"every verdict as recorded", Baseline{"PRE-01": Pass, "HO-01": Pass, "HO-02": Fail, "PV-04": Info, "SE-07": Skip}, nil, nil},
		{"the small form lists what does not pass", Baseline{"HO-02": Fail, "SE-07": Skip}, nil, nil},
		{"not listed must pass", Baseline{"SE-07": Skip}, []Drift{{"HO-02", Pass, Fail}}, nil},
		{"a warn that became a fail", Baseline{"HO-02": Warn, "SE-07": Skip}, []Drift{{"HO-02", Warn, Fail}}, nil},
		{"a skip is worse than info", Baseline{"HO-02": Fail, "SE-07": Info}, []Drift{{"SE-07", Info, Skip}}, nil},
		{"a recorded fail that now passes", Baseline{"HO-01": Fail, "HO-02": Fail, "SE-07": Skip}, nil, []Drift{{"HO-01", Fail, Pass}}},
		{"both, in catalogue order", Baseline{"HO-01": Warn, "SE-07": Skip, "PV-04": Pass}, []Drift{{"HO-02", Pass, Fail}, {"PV-04", Pass, Info}}, []Drift{{"HO-01", Warn, Pass}}},
		{"a check the run did not select", Baseline{"HO-02": Fail, "SE-07": Skip, "AU-02": Fail}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			worse, better := sampleReport().Compare(tt.baseline)
			if diff := cmp.Diff(tt.worse, worse); diff != "" {
				t.Errorf("regressions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.better, better); diff != "" {
				t.Errorf("no longer holding (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseBaseline: an accepted baseline names only catalogue checks
// and verdicts.
func FuzzParseBaseline(f *testing.F) {
	for _, seed := range []string{`{"HO-01": "warn"}`, `{"checks": [{"id": "AU-02", "verdict": "fail"}]}`, `{}`, `{"checks": null}`, `[`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseBaseline(data)
		if err != nil {
			return
		}
		for id, v := range b {
			if lookup(id) == nil || rank(v) < 0 {
				t.Fatalf("%q: %q accepted", id, v)
			}
		}
	})
}
