package probe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe/testdata/schemacheck"
)

// writeSARIF writes rep's SARIF log at location and fails the test
// unless it validates against the SARIF 2.1.0 schema and meets code
// scanning's upload rules: every log a test writes is checked.
func writeSARIF(t *testing.T, rep *Report, location string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteSARIF(&b, location); err != nil {
		t.Fatal(err)
	}
	for _, p := range schemacheck.SARIF(b.Bytes()) {
		t.Errorf("the log does not validate: %s", p)
	}
	return b.Bytes()
}

// sarifDoc is the part of the log the tests read.
type sarifDoc struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Name, Version, SemanticVersion string
				Properties                     map[string]int
				Rules                          []struct {
					ID               string
					ShortDescription struct{ Text string }
					Help             struct{ Text, Markdown string }
					HelpURI          string
					Properties       map[string]any
				}
			}
		}
		Results []struct {
			RuleID              string
			RuleIndex           int
			Level               string
			Message             struct{ Text string }
			Locations           []json.RawMessage
			PartialFingerprints map[string]string
			Properties          map[string]string
		}
		Properties struct {
			Target    string
			Revisions []string
			Passed    []string
			Skipped   []sarifNotResult
			Info      []sarifNotResult
			Accepted  []sarifNotResult
			NotRun    []sarifNotResult
			Baseline  string
		}
	}
}

func readSARIF(t *testing.T, log []byte) sarifDoc {
	t.Helper()
	var doc sarifDoc
	if err := json.Unmarshal(log, &doc); err != nil || len(doc.Runs) != 1 {
		t.Fatalf("not one run (%v):\n%s", err, log)
	}
	return doc
}

