package wire

import (
	"bytes"
	"errors"
	"io"
	"net"
	"rawmcp/wire/rule"
	"sync/atomic"
	"time"

	"rawmcp/httpparse"
)

// conn is one client connection. Its loop: wait for the next request's
// first bytes in a 1 KiB first-read array (an idle connection holds no
// more), take a pooled request buffer, read and parse the head, pass the
// in-flight gate, answer; keep the connection only after a 2xx (pipelined
// bytes stay for the next request), and close in stages after any 4xx/5xx.
type conn struct {
	srv *Server
	nc  net.Conn
	id  uint64
	// first takes the idle read: a waiting connection holds these bytes,
	// not a request buffer. They fit a usual MCP request head, so the
	// request rarely needs a second read.
	first [firstReadSize]byte
	space *requestSpace
	// filled is how many bytes of space.buf hold unparsed input.
	filled int
	// reqEnd is where the request being answered ends in space.buf, once
	// its head is parsed (OnExchange shows those bytes).
	reqEnd int
	idle   atomic.Bool
}

// requestSpace is what a request in progress needs, pooled so that an idle
// connection costs only its goroutine and this struct's pointer.
type requestSpace struct {
	buf   []byte
	req   httpparse.Request
	event []byte // an SSE answer's body, before it is copied into out
	out   []byte
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

// awaitRequest waits for the first byte of the next request, or uses bytes a
// pipelining client already sent. An idle keep-alive connection waits at
// most IdleTimeout, and its timeout closes silently.
func (c *conn) awaitRequest() bool {
	if c.filled > 0 {
		return true
	}
	c.releaseSpace()
	c.idle.Store(true)
	c.nc.SetReadDeadline(c.srv.cfg.Now().Add(c.srv.cfg.IdleTimeout))
	if c.srv.isShuttingDown() {
		return false
	}
	// A read that brings no byte ends the connection, whatever its error.
	n, _ := c.nc.Read(c.first[:])
	c.idle.Store(false)
	if n == 0 {
		return false
	}
	c.takeSpace()
	c.filled = copy(c.space.buf, c.first[:n])
	return true
}

// firstReadSize is what an idle connection reads into before it takes a
// request buffer: 1 KiB holds a usual MCP request whole (about 350 bytes
// with a bearer token and a session), so the request costs one read,
// not two, and an idle connection costs 1 KiB more.
const firstReadSize = 1 << 10

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
	// The deadline covers the whole request and is set once, when its
	// first byte is here: a client trickling a byte a second is cut.
	c.nc.SetReadDeadline(s.cfg.Now().Add(s.cfg.ReadTimeout))
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
	x := exchange{c: c, srv: s, req: req, headLen: headLen, now: s.cfg.Now()}
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

// fill reads once more into the free part of the buffer.
func (c *conn) fill() error {
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
func (c *conn) readBody(headLen int, req *httpparse.Request, now time.Time) ([]byte, error) {
	end := headLen + int(req.ContentLength)
	if req.ExpectContinue && req.ContentLength > 0 && c.filled < end {
		c.nc.SetWriteDeadline(now.Add(c.srv.cfg.WriteTimeout))
		if _, err := c.nc.Write(continueResponse); err != nil {
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
	out := appendResponse(c.space.out[:0], resp, s.dates.get(s.cfg.Now()))
	if len(out) > s.cfg.MaxResponse {
		internal := internalError
		internal.headRequest = resp.headRequest
		resp = &internal
		out = appendResponse(out[:0], resp, s.dates.get(s.cfg.Now()))
	}
	c.space.out = out
	// Report before writing, so a client that has read the answer can
	// rely on the decision being recorded (traces pair them in order).
	s.report(c.id, resp, req)
	if s.cfg.OnExchange != nil {
		s.cfg.OnExchange(Exchange{Conn: c.id, Request: c.answeredBytes(req), Response: bytes.Clone(out), Decision: Decision{Status: resp.status, Rule: resp.rule}})
	}
	c.nc.SetWriteDeadline(s.cfg.Now().Add(s.cfg.WriteTimeout))
	_, werr := c.nc.Write(out)
	if werr != nil {
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
