package scenario

import (
	"context"
	"encoding/json"
	"rawmcp/wire/rule"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExperiments runs each experiment on its own and reads the status
// lines it observed against the profile document's predictions.
func TestExperiments(t *testing.T) {
	tests := []struct {
		rule        rule.ID
		statusLines []string
	}{
		{rule.AcceptBothTypes, []string{"HTTP/1.1 406 Not Acceptable"}},
		{rule.ContentTypeJSON, []string{"HTTP/1.1 415 Unsupported Media Type"}},
		{rule.VersionRequired, []string{"HTTP/1.1 400 Bad Request", "HTTP/1.1 400 Bad Request"}},
		{rule.VersionCounterOffer, []string{"HTTP/1.1 200 OK", "HTTP/1.1 400 Bad Request"}},
		{rule.QueryRefused, []string{"HTTP/1.1 400 Bad Request"}},
		{rule.SessionBoundToOwner, []string{"HTTP/1.1 404 Not Found"}},
		{rule.InsufficientScope, []string{"HTTP/1.1 403 Forbidden", "HTTP/1.1 401 Unauthorized"}},
		{rule.InvalidToken, []string{"HTTP/1.1 401 Unauthorized", "HTTP/1.1 401 Unauthorized"}},
		{rule.TokenLifetime, []string{"HTTP/1.1 401 Unauthorized", "HTTP/1.1 401 Unauthorized"}},
		{rule.CursorUnknown, []string{"HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 400 Bad Request", "HTTP/1.1 400 Bad Request"}},
	}
	list := Experiments()
	if len(list) != len(tests) {
		t.Fatalf("%d experiments, the profile document has %d", len(list), len(tests))
	}
	for i, tt := range tests {
		e := list[i]
		t.Run(string(tt.rule)+"/experiment "+strconv.Itoa(e.Number)+": "+e.Title, func(t *testing.T) {
			if e.Number != i+1 {
				t.Fatalf("experiment %d is numbered %d", i+1, e.Number)
			}
			v := RunExperiments(context.Background(), RunOptions{}, []Experiment{e})
			var got []string
			for _, p := range v.Results[0].Probes {
				got = append(got, p.StatusLine)
				if !p.Pass {
					t.Errorf("%s: %s", p.Changed, p.Problem)
				}
			}
			if diff := cmp.Diff(tt.statusLines, got); diff != "" {
				t.Errorf("status lines (-want +got):\n%s", diff)
			}
			if v.Verdict != "PASS" || v.Passed != 1 {
				t.Errorf("verdict %s with %d passed, want PASS with 1", v.Verdict, v.Passed)
			}
		})
	}
}

// TestWrongPredictionFails runs experiments whose prediction is wrong:
// the verdict must turn.
func TestWrongPredictionFails(t *testing.T) {
	tests := []struct {
		name       string
		experiment int
		change     func(p *probe)
		problem    string
	}{
		{"T-P02/a wrong status", 1, func(p *probe) { p.want = 415 }, "predicted 415, observed 406"},
		{"T-P08/the right status for another check's reason", 3, func(p *probe) { p.rule = rule.SessionRequired },
			`predicted rule T-42, the server named "T-P08"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Experiments()[tt.experiment-1]
			e.probes = slices.Clone(e.probes[:1])
			tt.change(&e.probes[0])
			v := RunExperiments(context.Background(), RunOptions{}, []Experiment{e})
			got := [4]any{v.Verdict, v.Experiments, v.Passed, v.Results[0].Probes[0].Problem}
			want := [4]any{"FAIL", 1, 0, tt.problem}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("verdict, experiments, passed, problem (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExperimentsVerdictJSON(t *testing.T) {
	v := ExperimentsVerdict{Experiments: 10, Passed: 10, Profile: Profile, ProtocolVersion: "2025-11-25", Verdict: "PASS",
		Results: []ExperimentResult{{Title: "never printed"}}}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"experiments":10,"passed":10,"profile":"loopback-streamable-http-teaching-profile-v1","protocol_version":"2025-11-25","verdict":"PASS"}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}
