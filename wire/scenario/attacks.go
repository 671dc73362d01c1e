package scenario

import (
	"context"
	"fmt"
	"io"
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

// Attacks returns the attack table, in the order RunAttacks runs it.
func Attacks() []Attack { return slices.Clone(attackTable) }

// RunAttacks runs each attack against a server of its own, so that no
// attack's revocation, revision change or flood can help or hinder
// another, then scans every response of the whole run for fixture tokens
// and session ids (the leak check, itself counted as an attack). The
// verdict is BLOCK only if everything was blocked.
func RunAttacks(ctx context.Context, opts RunOptions, attacks []Attack) AttackVerdict {
	return newRun(ctx, opts).attacks(attacks)
}

func (r *run) attacks(attacks []Attack) AttackVerdict {
	v := AttackVerdict{Profile: Profile, ProtocolVersion: mcp.ProtocolVersion, Verdict: Block}
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
		res.Observed = r.secret.redact(statusLine(resp))
		res.Decision = b.rules[resp]
	}
	switch {
	case resp != nil && resp.Status != a.Want:
		res.Problem = "want " + strconv.Itoa(a.Want) + ", got " + strconv.Itoa(resp.Status)
	case err != nil:
		res.Problem = r.secret.redact(err.Error())
	case resp == nil:
		res.Problem = "no response"
	case res.Decision != a.Rule:
		res.Problem = "the server named rule " + strconv.Quote(string(res.Decision)) + ", want " + string(a.Rule)
	case resp.Status >= 400 && !resp.Close:
		res.Problem = "the refusal leaves the connection open (T-P14)"
	default:
		res.Blocked = true
	}
	return res
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
		if res.Want == 0 {
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
