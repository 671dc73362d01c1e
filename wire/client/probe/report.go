package probe

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteText writes the human table: the checks grouped as in the
// catalogue, one line each (verdict, id, what must hold); under every one
// that did not pass, the reason and, as h2spec prints them, what was
// expected and what came back; then the summary line.
//
//	Host and Origin (DNS rebinding, browsers)
//	  pass  HO-01  Foreign Host refused
//	  fail  HO-02  Foreign Origin refused
//	               answered 200 application/json with a result for Origin: http://evil.example: ...
//	               expected: 403
//	                 actual: 200 application/json with a result
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if r.Reached != nil {
		b.WriteString(strings.Join(r.Reached.lines(), "\n") + "\n\n")
	}
	if line := r.RevisionsLine(); line != "" {
		b.WriteString(line + "\n\n")
	}
	for _, g := range Groups {
		first := true
		for _, res := range r.Results {
			if res.Check.Group != g.Code {
				continue
			}
			if first {
				b.WriteString(g.Title + "\n")
				first = false
			}
			fmt.Fprintf(&b, "  %-5s %-6s %s\n", res.Verdict, res.Check.ID, res.Check.Title)
			if res.Verdict != Pass && res.Reason != "" {
				b.WriteString("               " + printable(res.Reason) + "\n")
			}
			if res.Verdict != Pass && (res.Expected != "" || res.Actual != "") {
				b.WriteString("               expected: " + printable(res.Expected) + "\n")
				b.WriteString("                 actual: " + printable(res.Actual) + "\n")
			}
		}
	}
	b.WriteString(r.Summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// RevisionsLine says which MCP revisions the target speaks, as the
// reports head with it: "speaks MCP 2025-11-25 and 2026-07-28", the
// legacy one being the version initialize negotiated, and the others its
// sessions negotiated when they differ; "" when the preflight found none.
func (r *Report) RevisionsLine() string {
	if len(r.Revisions) == 0 {
		return ""
	}
	line := "speaks MCP " + joinAnd(r.Revisions)
	if len(r.Negotiated) > 1 {
		line += " (its sessions negotiated " + joinAnd(r.Negotiated) + ")"
	}
	return line
}

// Summary is the last line of the text report:
//
//	probe: 57 pass, 1 fail, 1 warn, 0 skip, 0 error, 1 info (MUST failed: HO-02)
func (r *Report) Summary() string {
	c := r.Counts()
	failed := "none"
	if ids := r.MustIDs(Fail); len(ids) > 0 {
		failed = strings.Join(ids, ", ")
	}
	line := fmt.Sprintf("probe: %d pass, %d fail, %d warn, %d skip, %d error, %d info (MUST failed: %s)",
		c[Pass], c[Fail], c[Warn], c[Skip], c[Error], c[Info], failed)
	switch {
	case r.Stopped != "":
		line += "; incomplete: " + r.Stopped
	case r.Incomplete:
		line += "; incomplete: the budget ran out"
	}
	return line
}

// printable keeps a reason on one line: control bytes become spaces.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// jsonReport is the -json document; the member names are the contract.
type jsonReport struct {
	Target          string          `json:"target"`
	Reached         *Reached        `json:"reached"`
	Server          json.RawMessage `json:"server"`
	ProtocolVersion string          `json:"protocol_version"`
	Revisions       []string        `json:"revisions"`
	Negotiated      []string        `json:"negotiated"`
	Schemas         []string        `json:"schemas"` // the pinned schema.json files JR-11 checked against
	Incomplete      bool            `json:"incomplete"`
	Stopped         string          `json:"stopped"`
	Started         string          `json:"started"`
	DurationMS      int64           `json:"duration_ms"`
	Checks          []jsonCheck     `json:"checks"`
	Counts          map[Verdict]int `json:"counts"`
}

type jsonCheck struct {
	ID        string     `json:"id"`
	Group     string     `json:"group"`
	Level     Level      `json:"level"`
	Source    string     `json:"source"`
	Rule      string     `json:"rule"`
	Verdict   Verdict    `json:"verdict"`
	Reason    string     `json:"reason"`
	Expected  string     `json:"expected"`
	Actual    string     `json:"actual"`
	Exchanges []Exchange `json:"exchanges"`
}

// WriteJSON writes the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	doc := jsonReport{
		Target:          r.Target,
		Reached:         r.Reached,
		Server:          r.Server,
		ProtocolVersion: r.ProtocolVersion,
		Revisions:       append([]string{}, r.Revisions...),
		Negotiated:      append([]string{}, r.Negotiated...),
		Schemas:         schemaNames(r),
		Incomplete:      r.Incomplete,
		Stopped:         r.Stopped,
		Started:         r.Started.UTC().Format(time.RFC3339),
		DurationMS:      r.Duration.Milliseconds(),
		Checks:          []jsonCheck{},
		Counts:          r.Counts(),
	}
	if !json.Valid(doc.Server) {
		doc.Server = json.RawMessage("null")
	}
	for _, res := range r.Results {
		exchanges := res.Exchanges
		if exchanges == nil {
			exchanges = []Exchange{}
		}
		doc.Checks = append(doc.Checks, jsonCheck{
			ID: res.Check.ID, Group: res.Check.Group, Level: res.Check.Level, Source: res.Check.Source,
			Rule: string(res.Check.Rule), Verdict: res.Verdict, Reason: res.Reason,
			Expected: res.Expected, Actual: res.Actual, Exchanges: exchanges,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
