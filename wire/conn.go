package wire

import (
	"errors"
	"net"

	"rawmcp/httpparse"
	"rawmcp/wire/h1"
	"rawmcp/wire/rule"
)

// conn is one client connection: the loop (step), the only one, that
// drives its HTTP/1.1 rules (h1.Conn, which says each connection-level
// step: wait, read, decide a head, 100 Continue, answer and keep or
// close, drain) over its socket (socket.go), with the server's part of
// each step: the in-flight gate, the route's verdicts, the answer's bytes
// and their size bound, the log. The request buffer and everything a
// request needs are pooled (requestSpace), held only while input is in
// hand.
type conn struct {
	srv   *Server
	sock  socket
	rules h1.Conn
	id    uint64
	// space is the pooled request space, nil while the connection waits
	// with no input in hand.
	space *requestSpace
	// mem is what the route keeps of this connection's requests.
	mem memory
	// gated says the request in hand holds a place in the in-flight gate.
	gated bool
	// stopped says the loop stopped on its own, not at its rules' word:
	// the server is shutting down.
	stopped bool
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
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{srv: s, id: s.nextConn.Add(1), rules: h1.New(s.cfg.Limits, s.bufSize)}
	c.sock.init(nc, &s.cfg)
	return c
}

// serve runs the connection until it ends.
func (c *conn) serve() {
	defer c.end()
	for c.step() {
	}
}

// step does what the connection's rules ask next and reports whether the
// connection goes on.
func (c *conn) step() bool {
	switch c.next() {
	case h1.Wait:
		return c.await()
	case h1.Begin:
		c.sock.begin()
		return c.ok(c.rules.Began())
	case h1.Read:
		return c.readMore()
	case h1.Head:
		return c.decideHead()
	case h1.Continue:
		if c.sock.write(continueResponse) != nil {
			return c.ok(c.rules.WriteFailed())
		}
		return c.ok(c.rules.ContinueSent())
	case h1.Request:
		return c.decideRequest()
	case h1.Refuse:
		return c.refuse()
	case h1.Drain:
		// Nothing read from here on is parsed, so the buffer goes back
		// first: a draining connection, even one refused over MaxConns,
		// costs no more than an idle one.
		c.drop()
		c.sock.closeGracefully()
	}
	return false // Drain or Close
}

// ok reports whether the rules took a call. One they refused is a bug
// here, and broke them: Next says Close from then on, and the end's log
// line says why.
func (c *conn) ok(err error) bool {
	return err == nil
}

// next asks the rules what comes next, over the request space if one is
// held (with none, no input is in hand).
func (c *conn) next() h1.Action {
	if c.space == nil {
		return c.rules.Next(nil, nil)
	}
	return c.rules.Next(c.space.buf, &c.space.req)
}

// goIdle readies the connection to wait for its next request: no
// request buffer held, the idle mark and deadline set. It reports false
// when the server is shutting down, and the connection must not wait.
func (c *conn) goIdle() bool {
	// Shutdown marks the server shutting down, then wakes every
	// connection marked idle (socket.wake: a past read deadline). So the
	// mark and the idle deadline come before the check: if Shutdown began
	// before the check, the check sees it; if after, its wake comes after
	// the idle deadline was armed, finds the mark and cuts the read short.
	// Checked first, a connection could pass the check, be passed over by
	// Shutdown as not yet idle, and then sleep in its read for all of
	// IdleTimeout.
	c.release()
	c.sock.markIdle()
	return !c.srv.isShuttingDown()
}

// await waits for the next request's first bytes, holding no request
// space: the socket takes one when they come. Shutdown stops a waiting
// connection: that is the loop's own business, not its rules'.
func (c *conn) await() bool {
	if !c.goIdle() {
		c.stopped = true
		return false
	}
	space, n, err := c.sock.receive(&c.srv.spaces)
	c.sock.markBusy()
	if space != nil {
		c.space = space
	}
	if n == 0 && isTimeout(err) && c.srv.isShuttingDown() {
		// Shutdown's wake (socket.wake), or an idle deadline that passed
		// as it began.
		c.stopped = true
		return false
	}
	return c.received(n, err)
}

// readMore reads more of the request in hand within its deadline.
func (c *conn) readMore() bool {
	n, err := c.sock.readMore(c.space.buf[c.rules.Filled():])
	return c.received(n, err)
}

// received tells the rules what a read brought: bytes, or none, by a
// deadline or because the peer left or the socket failed (a read that
// brings nothing without an error is taken as the peer's end, not
// retried). A socket Shutdown closed under the connection, as its last
// resort, stops the loop.
func (c *conn) received(n int, err error) bool {
	switch {
	case n > 0:
		return c.ok(c.rules.Received(n))
	case errors.Is(err, net.ErrClosed):
		c.stopped = true
		return false
	case isTimeout(err):
		return c.ok(c.rules.TimedOut())
	}
	return c.ok(c.rules.Gone())
}

// decideHead passes the in-flight gate and runs the receive order on the
// head: an answer now, or the body read next.
func (c *conn) decideHead() bool {
	req, d := &c.space.req, &c.space.dec
	s := c.srv
	if s.inFlight.Add(1) > int64(s.cfg.MaxInFlight) {
		s.inFlight.Add(-1)
		d.answer = unavailable(rule.InFlightGate)
		return c.finish(&d.answer, req)
	}
	c.gated = true
	h := &c.space.head
	s.route.decideHead(req, h)
	if h.answer.status != 0 {
		return c.finish(&h.answer, req)
	}
	return c.ok(c.rules.ReadBody())
}

