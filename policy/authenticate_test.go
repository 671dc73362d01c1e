package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func runAuthTable(t *testing.T, cases []authCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pr, denial := c.run(t)
			if diff := cmp.Diff(c.want, pr); diff != "" {
				t.Errorf("Principal (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.denial, denial); diff != "" {
				t.Errorf("Denial (-want +got):\n%s", diff)
			}
		})
	}
}

// authorizationSyntaxCases: how the Authorization value is read (RFC 6750
// §2.1 and §3.1, the profile's A-P02 classification).
func authorizationSyntaxCases() []authCase {
	return []authCase{
		{name: "A-08/no Authorization header: 401 with a bare challenge, no error", absent: true,
			denial: &Denial{Status: 401, Challenge: bareConnect, Reason: ReasonMissingToken, Detail: DetailAbsent}},
		{name: "A-04/no header on resources/list: the challenge names both scopes", absent: true, op: "resources/list",
			denial: &Denial{Status: 401, Challenge: bareList, Reason: ReasonMissingToken, Detail: DetailAbsent}},
		{name: "A-18/no header on GET: the challenge names mcp:connect", absent: true, op: "GET",
			denial: &Denial{Status: 401, Challenge: bareConnect, Reason: ReasonMissingToken, Detail: DetailAbsent}},
		{name: "A-18/no header on DELETE: the challenge names mcp:connect", absent: true, op: "DELETE",
			denial: &Denial{Status: 401, Challenge: bareConnect, Reason: ReasonMissingToken, Detail: DetailAbsent}},

		{name: "A-21/Bearer and a known token: accepted", header: "Bearer " + tokAlice, want: alicePrincipal},
		{name: "A-21/lowercase bearer: accepted", header: "bearer " + tokAlice, want: alicePrincipal},
		{name: "A-21/uppercase BEARER: accepted", header: "BEARER " + tokAlice, want: alicePrincipal},
		{name: "A-21/mixed-case bEaReR: accepted", header: "bEaReR " + tokAlice, want: alicePrincipal},
		{name: "A-21/several spaces before the token: accepted", header: "Bearer   " + tokAlice, want: alicePrincipal},
		{name: "A-21/trailing = padding is part of b64token: accepted",
			tokens: []fixture{{token: "tok-pad-Yw3Kd9Qe=="}}, header: "Bearer tok-pad-Yw3Kd9Qe==",
			want: withPrincipal(func(pr *Principal) { pr.Correlation = "892989de" })},

		{name: "A-P02/scheme alone, empty token: 400 invalid_request", header: "Bearer", denial: invalidRequest(DetailEmptyToken)},
		{name: "A-P02/scheme and one space, empty token: 400 invalid_request", header: "Bearer ", denial: invalidRequest(DetailEmptyToken)},
		{name: "A-P02/scheme and spaces, empty token: 400 invalid_request", header: "Bearer   ", denial: invalidRequest(DetailEmptyToken)},
		{name: "A-P02/lowercase scheme alone, empty token: 400 invalid_request", header: "bearer", denial: invalidRequest(DetailEmptyToken)},
		{name: "A-P02/a word after the token: 400 invalid_request", header: "Bearer " + tokAlice + " extra", denial: invalidRequest(DetailExtraWords)},
		{name: "A-P02/two token68 words: 400 invalid_request", header: "Bearer a b", denial: invalidRequest(DetailExtraWords)},
		{name: "A-P02/a trailing space is an empty extra word: 400 invalid_request", header: "Bearer " + tokAlice + " ", denial: invalidRequest(DetailExtraWords)},
		{name: "A-P02/two credentials in one value: 400 invalid_request", header: "Bearer " + tokAlice + ", Bearer " + tokBob, denial: invalidRequest(DetailExtraWords)},
		{name: "A-P02/the 400 challenge names the op's scopes", header: "Bearer", op: "resources/list",
			denial: &Denial{Status: 400, Challenge: invalidRequestList, Reason: ReasonMalformedAuthorization, Detail: DetailEmptyToken}},

		// RFC 6750 §3.1: a request using another authentication scheme
		// lacks a bearer credential, so it is answered like one with no
		// Authorization header; only Detail tells the log which.
		{name: "A-08/Basic scheme: 401 with a bare challenge, like no header", header: "Basic dXNlcjpwYXNz", denial: notBearer()},
		{name: "A-08/Digest scheme: 401 with a bare challenge", header: `Digest username="alice", realm="mcp", nonce="n", uri="/mcp", response="r"`, denial: notBearer()},
		{name: "A-08/a bare word is a scheme alone: 401 with a bare challenge", header: "dXNlcjpwYXNz", denial: notBearer()},
		{name: "A-08/a known token under another scheme is no credential", header: "Token " + tokAlice, denial: notBearer()},
		{name: "A-08/another scheme with a Bearer-shaped value", header: "Basic Bearer " + tokAlice, denial: notBearer()},
		{name: "A-08/empty header value: no scheme, 401 with a bare challenge", header: "", denial: notBearer()},
		{name: "A-08/scheme with a suffix is another scheme", header: "Bearerx " + tokAlice, denial: notBearer()},
		{name: "A-08/scheme prefix only is another scheme", header: "Beare " + tokAlice, denial: notBearer()},
		{name: "A-08/HTAB does not separate scheme and token: another scheme", header: "Bearer\t" + tokAlice, denial: notBearer()},
		{name: "A-08/leading space: the scheme is empty, another scheme", header: " Bearer " + tokAlice, denial: notBearer()},
		{name: "A-08/another scheme on resources/list: the bare challenge names both scopes", header: "Basic dXNlcjpwYXNz", op: "resources/list",
			denial: &Denial{Status: 401, Challenge: bareList, Reason: ReasonMissingToken, Detail: DetailNotBearer}},

		{name: "A-10/comma inside the token: 401 invalid_token", header: "Bearer " + tokAlice + ",x", denial: invalidToken(DetailTokenSyntax)},
		{name: "A-10/= before the end of the token: 401 invalid_token", header: "Bearer ab=cd", denial: invalidToken(DetailTokenSyntax)},
		{name: "A-10/= signs only: 401 invalid_token", header: "Bearer ==", denial: invalidToken(DetailTokenSyntax)},
		{name: "A-10/non-ASCII byte in the token: 401 invalid_token", header: "Bearer " + tokAlice + "\xc3\xa9", denial: invalidToken(DetailTokenSyntax)},
		{name: "A-10/NUL in the token: 401 invalid_token", header: "Bearer " + tokAlice + "\x00", denial: invalidToken(DetailTokenSyntax)},
		{name: "A-10/quoted token: 401 invalid_token", header: `Bearer "` + tokAlice + `"`, denial: invalidToken(DetailTokenSyntax)},
	}
}

