package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"path"
	"strings"

	"rawmcp/wire/client"
)

// The SARIF 2.1.0 log (OASIS, "Static Analysis Results Interchange
// Format" 2.1.0), shaped for GitHub code scanning's upload ("SARIF
// support for code scanning"): only the members the probe fills are
// declared.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool              sarifTool               `json:"tool"`
		OriginalURIBaseID map[string]sarifBaseURI `json:"originalUriBaseIds"`
		Results           []sarifResult           `json:"results"`
		Properties        sarifRunProps           `json:"properties"`
	}
	sarifBaseURI struct {
		Description sarifText `json:"description"`
	}
	// sarifRunProps hold what is no result: the target and what the run
	// found but code scanning should not alert on (passes, skips, reports,
	// findings a baseline accepts).
	sarifRunProps struct {
		Target     string           `json:"target"`
		Revisions  []string         `json:"revisions"`
		Negotiated []string         `json:"negotiated"`
		Incomplete bool             `json:"incomplete"`
		Stopped    string           `json:"stopped,omitempty"` // a rate limit or a target that stopped answering
		Counts     map[Verdict]int  `json:"counts"`
		Passed     []string         `json:"passed"`
		Skipped    []sarifNotResult `json:"skipped"`
		Info       []sarifNotResult `json:"info"`
		Accepted   []sarifNotResult `json:"accepted"`
		NotRun     []sarifNotResult `json:"notRun"` // cut off by the budget or a stopped run
		Baseline   string           `json:"baseline,omitempty"`
	}
	sarifNotResult struct {
		ID      string  `json:"id"`
		Verdict Verdict `json:"verdict"`
		Reason  string  `json:"reason"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name            string           `json:"name"`
		Version         string           `json:"version"`
		SemanticVersion string           `json:"semanticVersion"`
		Rules           []sarifRule      `json:"rules"`
		Properties      sarifDriverProps `json:"properties"`
	}
	sarifDriverProps struct {
		Edition int `json:"catalogueEdition"`
	}
	sarifRule struct {
		ID               string          `json:"id"`
		ShortDescription sarifText       `json:"shortDescription"`
		FullDescription  sarifText       `json:"fullDescription"`
		Help             sarifHelp       `json:"help"`
		HelpURI          string          `json:"helpUri,omitempty"`
		Default          sarifDefault    `json:"defaultConfiguration"`
		Properties       sarifProperties `json:"properties"`
	}
	sarifHelp struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown"`
	}
	sarifDefault struct {
		Level string `json:"level"`
	}
	sarifProperties struct {
		Tags             []string `json:"tags"`
		SecuritySeverity string   `json:"security-severity,omitempty"`
		Precision        string   `json:"precision"`
		Level            Level    `json:"level"`
		Group            string   `json:"group"`
		Source           string   `json:"source"`
		Rule             string   `json:"rule,omitempty"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID       string            `json:"ruleId"`
		RuleIndex    int               `json:"ruleIndex"`
		Level        string            `json:"level"`
		Message      sarifText         `json:"message"`
		Locations    []sarifLocation   `json:"locations"`
		Fingerprints map[string]string `json:"partialFingerprints"`
		Properties   sarifResultProps  `json:"properties"`
	}
	sarifResultProps struct {
		Verdict Verdict `json:"verdict"`
		Target  string  `json:"target"`
		// Baseline is "regression" or "new" when the run was compared
		// with a baseline.
		Baseline string `json:"baseline,omitempty"`
	}
	sarifLocation struct {
		Physical sarifPhysical  `json:"physicalLocation"`
		Logical  []sarifLogical `json:"logicalLocations"`
	}
	sarifPhysical struct {
		Artifact sarifArtifact `json:"artifactLocation"`
		Region   sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
	sarifLogical struct {
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
)

// DefaultSARIFLocation is where a result points in the user's repository
// when -sarif-location does not say: the workflow of the README's CI
// example, the file that starts the server and runs the probe. A finding
// is about the deployment, not a line of code, and code scanning takes
// only a file of the checkout, so the one file every team that follows
// the example has, and that decides what was probed, is the honest
// place; a team whose server's configuration lives elsewhere names that
// file.
const DefaultSARIFLocation = ".github/workflows/mcp-probe.yml"

// ErrSARIFLocation reports a -sarif-location code scanning would refuse
// or that leaves the repository.
var ErrSARIFLocation = errors.New("probe: -sarif-location must be a path relative to the repository's root (.github/workflows/mcp-probe.yml) or a file: URI, without ..")

// SARIFLocation checks a location for a SARIF log's results and returns
// it as the artifact URI: a relative path, its segments escaped, or a
// file: URI as given.
func SARIFLocation(loc string) (string, error) {
	if u, err := url.Parse(loc); err == nil && u.Scheme == "file" {
		return loc, nil
	}
	clean := path.Clean(strings.ReplaceAll(loc, `\`, "/"))
	if loc == "" || strings.Contains(loc, ":") || path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", ErrSARIFLocation
	}
	return (&url.URL{Path: clean}).EscapedPath(), nil
}

// sarifLevel maps a finding to a result's level: fail is an error, warn a
// warning, and a check that could not run (error) a warning too, since it
// is not known to hold.
func sarifLevel(v Verdict) string {
	if v == Fail {
		return "error"
	}
	return "warning"
}

// sarifDefaultLevel is what a rule's result is when it is not met.
func sarifDefaultLevel(l Level) string {
	switch l {
	case Must:
		return "error"
	case Informational:
		return "note"
	}
	return "warning"
}

// securitySeverity scores a level as code scanning reads it: a MUST not
// met is high (7.0-8.9), a SHOULD medium (4.0-6.9), hardening low
// (0.1-3.9); an informational check has none.
func securitySeverity(l Level) string {
	switch l {
	case Must:
		return "7.5"
	case Should:
		return "5.0"
	case Hardening:
		return "3.0"
	}
	return ""
}

// sarifEvidence bounds how many exchanges a result's message shows.
const sarifEvidence = 4

// WriteSARIF writes the report as a SARIF 2.1.0 log that code scanning
// accepts: the checks the run ran as the driver's rules (help: the fix, then what
// the check sends and what passes; helpUri: the section it rests on), one
// result per finding (fail, warn, error) that a baseline does not accept,
// located at location (SARIFLocation's) in the user's repository, with
// the probed URL in its logical location and properties and a
// fingerprint from the check id and the URL without its port, so alerts
// stay the same across runs on changing ports. Everything else the run
// found goes to the run's properties.
func (r *Report) WriteSARIF(w io.Writer, location string) error {
	driver := sarifDriver{Name: "rawmcp probe", Version: client.Version, SemanticVersion: client.Version,
		Rules: []sarifRule{}, Properties: sarifDriverProps{Edition: CatalogueEdition}}
	index := map[string]int{}
	for _, res := range r.Results {
		// The checks the run ran, as it ran them, in catalogue order.
		index[res.Check.ID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRuleOf(&res.Check))
	}
	props := sarifRunProps{Target: r.Target, Revisions: append([]string{}, r.Revisions...), Negotiated: append([]string{}, r.Negotiated...), Incomplete: r.Incomplete, Stopped: r.Stopped, Counts: r.Counts(),
		Passed: []string{}, Skipped: []sarifNotResult{}, Info: []sarifNotResult{}, Accepted: []sarifNotResult{}, NotRun: []sarifNotResult{}}
	standing := map[string]string{}
	if c := r.Baseline; c != nil {
		props.Baseline = c.Line()
		for _, d := range c.Regressions {
			standing[d.ID] = "regression"
		}
		for _, d := range c.New {
			standing[d.ID] = "new"
		}
		for _, d := range c.Accepted {
			standing[d.ID] = "accepted"
		}
	}
	results := []sarifResult{}
	for _, res := range r.Results {
		not := sarifNotResult{ID: res.Check.ID, Verdict: res.Verdict, Reason: printable(res.Reason)}
		switch {
		case res.Verdict == Pass:
			props.Passed = append(props.Passed, res.Check.ID)
		case res.Verdict == Skip:
			props.Skipped = append(props.Skipped, not)
		case res.Verdict == Info:
			props.Info = append(props.Info, not)
		case res.unfinished:
			props.NotRun = append(props.NotRun, not)
		case standing[res.Check.ID] == "accepted":
			props.Accepted = append(props.Accepted, not)
		default:
			results = append(results, sarifResult{
				RuleID: res.Check.ID, RuleIndex: index[res.Check.ID], Level: sarifLevel(res.Verdict),
				Message: sarifText{sarifMessage(res)},
				Locations: []sarifLocation{{
					Physical: sarifPhysical{Artifact: sarifArtifact{URI: location, URIBaseID: baseIDFor(location)}, Region: sarifRegion{StartLine: 1}},
					Logical:  []sarifLogical{{FullyQualifiedName: r.Target, Kind: "resource"}},
				}},
				Fingerprints: map[string]string{"primaryLocationLineHash": fingerprint(res.Check.ID, r.Target)},
				Properties:   sarifResultProps{Verdict: res.Verdict, Target: r.Target, Baseline: standing[res.Check.ID]},
			})
		}
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{Tool: sarifTool{driver}, Results: results, Properties: props,
			OriginalURIBaseID: map[string]sarifBaseURI{srcRoot: {sarifText{"The root of the repository the workflow checked out."}}}}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}

// srcRoot is the base of a relative artifact URI: the checkout's root.
const srcRoot = "%SRCROOT%"

func baseIDFor(location string) string {
	if strings.HasPrefix(location, "file:") {
		return ""
	}
	return srcRoot
}

// sarifRuleOf describes a check as a rule: its title, then its help with
// the fix first; the rule ids of this project's own table only in the
// properties and at the end of the help.
func sarifRuleOf(c *Check) sarifRule {
	about := "Sends: " + c.Sends + ".\nPasses when: " + c.Passes + "."
	var text, md strings.Builder
	if c.Fix != "" {
		text.WriteString("Fix: " + c.Fix + "\n\n")
		md.WriteString("**Fix.** " + c.Fix + "\n\n")
	}
	if c.Link != "" {
		text.WriteString("Rests on: " + c.Source + " (" + c.Link + ")\n\n")
		md.WriteString("**Rests on** [" + c.Source + "](" + c.Link + ").\n\n")
	} else {
		text.WriteString("Rests on: " + c.Source + "\n\n")
		md.WriteString("**Rests on** " + c.Source + ".\n\n")
	}
	text.WriteString(about)
	md.WriteString("**Sends:** " + c.Sends + ".\n\n**Passes when:** " + c.Passes + ".")
	if c.Rule != "" {
		text.WriteString("\n\nrawmcp rule " + string(c.Rule))
		md.WriteString("\n\nrawmcp rule `" + string(c.Rule) + "`")
	}
	tags := []string{"security", "mcp", c.Group}
	if c.Level == Informational {
		tags = []string{"mcp", c.Group}
	}
	return sarifRule{
		ID: c.ID, ShortDescription: sarifText{c.Title}, FullDescription: sarifText{about},
		Help: sarifHelp{Text: text.String(), Markdown: md.String()}, HelpURI: c.Link,
		Default: sarifDefault{sarifDefaultLevel(c.Level)},
		Properties: sarifProperties{Tags: tags, SecuritySeverity: securitySeverity(c.Level), Precision: "high",
			Level: c.Level, Group: c.Group, Source: c.Source, Rule: string(c.Rule)},
	}
}

// fingerprint identifies a finding across runs: the check and the target
// without its port (a test server's port changes every run), as code
// scanning's primaryLocationLineHash ("hash:occurrence").
func fingerprint(id, target string) string {
	sum := sha256.Sum256([]byte(id + "\n" + withoutPort(target)))
	return hex.EncodeToString(sum[:8]) + ":1"
}

// withoutPort is a URL with its port left out: "http://127.0.0.1/mcp".
func withoutPort(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	host := u.Hostname()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	u.Host = host
	return u.String()
}

// sarifMessage is a result's text: the verdict and reason, what was
// expected and what came, then each exchange's request and status line.
func sarifMessage(res Result) string {
	text := string(res.Verdict) + ": " + printable(res.Reason)
	if res.Reason == "" {
		text = string(res.Verdict)
	}
	if res.Expected != "" || res.Actual != "" {
		text += "\nexpected: " + printable(res.Expected) + "\nactual: " + printable(res.Actual)
	}
	for i, x := range res.Exchanges {
		if i == sarifEvidence {
			text += "\n(" + plural(len(res.Exchanges)-i, "more exchange") + " in the -json report)"
			break
		}
		req, _, _ := strings.Cut(x.Request, "\r\n")
		resp, _, _ := strings.Cut(x.Response, "\r\n")
		text += "\n> " + printable(req) + "\n< " + printable(resp)
	}
	return text
}
