package probe

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWriteSARIF: the log is SARIF 2.1.0 field by field: one run, the
// catalogue as the driver's rules, one result per check not passed with
// its rule's id and index, the verdict's level, the reason and evidence
// as the message and the target as the location.
func TestWriteSARIF(t *testing.T) {
	rep := sampleReport()
	rep.Results = append(rep.Results,
		Result{Check: *lookup("HO-06"), Verdict: Warn, Reason: "answered 200", Expected: "403 or 415", Actual: "200 application/json"},
		Result{Check: *lookup("JR-01"), Verdict: Error, Reason: "no answer"})
	var b bytes.Buffer
	if err := rep.WriteSARIF(&b); err != nil {
		t.Fatal(err)
	}
	type text struct {
		Text string `json:"text"`
	}
	type rule struct {
		ID               string            `json:"id"`
		ShortDescription text              `json:"shortDescription"`
		FullDescription  text              `json:"fullDescription"`
		Help             text              `json:"help"`
		Default          map[string]string `json:"defaultConfiguration"`
		Properties       map[string]string `json:"properties"`
	}
	type result struct {
		RuleID    string            `json:"ruleId"`
		RuleIndex int               `json:"ruleIndex"`
		Level     string            `json:"level"`
		Message   text              `json:"message"`
		Locations []json.RawMessage `json:"locations"`
		Props     map[string]string `json:"properties"`
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name    string `json:"name"`
					Version string `json:"version"`
					Rules   []rule `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results    []result `json:"results"`
			Properties struct {
				Revisions []string `json:"revisions"`
			} `json:"properties"`
		} `json:"runs"`
	}
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&log); err != nil {
		t.Fatalf("the log is not the shape declared: %v", err)
	}
	if log.Schema != "https://json.schemastore.org/sarif-2.1.0.json" || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("$schema %q, version %q, %d runs; want SARIF 2.1.0 with one run", log.Schema, log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "rawmcp probe" || run.Tool.Driver.Version != "0.1.0" {
		t.Errorf("driver %q %q", run.Tool.Driver.Name, run.Tool.Driver.Version)
	}
	if diff := cmp.Diff([]string{"2025-11-25", "2026-07-28"}, run.Properties.Revisions); diff != "" {
		t.Errorf("the run's revisions (-want +got):\n%s", diff)
	}
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	var want []string
	for _, c := range Catalogue() {
		want = append(want, c.ID)
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("rules are the catalogue in order (-want +got):\n%s", diff)
	}
	ho02 := lookup("HO-02")
	i := index(ids, "HO-02")
	about := "Sends: " + ho02.Sends + ".\nPasses when: " + ho02.Passes + "."
	wantRule := rule{
		ID: "HO-02", ShortDescription: text{"Foreign Origin refused"}, FullDescription: text{about},
		Help:       text{about + "\n\nSource: MCP Transports §Security warning; rawmcp rule " + string(ho02.Rule)},
		Default:    map[string]string{"level": "error"},
		Properties: map[string]string{"level": "MUST", "group": "HO", "source": "MCP Transports §Security warning", "rule": string(ho02.Rule)},
	}
	if diff := cmp.Diff(wantRule, run.Tool.Driver.Rules[i]); diff != "" {
		t.Errorf("rule HO-02 (-want +got):\n%s", diff)
	}
	loc := []json.RawMessage{json.RawMessage(`{"physicalLocation":{"artifactLocation":{"uri":"http://127.0.0.1:8080/mcp"}}}`)}
	wantResults := []result{
		{RuleID: "HO-02", RuleIndex: i, Level: "error", Locations: loc, Props: map[string]string{"verdict": "fail"},
			Message: text{"fail: answered 200 for Origin: http://evil.example [31m\nexpected: 403\nactual: 200 application/json with a result\n> POST /mcp HTTP/1.1\n< HTTP/1.1 200 OK"}},
		{RuleID: "PV-04", RuleIndex: index(ids, "PV-04"), Level: "note", Locations: loc, Props: map[string]string{"verdict": "info"},
			Message: text{"info: answered 400"}},
		{RuleID: "SE-07", RuleIndex: index(ids, "SE-07"), Level: "note", Locations: loc, Props: map[string]string{"verdict": "skip"},
			Message: text{"skip: needs -token2"}},
		{RuleID: "HO-06", RuleIndex: index(ids, "HO-06"), Level: "warning", Locations: loc, Props: map[string]string{"verdict": "warn"},
			Message: text{"warn: answered 200\nexpected: 403 or 415\nactual: 200 application/json"}},
		{RuleID: "JR-01", RuleIndex: index(ids, "JR-01"), Level: "warning", Locations: loc, Props: map[string]string{"verdict": "error"},
			Message: text{"error: no answer"}},
	}
	compact := cmp.Transformer("compact", func(m json.RawMessage) string {
		var b bytes.Buffer
		json.Compact(&b, m)
		return b.String()
	})
	if diff := cmp.Diff(wantResults, run.Results, compact); diff != "" {
		t.Errorf("results: one per check not passed (-want +got):\n%s", diff)
	}
}

func index(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

// TestSARIFEvidenceIsBounded: a result shows at most four exchanges and
// says how many more the -json report holds.
func TestSARIFEvidenceIsBounded(t *testing.T) {
	res := Result{Check: *lookup("SE-09"), Verdict: Fail, Reason: "r"}
	for range 5 {
		res.Exchanges = append(res.Exchanges, Exchange{Request: "POST /mcp HTTP/1.1\r\nHost: h\r\n\r\n", Response: "HTTP/1.1 200 OK\r\n\r\n"})
	}
	want := "fail: r" + "\n> POST /mcp HTTP/1.1\n< HTTP/1.1 200 OK" + "\n> POST /mcp HTTP/1.1\n< HTTP/1.1 200 OK" +
		"\n> POST /mcp HTTP/1.1\n< HTTP/1.1 200 OK" + "\n> POST /mcp HTTP/1.1\n< HTTP/1.1 200 OK" + "\n(1 more exchange in the -json report)"
	if got := sarifMessage(res); got != want {
		t.Errorf("message\n%s\nwant\n%s", got, want)
	}
	res.Exchanges = res.Exchanges[:4]
	if got := sarifMessage(res); got != want[:len(want)-len("\n(1 more exchange in the -json report)")] {
		t.Errorf("four exchanges: message\n%s", got)
	}
}
