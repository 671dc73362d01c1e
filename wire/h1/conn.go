// Package h1 is the server's HTTP/1.1 connection rules in one object that
// does no I/O, as h11's Connection is: the caller puts bytes into a buffer
// and says how many came, and the object answers with the one thing the
// connection must do next (wait for a request, read more within the
// request's deadline, decide a head, send 100 Continue, answer, refuse,
// drain and close, close). It never sees a socket or a clock, so every
// rule is tested with tables of byte chunks, and the server's loop is a
// thin driver of its decisions.
//
// It protects itself, as h11's Connection does: each method belongs to a
// point of the exchange (Received after Wait or Read, Began after Begin,
// Answered after Answering, ...), and a call anywhere else, or with an
// argument that cannot be right, returns a *MisuseError and breaks the
// connection: from then on Next says Close, and every other call returns
// the same error, so a driver that ignored the error still cannot go on.
//
// The rules it owns:
//
//   - a request begins with its first byte; from then on a wait is the
//     request's (ReadTimeout, H-P08), before it the connection's idle wait;
//   - the head is parsed once, resumed where the last parse stopped, and
//     a head that fills the buffer, whose capacity is fixed by New, is 431
//     (never reached while the buffer is sized from the limits: answered,
//     not trusted);
//   - a parse error is answered with its status and closes (H-P09); a
//     request late in any part, head or body, is 408 and closes; a peer
//     that goes away mid-request closes without an answer (H-33), and so
//     does a wait for a request's first byte that ends;
//   - a connection over the server's cap is answered 503 before anything
//     is read, and closed (H-P15);
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
//     client sent after them (H-41), which begins the next request;
//   - how the connection ended, and by which rule (Ended).
//
// Its driver keeps the rest: the in-flight gate and the receive order, the
// answer's bytes and their size bound, the deadlines and the drain's
// bounds, and stopping when the server shuts down.
package h1

import (
	"strconv"

	"rawmcp/httpparse"
	"rawmcp/wire/rule"
)

// Action is what the connection must do next.
type Action uint8

const (
	// Wait: no input is in hand. Wait for the next request's first bytes
	// (the idle wait), holding no request buffer, then Received, TimedOut
	// or Gone.
	Wait Action = iota + 1
	// Begin: a request's first bytes are in hand. Start its deadline and
	// clock, then Began.
	Begin
	// Read: the request in hand needs more bytes. Read into
	// buf[Filled():] within the request's deadline, then Received,
	// TimedOut or Gone.
	Read
	// Head: a head is parsed into the request. Decide it, then either
	// Answering (a refusal, without the body) or ReadBody.
	Head
	// Continue: write 100 Continue now, then ContinueSent, or WriteFailed.
	Continue
	// Request: the whole request is in hand, its body too (Body). Decide
	// it, then Answering.
	Request
	// Refuse: answer the refusal (Refused), then Answering: the bytes in
	// hand do not make a request, or not in time, or the connection is
	// over the server's cap.
	Refuse
	// Drain: an answer that closes the connection was written.
	// Half-close, drain a bounded amount, close. Nothing follows.
	Drain
	// Close: close now, with nothing more to write (Ended says why).
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
	case Request:
		return "request"
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
	opened    phase = iota // a new connection: nothing received yet
	idle                   // between requests; input may wait (pipelined)
	begun                  // a request's first bytes are in hand, Begin told
	inHead                 // reading the head
	headIn                 // head parsed, the caller deciding it
	inBody                 // reading the body the caller asked for
	bodyIn                 // the whole request in hand, the caller deciding it
	refusing               // a refusal to be answered
	answering              // an answer chosen (Answering), being written
	draining               // a closing answer written
	closed                 // ended (Ended says how)
	broken                 // a call out of order ended it
)

// Conn is one connection's HTTP/1.1 state. The zero value is not ready:
// use New. It is not safe for concurrent use; a connection has one owner.
type Conn struct {
	limits httpparse.Limits
	// capacity is the length of the caller's buffer, fixed by New.
	capacity int
	phase    phase
	// asked is the action Next returned that the caller has not yet acted
	// on, zero when none is pending; the methods that act on an action
	// are allowed only while it is.
	asked Action
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
	// closing says the answer chosen closes the connection, by the rule
	// why.
	closing bool
	why     rule.ID
	// refusal is the answer a Refuse asks for.
	refusal Refusal
	// ended says how the connection ended, once it has.
	ended End
}

