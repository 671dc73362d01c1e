package scenario

import (
	"context"
	"fmt"
	"io"
	mcpprobe "rawmcp/wire/client/probe"
	"rawmcp/wire/rule"
	"slices"
	"strconv"
	"strings"

	"rawmcp/httpparse"
	"rawmcp/wire/mcp"
)

// Attack is one named attempt to get past the boundary, the exact status
// that blocks it and the rule that status must rest on. Its probe may
// check more (a field that must be absent, a pipelined request that must
// stay unanswered); the attack is blocked only if the status, the rule and
// every such check hold and, for a refusal, the server closes the
// connection (T-P14).
type Attack struct {
	Name string
	// Rule is the requirement ID the server must name for its answer: two
	// refusals can share status and body (a query and an obs-fold are both
	// the same plain 400), so only the rule shows which check stopped it.
	Rule rule.ID
	Want int

	probe func(b *bench) (*httpparse.Response, error)
}

// AttackResult is what one attack met.
type AttackResult struct {
	// Check is the probe check's id when the attack is one of the probe's
	// catalogue; then Observed is its verdict and Want is 0.
	Check    string
	Name     string
	Rule     rule.ID
	Want     int
	Observed string  // the status line, or "no response"
	Decision rule.ID // the rule the server named
	Blocked  bool
	Problem  string // why it counts as through; secrets redacted
}

// AttackVerdict is the attack run's result; its JSON is the one line
// `rawmcp attack` prints, members in alphabetical order.
type AttackVerdict struct {
	BlockedAttacks  int    `json:"blocked_attacks"`
	Profile         string `json:"profile"`
	ProtocolVersion string `json:"protocol_version"`
	Verdict         string `json:"verdict"` // "BLOCK" or "PENETRATED"

	Results []AttackResult `json:"-"`
}

// The attack verdicts: BLOCK is the good one.
const (
	Block      = "BLOCK"
	Penetrated = "PENETRATED"
)

// Attacks returns the attack table, in the order RunAttacks runs it: the
// attacks that need the fixture's powers (revocation, a revision change,
// tokens minted for other resources, not yet valid or inactive, a tenant
// off the ACL) or look where no probe check does. An attack the probe's
// catalogue expresses is that check, run by RunAttacks, not a copy here.
func Attacks() []Attack { return slices.Clone(attackTable) }

// RunAttacks runs the probe's catalogue (the black-box contract any MCP
// server is held to), less the groups probeSkip leaves out, against a
// fixture server, strict and with every token it can use; then each attack
// against a server of its own, so that no attack's revocation, revision
// change or flood can help or hinder another; then scans every response of
// the attacks for fixture tokens and session ids (the leak check, itself
// counted as an attack; EH-01 scans the probe's). The verdict is BLOCK
// only if everything was blocked.
func RunAttacks(ctx context.Context, opts RunOptions, attacks []Attack) AttackVerdict {
	r := newRun(ctx, opts)
	return r.verdict(r.probeChecks(), attacks)
}

// verdict runs the attacks after the results it is given, then the leak
// check, and counts what was blocked.
func (r *run) verdict(results []AttackResult, attacks []Attack) AttackVerdict {
	v := AttackVerdict{Profile: Profile, ProtocolVersion: mcp.ProtocolVersion, Verdict: Block, Results: results}
	for _, a := range attacks {
		v.Results = append(v.Results, r.attack(a))
	}
	v.Results = append(v.Results, r.leakCheck())
	for _, res := range v.Results {
		if res.Blocked {
			v.BlockedAttacks++
		} else {
			v.Verdict = Penetrated
		}
	}
	return v
}

func (r *run) attack(a Attack) AttackResult {
	res := AttackResult{Name: a.Name, Rule: a.Rule, Want: a.Want, Observed: "no response"}
	b, err := r.start("attack: " + a.Name)
	if err != nil {
		res.Problem = "could not start a server: " + err.Error()
		return res
	}
	resp, err := a.probe(b)
	if closeErr := b.close(); err == nil && closeErr != nil {
		err = fmt.Errorf("the server did not shut down cleanly: %w", closeErr)
	}
	if resp != nil {
		res.Observed = r.secret.Redact(statusLine(resp))
		res.Decision = b.rules[resp]
	}
	switch {
	case resp != nil && resp.Status != a.Want:
		res.Problem = "want " + strconv.Itoa(a.Want) + ", got " + strconv.Itoa(resp.Status)
	case err != nil:
		res.Problem = r.secret.Redact(err.Error())
	case resp == nil:
		res.Problem = "no response"
	case res.Decision != a.Rule:
		res.Problem = "the server named rule " + strconv.Quote(string(res.Decision)) + ", want " + string(a.Rule)
	case resp.Status >= 400 && !resp.Close:
		res.Problem = "the refusal leaves the connection open (" + string(rule.ReceiveOrder) + ")"
	default:
		res.Blocked = true
	}
	return res
}

