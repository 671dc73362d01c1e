package probe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrBadWalks reports a replay file that holds no walk.
var ErrBadWalks = errors.New(`probe: -explore-replay: the file is not a walk ({"steps":[{"op":...,"session":...}]}), a list of walks, or an -explore -json document with findings`)

// ParseWalks reads the walks of a replay file: one walk, a JSON array of
// walks (what -explore-save writes), or an -explore -json document (the
// shrunk walk of each finding). Ops must be in the alphabet.
func ParseWalks(data []byte) ([]Walk, error) {
	var walks []Walk
	var doc struct {
		Steps    []Step `json:"steps"`
		Findings []struct {
			Shrunk *Walk `json:"shrunk"`
		} `json:"findings"`
	}
	switch {
	case json.Unmarshal(data, &walks) == nil:
	case json.Unmarshal(data, &doc) == nil && len(doc.Steps) > 0:
		walks = []Walk{{Steps: doc.Steps}}
	case json.Unmarshal(data, &doc) == nil:
		for _, f := range doc.Findings {
			if f.Shrunk != nil {
				walks = append(walks, *f.Shrunk)
			}
		}
	}
	if len(walks) == 0 {
		return nil, ErrBadWalks
	}
	known := map[Op]bool{}
	for _, op := range alphabet {
		known[op] = true
	}
	for _, w := range walks {
		if len(w.Steps) == 0 {
			return nil, ErrBadWalks
		}
		for _, s := range w.Steps {
			if !known[s.Op] || s.Session < 0 || s.Session >= maxWalkSessions {
				return nil, ErrBadWalks
			}
		}
	}
	return walks, nil
}

// SavedWalks are the shrunk walks of the findings, in a form ParseWalks
// reads back: what -explore-save writes.
func (e *Exploration) SavedWalks() []Walk {
	var out []Walk
	for _, f := range e.Findings {
		if f.Shrunk != nil {
			out = append(out, f.Shrunk.Walk())
		}
	}
	return out
}

// WriteJSON writes the exploration as one JSON document, redacted.
func (e *Exploration) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, e.redact(string(b))+"\n")
	return err
}

// WriteText writes the summary, a line per rule broken, and each
// finding's shortest walk as a numbered transcript; replay is the command
// line that re-runs the saved walks ("" for none).
func (e *Exploration) WriteText(w io.Writer, replay string) error {
	var b strings.Builder
	counts := map[Verdict]int{}
	for _, res := range e.Walks {
		counts[res.Verdict]++
	}
	if e.Replayed {
		fmt.Fprintf(&b, "explore %s: %d walks replayed, %d requests, %s\n", e.Target, len(e.Walks), e.Requests, e.Duration)
	} else {
		fmt.Fprintf(&b, "explore %s: seed %d, %d walks of at most %d steps, %d requests, %s\n", e.Target, e.Seed, len(e.Walks), e.Steps, e.Requests, e.Duration)
	}
	if e.Capped > 0 {
		fmt.Fprintf(&b, "  %d walks not run: the request cap was reached\n", e.Capped)
	}
	fmt.Fprintf(&b, "walks: %d pass, %d fail, %d warn\n", counts[Pass], counts[Fail], counts[Warn])
	if len(e.Findings) == 0 {
		b.WriteString("no finding: every answer met the rules of the explore judge\n")
	}
	for _, f := range e.Findings {
		fmt.Fprintf(&b, "\n%s %s %-6s %s (%s)\n", f.Rule, f.Level, f.Verdict, ruleLine(f.Rule), f.Source)
		fmt.Fprintf(&b, "  %s\n  expected: %s\n    actual: %s\n", f.Reason, f.Expected, f.Actual)
		fmt.Fprintf(&b, "  %d of %d walks; first: walk %d", f.Walks, len(e.Walks), f.Walk)
		if f.Shrunk != nil {
			fmt.Fprintf(&b, "; shortest: %d steps (%d re-runs)\n", len(f.Shrunk.Steps), f.Reruns)
			writeTranscript(&b, *f.Shrunk)
		} else {
			b.WriteString("\n")
		}
	}
	if replay != "" && len(e.Findings) > 0 {
		fmt.Fprintf(&b, "\nreplay: %s\n", replay)
	}
	_, err := io.WriteString(w, e.redact(b.String()))
	return err
}

// redact is a last pass over what is written: the exchanges are redacted
// as recorded, and a reason quotes no request bytes, but a token or
// session id must not leave however it got in.
func (e *Exploration) redact(s string) string {
	if e.secrets == nil {
		return s
	}
	return e.secrets.Redact(s)
}

func ruleLine(id string) string {
	for _, r := range exploreRules {
		if r.ID == id {
			return r.Line
		}
	}
	return ""
}

// writeTranscript numbers a walk's steps, each with its exchanges (as
// recorded: redacted and bounded) and the rules it broke.
func writeTranscript(b *strings.Builder, w WalkResult) {
	for i, s := range w.Steps {
		fmt.Fprintf(b, "  %d. %s", i+1, s.Step)
		switch {
		case s.NotSent != "":
			b.WriteString(": not sent, " + s.NotSent + "\n")
		default:
			b.WriteString(" → " + s.Actual + "\n")
		}
		for _, f := range s.Findings {
			fmt.Fprintf(b, "     ✗ %s %s: %s\n", f.Rule, f.Verdict, f.Reason)
		}
		for _, x := range s.Exchanges {
			b.WriteString(indent(x.Request, "     > ") + indent(x.Response, "     < "))
		}
	}
}

func indent(s, prefix string) string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if s == "" {
		return ""
	}
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix) + "\n"
}
