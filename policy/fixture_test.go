package policy

import (
	"fmt"
	"testing"
	"time"
)

// The server under test: one canonical URI, one issuer, hosts and origins
// for 127.0.0.1 and localhost, two tenants.
const (
	testCanonical   = "http://127.0.0.1:49152/mcp"
	testIssuer      = "http://127.0.0.1:9/as"
	testMetadataURL = "http://127.0.0.1:49152/.well-known/oauth-protected-resource/mcp"
	otherServer     = "http://127.0.0.1:49153/mcp"
	otherIssuer     = "http://127.0.0.1:9/other-as"
)

// The exact challenges, byte for byte.
const (
	bareConnect           = `Bearer resource_metadata="http://127.0.0.1:49152/.well-known/oauth-protected-resource/mcp", scope="mcp:connect"`
	bareList              = `Bearer resource_metadata="http://127.0.0.1:49152/.well-known/oauth-protected-resource/mcp", scope="mcp:connect resources:read"`
	invalidRequestConnect = `Bearer error="invalid_request", resource_metadata="http://127.0.0.1:49152/.well-known/oauth-protected-resource/mcp", scope="mcp:connect"`
	invalidRequestList    = `Bearer error="invalid_request", resource_metadata="http://127.0.0.1:49152/.well-known/oauth-protected-resource/mcp", scope="mcp:connect resources:read"`
	invalidTokenConnect   = `Bearer error="invalid_token", resource_metadata="http://127.0.0.1:49152/.well-known/oauth-protected-resource/mcp", scope="mcp:connect"`
	invalidTokenList      = `Bearer error="invalid_token", resource_metadata="http://127.0.0.1:49152/.well-known/oauth-protected-resource/mcp", scope="mcp:connect resources:read"`
	insufficientConnect   = `Bearer error="insufficient_scope", resource_metadata="http://127.0.0.1:49152/.well-known/oauth-protected-resource/mcp", scope="mcp:connect"`
	insufficientList      = `Bearer error="insufficient_scope", resource_metadata="http://127.0.0.1:49152/.well-known/oauth-protected-resource/mcp", scope="mcp:connect resources:read"`
)

// Fixture tokens are long and distinctive, so that finding one inside an
// output (the leak test) cannot happen by chance.
const (
	tokAlice = "tok-alice-3fQ9zW7pLr"
	tokBob   = "tok-bob-8Hk2mN5xVq"
	tokCarol = "tok-carol-Pz4Wq2Ld7n"
)

// t0 is the clock reading of every request unless a case says otherwise.
var t0 = time.Date(2026, 7, 21, 12, 0, 0, 0, time.UTC)

func testConfig() Config {
	return Config{
		CanonicalURI:   testCanonical,
		Issuer:         testIssuer,
		AllowedHosts:   []string{"127.0.0.1:49152", "localhost:49152"},
		AllowedOrigins: []string{"http://127.0.0.1:49152", "http://localhost:49152"},
		AllowedTenants: []string{"tenant-a", "租户-α", "caf\u00e9"}, // café in NFC
	}
}

func newTestPolicy(t testing.TB) *Policy {
	t.Helper()
	p, err := New(testConfig())
	if err != nil {
		t.Fatalf("New(testConfig()) = %v", err)
	}
	return p
}

// aliceRecord is a record every check accepts at t0.
func aliceRecord() TokenRecord {
	return TokenRecord{
		TokenID:               "tid-1",
		Issuer:                testIssuer,
		Audience:              testCanonical,
		Resource:              testCanonical,
		AuthorizationResource: testCanonical,
		TokenResource:         testCanonical,
		Subject:               "alice",
		Tenant:                "tenant-a",
		Scopes:                []string{ScopeConnect, ScopeResourcesRead},
		Revision:              7,
		Active:                true,
		NotBefore:             t0.Add(-time.Hour),
		Expiry:                t0.Add(time.Hour),
	}
}

// alicePrincipal is what Authenticate returns for tokAlice with aliceRecord.
var alicePrincipal = Principal{
	Subject:     "alice",
	Tenant:      "tenant-a",
	Revision:    7,
	Scopes:      scopeConnectBit | scopeResourcesReadBit,
	Correlation: "c1c639dc", // first 8 hex digits of SHA-256("tok-alice-3fQ9zW7pLr")
}

// withPrincipal returns alicePrincipal changed by edit.
func withPrincipal(edit func(*Principal)) Principal {
	pr := alicePrincipal
	edit(&pr)
	return pr
}

func invalidToken(detail string) *Denial {
	return &Denial{Status: 401, Challenge: invalidTokenConnect, Reason: ReasonInvalidToken, Detail: detail}
}

// heldBy is a revocation or revision denial naming whose token it was
// (Denial.Holder: the holder's sessions end; no scopes, it grants nothing).
func heldBy(detail string, holder Principal) *Denial {
	d := invalidToken(detail)
	holder.Scopes = 0
	d.Holder = &holder
	return d
}

// notBearer is the answer to an Authorization of another scheme: the
// missing-token 401, told apart by Detail only.
func notBearer() *Denial {
	return &Denial{Status: 401, Challenge: bareConnect, Reason: ReasonMissingToken, Detail: DetailNotBearer}
}

func invalidRequest(detail string) *Denial {
	return &Denial{Status: 400, Challenge: invalidRequestConnect, Reason: ReasonMalformedAuthorization, Detail: detail}
}

// fixture is a token put in the table before a case runs: aliceRecord with
// TokenID "tid-<position>", then edit.
type fixture struct {
	token string
	edit  func(*TokenRecord)
}

// authCase is one request through Authenticate and, when Authenticate
// accepts it and authorize is set, Authorize.
type authCase struct {
	name      string
	tokens    []fixture // nil: tokAlice with aliceRecord
	setup     func(p *Policy)
	header    string // the Authorization value
	absent    bool   // no Authorization header at all
	op        string // "" means "ping"
	now       time.Time
	authorize bool
	want      Principal
	denial    *Denial
}

func (c authCase) run(t testing.TB) (Principal, *Denial) {
	t.Helper()
	p := newTestPolicy(t)
	tokens := c.tokens
	if tokens == nil {
		tokens = []fixture{{token: tokAlice}}
	}
	for i, f := range tokens {
		rec := aliceRecord()
		rec.TokenID = fmt.Sprintf("tid-%d", i+1)
		if f.edit != nil {
			f.edit(&rec)
		}
		if err := p.Add(f.token, rec); err != nil {
			t.Fatalf("Add(fixture %d) = %v", i+1, err)
		}
	}
	if c.setup != nil {
		c.setup(p)
	}
	op, now := c.op, c.now
	if op == "" {
		op = "ping"
	}
	if now.IsZero() {
		now = t0
	}
	pr, denial := p.AuthenticateRemembered(nil, []byte(c.header), !c.absent, op, now)
	if denial == nil && c.authorize {
		denial = p.Authorize(pr, op)
	}
	return pr, denial
}

// fixtureTokens lists every token the cases add or present.
func (c authCase) fixtureTokens() []string {
	tokens := []string{tokAlice}
	for _, f := range c.tokens {
		tokens = append(tokens, f.token)
	}
	return tokens
}
