package schemacheck

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"sync"
)

//go:embed sarif-schema-2.1.0.json
var sarifSchema []byte

//go:embed report.schema.json
var reportSchema []byte

// SARIFSchema is the SARIF 2.1.0 schema, compiled once.
var SARIFSchema = sync.OnceValue(func() *Schema { return mustCompile(sarifSchema) })

// ReportSchema is the schema of rawmcp probe -json, compiled once.
var ReportSchema = sync.OnceValue(func() *Schema { return mustCompile(reportSchema) })

func mustCompile(data []byte) *Schema {
	s, err := Compile(data)
	if err != nil {
		panic(err)
	}
	return s
}

// SARIF returns every way log breaks the SARIF 2.1.0 schema or code
// scanning's upload rules; none when GitHub would take it.
func SARIF(log []byte) []string {
	problems := SARIFSchema().Validate(log)
	for _, p := range CodeScanning(log) {
		problems = append(problems, "code scanning: "+p)
	}
	return problems
}

// The log as code scanning reads it (docs.github.com, "SARIF support for
// code scanning", Supported properties).
type (
	scanLog struct {
		Schema  string    `json:"$schema"`
		Version string    `json:"version"`
		Runs    []scanRun `json:"runs"`
	}
	scanRun struct {
		Tool struct {
			Driver struct {
				Name  string     `json:"name"`
				Rules []scanRule `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []scanResult `json:"results"`
	}
	scanText struct {
		Text *string `json:"text"`
	}
	scanRule struct {
		ID               string                  `json:"id"`
		Name             string                  `json:"name"`
		ShortDescription scanText                `json:"shortDescription"`
		FullDescription  scanText                `json:"fullDescription"`
		Help             scanText                `json:"help"`
		HelpURI          *string                 `json:"helpUri"`
		Default          *struct{ Level string } `json:"defaultConfiguration"`
		Properties       struct {
			Tags     []string `json:"tags"`
			Severity *string  `json:"security-severity"`
		} `json:"properties"`
	}
	scanResult struct {
		RuleID    string   `json:"ruleId"`
		RuleIndex *int     `json:"ruleIndex"`
		Level     *string  `json:"level"`
		Message   scanText `json:"message"`
		Locations []struct {
			Physical *struct {
				Artifact *struct {
					URI *string `json:"uri"`
				} `json:"artifactLocation"`
				Region *struct {
					StartLine *int `json:"startLine"`
				} `json:"region"`
			} `json:"physicalLocation"`
		} `json:"locations"`
		Fingerprints map[string]string `json:"partialFingerprints"`
	}
)

// Code scanning's limits on one upload (docs.github.com, "SARIF results
// exceed one or more limits").
const (
	maxRuns      = 20
	maxResults   = 25000
	maxRules     = 25000
	maxLocations = 1000
	maxTags      = 20
)

// CodeScanning returns every way log breaks the rules code scanning
// applies on upload, or documents as required: $schema and version
// 2.1.0; a driver name; per rule an id, unique, with shortDescription
// (at most 1024 characters), fullDescription and help text, a helpUri
// that is an absolute URL, a security-severity above 0.0 up to 10.0 with
// the tag "security"; per result a ruleId naming a rule of the driver
// (and a ruleIndex pointing at it), a message, at least one location
// whose artifact URI is relative or file: (an http: or git: URI is
// refused as "did not match the checkout URI scheme"), a region starting
// at a line, a primaryLocationLineHash fingerprint; and the limits.
func CodeScanning(log []byte) []string {
	var l scanLog
	if err := json.Unmarshal(log, &l); err != nil {
		return []string{"not a SARIF log: " + err.Error()}
	}
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if l.Schema == "" || l.Version != "2.1.0" {
		fail("$schema %q and version %q: both are required, version 2.1.0", l.Schema, l.Version)
	}
	if len(l.Runs) == 0 || len(l.Runs) > maxRuns {
		fail("%d runs: 1 to %d", len(l.Runs), maxRuns)
	}
	for i, run := range l.Runs {
		at := "runs/" + strconv.Itoa(i)
		if run.Tool.Driver.Name == "" {
			fail("%s: tool.driver.name is required", at)
		}
		if len(run.Tool.Driver.Rules) > maxRules || len(run.Results) > maxResults {
			fail("%s: %d rules and %d results: at most %d of each", at, len(run.Tool.Driver.Rules), len(run.Results), maxResults)
		}
		ids := map[string]int{}
		for j, r := range run.Tool.Driver.Rules {
			problems = append(problems, ruleProblems(at+"/tool/driver/rules/"+strconv.Itoa(j), r, ids, j)...)
		}
		for j, res := range run.Results {
			problems = append(problems, resultProblems(at+"/results/"+strconv.Itoa(j), res, run.Tool.Driver.Rules, ids)...)
		}
	}
	return problems
}

func ruleProblems(at string, r scanRule, ids map[string]int, index int) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, at+": "+fmt.Sprintf(format, args...)) }
	if r.ID == "" {
		fail("id is required")
	} else if first, dup := ids[r.ID]; dup {
		fail("id %s is also rule %d's", r.ID, first)
	} else {
		ids[r.ID] = index
	}
	if len(r.Name) > 255 {
		fail("name is %d characters, at most 255", len(r.Name))
	}
	for name, t := range map[string]scanText{"shortDescription": r.ShortDescription, "fullDescription": r.FullDescription, "help": r.Help} {
		if t.Text == nil || *t.Text == "" {
			fail("%s.text is required and not empty", name)
		}
	}
	if t := r.ShortDescription.Text; t != nil && len([]rune(*t)) > 1024 {
		fail("shortDescription.text is %d characters, at most 1024", len([]rune(*t)))
	}
	if r.HelpURI != nil {
		if u, err := url.Parse(*r.HelpURI); err != nil || u.Scheme == "" || u.Host == "" {
			fail("helpUri %q is not an absolute URL", *r.HelpURI)
		}
	}
	if r.Default != nil && !slices.Contains([]string{"note", "warning", "error"}, r.Default.Level) {
		fail("defaultConfiguration.level %q is none of note, warning, error", r.Default.Level)
	}
	if s := r.Properties.Severity; s != nil {
		score, err := strconv.ParseFloat(*s, 64)
		if err != nil || score <= 0 || score > 10 {
			fail("security-severity %q is not a score above 0.0 up to 10.0", *s)
		}
		if !slices.Contains(r.Properties.Tags, "security") {
			fail("security-severity without the tag security is not read as a security rule")
		}
	}
	if len(r.Properties.Tags) > maxTags {
		fail("%d tags, at most %d", len(r.Properties.Tags), maxTags)
	}
	return problems
}

func resultProblems(at string, res scanResult, rules []scanRule, ids map[string]int) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, at+": "+fmt.Sprintf(format, args...)) }
	index, known := ids[res.RuleID]
	switch {
	case res.RuleID == "":
		fail("ruleId is required")
	case !known:
		fail("ruleId %s names no rule of the driver", res.RuleID)
	case res.RuleIndex != nil && *res.RuleIndex != index:
		fail("ruleIndex %d is rule %s, not %s", *res.RuleIndex, ruleAt(rules, *res.RuleIndex), res.RuleID)
	}
	if res.Level != nil && !slices.Contains([]string{"none", "note", "warning", "error"}, *res.Level) {
		fail("level %q is none of none, note, warning, error", *res.Level)
	}
	if res.Message.Text == nil || *res.Message.Text == "" {
		fail("message.text is required and not empty")
	}
	if len(res.Locations) == 0 || len(res.Locations) > maxLocations {
		fail("%d locations: 1 to %d", len(res.Locations), maxLocations)
	}
	for k, loc := range res.Locations {
		where := "locations/" + strconv.Itoa(k)
		if loc.Physical == nil || loc.Physical.Artifact == nil || loc.Physical.Artifact.URI == nil {
			fail("%s: physicalLocation.artifactLocation.uri is required", where)
			continue
		}
		uri := *loc.Physical.Artifact.URI
		if u, err := url.Parse(uri); err != nil || uri == "" || (u.Scheme != "" && u.Scheme != "file") {
			fail("%s: artifact URI %q is neither relative nor file: (code scanning refuses another scheme than the checkout's)", where, uri)
		}
		if loc.Physical.Region == nil || loc.Physical.Region.StartLine == nil || *loc.Physical.Region.StartLine < 1 {
			fail("%s: region.startLine is required, from 1", where)
		}
	}
	if res.Fingerprints["primaryLocationLineHash"] == "" {
		fail("partialFingerprints.primaryLocationLineHash is required: code scanning matches alerts across runs by it alone")
	}
	return problems
}

func ruleAt(rules []scanRule, i int) string {
	if i < 0 || i >= len(rules) {
		return "none"
	}
	return rules[i].ID
}
