package scenario

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"rawmcp/policy"
	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/assemble"
	"rawmcp/wire/client"
)

// ServeOptions configure the server `rawmcp serve` runs for real MCP
// clients and curl. DefaultServeOptions gives the profile's values.
type ServeOptions struct {
	// Addr is where to listen: 127.0.0.1:port only (T-06); port 0 picks
	// a free one.
	Addr string
	// Origins are allowed beside the server's own, http://127.0.0.1:PORT
	// and http://localhost:PORT (and PublicURL's), which always are (T-P16).
	Origins []string
	// PublicURL, if set, is the URL clients use behind a reverse proxy
	// (assemble.Config.PublicURL): the resource identifier, an own origin
	// and an allowed Host; the server listens on Addr all the same.
	PublicURL string
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
	// Trace, if set, receives every exchange on every connection as
	// `demo -trace` prints it, each line prefixed with its connection.
	Trace io.Writer
	// Summary, if set, receives what the clients were refused, by rule,
	// when Serve stops.
	Summary io.Writer
}

// DefaultServeOptions returns the profile's defaults: a random port, only
// the server's own origins, 8 sessions of 60 s, 64 requests in processing.
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
	// LocalURL is where the listener serves the endpoint, for the proxy's
	// upstream; only with a PublicURL, since URL is that otherwise.
	LocalURL    string `json:"local_url,omitempty"`
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
	var endpoint Endpoint
	var tr *serveTracer
	if opts.Trace != nil {
		tr = &serveTracer{t: tracer{w: opts.Trace, secret: &client.Redactor{}}}
	}
	refused := &refusals{}
	record := wire.NewRecord(tr != nil)
	table := state.DefaultConfig()
	table.MaxSessions, table.TTL = opts.MaxSessions, opts.SessionTTL
	srv, err := assemble.Start(opts.Addr, assemble.Config{
		Issuer:    opts.Issuer,
		Tenants:   opts.Tenants,
		Origins:   opts.Origins,
		PublicURL: opts.PublicURL,
		Tokens: func(canonical string) ([]policy.TokenFileEntry, error) {
			entries := make([]policy.TokenFileEntry, 1)
			var err error
			if opts.TokenFile != nil {
				entries, err = policy.ParseTokenFile(opts.TokenFile, canonical)
			} else {
				entries[0], err = demoToken(canonical, opts.Issuer, time.Now())
				endpoint.Token = entries[0].Token
			}
			if tr != nil {
				for _, e := range entries {
					tr.t.secret.AddToken(e.Token)
				}
			}
			return entries, err
		},
		Table: table,
		Configure: func(c *wire.Config) {
			c.MaxInFlight = opts.MaxInFlight
			c.Logger = opts.Logger
			c.Record = record
		},
	})
	if err != nil {
		return err
	}
	following := follow(record, refused, tr)
	endpoint.URL, endpoint.MetadataURL = srv.URL, srv.MetadataURL
	if srv.LocalURL != srv.URL {
		endpoint.LocalURL = srv.LocalURL
	}
	if err := ready(endpoint); err != nil {
		srv.Close()
		following.stop()
		return err
	}
	opts.Logger.Info("serving", "url", endpoint.URL, "metadata_url", endpoint.MetadataURL, "local_url", srv.LocalURL)
	select {
	case <-ctx.Done():
	case <-srv.Done():
	}
	opts.Logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	following.stop()
	if opts.Summary != nil {
		refused.write(opts.Summary)
	}
	return err
}

// follower takes the answers the server adds to its record as they come:
// it counts each for the summary, and traces it with -trace.
type follower struct {
	record  *wire.Record
	refused *refusals
	tr      *serveTracer
	stopped chan struct{}
	done    chan struct{}
}

func follow(record *wire.Record, refused *refusals, tr *serveTracer) *follower {
	f := &follower{record: record, refused: refused, tr: tr, stopped: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		for {
			select {
			case <-record.Added():
				f.take()
			case <-f.stopped:
				f.take()
				return
			}
		}
	}()
	return f
}

// stop takes what is left and returns; the server has stopped adding.
func (f *follower) stop() {
	close(f.stopped)
	<-f.done
}

func (f *follower) take() {
	for _, x := range f.record.Take() {
		f.refused.add(x.Decision)
		if f.tr != nil {
			f.tr.exchange(x)
		}
	}
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
