package scenario

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"rawmcp/policy"
	"rawmcp/state"
	"rawmcp/wire"
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
	Policy      *policy.Policy
	Sessions    *state.Table
	Server      *wire.Server
	// Tokens maps a fixture name ("alice", "expired", ...) to its token;
	// TokenIDs maps it to its token id (for Revoke).
	Tokens   map[string]string
	TokenIDs map[string]string

	mu        sync.Mutex
	decisions []wire.Decision
	served    chan error
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
	ln, err := wire.Listen("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	// netip, not net: only package wire touches sockets (DESIGN.md).
	bound, err := netip.ParseAddrPort(ln.Addr().String())
	if err != nil {
		ln.Close()
		return nil, err
	}
	port := int(bound.Port())
	addr := "127.0.0.1:" + strconv.Itoa(port)
	f := &Fixture{Addr: addr, URL: "http://" + addr + "/mcp", Tokens: map[string]string{}, TokenIDs: map[string]string{}, served: make(chan error, 1)}
	f.Policy, err = policy.New(policy.Config{
		CanonicalURI:   f.URL,
		Issuer:         Issuer,
		AllowedHosts:   []string{addr, "localhost:" + strconv.Itoa(port)},
		AllowedOrigins: []string{"http://" + addr, "http://localhost:" + strconv.Itoa(port)},
		AllowedTenants: []string{TenantAcme, TenantUnicode},
	})
	if err != nil {
		ln.Close()
		return nil, err
	}
	f.MetadataURL = f.Policy.MetadataURL()
	if err := f.mintTokens(time.Now()); err != nil {
		ln.Close()
		return nil, err
	}
	tcfg := state.DefaultConfig()
	if opts.TableConfig != nil {
		tcfg = *opts.TableConfig
	}
	f.Sessions = state.NewTable(tcfg, rand.Reader)
	cfg := wire.NewConfig(f.Policy, f.Sessions)
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.OnDecision = f.record
	if opts.Configure != nil {
		opts.Configure(&cfg)
	}
	f.Server, err = wire.NewServer(cfg)
	if err != nil {
		ln.Close()
		return nil, err
	}
	go func() { f.served <- f.Server.Serve(ln) }()
	return f, nil
}

// Close shuts the server down gracefully, waiting at most 5 s.
func (f *Fixture) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := f.Server.Shutdown(ctx)
	if serveErr := <-f.served; err == nil {
		err = serveErr
	}
	return err
}

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

func (f *Fixture) mintTokens(now time.Time) error {
	for i, spec := range tokenSpecs {
		rec := policy.TokenRecord{
			TokenID:               fmt.Sprintf("tok-%02d", i),
			Issuer:                Issuer,
			Audience:              f.URL,
			Resource:              f.URL,
			AuthorizationResource: f.URL,
			TokenResource:         f.URL,
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
			spec.change(&rec, f.URL, now)
		}
		token, err := randomToken()
		if err != nil {
			return err
		}
		if err := f.Policy.Add(token, rec); err != nil {
			return fmt.Errorf("scenario: fixture token %s: %w", spec.name, err)
		}
		f.Tokens[spec.name] = token
		f.TokenIDs[spec.name] = rec.TokenID
	}
	return nil
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
