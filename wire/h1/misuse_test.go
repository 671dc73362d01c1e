package h1_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
	"rawmcp/wire/h1"
)

// exchange is a connection brought to a point of its exchange by the
// calls a correct driver makes, with its buffer and request.
type exchange struct {
	c   h1.Conn
	buf []byte
	req httpparse.Request
}

// points are the places a call can be tried: after New, after Next told
// an action (named after it), once Began or Answering or a kept answer
// is done.
var points = map[string]func(t *testing.T, x *exchange){
	"New":       func(*testing.T, *exchange) {},
	"Wait":      func(t *testing.T, x *exchange) { x.next(t, h1.Wait) },
	"Begin":     func(t *testing.T, x *exchange) { x.receive(t, get); x.next(t, h1.Begin) },
	"Began":     func(t *testing.T, x *exchange) { x.receive(t, get); x.next(t, h1.Begin); x.must(t, x.c.Began()) },
	"Read":      func(t *testing.T, x *exchange) { x.head(t, "GET /", h1.Read) },
	"Head":      func(t *testing.T, x *exchange) { x.head(t, postHead, h1.Head) },
	"Continue":  func(t *testing.T, x *exchange) { x.body(t, expectHd, h1.Continue) },
	"Request":   func(t *testing.T, x *exchange) { x.body(t, get, h1.Request) },
	"Refuse":    func(t *testing.T, x *exchange) { x.head(t, badHead, h1.Refuse) },
	"Answering": func(t *testing.T, x *exchange) { x.answering(t, get) },
	"Drain": func(t *testing.T, x *exchange) {
		x.answering(t, getClose)
		x.must(t, x.c.Answered(x.buf))
		x.next(t, h1.Drain)
	},
	"Close": func(t *testing.T, x *exchange) { x.next(t, h1.Wait); x.must(t, x.c.Gone()); x.next(t, h1.Close) },
	"a kept answer": func(t *testing.T, x *exchange) {
		x.answering(t, get)
		x.must(t, x.c.Answered(x.buf))
	},
}

func (x *exchange) must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (x *exchange) next(t *testing.T, want h1.Action) {
	t.Helper()
	if a := x.c.Next(x.buf, &x.req); a != want {
		t.Fatalf("Next = %v, want %v", a, want)
	}
}

func (x *exchange) receive(t *testing.T, in string) {
	t.Helper()
	x.next(t, h1.Wait)
	x.must(t, x.c.Received(copy(x.buf, in)))
}

// head receives in and begins its request, and Next tells want.
func (x *exchange) head(t *testing.T, in string, want h1.Action) {
	t.Helper()
	x.receive(t, in)
	x.next(t, h1.Begin)
	x.must(t, x.c.Began())
	x.next(t, want)
}

// body reads the body of the head in, and Next tells want.
func (x *exchange) body(t *testing.T, in string, want h1.Action) {
	t.Helper()
	x.head(t, in, h1.Head)
	x.must(t, x.c.ReadBody())
	x.next(t, want)
}

// answering chooses a 200 for the whole request in.
func (x *exchange) answering(t *testing.T, in string) {
	t.Helper()
	x.body(t, in, h1.Request)
	_, _, err := x.c.Answering(200, false)
	x.must(t, err)
}

