package policy

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// rememberedStep is one request on a connection that keeps a Remembered:
// change runs first (a revocation, a new revision), then the request.
type rememberedStep struct {
	change func(p *Policy)
	header string
	now    time.Time // zero: t0
	want   Principal
	denial *Denial
	// kept is the token the memory holds after the step.
	kept string
}

// TestAuthenticateRemembered: a connection's memory of its token saves the
// hash, never a check. Every step re-reads the row: what changed since the
// token was remembered refuses the next request, and another token is
// looked up afresh.
func TestAuthenticateRemembered(t *testing.T) {
	alice, bob := "Bearer "+tokAlice, "Bearer "+tokBob
	bobPrincipal := withPrincipal(func(pr *Principal) {
		pr.Subject, pr.Correlation = "bob", "6951625d"
	})
	cases := []struct {
		name  string
		steps []rememberedStep
	}{
		{"A-P05/the same token again: the same Principal", []rememberedStep{
			{header: alice, want: alicePrincipal, kept: tokAlice},
			{header: alice, want: alicePrincipal, kept: tokAlice},
		}},
		{"A-P05/revoked after it was remembered: 401 on the next request", []rememberedStep{
			{header: alice, want: alicePrincipal, kept: tokAlice},
			{change: func(p *Policy) { p.Revoke("tid-1") }, header: alice,
				denial: heldBy(DetailRevoked, alicePrincipal), kept: tokAlice},
		}},
		{"A-P05/expired after it was remembered: 401 on the next request", []rememberedStep{
			{header: alice, want: alicePrincipal, kept: tokAlice},
			{header: alice, now: t0.Add(time.Hour), denial: invalidToken(DetailExpired), kept: tokAlice},
		}},
		{"A-P05/revision changed after it was remembered: 401 on the next request", []rememberedStep{
			{header: alice, want: alicePrincipal, kept: tokAlice},
			{change: func(p *Policy) { p.SetRevision("alice", 8) }, header: alice,
				denial: heldBy(DetailRevision, alicePrincipal), kept: tokAlice},
		}},
		{"A-P05/another token on the same connection: looked up afresh and remembered", []rememberedStep{
			{header: alice, want: alicePrincipal, kept: tokAlice},
			{header: bob, want: bobPrincipal, kept: tokBob},
			{header: alice, want: alicePrincipal, kept: tokAlice},
		}},
		{"A-P05/a token one byte longer than the remembered one is another token", []rememberedStep{
			{header: alice, want: alicePrincipal, kept: tokAlice},
			{header: alice + "x", denial: invalidToken(DetailUnknown), kept: tokAlice},
		}},
		{"A-P05/a token of the same length differing in its last byte is another token", []rememberedStep{
			{header: alice, want: alicePrincipal, kept: tokAlice},
			{header: alice[:len(alice)-1] + "s", denial: invalidToken(DetailUnknown), kept: tokAlice},
		}},
		{"A-P05/an unknown token is not remembered", []rememberedStep{
			{header: "Bearer tok-unknown-Qz8", denial: invalidToken(DetailUnknown), kept: ""},
			{header: alice, want: alicePrincipal, kept: tokAlice},
			{header: "Bearer tok-unknown-Qz8", denial: invalidToken(DetailUnknown), kept: tokAlice},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newTestPolicy(t)
			for i, tok := range []string{tokAlice, tokBob} {
				rec := aliceRecord()
				rec.TokenID = []string{"tid-1", "tid-2"}[i]
				rec.Subject = []string{"alice", "bob"}[i]
				if err := p.Add(tok, rec); err != nil {
					t.Fatal(err)
				}
			}
			var mem Remembered
			for i, s := range c.steps {
				if s.change != nil {
					s.change(p)
				}
				now := s.now
				if now.IsZero() {
					now = t0
				}
				pr, denial := p.AuthenticateRemembered(&mem, []byte(s.header), true, "ping", now)
				if diff := cmp.Diff(s.want, pr); diff != "" {
					t.Errorf("step %d: Principal (-want +got):\n%s", i+1, diff)
				}
				if diff := cmp.Diff(s.denial, denial); diff != "" {
					t.Errorf("step %d: Denial (-want +got):\n%s", i+1, diff)
				}
				if got := string(mem.token); got != s.kept {
					t.Errorf("step %d: remembered token %q, want %q", i+1, got, s.kept)
				}
			}
		})
	}
}

