package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"rawmcp/wire/rule"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"rawmcp/httpparse"
	"rawmcp/policy"
	"rawmcp/state"
	"rawmcp/wire/h1"
	"rawmcp/wire/mcp"
)

// Config holds a Server's collaborators and budgets. NewConfig fills the
// profile's defaults; the Policy and the session Table are the caller's.
type Config struct {
	Policy   *policy.Policy
	Sessions *state.Table
	Limits   httpparse.Limits

	// ReadTimeout bounds a whole request, head and body, from its first
	// byte (H-P08): 2 s.
	ReadTimeout time.Duration
	// IdleTimeout bounds a keep-alive connection waiting for its next
	// request. It must exceed SSERetry: a client that obeys the priming
	// event's retry reuses its connection exactly then, and a server that
	// closes at that moment loses the request (RFC 9112 §9.5; the
	// TypeScript SDK's fetch does not resend). 5 s.
	IdleTimeout time.Duration
	// WriteTimeout bounds writing one response.
	WriteTimeout time.Duration
	// MaxInFlight is how many requests may be in processing, from a
	// complete head until the answer is ready to write (the write has its
	// own bound, WriteTimeout); the next gets 503 at once.
	MaxInFlight int
	// MaxConns caps open connections, so idle ones cannot pile up either.
	MaxConns int
	// SSERetry is the retry the priming event of a GET stream carries:
	// clients poll at that pace for as long as the session lives.
	SSERetry time.Duration
	// MaxResponse is the largest response this server will write (64 KiB),
	// counted with the Connection: close field any answer may carry.
	MaxResponse int

	// Now is the clock of every decision (session and token lifetimes,
	// Date) and of the socket deadlines: on a real socket it must not run
	// behind the real clock, or every deadline has already passed.
	Now    func() time.Time
	Logger *slog.Logger
	// Record, if set, is where the server adds each answer it makes, for
	// the caller to take (traces, tests). Nil: none is kept.
	Record *Record
}

// NewConfig returns the profile's defaults around p and t.
func NewConfig(p *policy.Policy, t *state.Table) Config {
	return Config{
		Policy:       p,
		Sessions:     t,
		Limits:       httpparse.DefaultLimits(),
		ReadTimeout:  2 * time.Second,
		IdleTimeout:  5 * time.Second,
		WriteTimeout: 2 * time.Second,
		MaxInFlight:  64,
		MaxConns:     512,
		SSERetry:     2 * time.Second,
		MaxResponse:  64 << 10,
		Now:          time.Now,
		Logger:       slog.New(slog.DiscardHandler),
	}
}

// Server answers HTTP/1.1 on connections handed to Serve.
type Server struct {
	cfg      Config
	route    router
	dates    dateCache
	spaces   sync.Pool // *requestSpace, taken when a request begins
	bufSize  int       // a request space's buffer, and its connection's capacity
	inFlight atomic.Int64
	conns    atomic.Int64
	nextConn atomic.Uint64

	mu       sync.Mutex
	closing  bool
	ln       net.Listener
	active   map[*conn]struct{}
	wg       sync.WaitGroup
	shutdown chan struct{}
}

// ServerName and ServerVersion are reported in InitializeResult.serverInfo.
const (
	ServerName    = "rawmcp"
	ServerVersion = "0.1.0"
)

// NewServer checks cfg and returns a Server.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Policy == nil || cfg.Sessions == nil {
		return nil, errors.New("wire: Config needs a Policy and a session Table")
	}
	if cfg.Now == nil || cfg.Logger == nil {
		return nil, errors.New("wire: Config needs Now and Logger (use NewConfig)")
	}
	if cfg.ReadTimeout <= 0 || cfg.WriteTimeout <= 0 || cfg.MaxInFlight <= 0 || cfg.MaxConns <= 0 || cfg.MaxResponse <= 0 {
		return nil, errors.New("wire: every limit in Config must be positive")
	}
	if cfg.IdleTimeout <= cfg.SSERetry {
		return nil, errors.New("wire: IdleTimeout must exceed SSERetry, or polling clients race the idle close")
	}
	s := &Server{
		cfg: cfg,
		route: router{
			policy:   cfg.Policy,
			sessions: cfg.Sessions,
			mcp:      mcp.Handler{Table: cfg.Sessions, ServerName: ServerName, ServerVersion: ServerVersion},
			sseRetry: cfg.SSERetry,
		},
		active:   make(map[*conn]struct{}),
		shutdown: make(chan struct{}),
	}
	// One buffer holds the longest legal request: request line, header
	// section and body. Reads never go past it, so the parser's limits
	// trip before the buffer can fill.
	s.bufSize = cfg.Limits.MaxRequestBytes()
	s.spaces.New = func() any { return &requestSpace{buf: make([]byte, s.bufSize), out: make([]byte, 0, 1024)} }
	return s, nil
}

