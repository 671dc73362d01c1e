package scenario

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"

	"rawmcp/httpparse"
	"rawmcp/wire/client"
	"rawmcp/wire/mcp"
	"rawmcp/wire/rule"
)

// Experiment is one of the profile document's "Step-by-step experiments":
// change one thing, predict the status and the rule behind it, run it,
// read the answer. Some experiments change one thing in two or three ways
// (either RFC 8707 resource, revoke or revision); each way is a probe.
type Experiment struct {
	Number int
	Title  string
	probes []probe
}

// probe is one change and its prediction.
type probe struct {
	changed string
	want    int
	// rule is the requirement ID the server must name: two answers can
	// share status and body (a missing MCP-Protocol-Version and a missing
	// Mcp-Session-Id are both the same plain 400), so only the rule shows
	// which check answered.
	rule rule.ID
	// show lists the header fields that matter for this answer.
	show []string
	run  func(b *bench) (*httpparse.Response, error)
}

// ExperimentResult is what one experiment observed.
type ExperimentResult struct {
	Number int
	Title  string
	Probes []ProbeResult
	Pass   bool
}

// ProbeResult is one change, its prediction and what came back.
type ProbeResult struct {
	Changed    string
	Predicted  int
	StatusLine string                 // "" when no response came
	Fields     []httpparse.HeaderLine // the fields that matter; "(none)" when absent; secrets redacted
	Rule       rule.ID                // the rule the server named
	Pass       bool
	Problem    string // secrets redacted
}

// ExperimentsVerdict is the experiments' result; its JSON is the one line
// `rawmcp experiments` prints, members in alphabetical order.
type ExperimentsVerdict struct {
	Experiments     int    `json:"experiments"`
	Passed          int    `json:"passed"`
	Profile         string `json:"profile"`
	ProtocolVersion string `json:"protocol_version"`
	Verdict         string `json:"verdict"` // "PASS" or "FAIL"

	Results []ExperimentResult `json:"-"`
}

// Experiments returns the ten experiments, in the profile document's order.
func Experiments() []Experiment { return slices.Clone(experimentTable) }

// RunExperiments runs each experiment against a server of its own.
func RunExperiments(ctx context.Context, opts RunOptions, list []Experiment) ExperimentsVerdict {
	return newRun(ctx, opts).experiments(list)
}

func (r *run) experiments(list []Experiment) ExperimentsVerdict {
	v := ExperimentsVerdict{Profile: Profile, ProtocolVersion: mcp.ProtocolVersion, Verdict: Pass}
	for _, e := range list {
		res := r.experiment(e)
		v.Results = append(v.Results, res)
		v.Experiments++
		if res.Pass {
			v.Passed++
		} else {
			v.Verdict = Fail
		}
	}
	return v
}

func (r *run) experiment(e Experiment) ExperimentResult {
	res := ExperimentResult{Number: e.Number, Title: e.Title, Pass: true}
	b, err := r.start("experiment " + strconv.Itoa(e.Number) + ": " + e.Title)
	if err != nil {
		res.Pass = false
		res.Probes = []ProbeResult{{Problem: "could not start a server: " + err.Error()}}
		return res
	}
	for _, p := range e.probes {
		r.trace.note("changed: %s; predicted: %d", p.changed, p.want)
		pr := r.probe(b, p)
		res.Probes = append(res.Probes, pr)
		res.Pass = res.Pass && pr.Pass
	}
	if err := b.close(); err != nil {
		res.Pass = false
		res.Probes = append(res.Probes, ProbeResult{Problem: "the server did not shut down cleanly: " + err.Error()})
	}
	return res
}

func (r *run) probe(b *bench, p probe) ProbeResult {
	pr := ProbeResult{Changed: p.changed, Predicted: p.want}
	resp, err := p.run(b)
	if resp != nil {
		pr.StatusLine = r.secret.Redact(statusLine(resp))
		pr.Rule = b.rules[resp]
		for _, name := range p.show {
			value, ok := resp.Get(name)
			if !ok {
				value = "(none)"
			}
			pr.Fields = append(pr.Fields, httpparse.HeaderLine{Name: name, Value: r.secret.Redact(client.RedactField(name, value))})
		}
	}
	switch {
	case resp != nil && resp.Status != p.want:
		pr.Problem = "predicted " + strconv.Itoa(p.want) + ", observed " + strconv.Itoa(resp.Status)
	case err != nil:
		pr.Problem = r.secret.Redact(err.Error())
	case pr.Rule != p.rule:
		pr.Problem = "predicted rule " + string(p.rule) + ", the server named " + strconv.Quote(string(pr.Rule))
	default:
		pr.Pass = true
	}
	return pr
}

// Report writes every experiment for a reader (stderr).
func (v ExperimentsVerdict) Report(w io.Writer) {
	for _, e := range v.Results {
		fmt.Fprintf(w, "Experiment %d: %s\n", e.Number, e.Title)
		for _, p := range e.Probes {
			if p.Changed != "" {
				fmt.Fprintf(w, "  changed:   %s\n  predicted: %d\n", p.Changed, p.Predicted)
			}
			observed := p.StatusLine
			if observed == "" {
				observed = "no response"
			}
			fmt.Fprintf(w, "  observed:  %s\n", observed)
			for _, f := range p.Fields {
				fmt.Fprintf(w, "             %s: %s\n", f.Name, f.Value)
			}
			if p.Rule != "" {
				fmt.Fprintf(w, "  rule:      %s: %s\n", p.Rule, p.Rule.Text())
			}
			if p.Pass {
				fmt.Fprintf(w, "  PASS\n\n")
			} else {
				fmt.Fprintf(w, "  FAIL: %s\n\n", p.Problem)
			}
		}
	}
}