// probeTokens names, for each kind of token the probe's catalogue asks
// for, the fixture token of that kind.
var probeTokens = map[string]string{
	"wrong_audience": "wrong-audience",
	"wrong_issuer":   "wrong-issuer",
	"expired":        "expired",
	"low_scope":      "no-resources-scope",
}

// probeSkip leaves out of an attack run the probe's deployment group,
// which judges a hop in front of the server (TLS, a proxy, a balancer),
// and the attack bench has none; and its V2 group, which judges an MCP
// 2026-07-28 server, a revision the profile keeps out of rawmcp's wire
// contract (every V2 check skips on it). The era group stays: it judges
// the answer a 2026-07-28 client falls back on.
var probeSkip = []string{"DP", "V2"}

// ProbeSkipped returns the group codes of the probe's catalogue an attack
// run leaves out, for the texts that say what attack runs.
func ProbeSkipped() []string { return slices.Clone(probeSkip) }

// ProbeChecks are the probe's checks an attack run includes, PRE-01
// first: the catalogue without the groups probeSkip leaves out.
func ProbeChecks() []*mcpprobe.Check {
	checks, _ := mcpprobe.Select(nil, probeSkip)
	return append([]*mcpprobe.Check{mcpprobe.Catalogue()[0]}, checks...)
}

// probeChecks runs the probe's catalogue against one fixture server with
// -strict: alice's token, bob's as the second principal, and the named
// tokens. A check blocks when it passes (or, PV-04, only reports).
func (r *run) probeChecks() []AttackResult {
	b, err := r.start("probe: the catalogue of rawmcp probe, strict")
	if err != nil {
		return []AttackResult{{Name: "probe catalogue", Problem: "could not start a server: " + err.Error()}}
	}
	defer b.close()
	named := map[string]string{}
	for kind, name := range probeTokens {
		named[kind] = b.fx.Tokens[name]
	}
	target, err := mcpprobe.ParseTarget(b.fx.URL)
	if err != nil {
		return []AttackResult{{Name: "probe catalogue", Problem: err.Error()}}
	}
	rep, err := mcpprobe.Run(r.ctx, target, mcpprobe.Options{
		Token: b.fx.Tokens["alice"], Token2: b.fx.Tokens["bob"], Named: named, Strict: true, Trace: r.traceTo, Skip: probeSkip,
	})
	if rep == nil {
		return []AttackResult{{Name: "probe catalogue", Problem: r.secret.Redact(err.Error())}}
	}
	var out []AttackResult
	for _, res := range rep.Results {
		ar := AttackResult{
			Check: res.Check.ID, Name: res.Check.ID + " " + res.Check.Title, Rule: res.Check.Rule,
			Observed: string(res.Verdict), Blocked: res.Verdict == mcpprobe.Pass || res.Verdict == mcpprobe.Info,
		}
		if !ar.Blocked {
			ar.Problem = r.secret.Redact(res.Reason)
		}
		out = append(out, ar)
	}
	return out
}

// leakCheck is the last attack: did any response, error or not, echo a
// token or a session id?
func (r *run) leakCheck() AttackResult {
	leaks := r.leaks()
	res := AttackResult{
		Name: "leak check: tokens and session ids in every response", Rule: rule.NoSecretsInOutput,
		Observed: fmt.Sprintf("%d leaks in %d responses", len(leaks), len(r.exposed)),
	}
	switch {
	case len(r.exposed) == 0:
		res.Problem = "no response to scan"
	case len(leaks) > 0:
		res.Problem = strings.Join(leaks, "; ")
	default:
		res.Blocked = true
	}
	return res
}

// Report writes one line per attack that got through, or with verbose one
// line per attack, for a reader (stderr).
func (v AttackVerdict) Report(w io.Writer, verbose bool) {
	for _, res := range v.Results {
		if res.Blocked && !verbose {
			continue
		}
		mark := "BLOCKED"
		if !res.Blocked {
			mark = "THROUGH"
		}
		want := "expected " + strconv.Itoa(res.Want)
		switch {
		case res.Check != "":
			want = "expected pass"
		case res.Want == 0:
			want = "expected no leak"
		}
		line := fmt.Sprintf("%s %-62s %s, observed %s", mark, res.Name, want, res.Observed)
		if res.Decision != "" {
			line += " [" + string(res.Decision) + "]"
		}
		if res.Problem != "" {
			line += ": " + res.Problem
		}
		fmt.Fprintln(w, line)
	}
}
