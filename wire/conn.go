package wire

import (
	"bytes"
	"errors"
	"io"
	"net"
	"rawmcp/wire/rule"
	"sync/atomic"
	"syscall"
	"time"

	"rawmcp/httpparse"
	"rawmcp/policy"
)

// conn is one client connection. Its loop: wait for the next request's
// first bytes, holding no request buffer while nothing has come; read and
// parse the head into a pooled buffer, pass the in-flight gate, answer;
// keep the connection only after a 2xx (pipelined bytes stay for the next
// request), and close in stages after any 4xx/5xx.
type conn struct {
	srv *Server
	nc  net.Conn
	id  uint64
	// raw reaches nc's socket: the idle read then takes a buffer only once
	// bytes are there, and a write the socket takes at once arms no
	// deadline. It is nil when nc is not a socket (tests serve in-memory
	// connections), and those do both the plain way.
	raw syscall.RawConn
	// rawRead and rawWrite are what raw's Read and Write run, made once:
	// a closure per call would be an allocation per read and per write.
	// rawWrite writes rawOut; both leave their count in rawN.
	rawRead, rawWrite func(fd uintptr) bool
	rawOut            []byte
	rawN              int
	rawErr            error
	space             *requestSpace
	// token is the bearer token this connection last presented and its
	// policy row, so its next request skips the token's hash; every
	// check on the row still runs per request.
	token policy.Remembered
	// sessionID is the session id this connection's requests named last,
	// as a string (see exchange.sessionKey).
	sessionID string
	// filled is how many bytes of space.buf hold unparsed input.
	filled int
	// reqEnd is where the request being answered ends in space.buf, once
	// its head is parsed (OnExchange shows those bytes).
	reqEnd int
	// start is when the request in progress began, its first byte read:
	// the origin of its ReadTimeout, and its clock while it has not
	// waited for the socket (see now).
	start time.Time
	// readArmed says the request's read deadline is set. A request that
	// arrives in the read that brought its first byte needs none, so it
	// is armed before the request's second read, not at its start.
	readArmed bool
	// waited says the request in progress waited for the socket: a
	// second read, or a write the socket could not take at once.
	waited bool
	// readDeadline is the read deadline this connection's goroutine armed
	// last (armIdle, fill).
	readDeadline time.Time
	idle         atomic.Bool
}

// requestSpace is what a request in progress needs, pooled so that an idle
// connection costs only its goroutine and its conn.
type requestSpace struct {
	buf   []byte
	req   httpparse.Request
	event []byte // an SSE answer's body, before it is copied into out
	reply []byte // what wire/mcp writes an answer's message into (mcp.Call.Out)
	out   []byte
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{srv: s, nc: nc, id: s.nextConn.Add(1)}
	if sc, ok := nc.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			c.raw, c.rawRead, c.rawWrite = raw, c.readSocket, c.writeSocket
		}
	}
	return c
}

func (c *conn) serve() {
	defer c.release()
	defer c.nc.Close()
	for c.awaitRequest() {
		if !c.serveRequest() {
			return
		}
	}
}

// awaitRequest waits for the first bytes of the next request, or uses bytes
// a pipelining client already sent, and starts the request. An idle
// keep-alive connection waits at most IdleTimeout, and its timeout closes
// silently.
func (c *conn) awaitRequest() bool {
	s := c.srv
	if c.filled == 0 {
		c.idle.Store(true)
		c.armIdle(c.now())
		if s.isShuttingDown() {
			return false
		}
		c.filled = c.readIdle()
		c.idle.Store(false)
		if c.filled == 0 {
			return false
		}
	}
	c.start = s.cfg.Now()
	c.readArmed, c.waited = false, false
	return true
}

// armIdle arms the idle deadline, IdleTimeout after from: the start of
// the request just answered, or a fresh reading if it waited. A busy
// connection would move its timer with every request, so the deadline
// stays where it is while it would move by less than idleGranularity: an
// idle connection is closed at most IdleTimeout after its last request
// began, and at most idleGranularity (plus that request's own time)
// sooner.
func (c *conn) armIdle(from time.Time) {
	deadline := from.Add(c.srv.cfg.IdleTimeout)
	if moved := deadline.Sub(c.readDeadline); moved >= 0 && moved < idleGranularity {
		return
	}
	c.nc.SetReadDeadline(deadline)
	c.readDeadline = deadline
}

// idleGranularity is how far the idle deadline may be early (armIdle):
// far below IdleTimeout's margin over SSERetry.
const idleGranularity = 10 * time.Millisecond

// readIdle reads the next request's first bytes into a request buffer and
// returns how many; a read that brings no byte returns 0, whatever its
// error, and the connection ends. On a socket the buffer is held only
// while a read is in progress and goes back to the pool while the socket
// has nothing, so a waiting connection holds none, and the bytes land
// where they are parsed: no copy, and no second read for a request that
// came whole.
func (c *conn) readIdle() int {
	if c.raw == nil {
		c.takeSpace()
		n, _ := c.nc.Read(c.space.buf)
		return n
	}
	c.rawN = 0
	c.raw.Read(c.rawRead)
	return c.rawN
}