// TestCallsOutOfOrder: every method refuses a call where the exchange
// does not allow it, or with an argument that cannot be right, with a
// *MisuseError naming it; the connection is then broken: Next says Close,
// Ended says misuse, and every later call returns the same error.
func TestCallsOutOfOrder(t *testing.T) {
	call := func(method string, do func(x *exchange) error) func(x *exchange) (string, error) {
		return func(x *exchange) (string, error) { return method, do(x) }
	}
	next := func(buf func(x *exchange) []byte, req bool) func(x *exchange) (string, error) {
		return call("Next", func(x *exchange) error {
			r := &x.req
			if !req {
				r = nil
			}
			if a := x.c.Next(buf(x), r); a != h1.Close {
				return errors.New("Next = " + a.String())
			}
			return x.c.Ended().Err
		})
	}
	theBuffer := func(x *exchange) []byte { return x.buf }
	shortBuffer := func(x *exchange) []byte { return x.buf[:len(x.buf)-1] }
	received := func(n int) func(x *exchange) (string, error) {
		return call("Received", func(x *exchange) error { return x.c.Received(n) })
	}
	answering := call("Answering", func(x *exchange) error { _, _, err := x.c.Answering(200, false); return err })
	answered := func(buf func(x *exchange) []byte) func(x *exchange) (string, error) {
		return call("Answered", func(x *exchange) error { return x.c.Answered(buf(x)) })
	}
	body := func(buf func(x *exchange) []byte) func(x *exchange) (string, error) {
		return call("Body", func(x *exchange) error { _, err := x.c.Body(buf(x)); return err })
	}
	for _, tc := range []struct {
		name string
		at   string
		call func(x *exchange) (string, error)
	}{
		{"Next while an answer is being written", "Answering", next(theBuffer, true)},
		{"Next with a buffer shorter than the capacity fixed by New", "Began", next(shortBuffer, true)},
		{"Next with no Request to parse into", "Began", next(theBuffer, false)},
		{"Received while Begin is unanswered", "Begin", received(1)},
		{"Received while a head is being decided", "Head", received(1)},
		{"Received while Continue is unanswered", "Continue", received(1)},
		{"Received of no bytes", "Wait", received(0)},
		{"Received of more bytes than the buffer holds", "Wait", received(largeBuffer + 1)},
		{"Received of more bytes than the buffer has room for after those in hand", "Read",
			call("Received", func(x *exchange) error { return x.c.Received(len(x.buf) - x.c.Filled() + 1) })},
		{"Received with nothing asked of Next", "New", received(1)},
		{"Received after the connection closed", "Close", received(1)},
		{"TimedOut while a head is being decided", "Head", call("TimedOut", (*exchange).timedOut)},
		{"Gone while a request is being decided", "Request", call("Gone", (*exchange).gone)},
		{"Began before Begin", "Wait", call("Began", (*exchange).began)},
		{"Began twice", "Head", call("Began", (*exchange).began)},
		{"ReadBody of a request already whole", "Request", call("ReadBody", (*exchange).readBody)},
		{"ReadBody of a refusal", "Refuse", call("ReadBody", (*exchange).readBody)},
		{"ReadBody while the head is still coming", "Read", call("ReadBody", (*exchange).readBody)},
		{"ContinueSent when no Continue was asked", "Head", call("ContinueSent", (*exchange).continueSent)},
		{"WriteFailed with no write asked", "Head", call("WriteFailed", (*exchange).writeFailed)},
		{"WriteFailed while waiting for a request", "Wait", call("WriteFailed", (*exchange).writeFailed)},
		{"OverCapacity once input is in hand", "Begin", call("OverCapacity", (*exchange).overCapacity)},
		{"OverCapacity after a request was answered", "a kept answer", call("OverCapacity", (*exchange).overCapacity)},
		{"Answering without Next", "New", answering},
		{"Answering while waiting for a request", "Wait", answering},
		{"Answering twice", "Answering", answering},
		{"Answering while Continue is unanswered", "Continue", answering},
		{"Answered before Answering", "Head", answered(theBuffer)},
		{"Answered twice", "Drain", answered(theBuffer)},
		{"Answered with a buffer shorter than the capacity fixed by New", "Answering", answered(shortBuffer)},
		{"Body of a head being decided", "Head", body(theBuffer)},
		{"Body with a buffer shorter than the capacity fixed by New", "Request", body(shortBuffer)},
		{"RequestBytes with no request", "Wait", call("RequestBytes", (*exchange).requestBytes)},
		{"Refused when nothing was refused", "Head", call("Refused", (*exchange).refused)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := &exchange{c: h1.New(httpparse.DefaultLimits(), largeBuffer), buf: make([]byte, largeBuffer)}
			points[tc.at](t, x)
			method, err := tc.call(x)
			var misuse *h1.MisuseError
			if !errors.As(err, &misuse) || misuse.Call != method {
				t.Fatalf("error = %v, want a *MisuseError of %s", err, method)
			}
			if a := x.c.Next(x.buf, &x.req); a != h1.Close {
				t.Errorf("Next after the misuse = %v, want close", a)
			}
			if diff := cmp.Diff(h1.End{Cause: h1.ByMisuse, Err: err}, x.c.Ended(), cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("Ended (-want +got):\n%s", diff)
			}
			if later := x.c.Received(1); later != err {
				t.Errorf("a later Received = %v, want the same error", later)
			}
		})
	}
}

func (x *exchange) timedOut() error     { return x.c.TimedOut() }
func (x *exchange) gone() error         { return x.c.Gone() }
func (x *exchange) began() error        { return x.c.Began() }
func (x *exchange) readBody() error     { return x.c.ReadBody() }
func (x *exchange) continueSent() error { return x.c.ContinueSent() }
func (x *exchange) writeFailed() error  { return x.c.WriteFailed() }
func (x *exchange) overCapacity() error { return x.c.OverCapacity() }

func (x *exchange) requestBytes() error {
	_, err := x.c.RequestBytes()
	return err
}

func (x *exchange) refused() error {
	_, err := x.c.Refused()
	return err
}

// TestMisuseSaysWhatWasDue: a call out of order says what the connection
// expected instead.
func TestMisuseSaysWhatWasDue(t *testing.T) {
	for _, tc := range []struct {
		at   string
		call func(x *exchange) error
		want string
	}{
		{"New", func(x *exchange) error { _, _, err := x.c.Answering(200, false); return err },
			"h1: Answering: out of order, Next is due"},
		{"Begin", func(x *exchange) error { return x.c.Received(1) },
			"h1: Received: out of order, the caller has yet to act on begin"},
		{"Answering", func(x *exchange) error { return x.c.Received(1) },
			"h1: Received: out of order, Answered or WriteFailed is due (after Answering)"},
		{"Drain", func(x *exchange) error { return x.c.Answered(x.buf) },
			"h1: Answered: out of order, the connection has ended"},
		{"Close", func(x *exchange) error { return x.c.Gone() },
			"h1: Gone: out of order, the connection has ended"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			x := &exchange{c: h1.New(httpparse.DefaultLimits(), largeBuffer), buf: make([]byte, largeBuffer)}
			points[tc.at](t, x)
			if err := tc.call(x); err == nil || err.Error() != tc.want {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
}
