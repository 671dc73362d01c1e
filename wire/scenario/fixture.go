package scenario

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"sync"
	"time"

	"rawmcp/policy"
	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/assemble"
)

// Profile names the contract the demo, attacks and experiments check.
const Profile = "loopback-streamable-http-teaching-profile-v1"

// Issuer is the offline authorization server the fixture tokens name. The
// .invalid TLD (RFC 2606) says that nothing answers there.
const Issuer = "https://as.rawmcp.invalid"

// Tenants served by the fixture; "globex" exists in tokens but is not on
// the ACL, and the Unicode tenant checks URI encoding end to end.
const (
	TenantAcme    = "acme"
	TenantUnicode = "Zürich/ü?x#y"
	TenantGlobex  = "globex"
)

// Fixture is a server on a random 127.0.0.1 port with a table of tokens
// minted for it (and some minted for elsewhere), for the demo, the
// attacks, the experiments and tests.
type Fixture struct {
	Addr        string // 127.0.0.1:port
	URL         string // canonical resource URI, http://127.0.0.1:port/mcp
	MetadataURL string
	Sessions    *state.Table
	Server      *wire.Server
	// Tokens maps a fixture name ("alice", "expired", ...) to its token;
	// TokenIDs maps it to its token id (for Revoke).
	Tokens   map[string]string
	TokenIDs map[string]string

	srv       *assemble.Server
	mu        sync.Mutex
	decisions []wire.Decision
}

// Options adjust a fixture.
type Options struct {
	// Configure, if set, may change the server config before start
	// (limits, capacity, logger).
	Configure func(*wire.Config)
	// TableConfig overrides the session table's configuration.
	TableConfig *state.Config
}

// Start binds 127.0.0.1:0, mints the fixture tokens for that port's
// canonical URI, and serves.
func Start(opts Options) (*Fixture, error) {
	f := &Fixture{Tokens: map[string]string{}, TokenIDs: map[string]string{}}
	cfg := assemble.Config{
		Issuer:  Issuer,
		Tenants: []string{TenantAcme, TenantUnicode},
		Tokens:  func(canonical string) ([]policy.TokenFileEntry, error) { return f.mintTokens(canonical, time.Now()) },
		Configure: func(c *wire.Config) {
			c.OnDecision = f.record
			if opts.Configure != nil {
				opts.Configure(c)
			}
		},
	}
	if opts.TableConfig != nil {
		cfg.Table = *opts.TableConfig
	}
	srv, err := assemble.Start("127.0.0.1:0", cfg)
	if err != nil {
		return nil, err
	}
	f.srv = srv
	f.Addr, f.URL, f.MetadataURL = srv.Addr, srv.URL, srv.MetadataURL
	f.Sessions, f.Server = srv.Sessions, srv.Server
	return f, nil
}

// SetRevision sets subject's authorization revision through the
// assembled server, which ends the sessions of every other revision.
func (f *Fixture) SetRevision(subject string, revision uint64) {
	f.srv.SetRevision(subject, revision)
}

// Revoke revokes the token with this id (a value of TokenIDs) and reports
// whether the id is known.
func (f *Fixture) Revoke(tokenID string) bool { return f.srv.Revoke(tokenID) }

// Close shuts the server down gracefully, waiting at most 5 s.
func (f *Fixture) Close() error { return f.srv.Close() }

func (f *Fixture) record(d wire.Decision) {
	f.mu.Lock()
	f.decisions = append(f.decisions, d)
	f.mu.Unlock()
}

// TakeDecisions returns and forgets the decisions recorded so far, in the
// order the server made them.
func (f *Fixture) TakeDecisions() []wire.Decision {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.decisions
	f.decisions = nil
	return d
}

// tokenSpec is one fixture token: a valid record for this server, then
// one change that makes it what its name says.
type tokenSpec struct {
	name   string
	change func(r *policy.TokenRecord, canonical string, now time.Time)
}

const elsewhere = "http://127.0.0.1:1/mcp"

var tokenSpecs = []tokenSpec{
	{"alice", nil},
	{"bob", func(r *policy.TokenRecord, _ string, _ time.Time) { r.Subject = "bob" }},
	{"unicode", func(r *policy.TokenRecord, _ string, _ time.Time) {
		r.Subject, r.Tenant = "Zoë 🦊", TenantUnicode
	}},
	{"revocable", nil},
	{"no-resources-scope", func(r *policy.TokenRecord, _ string, _ time.Time) { r.Scopes = []string{policy.ScopeConnect} }},
	// alice's own session, opened with another token, is reached but the
	// stream and DELETE need mcp:connect (A-14 on GET and DELETE).
	{"no-connect-scope", func(r *policy.TokenRecord, _ string, _ time.Time) { r.Scopes = []string{policy.ScopeResourcesRead} }},
	{"other-tenant", func(r *policy.TokenRecord, _ string, _ time.Time) { r.Tenant = TenantGlobex }},
	{"wrong-issuer", func(r *policy.TokenRecord, _ string, _ time.Time) { r.Issuer = "https://evil.invalid" }},
	{"wrong-audience", func(r *policy.TokenRecord, _ string, _ time.Time) { r.Audience = elsewhere }},
	{"wrong-resource", func(r *policy.TokenRecord, _ string, _ time.Time) { r.Resource = elsewhere }},
	{"authorization-resource-elsewhere", func(r *policy.TokenRecord, _ string, _ time.Time) { r.AuthorizationResource = elsewhere }},
	{"token-resource-elsewhere", func(r *policy.TokenRecord, _ string, _ time.Time) { r.TokenResource = elsewhere }},
	{"expired", func(r *policy.TokenRecord, _ string, now time.Time) { r.Expiry = now.Add(-time.Second) }},
	{"not-yet-valid", func(r *policy.TokenRecord, _ string, now time.Time) { r.NotBefore = now.Add(time.Hour) }},
	{"inactive", func(r *policy.TokenRecord, _ string, _ time.Time) { r.Active = false }},
}

// mintTokens makes the fixture tokens for the canonical URI and names
// them in f.Tokens and f.TokenIDs.
func (f *Fixture) mintTokens(canonical string, now time.Time) ([]policy.TokenFileEntry, error) {
	entries := make([]policy.TokenFileEntry, 0, len(tokenSpecs))
	for i, spec := range tokenSpecs {
		rec := policy.TokenRecord{
			TokenID:               fmt.Sprintf("tok-%02d", i),
			Issuer:                Issuer,
			Audience:              canonical,
			Resource:              canonical,
			AuthorizationResource: canonical,
			TokenResource:         canonical,
			Subject:               "alice",
			Tenant:                TenantAcme,
			Scopes:                []string{policy.ScopeConnect, policy.ScopeResourcesRead},
			Revision:              1,
			Active:                true,
			Expiry:                now.Add(time.Hour),
		}
		if spec.name == "revocable" {
			rec.Subject = "carol"
		}
		if spec.change != nil {
			spec.change(&rec, canonical, now)
		}
		token, err := randomToken()
		if err != nil {
			return nil, err
		}
		entries = append(entries, policy.TokenFileEntry{Token: token, Record: rec})
		f.Tokens[spec.name] = token
		f.TokenIDs[spec.name] = rec.TokenID
	}
	return entries, nil
}

// randomToken returns 32 random bytes as base64url: a valid b64token
// (RFC 6750 §2.1) that no one can guess, so no secret is ever hard-coded.
func randomToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}