func TestAuthenticateAuthorizationSyntax(t *testing.T) {
	runAuthTable(t, authorizationSyntaxCases())
}

// TestB64TokenBytes sweeps every byte against the RFC 6750 §2.1 alphabet,
// both inside a token and as its only character.
func TestB64TokenBytes(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/"
	for b := range 256 {
		c := byte(b)
		inAlphabet := strings.IndexByte(alphabet, c) >= 0
		if got := isB64Token([]byte{'a', c, 'a'}); got != inAlphabet {
			t.Errorf("A-21/isB64Token(a %#02x a) = %v, want %v", c, got, inAlphabet)
		}
		if got := isB64Token([]byte{c}); got != inAlphabet {
			t.Errorf("A-21/isB64Token(%#02x) = %v, want %v", c, got, inAlphabet)
		}
		if got, want := isB64Token([]byte{'a', c}), inAlphabet || c == '='; got != want {
			t.Errorf("A-21/isB64Token(a %#02x) = %v, want %v", c, got, want)
		}
	}
	if isB64Token(nil) {
		t.Error("A-21/isB64Token(empty) = true, want false")
	}
}

// tokenStateCases: the token's own state, Figure 2's first box.
func tokenStateCases() []authCase {
	nbf, exp := aliceRecord().NotBefore, aliceRecord().Expiry
	return []authCase{
		{name: "A-10/unknown token: 401 invalid_token", header: "Bearer tok-unknown-Q8s7Vb2Lk", denial: invalidToken(DetailUnknown)},
		{name: "A-10/a prefix of a known token is unknown", header: "Bearer " + tokAlice[:12], denial: invalidToken(DetailUnknown)},
		{name: "A-10/a known token plus one character is unknown", header: "Bearer " + tokAlice + "x", denial: invalidToken(DetailUnknown)},
		{name: "A-10/tokens compare case-sensitively", header: "Bearer " + strings.ToUpper(tokAlice), denial: invalidToken(DetailUnknown)},
		{name: "A-10/an unknown token on resources/list: the challenge names both scopes", header: "Bearer tok-unknown-Q8s7Vb2Lk",
			op: "resources/list", denial: &Denial{Status: 401, Challenge: invalidTokenList, Reason: ReasonInvalidToken, Detail: DetailUnknown}},

		{name: "A-P05/inactive: 401 invalid_token", header: "Bearer " + tokAlice,
			tokens: []fixture{{tokAlice, func(r *TokenRecord) { r.Active = false }}}, denial: invalidToken(DetailInactive)},
		{name: "A-P05/revoked: 401 invalid_token", header: "Bearer " + tokAlice,
			setup: func(p *Policy) { p.Revoke("tid-1") }, denial: heldBy(DetailRevoked, alicePrincipal)},
		{name: "A-P05/revoking another token leaves this one valid", header: "Bearer " + tokAlice,
			tokens: []fixture{{token: tokAlice}, {token: tokBob}}, setup: func(p *Policy) { p.Revoke("tid-2") }, want: alicePrincipal},

		{name: "A-P05/nbf 1 ns in the future: 401 invalid_token", header: "Bearer " + tokAlice,
			now: nbf.Add(-time.Nanosecond), denial: invalidToken(DetailNotYetValid)},
		{name: "A-P05/exactly at nbf: accepted", header: "Bearer " + tokAlice, now: nbf, want: alicePrincipal},
		{name: "A-P05/no nbf: accepted long before expiry", header: "Bearer " + tokAlice,
			tokens: []fixture{{tokAlice, func(r *TokenRecord) { r.NotBefore = time.Time{} }}},
			now:    t0.AddDate(-10, 0, 0), want: alicePrincipal},
		{name: "A-P05/1 ns before expiry: accepted", header: "Bearer " + tokAlice, now: exp.Add(-time.Nanosecond), want: alicePrincipal},
		{name: "A-P05/exactly at expiry: 401 invalid_token", header: "Bearer " + tokAlice, now: exp, denial: invalidToken(DetailExpired)},
		{name: "A-P05/a year after expiry: 401 invalid_token", header: "Bearer " + tokAlice, now: exp.AddDate(1, 0, 0), denial: invalidToken(DetailExpired)},
		{name: "A-P05/the clock's zone does not matter", header: "Bearer " + tokAlice,
			now: exp.In(time.FixedZone("UTC+14", 14*3600)), denial: invalidToken(DetailExpired)},
		{name: "A-P05/the first failed check is the detail: inactive before expired", header: "Bearer " + tokAlice,
			tokens: []fixture{{tokAlice, func(r *TokenRecord) { r.Active = false }}}, now: exp, denial: invalidToken(DetailInactive)},
	}
}

