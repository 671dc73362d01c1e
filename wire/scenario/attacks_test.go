package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"rawmcp/wire/rule"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
	"rawmcp/wire/mcp"
)

// TestAttacks runs the probe's catalogue and the whole table once and
// reads each result as a subtest.
func TestAttacks(t *testing.T) {
	table := Attacks()
	all := len(ProbeChecks()) + len(table) + 1
	if all < 20 {
		t.Fatalf("%d attacks in all, the profile asks for at least 20", all)
	}
	v := RunAttacks(context.Background(), RunOptions{}, table)
	for _, res := range v.Results {
		t.Run(string(res.Rule)+"/"+res.Name, func(t *testing.T) {
			if !res.Blocked {
				t.Errorf("got through: expected %d, observed %s: %s", res.Want, res.Observed, res.Problem)
			}
		})
	}
	var checks []string
	for _, res := range v.Results[:len(ProbeChecks())] {
		checks = append(checks, res.Check)
	}
	var catalogue []string
	for _, c := range ProbeChecks() {
		catalogue = append(catalogue, c.ID)
	}
	if diff := cmp.Diff(catalogue, checks); diff != "" {
		t.Errorf("the attack run's probe checks (-want +got):\n%s", diff)
	}
	got := [3]any{v.BlockedAttacks, v.Verdict, len(v.Results)}
	want := [3]any{all, "BLOCK", all}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("blocked attacks, verdict, results (-want +got):\n%s", diff)
	}
}

// TestBrokenExpectationPenetrates runs table entries with a wrong
// expectation through the same runner: the verdict must turn.
func TestBrokenExpectationPenetrates(t *testing.T) {
	expired := Attack{Name: "expired token", Rule: rule.InvalidToken, Want: 401, probe: tokenRefused("expired")}
	// The right status for the wrong reason: a trace that annotates a
	// refused token as a missing one teaches the wrong lesson.
	wrongRule := expired
	wrongRule.Rule = rule.NoCredentials
	expired.Want = 200
	extraCheckFails := Attack{Name: "a check beyond the status fails", Rule: rule.InvalidToken, Want: 401,
		probe: func(b *bench) (*httpparse.Response, error) {
			resp, err := b.peer("expired").initialize(mcp.ProtocolVersion)
			if err != nil {
				return resp, err
			}
			return resp, errors.New("a field the attack forbids is present")
		}}
	// Without the probe's catalogue: the runner's verdict is the case.
	v := newRun(context.Background(), RunOptions{}).verdict(nil, []Attack{expired, wrongRule, extraCheckFails})
	want := AttackVerdict{
		BlockedAttacks: 1, Profile: Profile, ProtocolVersion: "2025-11-25", Verdict: "PENETRATED",
		Results: []AttackResult{
			{Name: "expired token", Rule: rule.InvalidToken, Want: 200, Observed: "HTTP/1.1 401 Unauthorized", Decision: rule.InvalidToken, Problem: "want 200, got 401"},
			{Name: "expired token", Rule: rule.NoCredentials, Want: 401, Observed: "HTTP/1.1 401 Unauthorized", Decision: rule.InvalidToken, Problem: `the server named rule "A-10", want A-08`},
			{Name: "a check beyond the status fails", Rule: rule.InvalidToken, Want: 401, Observed: "HTTP/1.1 401 Unauthorized", Decision: rule.InvalidToken, Problem: "a field the attack forbids is present"},
			{Name: "leak check: tokens and session ids in every response", Rule: rule.NoSecretsInOutput, Observed: "0 leaks in 3 responses", Blocked: true},
		},
	}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("RunAttacks (-want +got):\n%s", diff)
	}
}

func TestAttackVerdictJSON(t *testing.T) {
	v := AttackVerdict{BlockedAttacks: 31, Profile: Profile, ProtocolVersion: "2025-11-25", Verdict: "BLOCK",
		Results: []AttackResult{{Name: "never printed"}}}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"blocked_attacks":31,"profile":"loopback-streamable-http-teaching-profile-v1","protocol_version":"2025-11-25","verdict":"BLOCK"}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

func TestLeakCheck(t *testing.T) {
	const token, session = "c2VjcmV0LXRva2Vu", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	issue := &httpparse.Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK",
		Header: []httpparse.HeaderLine{{Name: "Mcp-Session-Id", Value: session}}}
	tests := []struct {
		name      string
		responses []*httpparse.Response
		blocked   bool
		observed  string
	}{
		{
			name:      "T-38/the session id in a 200's Mcp-Session-Id is where it belongs",
			responses: []*httpparse.Response{issue},
			blocked:   true,
			observed:  "0 leaks in 1 responses",
		},
		{
			name: "A-P07/a token echoed in an error body is a leak",
			responses: []*httpparse.Response{{Proto: "HTTP/1.1", Status: 400, Reason: "Bad Request",
				Body: []byte(`{"error":"bad token ` + token + `"}`)}},
			observed: "1 leaks in 1 responses",
		},
		{
			name: "A-P07/a session id in a 404's header is a leak",
			responses: []*httpparse.Response{issue, {Proto: "HTTP/1.1", Status: 404, Reason: "Not Found",
				Header: []httpparse.HeaderLine{{Name: "Mcp-Session-Id", Value: session}}}},
			observed: "1 leaks in 2 responses",
		},
		{
			name:     "A-P07/a run without responses proves nothing",
			observed: "0 leaks in 0 responses",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRun(context.Background(), RunOptions{})
			r.secret.AddToken(token)
			for _, resp := range tt.responses {
				r.observe("a step", resp)
			}
			res := r.leakCheck()
			if got := [2]any{res.Blocked, res.Observed}; got != [2]any{tt.blocked, tt.observed} {
				t.Errorf("blocked, observed = %v, want %v (problem: %s)", got, [2]any{tt.blocked, tt.observed}, res.Problem)
			}
		})
	}
}