// ErrNotLoopback is returned by Listen for any address but 127.0.0.1.
var ErrNotLoopback = errors.New("wire: rawmcp listens on 127.0.0.1 only (T-06): not 0.0.0.0, not another interface")

// Listen opens a TCP listener on addr, which must be 127.0.0.1:port (port 0
// picks a free one). Anything else, 0.0.0.0, ::, a host name or another
// interface, is refused before a socket is opened (T-06).
func Listen(addr string) (net.Listener, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || ap.Addr() != netip.AddrFrom4([4]byte{127, 0, 0, 1}) {
		return nil, ErrNotLoopback
	}
	return net.Listen("tcp4", ap.String())
}

// Serve accepts connections until Shutdown, serving each on its own
// goroutine. It returns nil after Shutdown, which closes ln.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		// Shutdown came first and could not close ln; left open, it
		// would queue connections nobody accepts.
		ln.Close()
		return nil
	}
	s.ln = ln
	s.mu.Unlock()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.isShuttingDown() {
				return nil
			}
			if acceptRetryable(err) {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			return fmt.Errorf("wire: accept: %w", err)
		}
		s.ServeConn(nc)
	}
}

// acceptRetryable reports an accept error that passes: a timeout, or
// running out of file descriptors, when new connections wait in the
// kernel's backlog until some close. Returning would stop the server for
// good, so a flood of connections could end it (net/http retries too).
func acceptRetryable(err error) bool {
	return isTimeout(err) || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// ServeConn serves one already-accepted connection on a new goroutine.
// Tests feed in-memory connections here, and the whole-server fuzz target
// one end of a socket pair: a net.Conn that implements syscall.Conn gets
// the socket fast path, as TCP does (socket.go).
func (s *Server) ServeConn(nc net.Conn) {
	c := newConn(s, nc)
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		nc.Close()
		return
	}
	s.active[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	// Counted here, in accept order, not when the goroutine starts:
	// goroutines start in no set order, and a connection accepted later
	// must not take the last place from one accepted before it.
	overCapacity := s.conns.Add(1) > int64(s.cfg.MaxConns)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.active, c)
			s.mu.Unlock()
		}()
		if overCapacity {
			c.refuseOverCapacity()
		} else {
			c.serve()
		}
		s.conns.Add(-1)
	}()
}

// Shutdown stops accepting, lets requests in processing finish, closes
// idle connections at once and waits for every connection goroutine,
// at most until ctx ends; then it closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		s.closing = true
		close(s.shutdown)
		if s.ln != nil {
			s.ln.Close()
		}
		for c := range s.active {
			c.sock.wake()
		}
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.active {
			c.sock.close()
		}
		s.mu.Unlock()
		<-done
		return ctx.Err()
	}
}

func (s *Server) isShuttingDown() bool {
	select {
	case <-s.shutdown:
		return true
	default:
		return false
	}
}