// readSocket is one try of the idle read on the socket: false, and the
// buffer back in the pool, while the socket has nothing.
func (c *conn) readSocket(fd uintptr) bool {
	c.takeSpace()
	for {
		n, err := syscall.Read(int(fd), c.space.buf)
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			c.releaseSpace()
			return false // wait until the socket is readable
		}
		c.rawN = max(n, 0)
		return true
	}
}

// now is the clock of the request in progress: its start while it has not
// waited for the socket (microseconds ago), else a fresh reading.
func (c *conn) now() time.Time {
	if c.waited || c.start.IsZero() {
		return c.srv.cfg.Now()
	}
	return c.start
}

// wakeIfIdle makes a connection blocked in its idle read return at once
// (graceful shutdown); a connection inside a request is left to finish.
func (c *conn) wakeIfIdle() {
	if c.idle.Load() {
		c.nc.SetReadDeadline(time.Unix(1, 0))
	}
}

func (c *conn) takeSpace() {
	if c.space == nil {
		c.space = c.srv.spaces.Get().(*requestSpace)
	}
}

// releaseSpace returns the space to the pool once no input is waiting in
// it. Nothing is cleared: Parse resets the request, finish overwrites out,
// and neither refers to anything outside the space.
func (c *conn) releaseSpace() {
	if c.space != nil && c.filled == 0 {
		c.srv.spaces.Put(c.space)
		c.space = nil
	}
}

func (c *conn) release() {
	c.filled = 0
	c.releaseSpace()
}

// serveRequest reads, answers and accounts for one request. It reports
// whether the connection may carry another.
func (c *conn) serveRequest() bool {
	s := c.srv
	req := &c.space.req
	headLen, err := c.readHead(req)
	if err != nil {
		return c.answerReadError(err)
	}
	c.reqEnd = headLen + int(req.ContentLength)
	if s.inFlight.Add(1) > int64(s.cfg.MaxInFlight) {
		s.inFlight.Add(-1)
		busy := unavailable(rule.InFlightGate)
		c.finish(&busy, req)
		return false
	}
	x := exchange{c: c, srv: s, req: req, headLen: headLen, now: c.now()}
	resp := x.handle()
	s.inFlight.Add(-1)
	if resp.status == 0 {
		return false
	}
	// H-37: the client asked to close; H-40: once Shutdown has begun the
	// server keeps no connection, and says so.
	if req.Close || s.isShuttingDown() {
		resp.close = true
	}
	keep := c.finish(&resp, req)
	if !keep {
		return false
	}
	// Keep what a pipelining client sent after this request.
	used := headLen + int(req.ContentLength)
	copy(c.space.buf, c.space.buf[used:c.filled])
	c.filled -= used
	return true
}

// readHead reads until httpparse has a whole head, an error, or the
// deadline passes. The parser is told how far it already scanned, so a
// head arriving a byte at a time costs linear work.
func (c *conn) readHead(req *httpparse.Request) (int, error) {
	buf := c.space.buf
	scanned := 0
	for {
		n, err := httpparse.Parse(buf[:c.filled], scanned, c.srv.cfg.Limits, req)
		if err != httpparse.ErrNeedMore {
			return n, err
		}
		scanned = c.filled
		if c.filled == len(buf) {
			// Unreachable while the buffer is sized from the limits;
			// answered, not trusted.
			return 0, &httpparse.Error{Status: 431, Reason: httpparse.ReasonBufferFull, Offset: c.filled}
		}
		if err := c.fill(); err != nil {
			return 0, err
		}
	}
}