// TestRememberedFindsTheRowWithoutTheTable: a remembered token's row comes
// from the memory, not from the digest table, so the hash is saved; a
// memory made on another Policy is never consulted.
func TestRememberedFindsTheRowWithoutTheTable(t *testing.T) {
	p := newTestPolicy(t)
	if err := p.Add(tokAlice, aliceRecord()); err != nil {
		t.Fatal(err)
	}
	var mem Remembered
	if _, d := p.AuthenticateRemembered(&mem, []byte("Bearer "+tokAlice), true, "ping", t0); d != nil {
		t.Fatalf("first request: %+v", d)
	}
	clear(p.byDigest) // only the memory can find the row now
	if _, d := p.AuthenticateRemembered(&mem, []byte("Bearer "+tokAlice), true, "ping", t0); d != nil {
		t.Errorf("remembered token refused without its digest in the table: %+v", d)
	}

	other := newTestPolicy(t)
	_, d := other.AuthenticateRemembered(&mem, []byte("Bearer "+tokAlice), true, "ping", t0)
	if diff := cmp.Diff(invalidToken(DetailUnknown), d); diff != "" {
		t.Errorf("memory of another Policy consulted (-want +got):\n%s", diff)
	}
}

func TestScopeSetOf(t *testing.T) {
	for _, c := range []struct {
		name   string
		scopes []string
		want   ScopeSet
	}{
		{"A-15/none", nil, 0},
		{"A-15/mcp:connect", []string{ScopeConnect}, scopeConnectBit},
		{"A-15/resources:read", []string{ScopeResourcesRead}, scopeResourcesReadBit},
		{"A-15/both", []string{ScopeResourcesRead, ScopeConnect}, scopeConnectBit | scopeResourcesReadBit},
		{"A-15/other scopes grant nothing", []string{"tools:call", "MCP:CONNECT", "mcp:connect "}, 0},
	} {
		if got := scopeSetOf(c.scopes); got != c.want {
			t.Errorf("%s: scopeSetOf(%q) = %b, want %b", c.name, c.scopes, got, c.want)
		}
	}
}

// TestRequiredScopesAreKnown: Authorize compares ScopeSets, so a required
// scope without a bit would be required of no one. Every scope an
// operation needs must have its bit.
func TestRequiredScopesAreKnown(t *testing.T) {
	ops := []string{"ping", "GET", "DELETE"}
	for _, e := range scopesBeyondConnect {
		ops = append(ops, e.op)
	}
	for _, op := range ops {
		for _, s := range requiredScopes(op) {
			if scopeSetOf([]string{s}) == 0 {
				t.Errorf("A-15/%s needs %q, which has no ScopeSet bit", op, s)
			}
		}
	}
}

// TestAuthenticateAllocs: a warm connection's request authenticates and
// is authorized without allocating, remembered or not.
func TestAuthenticateAllocs(t *testing.T) {
	p := newTestPolicy(t)
	if err := p.Add(tokAlice, aliceRecord()); err != nil {
		t.Fatal(err)
	}
	header := []byte("Bearer " + tokAlice)
	var mem Remembered
	for _, c := range []struct {
		name string
		mem  *Remembered
	}{{"remembered", &mem}, {"no memory", nil}} {
		allocs := testing.AllocsPerRun(100, func() {
			pr, d := p.AuthenticateRemembered(c.mem, header, true, "resources/list", t0)
			if d != nil || p.Authorize(pr, "resources/list") != nil {
				t.Fatal("refused")
			}
		})
		if allocs != 0 {
			t.Errorf("%s: Authenticate + Authorize allocated %v times per run, want 0", c.name, allocs)
		}
	}
}
