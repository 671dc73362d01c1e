package probe

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// TextOptions shape the text report.
type TextOptions struct {
	// Quiet prints only what did not pass (the findings with their
	// evidence, the skips, the baseline's comparison) and the summary.
	Quiet bool
	// Terminal marks each verdict (✓, ×, !) and colours it: for a reader
	// at a terminal that has not set NO_COLOR, never for a file or a pipe.
	Terminal bool
}

// WriteText writes the text report with the default options: what was
// reached, then the findings first (failures, warnings, checks that
// could not run), each with its reason, what was expected and what came
// back (as h2spec prints them), its fix and the section it rests on,
// and the checks that rest on it; then the skips, one line per group and
// reason; the reports (info); the passes, grouped; the summary line.
//
//	Failed (1)
//	  fail  HO-02  Foreign Origin refused (MUST)
//	               answered 200 application/json with a result for Origin: http://evil.example: ...
//	               expected: 403
//	                 actual: 200 application/json with a result
//	               fix: ...
//	               rests on: https://...
//	               rests on this finding (skipped): HO-03, HO-04
func (r *Report) WriteText(w io.Writer) error {
	return r.WriteTextWith(w, TextOptions{})
}

// WriteTextWith writes the text report with options o.
func (r *Report) WriteTextWith(w io.Writer, o TextOptions) error {
	l := r.layout()
	p := textPainter{on: o.Terminal}
	var b strings.Builder
	if !o.Quiet {
		if r.Reached != nil {
			b.WriteString(strings.Join(r.Reached.lines(), "\n") + "\n\n")
		}
		head := CatalogueLine()
		if line := r.RevisionsLine(); line != "" {
			head = line + "; " + head
		}
		b.WriteString(head + "\n\n")
	}
	for _, s := range l.findingSections() {
		if len(s.findings) == 0 {
			continue
		}
		b.WriteString(p.paint(s.verdict, fmt.Sprintf("%s (%d)", s.title, len(s.findings)), true) + "\n")
		for _, f := range s.findings {
			r.writeFinding(&b, f, p)
		}
	}
	if len(l.skipped) > 0 {
		b.WriteString(p.paint(Skip, fmt.Sprintf("Skipped (%d)", l.skipCount()), true) + "\n")
		for _, s := range l.skipped {
			fmt.Fprintf(&b, "  %s: %s: %s\n", s.Group.Title, printable(s.Reason), strings.Join(s.IDs, ", "))
		}
	}
	if !o.Quiet {
		if len(l.info) > 0 {
			b.WriteString(p.paint(Info, fmt.Sprintf("Info (%d)", len(l.info)), true) + "\n")
			for _, res := range l.info {
				fmt.Fprintf(&b, "  %s %-6s %s\n", p.verdict(Info), res.Check.ID, res.Check.Title)
				writeDetail(&b, p.indent(), res.Reason)
			}
		}
		if len(l.passed) > 0 {
			b.WriteString(p.paint(Pass, fmt.Sprintf("Passed (%d)", len(l.passed)), true) + "\n")
			for _, g := range Groups {
				first := true
				for _, res := range l.passed {
					if res.Check.Group != g.Code {
						continue
					}
					if first {
						b.WriteString("  " + g.Title + "\n")
						first = false
					}
					fmt.Fprintf(&b, "    %s %-6s %s\n", p.verdict(Pass), res.Check.ID, res.Check.Title)
				}
			}
		}
	}
	if c := r.Baseline; c != nil {
		writeComparison(&b, c)
	}
	b.WriteString(r.Summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFinding writes one finding: its line, then its evidence, fix,
// link and the checks that rest on it, indented under its title.
func (r *Report) writeFinding(b *strings.Builder, f finding, p textPainter) {
	line := fmt.Sprintf("  %s %-6s %s (%s)", p.verdict(f.Verdict), f.Check.ID, f.Check.Title, f.Level())
	if f.Standing != "" {
		line += " [" + f.Standing + "]"
	}
	b.WriteString(line + "\n")
	in := p.indent()
	writeDetail(b, in, f.Reason)
	if f.Expected != "" || f.Actual != "" {
		b.WriteString(in + "expected: " + printable(f.Expected) + "\n")
		b.WriteString(in + "  actual: " + printable(f.Actual) + "\n")
	}
	writeWrapped(b, in, prefixed("fix: ", f.Check.Fix))
	writeDetail(b, in, prefixed("rests on: ", f.Check.Link))
	if f.AcceptReason != "" {
		writeDetail(b, in, "accepted by the baseline: "+f.AcceptReason)
	}
	if len(f.Dependents) > 0 {
		var ids []string
		for _, d := range f.Dependents {
			ids = append(ids, d.Check.ID)
		}
		writeDetail(b, in, "rests on this finding (skipped): "+strings.Join(ids, ", "))
	}
}

func writeDetail(b *strings.Builder, indent, text string) {
	if text != "" {
		b.WriteString(indent + printable(text) + "\n")
	}
}

// textWidth is where a fix is folded: a fix runs to three sentences,
// and a terminal is about a hundred columns wide.
const textWidth = 100

// writeWrapped writes text folded at textWidth, every line indented.
func writeWrapped(b *strings.Builder, indent, text string) {
	line := indent
	for _, word := range strings.Fields(printable(text)) {
		if len(line)+1+len(word) > textWidth && len(line) > len(indent) {
			b.WriteString(line + "\n")
			line = indent + "  "
		}
		if len(line) > len(indent) && line != indent+"  " {
			line += " "
		}
		line += word
	}
	if len(line) > len(indent) {
		b.WriteString(line + "\n")
	}
}

func prefixed(prefix, text string) string {
	if text == "" {
		return ""
	}
	return prefix + text
}

// writeComparison lists what the baseline's comparison found, entry by
// entry; the summary line counts it.
func writeComparison(b *strings.Builder, c *Comparison) {
	fmt.Fprintf(b, "Baseline (catalogue edition %d)\n", c.Edition)
	for _, d := range c.Regressions {
		fmt.Fprintf(b, "  regression  %-6s %s, the baseline accepts %s\n", d.ID, d.Verdict, d.Accepted)
	}
	for _, e := range c.Expired {
		line := fmt.Sprintf("  expired     %-6s %s, expired %s", e.Key, e.Verdict, e.Expires)
		if e.Reason != "" {
			line += " (" + printable(e.Reason) + ")"
		}
		b.WriteString(line + ": it accepts nothing; renew or remove it\n")
	}
	for _, d := range c.New {
		fmt.Fprintf(b, "  new         %-6s %s: the check came after the baseline's edition; accept or fix it\n", d.ID, d.Verdict)
	}
	for _, d := range c.Improved {
		fmt.Fprintf(b, "  improved    %-6s %s, the baseline accepts %s: the entry can go\n", d.ID, d.Verdict, d.Accepted)
	}
}

// textPainter marks and colours verdicts for a terminal, and does
// nothing otherwise.
type textPainter struct{ on bool }

var (
	verdictMarks   = map[Verdict]string{Pass: "✓", Fail: "×", Warn: "!", Error: "?", Skip: "-", Info: "i"}
	verdictColours = map[Verdict]string{Pass: "32", Fail: "31", Warn: "33", Error: "35", Skip: "2", Info: "34"}
)

// verdict is a verdict as the report's lines begin: "fail " plain, or
// "× fail " marked and coloured.
func (p textPainter) verdict(v Verdict) string {
	word := fmt.Sprintf("%-5s", v)
	if !p.on {
		return word
	}
	return p.paint(v, verdictMarks[v]+" "+word, false)
}

// paint colours text as verdict v, bold for a heading.
func (p textPainter) paint(v Verdict, text string, bold bool) string {
	if !p.on {
		return text
	}
	code := verdictColours[v]
	if bold {
		code = "1;" + code
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// indent is where a finding's detail starts: under its title.
func (p textPainter) indent() string {
	if p.on {
		return strings.Repeat(" ", 17)
	}
	return strings.Repeat(" ", 15)
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
//
// then, if the run was incomplete or compared with a baseline, what
// came of it: "; incomplete: the budget ran out", "; baseline: 1
// regression (HO-06), 1 accepted".
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
	if r.Baseline != nil {
		line += "; " + r.Baseline.Line()
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
	Edition         int             `json:"catalogue_edition"`
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
	Baseline        *Comparison     `json:"baseline"` // null without -baseline
}

type jsonCheck struct {
	ID        string     `json:"id"`
	Group     string     `json:"group"`
	Title     string     `json:"title"`
	Level     Level      `json:"level"`
	Source    string     `json:"source"`
	Rule      string     `json:"rule"`
	Verdict   Verdict    `json:"verdict"`
	Broke     Level      `json:"broke,omitempty"` // a finding's level: its check's, or a lower one beside its rule
	Reason    string     `json:"reason"`
	Expected  string     `json:"expected"`
	Actual    string     `json:"actual"`
	Fix       string     `json:"fix"`  // what to change when the check does not pass
	Link      string     `json:"link"` // the section the check rests on
	Exchanges []Exchange `json:"exchanges"`
}

// WriteJSON writes the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	doc := jsonReport{
		Target:          r.Target,
		Edition:         CatalogueEdition,
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
		Baseline:        r.Baseline,
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
			ID: res.Check.ID, Group: res.Check.Group, Title: res.Check.Title, Level: res.Check.Level, Source: res.Check.Source,
			Rule: string(res.Check.Rule), Verdict: res.Verdict, Broke: res.Broke, Reason: res.Reason,
			Expected: res.Expected, Actual: res.Actual, Fix: res.Check.Fix, Link: res.Check.Link, Exchanges: exchanges,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