func TestAuthenticateTokenState(t *testing.T) {
	runAuthTable(t, tokenStateCases())
}

// bindingCases: issuer, audience and the resource bindings, Figure 2's
// second box. Each failure is the identical 401; only Detail differs.
func bindingCases() []authCase {
	audience := func(a string) []fixture {
		return []fixture{{tokAlice, func(r *TokenRecord) { r.Audience = a }}}
	}
	return []authCase{
		{name: "A-P04/issuer of another authorization server: 401", header: "Bearer " + tokAlice,
			tokens: []fixture{{tokAlice, func(r *TokenRecord) { r.Issuer = otherIssuer }}}, denial: invalidToken(DetailIssuer)},
		{name: "A-P04/audience of another server: 401", header: "Bearer " + tokAlice,
			tokens: audience(otherServer), denial: invalidToken(DetailAudience)},
		{name: "A-P04/recorded resource of another server: 401", header: "Bearer " + tokAlice,
			tokens: []fixture{{tokAlice, func(r *TokenRecord) { r.Resource = otherServer }}}, denial: invalidToken(DetailResource)},
		{name: "A-P04/authorization-request resource of another server: 401", header: "Bearer " + tokAlice,
			tokens: []fixture{{tokAlice, func(r *TokenRecord) { r.AuthorizationResource = otherServer }}}, denial: invalidToken(DetailAuthorizationResource)},
		{name: "A-P04/token-request resource of another server: 401", header: "Bearer " + tokAlice,
			tokens: []fixture{{tokAlice, func(r *TokenRecord) { r.TokenResource = otherServer }}}, denial: invalidToken(DetailTokenResource)},

		{name: "A-P04/audience with an uppercase scheme is not ours", header: "Bearer " + tokAlice,
			tokens: audience("HTTP://127.0.0.1:49152/mcp"), denial: invalidToken(DetailAudience)},
		{name: "A-P04/audience naming localhost is not ours", header: "Bearer " + tokAlice,
			tokens: audience("http://localhost:49152/mcp"), denial: invalidToken(DetailAudience)},
		{name: "A-P04/audience naming LOCALHOST (uppercase host) is not ours", header: "Bearer " + tokAlice,
			tokens: audience("http://LOCALHOST:49152/mcp"), denial: invalidToken(DetailAudience)},
		{name: "A-P04/audience with an uppercase path is not ours", header: "Bearer " + tokAlice,
			tokens: audience("http://127.0.0.1:49152/MCP"), denial: invalidToken(DetailAudience)},
		{name: "A-P04/audience with a trailing slash is not ours", header: "Bearer " + tokAlice,
			tokens: audience(testCanonical + "/"), denial: invalidToken(DetailAudience)},
		{name: "A-P04/audience naming only our origin is not ours", header: "Bearer " + tokAlice,
			tokens: audience("http://127.0.0.1:49152"), denial: invalidToken(DetailAudience)},
		{name: "A-P04/audience extending our path is not ours", header: "Bearer " + tokAlice,
			tokens: audience(testCanonical + "/extra"), denial: invalidToken(DetailAudience)},
		{name: "A-P04/audience with a query is not ours", header: "Bearer " + tokAlice,
			tokens: audience(testCanonical + "?x=1"), denial: invalidToken(DetailAudience)},
		{name: "A-P04/audience at the same host, another port is not ours", header: "Bearer " + tokAlice,
			tokens: audience(otherServer), denial: invalidToken(DetailAudience)},
		{name: "A-P04/bindings are checked after the token state: expired wins", header: "Bearer " + tokAlice,
			tokens: audience(otherServer), now: aliceRecord().Expiry, denial: invalidToken(DetailExpired)},
	}
}

