package scenario

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/netip"
	"strconv"
	"time"

	"rawmcp/policy"
	"rawmcp/state"
	"rawmcp/wire"
)

// ServeOptions configure the server `rawmcp serve` runs for real MCP
// clients and curl. DefaultServeOptions gives the profile's values.
type ServeOptions struct {
	// Addr is where to listen: 127.0.0.1:port only (T-06); port 0 picks
	// a free one.
	Addr string
	// Origins are allowed Origins beyond the server's own (T-P16), which
	// are always allowed: http://127.0.0.1:PORT and http://localhost:PORT,
	// the origins of the Hosts it accepts. Clients sending no Origin,
	// which is every non-browser client, always get through.
	Origins []string
	// Issuer is the one issuer accepted; tokens naming another get 401.
	Issuer string
	// TokenFile holds token records as policy.ParseTokenFile reads them,
	// "self" standing for this server's canonical URI. Nil: one demo
	// token with every scope is generated at random and returned in the
	// Endpoint.
	TokenFile []byte
	// Tenants is the tenant ACL. Empty: every tenant a token names.
	Tenants []string
	// MaxSessions, SessionTTL and MaxInFlight are the profile's limits:
	// live sessions, a session's lifetime, requests in processing.
	MaxSessions int
	SessionTTL  time.Duration
	MaxInFlight int
	// Logger receives the server's log; it never carries a token or a
	// session id.
	Logger *slog.Logger
}

// DefaultServeOptions returns the profile's defaults: a random port, only
// the server's own origins allowed, 8 sessions of 60 s, 64 requests in processing.
func DefaultServeOptions() ServeOptions {
	table := state.DefaultConfig()
	return ServeOptions{
		Addr:        "127.0.0.1:0",
		Issuer:      Issuer,
		MaxSessions: table.MaxSessions,
		SessionTTL:  table.TTL,
		MaxInFlight: wire.NewConfig(nil, nil).MaxInFlight,
		Logger:      slog.New(slog.DiscardHandler),
	}
}

// Endpoint is what a client needs to connect: the first line `rawmcp
// serve` prints, members in alphabetical order.
type Endpoint struct {
	MetadataURL string `json:"metadata_url"`
	Token       string `json:"token,omitempty"` // the demo token; none with a token file
	URL         string `json:"url"`
}

// ErrServeOptions reports options Serve cannot run with; the error says
// which, never with a value from a token file.
var ErrServeOptions = errors.New("scenario: invalid serve options")

// demoTokenLifetime bounds the generated demo token: a day of serving,
// not forever.
const demoTokenLifetime = 24 * time.Hour

// Serve listens, builds the policy (the canonical URI needs the bound
// port), calls ready with the Endpoint, and serves until ctx ends; then it
// shuts down gracefully, letting requests in processing finish.
func Serve(ctx context.Context, opts ServeOptions, ready func(Endpoint) error) error {
	if opts.MaxSessions <= 0 || opts.SessionTTL <= 0 || opts.MaxInFlight <= 0 || opts.Logger == nil {
		return ErrServeOptions
	}
	ln, err := wire.Listen(opts.Addr)
	if err != nil {
		return err
	}
	srv, endpoint, err := buildServer(ln.Addr().String(), opts)
	if err != nil {
		ln.Close()
		return err
	}
	if err := ready(endpoint); err != nil {
		ln.Close()
		return err
	}
	opts.Logger.Info("serving", "url", endpoint.URL, "metadata_url", endpoint.MetadataURL)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	opts.Logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	if serveErr := <-served; err == nil {
		err = serveErr
	}
	return err
}

// buildServer wires Policy, session Table and Server for the bound
// address.
func buildServer(bound string, opts ServeOptions) (*wire.Server, Endpoint, error) {
	ap, err := netip.ParseAddrPort(bound)
	if err != nil {
		return nil, Endpoint{}, err
	}
	port := strconv.Itoa(int(ap.Port()))
	addr := "127.0.0.1:" + port
	canonical := "http://" + addr + "/mcp"
	var endpoint Endpoint
	var entries []policy.TokenFileEntry
	if opts.TokenFile != nil {
		if entries, err = policy.ParseTokenFile(opts.TokenFile, canonical); err != nil {
			return nil, Endpoint{}, err
		}
	} else {
		demo, err := demoToken(canonical, opts.Issuer, time.Now())
		if err != nil {
			return nil, Endpoint{}, err
		}
		entries = []policy.TokenFileEntry{demo}
		endpoint.Token = demo.Token
	}
	tenants := opts.Tenants
	if len(tenants) == 0 {
		for _, e := range entries {
			tenants = append(tenants, e.Record.Tenant)
		}
	}
	// A page the server's own authority serves is same-origin, not a
	// rebinding attack: each accepted Host's origin is always allowed.
	hosts := []string{addr, "localhost:" + port}
	origins := []string{"http://" + hosts[0], "http://" + hosts[1]}
	p, err := policy.New(policy.Config{
		CanonicalURI:   canonical,
		Issuer:         opts.Issuer,
		AllowedHosts:   hosts,
		AllowedOrigins: append(origins, opts.Origins...),
		AllowedTenants: tenants,
	})
	if err != nil {
		return nil, Endpoint{}, err
	}
	for _, e := range entries {
		if err := p.Add(e.Token, e.Record); err != nil {
			return nil, Endpoint{}, err
		}
	}
	table := state.DefaultConfig()
	table.MaxSessions, table.TTL = opts.MaxSessions, opts.SessionTTL
	cfg := wire.NewConfig(p, state.NewTable(table, rand.Reader))
	cfg.MaxInFlight = opts.MaxInFlight
	cfg.Logger = opts.Logger
	srv, err := wire.NewServer(cfg)
	if err != nil {
		return nil, Endpoint{}, err
	}
	endpoint.URL = canonical
	endpoint.MetadataURL = p.MetadataURL()
	return srv, endpoint, nil
}

// demoToken mints the one token of a server started without a token file:
// random, every scope, bound to this server, valid for a day.
func demoToken(canonical, issuer string, now time.Time) (policy.TokenFileEntry, error) {
	token, err := randomToken()
	if err != nil {
		return policy.TokenFileEntry{}, err
	}
	return policy.TokenFileEntry{Token: token, Record: policy.TokenRecord{
		TokenID:               "demo",
		Issuer:                issuer,
		Audience:              canonical,
		Resource:              canonical,
		AuthorizationResource: canonical,
		TokenResource:         canonical,
		Subject:               "demo",
		Tenant:                TenantAcme,
		Scopes:                []string{policy.ScopeConnect, policy.ScopeResourcesRead},
		Revision:              1,
		Active:                true,
		Expiry:                now.Add(demoTokenLifetime),
	}}, nil
}
