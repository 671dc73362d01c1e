package wire

import (
	"bytes"
	"errors"
	"net"
	"rawmcp/wire/rule"

	"rawmcp/httpparse"
)

// conn is one client connection, and this file its loop: await the next
// request's first bytes (holding no request buffer while nothing has
// come), read and parse its head into the pooled buffer, pass the
// in-flight gate, decide (the route, and the body it asks for), answer;
// keep the connection only after a 2xx (pipelined bytes stay for the next
// request), and close in stages after any 4xx/5xx. The reads, writes,
// deadlines and the request's clock are its socket's (socket.go).
type conn struct {
	srv  *Server
	sock socket
	id   uint64
	// reqEnd is where the request being answered ends in the buffer, once
	// its head is parsed (OnExchange shows those bytes).
	reqEnd int
	// mem is what the route keeps of this connection's requests.
	mem memory
	// onReadable is c.readable, made once: a method value per
	// RawConn.Read would be an allocation.
	onReadable func(fd uintptr) bool
	// handoff says serveWhole left with a request begun that needs more
	// reads.
	handoff bool
}

// requestSpace is what a request in progress needs, pooled so that an idle
// connection costs only its goroutine and its conn.
type requestSpace struct {
	buf   []byte
	req   httpparse.Request
	event []byte // an SSE answer's body, before it is copied into out
	reply []byte // what wire/mcp writes an answer's message into (mcp.Call.Out)
	out   []byte
	// dec is the route's verdict on the request, filled in place: here,
	// not in a frame, so the request's deepest call chain fits the 4 KiB
	// stack an idle connection's goroutine then keeps.
	dec  decision
	head headDecision
	recv receiveScratch // socket.receive's, for the kernel
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{srv: s, id: s.nextConn.Add(1)}
	c.sock.init(nc, &s.cfg, &s.spaces)
	if c.sock.raw != nil {
		c.onReadable = c.readable
	}
	return c
}

func (c *conn) serve() {
	defer c.sock.end()
	for c.nextRequest() {
		if !c.serveRequest() {
			return
		}
	}
}

// nextRequest starts the next request that serveRequest reads and answers.
// On a socket, serveWhole first answers every request that arrives whole,
// and returns the first one that does not; it and every other net.Conn
// use awaitRequest.
func (c *conn) nextRequest() bool {
	if c.sock.raw != nil && c.sock.filled == 0 {
		return c.serveWhole()
	}
	return c.awaitRequest()
}

// serveWhole answers requests on a socket inside one RawConn.Read, for as
// long as each arrives whole in the read that brings its first bytes: the
// common keep-alive request. It returns true with a request begun whose
// head or body needs more reads (serveRequest goes on with it), false when
// the connection ends.
//
// Inside one RawConn.Read the socket's readiness is never reset: every
// byte that arrives after a read raises an event the next wait returns on
// (epoll is edge-triggered). So a read that found the socket empty after
// what it brought (socket.receive asks both in one system call) lets the
// connection wait for the next request without first making the read that
// would find nothing: two system calls per request instead of three.
//
// Nothing in it may read through nc (the RawConn.Read holds the read
// lock): a request needing more bytes leaves it, and so does the drain
// after an answer that closes the connection (socket.end).
func (c *conn) serveWhole() bool {
	// The mark and the idle deadline come before the check, as in
	// awaitRequest.
	c.sock.markIdle()
	if c.srv.isShuttingDown() {
		return false
	}
	c.sock.drained, c.handoff = false, false
	c.sock.raw.Read(c.onReadable) // an error is a deadline or a close while idle: the end
	return c.handoff
}

// readable is serveWhole's step, which RawConn.Read runs at once and
// then each time the socket becomes readable: it returns false to wait for
// that, true to leave (c.handoff says why).
func (c *conn) readable(fd uintptr) bool {
	s := &c.sock
	for {
		if s.filled == 0 {
			if s.drained {
				// Nothing was left after the last read; the next byte
				// raises the event the wait returns on.
				s.drained = false
				return c.waitIdle()
			}
			if !s.receive(fd) {
				return c.waitIdle()
			}
			if s.filled == 0 {
				return true // the peer closed, or the socket failed
			}
			s.idle.Store(false)
		}
		s.begin()
		req := &s.space.req
		headLen, err := httpparse.Parse(s.space.buf[:s.filled], 0, c.srv.cfg.Limits, req)
		if err == httpparse.ErrNeedMore || (err == nil && headLen+int(req.ContentLength) > s.filled) {
			c.handoff = true
			return true
		}
		if !c.answer(req, headLen, err) {
			return true
		}
	}
}