func TestAuthenticateBindings(t *testing.T) {
	runAuthTable(t, bindingCases())
}

// revisionCases: the subject's current authorization revision, Figure 2's
// third box.
func revisionCases() []authCase {
	revision := func(subject string, n uint64) func(*TokenRecord) {
		return func(r *TokenRecord) { r.Subject, r.Revision = subject, n }
	}
	return []authCase{
		{name: "A-11/minted under the subject's current revision: accepted", header: "Bearer " + tokAlice, want: alicePrincipal},
		{name: "A-11/revision moved on: 401 invalid_token", header: "Bearer " + tokAlice,
			setup: func(p *Policy) { p.SetRevision("alice", 8) }, denial: heldBy(DetailRevision, alicePrincipal)},
		{name: "A-11/revision moved back: 401 invalid_token", header: "Bearer " + tokAlice,
			setup: func(p *Policy) { p.SetRevision("alice", 6) }, denial: heldBy(DetailRevision, alicePrincipal)},
		{name: "A-11/revision set back to the minted one: accepted again", header: "Bearer " + tokAlice,
			setup: func(p *Policy) { p.SetRevision("alice", 8); p.SetRevision("alice", 7) }, want: alicePrincipal},
		{name: "A-11/another subject's revision change does not matter", header: "Bearer " + tokAlice,
			setup: func(p *Policy) { p.SetRevision("bob", 99) }, want: alicePrincipal},
		{name: "A-11/minting a newer token retires the older one", header: "Bearer " + tokAlice,
			tokens: []fixture{{token: tokAlice}, {tokBob, revision("alice", 8)}}, denial: heldBy(DetailRevision, alicePrincipal)},
		{name: "A-11/the newer token is accepted", header: "Bearer " + tokBob,
			tokens: []fixture{{token: tokAlice}, {tokBob, revision("alice", 8)}},
			want:   withPrincipal(func(pr *Principal) { pr.Revision, pr.Correlation = 8, "6951625d" })},
		{name: "A-11/adding an older token does not roll the revision back", header: "Bearer " + tokAlice,
			tokens: []fixture{{token: tokAlice}, {tokCarol, revision("alice", 5)}}, want: alicePrincipal},
		{name: "A-11/the older token added later is stale", header: "Bearer " + tokCarol,
			tokens: []fixture{{token: tokAlice}, {tokCarol, revision("alice", 5)}},
			denial: heldBy(DetailRevision, withPrincipal(func(pr *Principal) { pr.Revision, pr.Correlation = 5, Correlate([]byte(tokCarol)) }))},
		{name: "A-11/revision is checked after the bindings: audience wins", header: "Bearer " + tokAlice,
			tokens: []fixture{{tokAlice, func(r *TokenRecord) { r.Audience = otherServer }}},
			setup:  func(p *Policy) { p.SetRevision("alice", 8) }, denial: invalidToken(DetailAudience)},
	}
}

func TestAuthenticateRevision(t *testing.T) {
	runAuthTable(t, revisionCases())
}

// TestAuthenticatePrincipalIsACopy: changing a returned Principal's scopes
// must not grant the next request anything.
func TestAuthenticatePrincipalIsACopy(t *testing.T) {
	p := newTestPolicy(t)
	rec := aliceRecord()
	rec.Scopes = []string{ScopeConnect}
	if err := p.Add(tokAlice, rec); err != nil {
		t.Fatal(err)
	}
	rec.Scopes[0] = ScopeResourcesRead // the caller's slice, after Add
	first, _ := p.AuthenticateRemembered(nil, []byte("Bearer "+tokAlice), true, "ping", t0)
	first.Scopes |= scopeResourcesReadBit
	second, denial := p.AuthenticateRemembered(nil, []byte("Bearer "+tokAlice), true, "ping", t0)
	if denial != nil {
		t.Fatalf("Authenticate = %+v", denial)
	}
	if diff := cmp.Diff(scopeConnectBit, second.Scopes); diff != "" {
		t.Errorf("A-11/Scopes (-want +got):\n%s", diff)
	}
}
