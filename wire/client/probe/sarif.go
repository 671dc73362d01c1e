package probe

import (
	"encoding/json"
	"io"
	"strings"

	"rawmcp/wire/client"
)

// The SARIF 2.1.0 log (OASIS, "Static Analysis Results Interchange
// Format" 2.1.0): what code-scanning UIs read. Only the members the probe
// fills are declared.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool       sarifTool     `json:"tool"`
		Results    []sarifResult `json:"results"`
		Properties sarifRunProps `json:"properties"`
	}
	// sarifRunProps are the run's own facts: the MCP revisions the
	// target speaks.
	sarifRunProps struct {
		Revisions []string `json:"revisions"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version"`
		InformationURI string      `json:"informationUri,omitempty"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID               string          `json:"id"`
		ShortDescription sarifText       `json:"shortDescription"`
		FullDescription  sarifText       `json:"fullDescription"`
		Help             sarifText       `json:"help"`
		Default          sarifDefault    `json:"defaultConfiguration"`
		Properties       sarifProperties `json:"properties"`
	}
	sarifDefault struct {
		Level string `json:"level"`
	}
	sarifProperties struct {
		Level  Level  `json:"level"`
		Group  string `json:"group"`
		Source string `json:"source"`
		Rule   string `json:"rule,omitempty"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID     string            `json:"ruleId"`
		RuleIndex  int               `json:"ruleIndex"`
		Level      string            `json:"level"`
		Message    sarifText         `json:"message"`
		Locations  []sarifLocation   `json:"locations"`
		Properties map[string]string `json:"properties"`
	}
	sarifLocation struct {
		Physical sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		Artifact sarifArtifact `json:"artifactLocation"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
)

// sarifLevel maps a verdict to a result's level: fail is an error, warn
// a warning, and a check that could not run (error) a warning too, since
// it is not known to hold; skip and info are notes.
func sarifLevel(v Verdict) string {
	switch v {
	case Fail:
		return "error"
	case Warn, Error:
		return "warning"
	}
	return "note"
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

// sarifEvidence bounds how many exchanges a result's message shows.
const sarifEvidence = 4

// WriteSARIF writes the report as a SARIF 2.1.0 log: the catalogue as
// the driver's rules, one result per check not passed, its reason and
// the first lines of its exchanges (redacted like every report) as the
// message, located at the target's URL.
func (r *Report) WriteSARIF(w io.Writer) error {
	driver := sarifDriver{Name: "rawmcp probe", Version: client.Version, Rules: []sarifRule{}}
	index := map[string]int{}
	for _, c := range Catalogue() {
		about := "Sends: " + c.Sends + ".\nPasses when: " + c.Passes + "."
		help := about + "\n\nSource: " + c.Source
		if c.Rule != "" {
			help += "; rawmcp rule " + string(c.Rule)
		}
		index[c.ID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRule{
			ID: c.ID, ShortDescription: sarifText{c.Title}, FullDescription: sarifText{about}, Help: sarifText{help},
			Default:    sarifDefault{sarifDefaultLevel(c.Level)},
			Properties: sarifProperties{Level: c.Level, Group: c.Group, Source: c.Source, Rule: string(c.Rule)},
		})
	}
	results := []sarifResult{}
	for _, res := range r.Results {
		if res.Verdict == Pass {
			continue
		}
		results = append(results, sarifResult{
			RuleID: res.Check.ID, RuleIndex: index[res.Check.ID], Level: sarifLevel(res.Verdict),
			Message:    sarifText{sarifMessage(res)},
			Locations:  []sarifLocation{{sarifPhysical{sarifArtifact{r.Target}}}},
			Properties: map[string]string{"verdict": string(res.Verdict)},
		})
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{{Tool: sarifTool{driver}, Results: results, Properties: sarifRunProps{Revisions: append([]string{}, r.Revisions...)}}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
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