// waitIdle readies the connection to wait for its next request inside
// serveWhole: no request buffer held, the idle mark and deadline set. It
// returns true, to leave, when the server is shutting down.
func (c *conn) waitIdle() bool {
	c.sock.releaseSpace()
	c.sock.markIdle()
	return c.srv.isShuttingDown()
}

// awaitRequest waits for the first bytes of the next request, or uses bytes
// a pipelining client already sent, and starts the request. An idle
// keep-alive connection waits at most IdleTimeout, and its timeout closes
// silently.
func (c *conn) awaitRequest() bool {
	if c.sock.filled == 0 {
		// Shutdown marks the server shutting down, then wakes every
		// connection marked idle (socket.wake: a past read deadline). So
		// the mark and the idle deadline come before the check: if
		// Shutdown began before the check, the check sees it; if after,
		// its wake comes after the idle deadline was armed, finds the
		// mark and cuts the read short. Checked first, a connection could
		// pass the check, be passed over by Shutdown as not yet idle, and
		// then sleep in its read for all of IdleTimeout.
		c.sock.markIdle()
		if c.srv.isShuttingDown() {
			return false
		}
		if !c.sock.readIdle() {
			return false
		}
	}
	c.sock.begin()
	return true
}

// serveRequest reads and answers one begun request. It reports whether
// the connection may carry another.
func (c *conn) serveRequest() bool {
	req := &c.sock.space.req
	headLen, err := c.readHead(req)
	return c.answer(req, headLen, err)
}

// answer answers and accounts for the request whose head Parse read into
// req (headLen bytes, or err). It reports whether the connection may carry
// another.
func (c *conn) answer(req *httpparse.Request, headLen int, err error) bool {
	s := c.srv
	if err != nil {
		return c.answerReadError(err)
	}
	c.reqEnd = headLen + int(req.ContentLength)
	if s.inFlight.Add(1) > int64(s.cfg.MaxInFlight) {
		s.inFlight.Add(-1)
		c.refuseBusy(req)
		return false
	}
	resp := c.decide(req, headLen)
	s.inFlight.Add(-1)
	if resp.status == 0 {
		return false
	}
	// H-37: the client asked to close; H-39: an HTTP/1.0 request is
	// answered once and closed, even with Connection: keep-alive (the
	// simplest correct choice: no 1.0 keep-alive state to get wrong, and
	// a proxy opens a connection per request anyway); H-40: once Shutdown
	// has begun the server keeps no connection, and says so.
	if req.Close || req.HTTP10 || s.isShuttingDown() {
		resp.close = true
	}
	keep := c.finish(resp, req)
	if !keep {
		return false
	}
	c.sock.consume(headLen + int(req.ContentLength))
	return true
}

// refuseBusy answers a request over the in-flight gate with 503. Not
// inlined: its answer would be a temporary in serveRequest's frame, which
// is under every request's deepest call.
//
//go:noinline
func (c *conn) refuseBusy(req *httpparse.Request) {
	busy := unavailable(rule.InFlightGate)
	c.finish(&busy, req)
}

// readHead reads until httpparse has a whole head, an error, or the
// deadline passes. The parser is told how far it already scanned, so a
// head arriving a byte at a time costs linear work.
func (c *conn) readHead(req *httpparse.Request) (int, error) {
	buf := c.sock.space.buf
	scanned := 0
	for {
		n, err := httpparse.Parse(buf[:c.sock.filled], scanned, c.srv.cfg.Limits, req)
		if err != httpparse.ErrNeedMore {
			return n, err
		}
		scanned = c.sock.filled
		if c.sock.filled == len(buf) {
			// Unreachable while the buffer is sized from the limits;
			// answered, not trusted.
			return 0, &httpparse.Error{Status: 431, Reason: httpparse.ReasonBufferFull, Offset: c.sock.filled}
		}
		if err := c.sock.fill(); err != nil {
			return 0, err
		}
	}
}

