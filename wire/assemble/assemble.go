// Package assemble puts rawmcp servers together, the role net/http/httptest
// plays for net/http: the one place a policy, a session table and a
// wire.Server are put together, for the demo, the attacks, `rawmcp serve`,
// the tests and the fuzz targets alike.
package assemble

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"rawmcp/policy"
	"rawmcp/state"
	"rawmcp/wire"
)

// Config is what differs between the servers rawmcp runs.
type Config struct {
	// Issuer is the one issuer the policy accepts.
	Issuer string
	// Tenants is the tenant ACL; empty means every tenant a token names.
	Tenants []string
	// Origins are allowed beside the server's own origins,
	// http://127.0.0.1:PORT and http://localhost:PORT (and PublicURL's),
	// which are always allowed: a page can only have them if this server
	// served it, and it serves none.
	Origins []string
	// PublicURL, if set, is the URL clients use to reach the server behind
	// a reverse proxy, spelled as policy.ParseResourceURL requires. It
	// becomes the resource identifier (the metadata's resource, the
	// challenge's resource_metadata, the canonical URI tokens are minted
	// for), its origin joins the own origins and its authority the allowed
	// Hosts, beside the loopback ones; its path is the path the endpoint
	// is served at, so the proxy forwards paths unchanged. The listener
	// stays where Start put it. Empty: http://ADDR/mcp.
	PublicURL string
	// Tokens returns the tokens to load, minted for the canonical URI:
	// PublicURL, or the bound port's.
	Tokens func(canonical string) ([]policy.TokenFileEntry, error)
	// Table configures the session table; the zero value means
	// state.DefaultConfig().
	Table state.Config
	// Random is the session id source; nil means crypto/rand.
	Random io.Reader
	// Configure, if set, adjusts the server's Config (limits, logger,
	// clock, OnDecision) before it is built; its Policy is nil there and
	// set by Assemble afterwards.
	Configure func(*wire.Config)
}

// Server is an assembled rawmcp server.
type Server struct {
	Addr        string // 127.0.0.1:port, the Host the server accepts
	URL         string // the canonical resource URI: PublicURL, or http://127.0.0.1:port/mcp
	LocalURL    string // the endpoint on the listener itself: http://127.0.0.1:port and URL's path
	MetadataURL string
	Sessions    *state.Table
	Server      *wire.Server

	// policy is unexported so that a revision changes only through
	// SetRevision and AddToken, which end the sessions it makes stale.
	policy   *policy.Policy
	now      func() time.Time // the server's clock
	done     chan struct{}    // closed when Serve has returned
	serveErr error
	// revising serializes each revision change with the sweep it causes.
	// Unserialized, a sweep could read a revision, another change could
	// move it on and a session open under the new one, and the first
	// sweep would then end that session of the revision that stands. It is
	// held only here, over calls down into policy and state, which call
	// nothing back.
	revising sync.Mutex
}

// ErrConfig reports a Config that names no tokens or no issuer.
var ErrConfig = errors.New("assemble: Config needs an Issuer and Tokens")

