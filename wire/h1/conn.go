// Package h1 is the server's HTTP/1.1 connection rules in one object that
// does no I/O, as h11's Connection is: the caller puts bytes into a buffer
// and says how many came, and the object answers with the one thing the
// connection must do next (wait for a request, read more within the
// request's deadline, decide a head, send 100 Continue, answer, refuse,
// drain and close, close). It never sees a socket or a clock, so every
// rule is tested with tables of byte chunks, and the server's two socket
// loops are thin drivers of the same decisions.
//
// The rules it owns:
//
//   - a request begins with its first byte; from then on a wait is the
//     request's (ReadTimeout, H-P08), before it the connection's idle wait;
//   - the head is parsed once, resumed where the last parse stopped, and
//     a head that fills the whole buffer is 431 (never reached while the
//     buffer is sized from the limits: answered, not trusted);
//   - a parse error is answered with its status and closes (H-P09); a
//     request late in any part, head or body, is 408 and closes; a peer
//     that goes away mid-request closes without an answer (H-33), and so
//     does a wait for a request's first byte that ends;
//   - the body is read only when the caller, having decided the head, asks
//     for it; 100 Continue is sent then, once, and only while some of the
//     body has yet to come (H-51, H-P13; httpparse ignores Expect on 1.0);
//   - an answer closes the connection when it is an error (T-P14), when
//     the client asked (H-37), for HTTP/1.0 (H-39), once the server is
//     shutting down (H-40), and when the body was never read, so bytes it
//     did not take are never read as a next request; a closing answer is
//     followed by a drain, so the client reads the answer rather than a
//     reset;
//   - a kept answer drops the request's bytes and keeps what a pipelining
//     client sent after them (H-41), which begins the next request.
package h1

import (
	"rawmcp/httpparse"
	"rawmcp/wire/rule"
)

// Action is what the connection must do next.
type Action uint8

const (
	// Wait: no input is in hand. Wait for the next request's first bytes
	// (the idle wait), holding no request buffer, then Received.
	Wait Action = iota + 1
	// Begin: a request's first bytes are in hand; its deadline and clock
	// start now.
	Begin
	// Read: the request in hand needs more bytes. Read into
	// buf[Filled():] within the request's deadline, then Received, or
	// TimedOut, or Gone.
	Read
	// Head: a head is parsed into the request. Decide it, then either
	// Answering (a refusal, without the body) or ReadBody.
	Head
	// Continue: write 100 Continue now, then ContinueSent.
	Continue
	// Body: the body is in hand (Body). Decide the whole request, then
	// Answering.
	Body
	// Refuse: answer Refusal, then Answering with its status: the bytes
	// in hand do not make a request, or not in time.
	Refuse
	// Drain: an answer that closes the connection was written.
	// Half-close, drain a bounded amount, close.
	Drain
	// Close: close now, with nothing more to write.
	Close
)

func (a Action) String() string {
	switch a {
	case Wait:
		return "wait"
	case Begin:
		return "begin"
	case Read:
		return "read"
	case Head:
		return "head"
	case Continue:
		return "continue"
	case Body:
		return "body"
	case Refuse:
		return "refuse"
	case Drain:
		return "drain"
	case Close:
		return "close"
	}
	return "none"
}

// phase is where the connection is in its request cycle.
type phase uint8

const (
	idle     phase = iota // between requests; input may wait (pipelined)
	begun                 // a request's first bytes are in hand, Begin told
	inHead                // reading the head
	headIn                // head parsed, the caller deciding it
	inBody                // reading the body the caller asked for
	bodyIn                // the whole request in hand, the caller deciding it
	refusing              // Refusal to be answered
	answered              // an answer chosen (Answering), not yet written
	draining              // a closing answer written
	closed                // nothing more to do
)

// Conn is one connection's HTTP/1.1 state. The zero value is not ready:
// use New. It is not safe for concurrent use; a connection has one owner.
type Conn struct {
	limits httpparse.Limits
	phase  phase
	// filled is how many bytes at the start of the caller's buffer hold
	// input not yet consumed.
	filled int
	// scanned is how far the head was parsed, so a head arriving a byte
	// at a time costs linear work.
	scanned int
	// headLen and end: where the parsed head ends, and the request with
	// its body.
	headLen, end int
	// The parsed request's connection facts, kept so the caller's Request
	// may be reused once the head is decided.
	closeAsked, http10, expectContinue bool
	// continued says 100 Continue was sent for this request.
	continued bool
	// closing says the answer chosen closes the connection.
	closing bool
	// refusal is the answer to a Refuse: its status and the parse error,
	// nil for a late request.
	refusal Refusal
}

// Refusal is the answer to bytes that make no request, or not in time:
// Parse's error (Err), or 408 for a request late in any part (Err nil).
type Refusal struct {
	Status int
	Rule   rule.ID
	Err    *httpparse.Error
}

// New returns a connection with no input, whose heads Parse reads with
// limits.
func New(limits httpparse.Limits) Conn {
	return Conn{limits: limits}
}