// report logs an answered request and adds it to the Record, if one is
// set. Refusals log at
// Info, answers at Debug. A line carries the connection number, status and
// rule, and for the Authorization and Mcp-Session-Id headers only a short
// irreversible correlation id (policy.Correlate), never the bytes: a
// reader can match lines of one client without the log holding a secret
// (A-33, A-P07). req is nil when the request never parsed; closed is the
// rule that closes the connection after the answer, if one does; request
// and out are the request's bytes and the answer's, copied only for a
// Record that keeps bytes.
func (s *Server) report(connID uint64, r *response, closed rule.ID, req *httpparse.Request, request, out []byte) {
	level, msg := slog.LevelDebug, "answered"
	if r.status >= 400 {
		level, msg = slog.LevelInfo, "refused"
	}
	if s.cfg.Logger.Enabled(context.Background(), level) {
		attrs := []slog.Attr{slog.Uint64("conn", connID), slog.Int("status", r.status), slog.String("rule", string(r.rule))}
		if r.detail != "" {
			attrs = append(attrs, slog.String("detail", r.detail))
		}
		if req != nil {
			if v, ok := req.Get(httpparse.SingletonAuthorization); ok {
				attrs = append(attrs, slog.String("token", policy.Correlate(credentials(v))))
			}
			if v, ok := req.Get(httpparse.SingletonSessionID); ok {
				attrs = append(attrs, slog.String("session", policy.Correlate(v)))
			}
		}
		s.cfg.Logger.LogAttrs(context.Background(), level, msg, attrs...)
	}
	if rec := s.cfg.Record; rec != nil {
		x := Exchange{Conn: connID, Decision: Decision{Status: r.status, Rule: r.rule, Closed: closed}}
		if rec.bytes {
			x.Request, x.Response = bytes.Clone(request), bytes.Clone(out)
		}
		rec.add(x)
	}
}

// connectionClosed logs a connection's end: what ended it, and the rule
// that closed it when one did (a closing answer's, H-33 for a request cut
// short). stopped says the connection's loop stopped on its own, as the
// server shut down. A rule's close logs at Info, like a refusal; a misuse
// of the connection's rules, a bug, at Error; the rest (the peer left, the
// idle wait ended, a write failed, shutdown) at Debug.
func (s *Server) connectionClosed(connID uint64, e h1.End, stopped bool) {
	level, by := slog.LevelDebug, e.Cause.String()
	switch {
	case stopped:
		by = "shutdown"
	case e.Cause == h1.ByMisuse:
		level = slog.LevelError
	case e.Rule != "":
		level = slog.LevelInfo
	}
	if !s.cfg.Logger.Enabled(context.Background(), level) {
		return
	}
	attrs := []slog.Attr{slog.Uint64("conn", connID), slog.String("by", by)}
	if e.Rule != "" {
		attrs = append(attrs, slog.String("rule", string(e.Rule)))
	}
	if e.Err != nil {
		attrs = append(attrs, slog.String("error", e.Err.Error()))
	}
	s.cfg.Logger.LogAttrs(context.Background(), level, "connection closed", attrs...)
}

// sessionOpened logs a new session: who opened it, by correlation ids
// only (the operator's evidence of the profile's checklist).
func (s *Server) sessionOpened(connID uint64, sessionID string, p *policy.Principal) {
	s.cfg.Logger.LogAttrs(context.Background(), slog.LevelInfo, "session opened",
		slog.Uint64("conn", connID), slog.String("session", policy.Correlate([]byte(sessionID))),
		slog.String("token", p.Correlation), slog.String("subject", policy.Correlate([]byte(p.Subject))),
		slog.String("tenant", p.Tenant))
}

// LogEnded logs sessions ended outside a request (a revision change).
func (s *Server) LogEnded(ended []state.Ended) {
	for _, e := range ended {
		s.sessionEnded(e)
	}
}

// sessionEnded logs a session's end: how, and how long it lived.
func (s *Server) sessionEnded(e state.Ended) {
	s.cfg.Logger.LogAttrs(context.Background(), slog.LevelInfo, "session ended",
		slog.String("session", policy.Correlate([]byte(e.ID))), slog.String("subject", policy.Correlate([]byte(e.Owner.Subject))),
		slog.String("tenant", e.Owner.Tenant), slog.String("how", e.How.String()), slog.Duration("lifetime", e.Lifetime))
}

// credentials drops a leading "Bearer " so the log's correlation id of a
// token is the one traces print for it (policy.Correlate of the token);
// any other value is correlated whole.
func credentials(authorization []byte) []byte {
	const scheme = "bearer "
	if len(authorization) > len(scheme) && strings.EqualFold(string(authorization[:len(scheme)]), scheme) {
		return bytes.TrimLeft(authorization[len(scheme):], " ")
	}
	return authorization
}