// TestWriteSARIF: only findings (fail, warn, error) are results, each
// located at a file of the user's repository with the probed URL as its
// logical location; passes, skips, reports and checks the budget cut off
// go to the run's properties; the driver carries the version and the
// catalogue's edition.
func TestWriteSARIF(t *testing.T) {
	doc := readSARIF(t, writeSARIF(t, comparedReport(), DefaultSARIFLocation))
	run := doc.Runs[0]
	d := run.Tool.Driver
	if d.Name != "rawmcp probe" || d.Version != "0.1.0" || d.SemanticVersion != "0.1.0" || d.Properties["catalogueEdition"] != CatalogueEdition {
		t.Errorf("driver %q %q %q %v", d.Name, d.Version, d.SemanticVersion, d.Properties)
	}
	var ids []string
	for _, r := range d.Rules {
		ids = append(ids, r.ID)
	}
	var ran []string
	for _, res := range comparedReport().Results {
		ran = append(ran, res.Check.ID)
	}
	if diff := cmp.Diff(ran, ids); diff != "" {
		t.Errorf("rules are the checks the run ran, in its order (-want +got):\n%s", diff)
	}
	type result struct{ ID, Level, Message string }
	var got []result
	for _, r := range run.Results {
		got = append(got, result{r.RuleID, r.Level, r.Message.Text})
		if ids[r.RuleIndex] != r.RuleID {
			t.Errorf("%s: ruleIndex %d is %s", r.RuleID, r.RuleIndex, ids[r.RuleIndex])
		}
		if diff := cmp.Diff(map[string]string{"verdict": verdictOf(r.RuleID), "target": "http://127.0.0.1:8080/mcp"}, r.Properties); diff != "" {
			t.Errorf("%s: properties (-want +got):\n%s", r.RuleID, diff)
		}
		wantLoc := `{"physicalLocation":{"artifactLocation":{"uri":".github/workflows/mcp-probe.yml","uriBaseId":"%SRCROOT%"},"region":{"startLine":1}},` +
			`"logicalLocations":[{"fullyQualifiedName":"http://127.0.0.1:8080/mcp","kind":"resource"}]}`
		if len(r.Locations) != 1 || compactJSON(r.Locations[0]) != wantLoc {
			t.Errorf("%s: locations %s", r.RuleID, r.Locations)
		}
	}
	want := []result{
		{"HO-02", "error", "fail: answered 200 for Origin: http://evil.example [31m\nexpected: 403\nactual: 200 application/json with a result\n> POST /mcp HTTP/1.1\n< HTTP/1.1 200 OK"},
		{"HO-06", "warning", "warn: answered 200"},
		{"JR-01", "warning", "error: no answer"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	p := run.Properties
	if diff := cmp.Diff([]string{"PRE-01", "HO-01"}, p.Passed); diff != "" {
		t.Errorf("passed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]sarifNotResult{{"SE-07", Skip, "needs -token2"}}, p.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]sarifNotResult{{"PV-04", Info, "answered 400"}}, p.Info); diff != "" {
		t.Errorf("info (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]sarifNotResult{{"AU-03", Error, "not finished: the 60s budget ran out"}}, p.NotRun); diff != "" {
		t.Errorf("not run (-want +got):\n%s", diff)
	}
	if p.Target != "http://127.0.0.1:8080/mcp" || len(p.Revisions) != 2 {
		t.Errorf("target %q, revisions %v", p.Target, p.Revisions)
	}
}

func verdictOf(id string) string {
	for _, res := range comparedReport().Results {
		if res.Check.ID == id {
			return string(res.Verdict)
		}
	}
	return ""
}

func compactJSON(m json.RawMessage) string {
	var b bytes.Buffer
	json.Compact(&b, m)
	return b.String()
}

// TestSARIFWithBaseline: a finding the baseline accepts is no result
// (code scanning does not honour SARIF suppressions, so it would open an
// alert) but is listed in the run's properties; a regression says so.
func TestSARIFWithBaseline(t *testing.T) {
	rep := comparedReport()
	rep.Baseline = rep.Compare(&Baseline{Edition: 1, Accepted: map[string]Accepted{"HO-02": {Verdict: Fail, Reason: "ships in 2.3"}}}, time.Now())
	run := readSARIF(t, writeSARIF(t, rep, "deploy/mcp.yaml")).Runs[0]
	var ids []string
	for _, r := range run.Results {
		ids = append(ids, r.RuleID+" "+r.Properties["baseline"])
	}
	if diff := cmp.Diff([]string{"HO-06 regression", "JR-01 regression"}, ids); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]sarifNotResult{{"HO-02", Fail, "answered 200 for Origin: http://evil.example [31m"}}, run.Properties.Accepted); diff != "" {
		t.Errorf("accepted (-want +got):\n%s", diff)
	}
	if run.Properties.Baseline != "baseline: 2 regressions (HO-06, JR-01), 1 accepted" {
		t.Errorf("baseline %q", run.Properties.Baseline)
	}
}

// TestSARIFFingerprintsIgnoreThePort: the fingerprint of a finding is its
// check and the target without its port: the same across runs on
// changing ports, another for another check or host.
func TestSARIFFingerprintsIgnoreThePort(t *testing.T) {
	print := func(target string) map[string]string {
		rep := comparedReport()
		rep.Target = target
		out := map[string]string{}
		for _, r := range readSARIF(t, writeSARIF(t, rep, DefaultSARIFLocation)).Runs[0].Results {
			out[r.RuleID] = r.PartialFingerprints["primaryLocationLineHash"]
		}
		return out
	}
	a, b := print("http://127.0.0.1:41234/mcp"), print("http://127.0.0.1:50001/mcp")
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two ports, other fingerprints (-first +second):\n%s", diff)
	}
	if a["HO-02"] == a["HO-06"] || !strings.HasSuffix(a["HO-02"], ":1") {
		t.Errorf("fingerprints %v: one per check, hash:occurrence", a)
	}
	if other := print("http://127.0.0.2:41234/mcp"); other["HO-02"] == a["HO-02"] {
		t.Error("another host, the same fingerprint")
	}
	for in, want := range map[string]string{
		"http://127.0.0.1:41234/mcp":     "http://127.0.0.1/mcp",
		"https://[::1]:8443/mcp":         "https://[::1]/mcp",
		"https://mcp.example.test/a/mcp": "https://mcp.example.test/a/mcp",
	} {
		if got := withoutPort(in); got != want {
			t.Errorf("withoutPort(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSARIFRuleHelp: a rule's help begins with the check's fix and names
// the section it rests on, whose URL is the helpUri; security-severity
// follows the level. The fix and link here are the test's own, so the
// test holds whatever the catalogue says.
func TestSARIFRuleHelp(t *testing.T) {
	rep := comparedReport()
	for i := range rep.Results {
		if rep.Results[i].Check.ID == "HO-02" {
			rep.Results[i].Check.Fix = "Check Origin against an allowlist before anything else."
			rep.Results[i].Check.Link = "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning"
		}
	}
	rules := readSARIF(t, writeSARIF(t, rep, DefaultSARIFLocation)).Runs[0].Tool.Driver.Rules
	for _, r := range rules {
		switch r.ID {
		case "HO-02":
			if !strings.HasPrefix(r.Help.Text, "Fix: Check Origin against an allowlist before anything else.\n\nRests on: MCP Transports §Security warning (https://") ||
				!strings.HasPrefix(r.Help.Markdown, "**Fix.** Check Origin") || !strings.Contains(r.Help.Markdown, "](https://modelcontextprotocol.io/") {
				t.Errorf("HO-02's help:\n%s\n%s", r.Help.Text, r.Help.Markdown)
			}
			if r.HelpURI != "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning" || r.ShortDescription.Text != "Foreign Origin refused" {
				t.Errorf("HO-02: helpUri %q, short %q", r.HelpURI, r.ShortDescription.Text)
			}
		}
		c := lookup(r.ID)
		if got, want := r.Properties["security-severity"], securitySeverity(c.Level); (got == nil) != (want == "") || got != nil && got != want {
			t.Errorf("%s (%s): security-severity %v, want %q", r.ID, c.Level, got, want)
		}
		if c.Link != "" && r.HelpURI != c.Link && r.ID != "HO-02" {
			t.Errorf("%s: helpUri %q, want its link %q", r.ID, r.HelpURI, c.Link)
		}
	}
}

// TestSARIFLocation: a path relative to the repository, or a file: URI;
// anything that leaves the repository or has another scheme is refused.
func TestSARIFLocation(t *testing.T) {
	tests := []struct{ in, want string }{
		{".github/workflows/mcp-probe.yml", ".github/workflows/mcp-probe.yml"},
		{"./deploy/../server/main.go", "server/main.go"},
		{`deploy\mcp.yaml`, "deploy/mcp.yaml"},
		{"my server/main.go", "my%20server/main.go"},
		{"file:///github/workspace/server.ts", "file:///github/workspace/server.ts"},
		{"", ""},
		{"/etc/passwd", ""},
		{"../other/repo.go", ""},
		{"http://127.0.0.1:8080/mcp", ""},
		{"C:/src/main.go", ""},
	}
	for _, tt := range tests {
		got, err := SARIFLocation(tt.in)
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("SARIFLocation(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
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

// TestSARIFCheckerCatches: the checker every SARIF test relies on finds
// each way a log breaks the schema or code scanning's upload rules, so a
// log that passes it passes for a reason.
func TestSARIFCheckerCatches(t *testing.T) {
	var valid bytes.Buffer
	if err := comparedReport().WriteSARIF(&valid, DefaultSARIFLocation); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		break_ func(log map[string]any)
		want   string // a part of one problem
	}{
		{"the probed URL as the location (code scanning: another scheme than the checkout's)", func(l map[string]any) {
			logArtifact(l, 0)["uri"] = "http://127.0.0.1:8080/mcp"
		}, `artifact URI "http://127.0.0.1:8080/mcp" is neither relative nor file:`},
		{"a result without a message", func(l map[string]any) { delete(logResult(l, 0), "message") }, "message.text is required"},
		{"an empty message", func(l map[string]any) { logResult(l, 0)["message"] = map[string]any{"text": ""} }, "message.text is required and not empty"},
		{"a ruleId without a rule", func(l map[string]any) { logResult(l, 0)["ruleId"] = "XX-01" }, "ruleId XX-01 names no rule of the driver"},
		{"a ruleIndex at another rule", func(l map[string]any) { logResult(l, 0)["ruleIndex"] = 0 }, "ruleIndex 0 is rule PRE-01, not HO-02"},
		{"a rule listed twice", func(l map[string]any) { logRule(l, 1)["id"] = "PRE-01" }, "id PRE-01 is also rule 0's"},
		{"no location", func(l map[string]any) { logResult(l, 0)["locations"] = []any{} }, "0 locations"},
		{"no fingerprint", func(l map[string]any) { delete(logResult(l, 0), "partialFingerprints") }, "primaryLocationLineHash is required"},
		{"a security-severity out of range", func(l map[string]any) { logRule(l, 0)["properties"].(map[string]any)["security-severity"] = "11" }, `security-severity "11"`},
		{"a rule without help", func(l map[string]any) { delete(logRule(l, 0), "help") }, "help.text is required"},
		{"a helpUri that is no URL (schema)", func(l map[string]any) { logRule(l, 0)["helpUri"] = "::" }, `/runs/0/tool/driver/rules/0/helpUri: "::" is not a uri`},
		{"a member SARIF does not have (schema)", func(l map[string]any) { logResult(l, 0)["severity"] = "high" }, "/runs/0/results/0: member severity is not allowed"},
		{"a level SARIF does not have (schema)", func(l map[string]any) { logResult(l, 0)["level"] = "critical" }, `/runs/0/results/0/level: "critical" is none of`},
		{"a startLine of 0 (schema)", func(l map[string]any) {
			logResult(l, 0)["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["region"] = map[string]any{"startLine": 0}
		}, "startLine: 0 is below the minimum 1"},
		{"no version (schema)", func(l map[string]any) { delete(l, "version") }, "/: required member version is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log map[string]any
			json.Unmarshal(valid.Bytes(), &log)
			tt.break_(log)
			broken, _ := json.Marshal(log)
			problems := schemacheck.SARIF(broken)
			if !strings.Contains(strings.Join(problems, "\n"), tt.want) {
				t.Errorf("problems %q lack %q", problems, tt.want)
			}
		})
	}
	if p := schemacheck.SARIF(valid.Bytes()); len(p) != 0 {
		t.Errorf("the valid log: %q", p)
	}
}

func logRun(l map[string]any) map[string]any { return l["runs"].([]any)[0].(map[string]any) }
func logResult(l map[string]any, i int) map[string]any {
	return logRun(l)["results"].([]any)[i].(map[string]any)
}
func logRule(l map[string]any, i int) map[string]any {
	return logRun(l)["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)[i].(map[string]any)
}
func logArtifact(l map[string]any, i int) map[string]any {
	loc := logResult(l, i)["locations"].([]any)[0].(map[string]any)
	return loc["physicalLocation"].(map[string]any)["artifactLocation"].(map[string]any)
}