// decideRequest runs the rest of the receive order on the whole request,
// and frames an SSE answer's stream.
func (c *conn) decideRequest() bool {
	s := c.srv
	req, d := &c.space.req, &c.space.dec
	body, err := c.rules.Body(c.space.buf)
	if !c.ok(err) {
		return false
	}
	*d = decision{}
	// The reply buffer is the pooled space's, lent to the route for this
	// request only: an idle connection holds none.
	c.mem.out = c.space.reply
	s.route.decide(req, c.space.head.next, body, c.sock.now(), &c.mem, d)
	c.space.reply, c.mem.out = c.mem.out, nil
	// Ended first: an initialize reclaims expired sessions before it
	// opens its own.
	for _, e := range d.ended {
		s.sessionEnded(e)
	}
	if d.opened.id != "" {
		s.sessionOpened(c.id, d.opened.id, &d.opened.by)
	}
	if d.stream.kind != streamNone {
		framed, err := appendStream(c.space.event[:0], &d.stream)
		if err != nil {
			d.refuse(500, rule.InternalError)
		} else {
			c.space.event = framed
			d.answer.body = framed
		}
	}
	return c.finish(&d.answer, req)
}

// refuse answers bytes that make no request, or not in time, or a
// connection over MaxConns: the parser's status, or 408 (H-P08), or 503
// (H-P15).
func (c *conn) refuse() bool {
	r, err := c.rules.Refused()
	if !c.ok(err) {
		return false
	}
	c.take() // a connection refused over MaxConns has none yet
	d := &c.space.dec
	var req *httpparse.Request
	switch {
	case r.Err != nil:
		d.answer = parseRefusal(r.Err)
	case r.Status == 503:
		d.answer = unavailable(r.Rule)
	default:
		d.answer = response{status: r.Status, rule: r.Rule}
	}
	if r.HeadParsed {
		req = &c.space.req // late in its body: the log correlates its token
	}
	return c.finish(&d.answer, req)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// finish writes resp, sealed, for req (nil when none parsed), and
// reports whether the connection goes on. Whether the answer closes the
// connection is the rules' choice, made here where its Connection: close
// is written; a write that fails is theirs to know too.
func (c *conn) finish(resp *response, req *httpparse.Request) bool {
	s := c.srv
	c.leaveGate()
	seal(resp)
	// The HEAD flag is set after the H-P10 guard, so a 500 that replaces
	// an answer to HEAD carries no body either.
	resp = guarded(resp)
	resp.headRequest = req != nil && req.Method == httpparse.MethodHEAD
	date := s.dates.get(c.sock.now())
	out := appendHead(c.space.out[:0], resp, date)
	// The size bound counts the Connection: close field the answer may
	// yet carry, so the answer is chosen once, before the rules are told.
	if len(out)+endLen(resp) > s.cfg.MaxResponse {
		internal := internalError
		internal.headRequest = resp.headRequest
		resp = &internal
		out = appendHead(out[:0], resp, date)
	}
	closes, why, err := c.rules.Answering(resp.status, s.isShuttingDown())
	if !c.ok(err) {
		return false
	}
	resp.close = closes
	out = appendEnd(out, resp)
	c.space.out = out
	// Report before writing, so a client that has read the answer can
	// rely on the decision being recorded (traces pair them in order).
	n, err := c.rules.RequestBytes()
	if !c.ok(err) {
		return false
	}
	s.report(c.id, resp, why, req, c.space.buf[:n], out)
	if c.sock.write(out) != nil {
		return c.ok(c.rules.WriteFailed())
	}
	return c.ok(c.rules.Answered(c.space.buf))
}

// refuseOverCapacity answers a connection over MaxConns with 503 and
// closes (H-P15): its rules refuse it before anything is read, and the
// loop answers and drains it as any refusal.
func (c *conn) refuseOverCapacity() {
	if c.ok(c.rules.OverCapacity()) {
		c.serve()
		return
	}
	c.end()
}

// leaveGate gives back the in-flight place the request in hand holds, if
// any.
func (c *conn) leaveGate() {
	if c.gated {
		c.srv.inFlight.Add(-1)
		c.gated = false
	}
}

// end leaves the in-flight gate if a request held a place, returns the
// space, closes, and logs how the connection ended.
func (c *conn) end() {
	c.leaveGate()
	c.drop()
	c.sock.close()
	c.srv.connectionClosed(c.id, c.rules.Ended(), c.stopped)
}

// take takes a request space from the pool, if none is held.
func (c *conn) take() {
	if c.space == nil {
		c.space = c.srv.spaces.Get().(*requestSpace)
	}
}

// release returns the space to the pool unless input waits in it. Nothing
// is cleared: Parse resets the request, finish overwrites out, and
// neither refers to anything outside the space.
func (c *conn) release() {
	if c.space != nil && c.rules.Filled() == 0 {
		c.srv.spaces.Put(c.space)
		c.space = nil
	}
}

// drop returns the space to the pool with whatever input it holds: the
// connection is ending, and nothing in it will be parsed.
func (c *conn) drop() {
	if c.space != nil {
		c.srv.spaces.Put(c.space)
		c.space = nil
	}
}