// fill reads once more into the free part of the buffer. The request's
// read deadline covers the whole request from its first byte, so a client
// trickling a byte a second is cut; it is armed here, before the first
// read that could wait.
func (c *conn) fill() error {
	if !c.readArmed {
		c.readDeadline = c.start.Add(c.srv.cfg.ReadTimeout)
		c.nc.SetReadDeadline(c.readDeadline)
		c.readArmed = true
	}
	c.waited = true
	n, err := c.nc.Read(c.space.buf[c.filled:])
	c.filled += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// readBody brings the whole body of req, whose head is headLen bytes, into
// the buffer and returns it, first answering Expect: 100-continue with 100
// when the body is still to come (H-P13).
func (c *conn) readBody(headLen int, req *httpparse.Request) ([]byte, error) {
	end := headLen + int(req.ContentLength)
	if req.ExpectContinue && req.ContentLength > 0 && c.filled < end {
		if err := c.write(continueResponse); err != nil {
			return nil, err
		}
	}
	for c.filled < end {
		if err := c.fill(); err != nil {
			return nil, err
		}
	}
	return c.space.buf[headLen:end], nil
}

// answerReadError turns a failed read or parse into its answer: a parse
// error gets its status; a deadline with part of a request in hand gets
// 408; a peer that closed gets nothing. All of them end the connection.
func (c *conn) answerReadError(err error) bool {
	var pe *httpparse.Error
	switch {
	case errors.As(err, &pe):
		r := parseRefusal(pe)
		c.finish(&r, nil)
	case isTimeout(err):
		c.finish(&response{status: 408, rule: rule.ReadDeadline}, nil)
	}
	return false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// finish writes resp and reports whether the connection stays open. Error
// answers close the connection (T-P14) and get their constant body here,
// so no caller can forget either or put request bytes into one.
func (c *conn) finish(resp *response, req *httpparse.Request) bool {
	s := c.srv
	if resp.status >= 400 {
		resp.close = true
		if resp.body == nil {
			resp.contentType = contentTypeJSON
			resp.body = errorBody(resp.status, resp.code())
		}
	}
	c.takeSpace() // a connection refused over MaxConns has none yet
	// The HEAD flag is set after the H-P10 guard, so a 500 that replaces
	// an answer to HEAD carries no body either.
	resp = guarded(resp)
	resp.headRequest = req != nil && req.Method == httpparse.MethodHEAD
	date := s.dates.get(c.now())
	out := appendResponse(c.space.out[:0], resp, date)
	if len(out) > s.cfg.MaxResponse {
		internal := internalError
		internal.headRequest = resp.headRequest
		resp = &internal
		out = appendResponse(out[:0], resp, date)
	}
	c.space.out = out
	// Report before writing, so a client that has read the answer can
	// rely on the decision being recorded (traces pair them in order).
	s.report(c.id, resp, req)
	if s.cfg.OnExchange != nil {
		s.cfg.OnExchange(Exchange{Conn: c.id, Request: c.answeredBytes(req), Response: bytes.Clone(out), Decision: Decision{Status: resp.status, Rule: resp.rule}})
	}
	if c.write(out) != nil {
		return false
	}
	if resp.close {
		c.closeGracefully()
		return false
	}
	return true
}

// answeredBytes copies the bytes of the request being answered: the parsed
// request's head and what arrived of its body, or everything read when it
// never parsed.
func (c *conn) answeredBytes(req *httpparse.Request) []byte {
	if c.space == nil {
		return nil
	}
	n := c.filled
	if req != nil {
		n = min(n, c.reqEnd)
	}
	return bytes.Clone(c.space.buf[:n])
}

// write writes out whole; WriteTimeout bounds the time the socket keeps it
// waiting. On a socket the first attempt is one non-blocking write with no
// deadline: an answer to a client that reads fits the send buffer, and
// arming a deadline for every answer costs a timer update each. Only when
// the socket cannot take everything at once is the deadline armed, for
// the rest, and cleared after, so that the next answer does not meet an
// expired one.
func (c *conn) write(out []byte) error {
	s := c.srv
	if c.raw == nil {
		c.waited = true // an in-memory write waits for its reader
		c.nc.SetWriteDeadline(s.cfg.Now().Add(s.cfg.WriteTimeout))
		_, err := c.nc.Write(out)
		return err
	}
	n, err := c.writeNow(out)
	if err != nil || n == len(out) {
		return err
	}
	c.waited = true
	c.nc.SetWriteDeadline(s.cfg.Now().Add(s.cfg.WriteTimeout))
	_, err = c.nc.Write(out[n:])
	c.nc.SetWriteDeadline(time.Time{})
	return err
}

// writeNow writes what the socket takes of out without waiting.
func (c *conn) writeNow(out []byte) (int, error) {
	c.rawOut, c.rawN, c.rawErr = out, 0, nil
	err := c.raw.Write(c.rawWrite)
	c.rawOut = nil
	if err == nil {
		err = c.rawErr
	}
	return c.rawN, err
}

// writeSocket is writeNow's one write; a full socket is no error, the
// caller waits for it.
func (c *conn) writeSocket(fd uintptr) bool {
	for {
		n, err := syscall.Write(int(fd), c.rawOut)
		if err == syscall.EINTR {
			continue
		}
		if err != syscall.EAGAIN {
			c.rawErr = err
		}
		c.rawN = max(n, 0)
		return true
	}
}

// closeGracefully half-closes and drains a bounded amount, so the client
// reads the answer instead of a reset caused by unread bytes (RFC 9112
// §9.6), and nothing it sent after is ever parsed as a request.
func (c *conn) closeGracefully() {
	// Nothing read from here on is parsed, so the buffer goes back first: a
	// draining connection, even one refused over MaxConns, costs no more
	// than an idle one.
	c.release()
	type closeWriter interface{ CloseWrite() error }
	if cw, ok := c.nc.(closeWriter); ok {
		cw.CloseWrite()
		c.nc.SetReadDeadline(c.srv.cfg.Now().Add(drainTimeout))
		io.CopyN(io.Discard, c.nc, drainLimit)
	}
}

// The drain after an error is bounded in bytes and time, so a client
// cannot keep the connection by streaming garbage.
const (
	drainLimit   = 64 << 10
	drainTimeout = 500 * time.Millisecond
)

// refuseOverCapacity answers a connection over MaxConns with 503 and closes.
func (c *conn) refuseOverCapacity() {
	defer c.release()
	defer c.nc.Close()
	full := unavailable(rule.ConnectionCap)
	c.finish(&full, nil)
}