// Assemble builds the server for the authority addr (127.0.0.1:port)
// without listening: connections are handed to Server.ServeConn.
func Assemble(addr string, cfg Config) (*Server, error) {
	if cfg.Issuer == "" || cfg.Tokens == nil {
		return nil, ErrConfig
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, err
	}
	port := strconv.Itoa(int(ap.Port()))
	s := &Server{Addr: addr, URL: "http://" + addr + "/mcp"}
	s.LocalURL = s.URL
	hosts := []string{addr, "localhost:" + port}
	origins := append([]string{"http://" + addr, "http://localhost:" + port}, cfg.Origins...)
	if cfg.PublicURL != "" {
		public, err := policy.ParseResourceURL(cfg.PublicURL)
		if err != nil {
			return nil, err
		}
		s.URL, s.LocalURL = public.URL, "http://"+addr+public.Path
		hosts, origins = append(hosts, public.Authority), append(origins, public.Origin)
	}
	entries, err := cfg.Tokens(s.URL)
	if err != nil {
		return nil, err
	}
	tenants := cfg.Tenants
	if len(tenants) == 0 {
		for _, e := range entries {
			tenants = append(tenants, e.Record.Tenant)
		}
	}
	s.policy, err = policy.New(policy.Config{
		CanonicalURI:   s.URL,
		Issuer:         cfg.Issuer,
		AllowedHosts:   hosts,
		AllowedOrigins: origins,
		AllowedTenants: tenants,
	})
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if err := s.policy.Add(e.Token, e.Record); err != nil {
			return nil, err
		}
	}
	s.MetadataURL = s.policy.MetadataURL()
	table, random := cfg.Table, cfg.Random
	if table == (state.Config{}) {
		table = state.DefaultConfig()
	}
	if random == nil {
		random = rand.Reader
	}
	s.Sessions = state.NewTable(table, random)
	wcfg := wire.NewConfig(s.policy, s.Sessions)
	if cfg.Configure != nil {
		// Configure does not see the policy either: a revision changes
		// only through SetRevision and AddToken.
		wcfg.Policy = nil
		cfg.Configure(&wcfg)
		wcfg.Policy = s.policy
	}
	if s.Server, err = wire.NewServer(wcfg); err != nil {
		return nil, err
	}
	s.now = wcfg.Now
	return s, nil
}

// SetRevision sets subject's current authorization revision and ends its
// sessions bound to any other. Those retired tokens can never name them
// again, so ending them now, by the server's clock, frees their slots
// instead of holding them until the TTL; the server logs each. Neither
// package holds a lock while the other runs. Changes are serialized with
// their sweeps (revising), so changes racing each other end no session of
// the revision that stands; a request racing the sweep can still open a
// session under a retired revision, which its next request finds refused
// (fail closed) and which then ends.
func (s *Server) SetRevision(subject string, revision uint64) {
	s.revising.Lock()
	defer s.revising.Unlock()
	s.policy.SetRevision(subject, revision)
	s.endStale(subject)
}

// AddToken adds a token to the policy; one minted under a newer revision
// raises its subject's, and the sessions of the older ones end as with
// SetRevision.
func (s *Server) AddToken(token string, rec policy.TokenRecord) error {
	s.revising.Lock()
	defer s.revising.Unlock()
	if err := s.policy.Add(token, rec); err != nil {
		return err
	}
	s.endStale(rec.Subject)
	return nil
}

// endStale ends and logs subject's sessions of a revision other than its
// current one. Callers hold s.revising.
func (s *Server) endStale(subject string) {
	s.Server.LogEnded(s.Sessions.EndStale(subject, s.policy.Revision(subject), s.now()))
}

// Revoke revokes the token with this id and reports whether the id is
// known. It ends no session at once: a session is bound to its owner, not
// to a token, and another token of the same owner may still use it; one
// that a request names with the revoked token ends then, and is logged.
func (s *Server) Revoke(tokenID string) bool {
	return s.policy.Revoke(tokenID)
}

// Start listens on listenAddr (127.0.0.1:0 picks a free port), assembles
// the server for the bound port and serves in the background.
func Start(listenAddr string, cfg Config) (*Server, error) {
	ln, err := wire.Listen(listenAddr)
	if err != nil {
		return nil, err
	}
	s, err := Assemble(ln.Addr().String(), cfg)
	if err != nil {
		ln.Close()
		return nil, err
	}
	s.done = make(chan struct{})
	go func() {
		s.serveErr = s.Server.Serve(ln)
		close(s.done)
	}()
	return s, nil
}

// Done is closed when a started server has stopped serving, after
// Shutdown or because its listener failed; Shutdown then reports why.
func (s *Server) Done() <-chan struct{} { return s.done }

// Shutdown stops a started server gracefully: requests in processing
// finish, within ctx.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.Server.Shutdown(ctx)
	if s.done != nil {
		<-s.done
		if err == nil {
			err = s.serveErr
		}
	}
	return err
}

// Close shuts down, waiting at most 5 s.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.Shutdown(ctx)
}