// Refusal is the answer to bytes that make no request, or not in time, or
// to a connection over the server's cap: Parse's error (Err), or 408 for a
// request late in any part, or 503 (H-P15).
type Refusal struct {
	Status int
	Rule   rule.ID
	Err    *httpparse.Error
	// HeadParsed says a head was parsed before the request was late: the
	// caller's Request holds it.
	HeadParsed bool
}

// End is how a connection ended: by what, and the rule that closed it
// when one did. Its zero value (Cause 0) is a connection the rules have
// not ended.
type End struct {
	Cause Cause
	Rule  rule.ID
	// Err is the *MisuseError of a connection ended ByMisuse.
	Err error
}

func (e End) String() string {
	s := e.Cause.String()
	if e.Rule != "" {
		s += " " + string(e.Rule)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Cause is what ended a connection.
type Cause uint8

const (
	// ByAnswer: an answer that closes the connection was written, by the
	// End's Rule.
	ByAnswer Cause = iota + 1
	// ByPeer: the peer closed or reset the connection; in the middle of a
	// request, a request cut short (H-33).
	ByPeer
	// ByIdleTimeout: no request began within the idle wait.
	ByIdleTimeout
	// ByWriteFailure: a write of an answer or of 100 Continue failed.
	ByWriteFailure
	// ByMisuse: a call out of order (End.Err).
	ByMisuse
)

func (c Cause) String() string {
	switch c {
	case ByAnswer:
		return "answer"
	case ByPeer:
		return "peer left"
	case ByIdleTimeout:
		return "idle timeout"
	case ByWriteFailure:
		return "write failed"
	case ByMisuse:
		return "misuse"
	}
	return "open"
}

// MisuseError is a call the connection does not allow where it is, or
// with an argument that cannot be right: a bug in the caller. It breaks
// the connection.
type MisuseError struct {
	Call string // the method called
	Why  string // what was wrong
}

func (e *MisuseError) Error() string { return "h1: " + e.Call + ": " + e.Why }

// New returns a connection with no input, whose heads Parse reads with
// limits from a buffer of capacity bytes: every buf passed to it must be
// that long.
func New(limits httpparse.Limits, capacity int) Conn {
	return Conn{limits: limits, capacity: capacity}
}

// Next returns what the connection must do next, given the caller's
// buffer (whose first Filled bytes hold input; nil while none does) and
// the Request the head is parsed into. It parses a head once its bytes
// are in hand. Each action is returned again until the caller acts on it
// with the method it names. Called while an answer is being written
// (between Answering and Answered), it breaks the connection and returns
// Close.
func (c *Conn) Next(buf []byte, req *httpparse.Request) Action {
	switch c.phase {
	case opened, idle:
		if c.filled == 0 {
			return c.ask(Wait)
		}
		c.phase = begun
		return c.ask(Begin)
	case begun:
		return Begin
	case inHead:
		if err := c.checkBuffer("Next", buf); err != nil {
			return Close
		}
		if req == nil {
			c.misuse("Next", "no Request to parse the head into")
			return Close
		}
		return c.parse(buf, req)
	case headIn:
		return Head
	case inBody:
		switch {
		case c.filled >= c.end:
			c.phase = bodyIn
			return c.ask(Request)
		case c.expectContinue && !c.continued:
			return c.ask(Continue)
		}
		return c.ask(Read)
	case bodyIn:
		return Request
	case refusing:
		return c.ask(Refuse)
	case answering:
		c.misuse("Next", "an answer is being written: Answered or WriteFailed first")
		return Close
	case draining:
		return Drain
	}
	return Close // closed or broken
}

func (c *Conn) ask(a Action) Action {
	c.asked = a
	return a
}

// parse reads the head in hand, or says how it needs more.
func (c *Conn) parse(buf []byte, req *httpparse.Request) Action {
	n, err := httpparse.Parse(buf[:c.filled], c.scanned, c.limits, req)
	switch {
	case err == httpparse.ErrNeedMore:
		if c.filled == c.capacity {
			return c.refuse(&httpparse.Error{Status: 431, Reason: httpparse.ReasonBufferFull, Offset: c.filled})
		}
		c.scanned = c.filled
		return c.ask(Read)
	case err != nil:
		pe, ok := err.(*httpparse.Error)
		if !ok {
			// Parse reports only ErrNeedMore or an *Error; anything else
			// has no status to answer with, so the connection just ends,
			// broken.
			c.misuse("Next", "Parse broke its contract: "+err.Error())
			return Close
		}
		return c.refuse(pe)
	}
	c.phase, c.headLen, c.end = headIn, n, n+int(req.ContentLength)
	c.closeAsked, c.http10, c.expectContinue, c.continued = req.Close, req.HTTP10, req.ExpectContinue, false
	return c.ask(Head)
}

func (c *Conn) refuse(pe *httpparse.Error) Action {
	c.phase, c.refusal = refusing, Refusal{Status: pe.Status, Rule: rule.ParseErrorCloses, Err: pe}
	return c.ask(Refuse)
}

// Received records n > 0 bytes the caller put at buf[Filled():], after
// Wait or Read. A read that brought none is Gone or TimedOut.
func (c *Conn) Received(n int) error {
	switch {
	case c.asked != Wait && c.asked != Read:
		return c.outOfOrder("Received")
	case n <= 0:
		return c.misuse("Received", strconv.Itoa(n)+" bytes: a read that brought none is Gone or TimedOut")
	case n > c.capacity-c.filled:
		return c.misuse("Received", strconv.Itoa(n)+" bytes past "+strconv.Itoa(c.filled)+" overflow the buffer's "+strconv.Itoa(c.capacity))
	}
	c.filled += n
	c.asked = 0
	if c.phase == opened {
		c.phase = idle
	}
	return nil
}

// TimedOut records, after Wait or Read, that the wait's deadline passed.
// A wait for a request's first byte closes in silence; a request begun
// and not whole is late: 408 (H-P08), whether its head or its body was
// late.
func (c *Conn) TimedOut() error {
	if c.asked != Wait && c.asked != Read {
		return c.outOfOrder("TimedOut")
	}
	c.asked = 0
	if c.phase == opened || c.phase == idle {
		c.finish(End{Cause: ByIdleTimeout})
		return nil
	}
	c.phase, c.refusal = refusing, Refusal{Status: 408, Rule: rule.ReadDeadline, HeadParsed: c.phase == inBody}
	return nil
}

// Gone records, after Wait or Read, that the peer closed the connection
// or the read failed: it closes without an answer, a request cut short
// being incomplete (H-33).
func (c *Conn) Gone() error {
	if c.asked != Wait && c.asked != Read {
		return c.outOfOrder("Gone")
	}
	c.asked = 0
	if c.phase == opened || c.phase == idle {
		c.finish(End{Cause: ByPeer})
		return nil
	}
	c.finish(End{Cause: ByPeer, Rule: rule.BodyShortCloses})
	return nil
}

// Began records, after Begin, that the request's deadline and clock
// started.
func (c *Conn) Began() error {
	if c.asked != Begin {
		return c.outOfOrder("Began")
	}
	c.phase, c.asked, c.scanned = inHead, 0, 0
	return nil
}

// ReadBody asks, after Head, for the body of the head in hand (its
// Content-Length bytes): the caller decided the head and will read the
// request whole.
func (c *Conn) ReadBody() error {
	if c.asked != Head {
		return c.outOfOrder("ReadBody")
	}
	c.phase, c.asked = inBody, 0
	return nil
}

// ContinueSent records, after Continue, that 100 Continue was written.
func (c *Conn) ContinueSent() error {
	if c.asked != Continue {
		return c.outOfOrder("ContinueSent")
	}
	c.continued, c.asked = true, 0
	return nil
}

// WriteFailed records that the write of 100 Continue (after Continue) or
// of the answer (after Answering) failed: the connection closes, with
// nothing more to write.
func (c *Conn) WriteFailed() error {
	if c.asked != Continue && c.phase != answering {
		return c.outOfOrder("WriteFailed")
	}
	c.finish(End{Cause: ByWriteFailure})
	return nil
}

// OverCapacity refuses a new connection, before anything is read from
// it, because the server holds as many as it may: 503, then close
// (H-P15).
func (c *Conn) OverCapacity() error {
	if c.phase != opened {
		return c.outOfOrder("OverCapacity")
	}
	c.phase, c.asked, c.refusal = refusing, 0, Refusal{Status: 503, Rule: rule.ConnectionCap}
	return nil
}

// Answering chooses, after Head, Request or Refuse, whether the answer
// about to be written, of status, closes the connection, and the rule
// that says so; the caller writes Connection: close when it does, then
// calls Answered, or WriteFailed. serverClosing says the server is
// shutting down.
func (c *Conn) Answering(status int, serverClosing bool) (closes bool, why rule.ID, err error) {
	if c.asked != Head && c.asked != Request && c.asked != Refuse {
		return false, "", c.outOfOrder("Answering")
	}
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
	c.phase, c.asked, c.closing, c.why = answering, 0, why != "", why
	return c.closing, why, nil
}

// Answered records that the answer chosen by Answering was written. A
// kept connection drops the request's bytes from buf and keeps what
// followed them, the next request's start; a closing one drains next.
func (c *Conn) Answered(buf []byte) error {
	if c.phase != answering {
		return c.outOfOrder("Answered")
	}
	if c.closing {
		c.phase = draining
		c.ended = End{Cause: ByAnswer, Rule: c.why}
		return nil
	}
	if err := c.checkBuffer("Answered", buf); err != nil {
		return err
	}
	c.filled = copy(buf, buf[c.end:c.filled])
	c.phase, c.headLen, c.end = idle, 0, 0
	return nil
}

// Filled is how many bytes at the start of the buffer hold input.
func (c *Conn) Filled() int { return c.filled }

// Body is the body in hand, after Request.
func (c *Conn) Body(buf []byte) ([]byte, error) {
	if c.asked != Request {
		return nil, c.outOfOrder("Body")
	}
	if err := c.checkBuffer("Body", buf); err != nil {
		return nil, err
	}
	return buf[c.headLen:c.end], nil
}

// RequestBytes is how many bytes of the buffer belong to the request
// being answered, after Head, Request or Refuse or once Answering chose
// the answer: its head and what came of its body, or all input when no
// head was parsed.
func (c *Conn) RequestBytes() (int, error) {
	if c.asked != Head && c.asked != Request && c.asked != Refuse && c.phase != answering {
		return 0, c.outOfOrder("RequestBytes")
	}
	if c.end == 0 {
		return c.filled, nil
	}
	return min(c.filled, c.end), nil
}

// Refused is the answer a Refuse asks for.
func (c *Conn) Refused() (Refusal, error) {
	if c.asked != Refuse {
		return Refusal{}, c.outOfOrder("Refused")
	}
	return c.refusal, nil
}

// Ended is how the connection ended; its Cause is zero while the rules
// have not ended it.
func (c *Conn) Ended() End { return c.ended }

// finish closes the connection for e.
func (c *Conn) finish(e End) {
	c.phase, c.asked, c.ended = closed, 0, e
}

// checkBuffer refuses a buffer other than the one of the capacity New
// fixed.
func (c *Conn) checkBuffer(call string, buf []byte) error {
	if len(buf) != c.capacity {
		return c.misuse(call, "a buffer of "+strconv.Itoa(len(buf))+" bytes, not the connection's "+strconv.Itoa(c.capacity))
	}
	return nil
}

// outOfOrder is misuse by a call the connection does not expect now.
func (c *Conn) outOfOrder(call string) error {
	if c.phase == broken {
		return c.ended.Err
	}
	return c.misuse(call, "out of order, "+c.expecting())
}

// expecting says what the connection expects now.
func (c *Conn) expecting() string {
	switch {
	case c.phase == answering:
		return "Answered or WriteFailed is due (after Answering)"
	case c.phase == draining, c.phase == closed:
		return "the connection has ended"
	case c.asked == 0:
		return "Next is due"
	}
	return "the caller has yet to act on " + c.asked.String()
}

// misuse breaks the connection: it ends, and every later call returns the
// first misuse's error.
func (c *Conn) misuse(call, why string) error {
	if c.phase == broken {
		return c.ended.Err
	}
	err := &MisuseError{Call: call, Why: why}
	c.finish(End{Cause: ByMisuse, Err: err})
	c.phase = broken
	return err
}