// Next returns what the connection must do next, given the caller's
// buffer (whose first Filled bytes hold input) and the Request the head
// is parsed into. It parses a head once its bytes are in hand. Begin is
// returned once per request; every other action is returned again until
// the caller acts on it.
func (c *Conn) Next(buf []byte, req *httpparse.Request) Action {
	switch c.phase {
	case idle:
		if c.filled == 0 {
			return Wait
		}
		c.phase = begun
		return Begin
	case begun:
		c.phase, c.scanned = inHead, 0
		return c.parse(buf, req)
	case inHead:
		return c.parse(buf, req)
	case headIn:
		return Head
	case inBody:
		switch {
		case c.filled >= c.end:
			c.phase = bodyIn
			return Body
		case c.expectContinue && !c.continued:
			return Continue
		}
		return Read
	case bodyIn:
		return Body
	case refusing:
		return Refuse
	case draining:
		return Drain
	}
	return Close // answered (the caller must call Answered) or closed
}

// parse reads the head in hand, or says how it needs more.
func (c *Conn) parse(buf []byte, req *httpparse.Request) Action {
	n, err := httpparse.Parse(buf[:c.filled], c.scanned, c.limits, req)
	switch {
	case err == httpparse.ErrNeedMore:
		if c.filled == len(buf) {
			return c.refuse(&httpparse.Error{Status: 431, Reason: httpparse.ReasonBufferFull, Offset: c.filled})
		}
		c.scanned = c.filled
		return Read
	case err != nil:
		pe, ok := err.(*httpparse.Error)
		if !ok {
			// Parse reports only ErrNeedMore or an *Error; anything else
			// has no status to answer with, so the connection just ends.
			c.phase = closed
			return Close
		}
		return c.refuse(pe)
	}
	c.phase, c.headLen, c.end = headIn, n, n+int(req.ContentLength)
	c.closeAsked, c.http10, c.expectContinue, c.continued = req.Close, req.HTTP10, req.ExpectContinue, false
	return Head
}

func (c *Conn) refuse(pe *httpparse.Error) Action {
	c.phase, c.refusal = refusing, Refusal{Status: pe.Status, Rule: rule.ParseErrorCloses, Err: pe}
	return Refuse
}

// Received records n > 0 bytes the caller put at buf[Filled():]. A read
// that brought none is Gone or TimedOut.
func (c *Conn) Received(n int) {
	c.filled += n
}

// Gone records that the peer closed the stream or the socket failed: the
// connection closes without an answer, a request cut short being
// incomplete (H-33).
func (c *Conn) Gone() {
	c.phase = closed
}

// TimedOut records that a wait's deadline passed. A wait for a request's
// first byte closes in silence; a request begun and not whole is late:
// 408 (H-P08), whether its head or its body was late.
func (c *Conn) TimedOut() {
	switch c.phase {
	case idle:
		c.phase = closed
	case begun, inHead, inBody:
		c.phase, c.refusal = refusing, Refusal{Status: 408, Rule: rule.ReadDeadline}
	}
}

// ReadBody asks for the body of the head in hand (its Content-Length
// bytes): the caller decided the head and will read the request whole.
func (c *Conn) ReadBody() {
	if c.phase == headIn {
		c.phase = inBody
	}
}

// ContinueSent records that 100 Continue was written.
func (c *Conn) ContinueSent() {
	c.continued = true
}

// Answering chooses whether the answer about to be written, of status,
// closes the connection, and the rule that says so; the caller writes
// Connection: close when it does, then calls Answered. serverClosing says
// the server is shutting down.
func (c *Conn) Answering(status int, serverClosing bool) (closes bool, why rule.ID) {
	switch {
	case c.phase == refusing:
		why = c.refusal.Rule
	case status >= 400, c.phase != bodyIn:
		// An error answer closes; so does one given before the body was
		// read, whose bytes must never be read as a request.
		why = rule.ReceiveOrder
	case c.closeAsked:
		why = rule.ConnectionCloseHonoured
	case c.http10:
		// The simplest correct choice: no 1.0 keep-alive state to get
		// wrong, and a proxy opens a connection per request anyway.
		why = rule.HTTP10Closes
	case serverClosing:
		why = rule.CloseOnEveryResponse
	}
	c.phase, c.closing = answered, why != ""
	return c.closing, why
}

// Answered records that the answer chosen by Answering was written. A
// kept connection drops the request's bytes from buf and keeps what
// followed them, the next request's start.
func (c *Conn) Answered(buf []byte) {
	if c.phase != answered {
		return
	}
	if c.closing {
		c.phase = draining
		return
	}
	c.filled = copy(buf, buf[c.end:c.filled])
	c.phase, c.headLen, c.end = idle, 0, 0
}

// Filled is how many bytes at the start of the buffer hold input.
func (c *Conn) Filled() int { return c.filled }

// HeadLen is the length of the parsed head.
func (c *Conn) HeadLen() int { return c.headLen }

// Body is the body in hand after Body.
func (c *Conn) Body(buf []byte) []byte { return buf[c.headLen:c.end] }

// RequestBytes is how many bytes of buf belong to the request being
// answered: its head and what came of its body, or all input when no
// head was parsed.
func (c *Conn) RequestBytes() int {
	if c.end == 0 {
		return c.filled
	}
	return min(c.filled, c.end)
}

// Refusal is the answer a Refuse asks for.
func (c *Conn) Refusal() Refusal { return c.refusal }