// decide runs the receive order on req, whose head is headLen bytes: the
// route's verdict on the head, then the body it asks for, then its verdict
// with the body, whose SSE stream is framed here. Every read, write and
// log line is the connection's; the route only decides. The answer is the
// request space's; a zero status means no answer: the peer cut the body
// short.
func (c *conn) decide(req *httpparse.Request, headLen int) *response {
	s := c.srv
	now := c.sock.now()
	d := &c.sock.space.dec
	*d = decision{}
	h := &c.sock.space.head
	s.route.decideHead(req, h)
	if h.answer.status != 0 {
		d.answer = h.answer
		return &d.answer
	}
	body, err := c.readBody(headLen, h.bodyLen, h.sendContinue)
	if err != nil {
		// Step 7: a body that does not arrive in time is 408 (H-P08);
		// one cut short by the peer is an incomplete message (H-33) and
		// gets no answer.
		if isTimeout(err) {
			d.refuse(408, rule.ReadDeadline)
		}
		return &d.answer
	}
	// The reply buffer is the pooled space's, lent to the route for this
	// request only: an idle connection holds none.
	c.mem.out = c.sock.space.reply
	s.route.decide(req, h.next, body, now, &c.mem, d)
	c.sock.space.reply, c.mem.out = c.mem.out, nil
	s.SessionsEnded(d.ended)
	if d.opened.id != "" {
		s.sessionOpened(c.id, d.opened.id, &d.opened.by)
	}
	if d.stream.kind != streamNone {
		framed, err := appendStream(c.sock.space.event[:0], &d.stream)
		if err != nil {
			d.refuse(500, rule.InternalError)
			return &d.answer
		}
		c.sock.space.event = framed
		d.answer.body = framed
	}
	return &d.answer
}

// readBody brings the body, n bytes after a head of headLen bytes, into
// the buffer and returns it, first answering 100 Continue if sendContinue
// and the body is still to come (H-P13).
func (c *conn) readBody(headLen, n int, sendContinue bool) ([]byte, error) {
	end := headLen + n
	if sendContinue && c.sock.filled < end {
		if err := c.sock.write(continueResponse); err != nil {
			return nil, err
		}
	}
	for c.sock.filled < end {
		if err := c.sock.fill(); err != nil {
			return nil, err
		}
	}
	return c.sock.space.buf[headLen:end], nil
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

// finish writes resp, sealed, and reports whether the connection stays
// open.
func (c *conn) finish(resp *response, req *httpparse.Request) bool {
	s := c.srv
	seal(resp)
	c.sock.takeSpace() // a connection refused over MaxConns has none yet
	// The HEAD flag is set after the H-P10 guard, so a 500 that replaces
	// an answer to HEAD carries no body either.
	resp = guarded(resp)
	resp.headRequest = req != nil && req.Method == httpparse.MethodHEAD
	date := s.dates.get(c.sock.now())
	out := appendResponse(c.sock.space.out[:0], resp, date)
	if len(out) > s.cfg.MaxResponse {
		internal := internalError
		internal.headRequest = resp.headRequest
		resp = &internal
		out = appendResponse(out[:0], resp, date)
	}
	c.sock.space.out = out
	// Report before writing, so a client that has read the answer can
	// rely on the decision being recorded (traces pair them in order).
	s.report(c.id, resp, req)
	if s.cfg.OnExchange != nil {
		s.cfg.OnExchange(Exchange{Conn: c.id, Request: c.answeredBytes(req), Response: bytes.Clone(out), Decision: Decision{Status: resp.status, Rule: resp.rule}})
	}
	if c.sock.write(out) != nil {
		return false
	}
	if resp.close {
		c.sock.lingering = true // drained and closed by socket.end
		return false
	}
	return true
}

// answeredBytes copies the bytes of the request being answered: the parsed
// request's head and what arrived of its body, or everything read when it
// never parsed.
func (c *conn) answeredBytes(req *httpparse.Request) []byte {
	if c.sock.space == nil {
		return nil
	}
	n := c.sock.filled
	if req != nil {
		n = min(n, c.reqEnd)
	}
	return bytes.Clone(c.sock.space.buf[:n])
}

// refuseOverCapacity answers a connection over MaxConns with 503 and closes.
func (c *conn) refuseOverCapacity() {
	defer c.sock.end()
	full := unavailable(rule.ConnectionCap)
	c.finish(&full, nil)
}
