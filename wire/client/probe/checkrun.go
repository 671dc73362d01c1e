package probe

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rawmcp/httpparse"
	"rawmcp/wire/client"
)

// checkRun is one check's run: it sends the check's requests to the target,
// records every exchange (redacted) for the report and the trace, and
// deletes every session the check caused when it ends.
type checkRun struct {
	ctx   context.Context
	p     *prober
	check *Check

	// session is the first of sessions, the ones the runner opened for
	// the check (Check.Opens).
	session  *session
	sessions []*session

	exchanges []Exchange
	created   []*session // sessions the target issued during the check
	trace     strings.Builder

	// judging: the run function is running, so a halt of the run (a rate
	// limit, a target that stopped answering) ends the check at its next
	// exchange; the runner's own requests (cleanup, needs) only note it.
	judging bool
	// capacity: the check judges a 503 itself (SE-09, a session cap),
	// so only a 429 is load shedding to it.
	capacity bool
}

// Exchange is one request and what came back, both redacted and bounded,
// as the report keeps them.
type Exchange struct {
	Request  string `json:"request"`
	Response string `json:"response"`

	// raw and resp are the response as received, for the scans of EH-01
	// and EH-02; they never leave the process.
	raw  []byte
	resp *httpparse.Response
	// heard is when the answer's head came (zero: none came), done when
	// the exchange ended; hung says it ended because the connection was
	// refused, reset or closed, with no answer or in the middle of one:
	// what the runner looks at when the target stops answering.
	heard, done time.Time
	hung        bool
	// sent is the request as sent, up to keepRequest, for the scans of
	// what the target made of the probe's own requests (MM-07).
	sent []byte
}

// Bounds on what an exchange keeps: enough to show the evidence, not the
// 8 MiB of LF-01 or the 64 KiB head of LF-06.
const (
	keepRequest  = 4 << 10
	keepResponse = 16 << 10
	scanResponse = 256 << 10
)

// readUntil says when a response has been read far enough.
type readUntil uint8

const (
	// toResponse: the whole body; for an event stream, until it carries
	// a JSON-RPC response (a POST stream may stay open after it).
	toResponse readUntil = iota
	// toHead: the status and fields are the evidence.
	toHead
	// toFirstEvent: an event stream's first event.
	toFirstEvent
	// toEnd: the whole body, or what came before the deadline.
	toEnd
)

// reply is what came back for one request.
type reply struct {
	resp    *httpparse.Response // nil when no head came
	ended   bool                // the whole response arrived
	err     error               // why there is no response
	elapsed time.Duration

	stream *client.Stream // for reading on (RS-01)
	c      *client.Client // the connection, still open after a sendKeep
	index  int            // the exchange in checkRun.exchanges
	step   string         // what the exchange was for, as recorded
	raw    []byte         // the response bytes as received

	sent, heard time.Time // when the request went out and its head came
	paced       []string  // limited answers waited out before this one ("429, Retry-After: 1 s")
	fed         string    // for a request fed in pieces, how much went out and how it ended
}

// nextID hands out JSON-RPC ids that are unique in the run, so an answer
// names the request it belongs to.
var nextID atomic.Int64

func newID() int64 { return 1000 + nextID.Add(1) }

// send writes raw on a fresh connection and reads the answer until until
// is satisfied or window (0: the run's timeout) passes; it records the
// exchange and closes the connection.
func (t *checkRun) send(step string, raw []byte, until readUntil, window time.Duration) *reply {
	r := t.sendKeep(step, raw, until, window)
	r.close()
	return r
}

// sendKeep is send that leaves the connection open, for waitClose and
// for reading a stream on.
func (t *checkRun) sendKeep(step string, raw []byte, until readUntil, window time.Duration) *reply {
	r := t.p.pacedTrip(t.ctx, raw, until, window, t.capacity)
	t.record(step, raw, r)
	return r
}

// sendAll sends the requests at once, each on its own connection, and
// records them in order: for what only concurrency shows (JR-03).
func (t *checkRun) sendAll(step string, raws [][]byte) []*reply {
	replies := make([]*reply, len(raws))
	var wg sync.WaitGroup
	for i, raw := range raws {
		wg.Go(func() { replies[i] = t.p.pacedTrip(t.ctx, raw, toResponse, 0, t.capacity) })
	}
	wg.Wait()
	for i, r := range replies {
		r.close()
		t.record(step+" "+strconv.Itoa(i+1), raws[i], r)
	}
	return replies
}

// pacedTrip is roundTrip behind the run's gate: a request waits while the
// target asked the run to (a short Retry-After), and one answered 429
// (or 503 with Retry-After, unless capacity) is sent again after the wait
// the answer names, up to retryLimit times, when the wait is short and
// the budget covers it. A limit it cannot wait out comes back as the
// answer, and record stops the run on it.
func (p *prober) pacedTrip(ctx context.Context, raw []byte, until readUntil, window time.Duration, capacity bool) *reply {
	var paced []string
	for try := 0; ; try++ {
		if !p.waitGate(ctx) {
			return &reply{err: ctx.Err(), paced: paced}
		}
		r := p.roundTrip(ctx, raw, until, window)
		wait, shown, limited := retryAfter(r, capacity)
		if !limited || try == retryLimit || !p.waitOut(ctx, wait) {
			r.paced = paced
			return r
		}
		r.close()
		paced = append(paced, strconv.Itoa(r.status())+", "+shown)
	}
}

// roundTrip is one request on a fresh connection; it touches no check
// state, so exchanges may run concurrently.
func (p *prober) roundTrip(ctx context.Context, raw []byte, until readUntil, window time.Duration) *reply {
	r := &reply{}
	if r.err = ctx.Err(); r.err != nil {
		return r
	}
	c := client.New(p.target.Dial)
	c.Timeout, c.Dialer = p.timeout(), p.dialer
	start := time.Now()
	r.sent = start
	if r.err = c.Send(raw); r.err != nil {
		c.Close()
		return r
	}
	// The head has the whole timeout; a window bounds the body only, from
	// the head's arrival, so a slow machine does not turn a stream's
	// window into a missing answer.
	s, err := c.ReadStream(isHEAD(raw), within(ctx, start.Add(p.timeout())), enough(toHead))
	if err == nil {
		r.heard = time.Now()
	}
	if err == nil && !s.Ended {
		if window <= 0 {
			window = p.timeout()
		}
		err = s.More(within(ctx, time.Now().Add(window)), enough(until))
	}
	r.elapsed = time.Since(start)
	if err != nil {
		r.err = err
		c.Close()
		if s == nil {
			return r
		}
	}
	if s != nil {
		r.resp, r.ended, r.stream, r.raw = &s.Response, s.Ended, s, s.Raw
		if err == nil {
			r.c = c
		}
	}
	return r
}

// within is deadline, or ctx's deadline when that comes first: no
// exchange outlasts the run's budget.
func within(ctx context.Context, deadline time.Time) time.Time {
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		return d
	}
	return deadline
}

// outOfTime reports the check's own time run out: its context ended, or
// its deadline passed (a read cut at the deadline can return before the
// context says so).
func (t *checkRun) outOfTime() bool {
	d, ok := t.ctx.Deadline()
	return t.ctx.Err() != nil || ok && !time.Now().Before(d)
}

func (r *reply) close() {
	if r.c != nil {
		r.c.Close()
		r.c = nil
	}
}

func isHEAD(raw []byte) bool { return bytes.HasPrefix(raw, []byte("HEAD ")) }

func enough(until readUntil) func([]byte) bool {
	switch until {
	case toHead:
		return func([]byte) bool { return true }
	case toFirstEvent:
		return func(body []byte) bool { return len(client.Events(body)) > 0 }
	case toResponse:
		return func(body []byte) bool {
			for _, m := range messagesIn(client.Events(body)) {
				if m.isResponse() {
					return true
				}
			}
			return false
		}
	}
	return nil
}

// waitClose watches the connection of a sendKeep after its answer: what
// the server sends next (it should send nothing) and whether it closes
// within window. Both are added to the exchange's record.
func (t *checkRun) waitClose(r *reply, window time.Duration) (closed bool, extra []byte) {
	if r.c == nil {
		return true, nil
	}
	closed, extra = r.c.WaitClose(time.Now().Add(window))
	r.c = nil
	note := ""
	if len(extra) > 0 {
		note += "\n! then, on the same connection:\n" + t.p.secrets.Wire(extra, keepResponse)
	}
	if closed {
		note += "\n! the server closed the connection"
	} else {
		note += "\n! the connection was still open after " + window.String()
	}
	x := &t.exchanges[r.index]
	x.Response += note
	x.raw = append(x.raw, extra...)
	t.traceNote(strings.TrimPrefix(note, "\n"))
	return closed, extra
}

// readOn reads more of a stream a sendKeep left open, until it ends or
// window passes, and updates the exchange's record.
func (t *checkRun) readOn(r *reply, window time.Duration) {
	if r.stream == nil || r.ended {
		return
	}
	err := r.stream.More(time.Now().Add(window), nil)
	r.ended, r.raw, r.resp = r.stream.Ended, r.stream.Raw, &r.stream.Response
	r.close()
	x := &t.exchanges[r.index]
	x.Response = t.p.secrets.Wire(r.raw, keepResponse)
	x.raw, x.resp = r.raw[:min(len(r.raw), scanResponse)], r.resp
	switch {
	case err != nil:
		x.Response += "\n! the stream broke: " + err.Error()
	case !r.ended:
		x.Response += "\n! the stream was still open " + window.String() + " later; the probe stopped reading"
	}
	t.traceNote("! read on: " + map[bool]string{true: "the stream ended", false: "the stream did not end"}[r.ended])
}

// feed writes raw in pieces with a pause between them while waiting for
// the answer (client.Feed), and records the exchange. The reply keeps the
// connection when Feed did.
func (t *checkRun) feed(step string, raw []byte, piece int, pause, window time.Duration) (*reply, client.Feeding) {
	var r *reply
	var f client.Feeding
	var paced []string
	for try := 0; ; try++ {
		t.p.waitGate(t.ctx)
		c := client.New(t.p.target.Dial)
		c.Dialer = t.p.dialer
		sent := time.Now()
		f = c.Feed(raw, piece, pause, within(t.ctx, sent.Add(window)))
		r = &reply{err: f.Err, elapsed: f.Elapsed, sent: sent, paced: paced}
		if f.Stream != nil {
			r.resp, r.ended, r.stream, r.raw = &f.Stream.Response, f.Stream.Ended, f.Stream, f.Stream.Raw
			r.heard = sent.Add(f.Elapsed)
			if !c.Closed() {
				r.c = c
			}
		}
		wait, shown, limited := retryAfter(r, t.capacity)
		if !limited || try == retryLimit || !t.p.waitOut(t.ctx, wait) {
			break
		}
		r.close()
		paced = append(paced, strconv.Itoa(r.status())+", "+shown)
	}
	// The exchange shows the bytes that went out, not those the probe
	// meant to send: a slow head cut after 7 bytes was never a request.
	r.fed = "the connection took " + strconv.Itoa(f.Written) + " of " + strconv.Itoa(len(raw)) +
		" bytes; " + describeFeedEnd(f)
	t.record(step, raw[:f.Written], r)
	return r, f
}

func describeFeedEnd(f client.Feeding) string {
	switch {
	case f.Stream != nil:
		return "answered after " + f.Elapsed.Round(time.Millisecond).String()
	case f.Err == client.ErrClosed:
		return "closed after " + f.Elapsed.Round(time.Millisecond).String()
	}
	return "no answer and no close within the window"
}

// unendedNote says why an answer has no end: the probe stopped reading a
// stream still open, or the stream broke off before its end (a hop or
// the server cut it, or sent what does not parse), and why.
func (t *checkRun) unendedNote(r *reply) string {
	after := r.elapsed.Round(time.Millisecond).String()
	if r.err != nil && !errors.Is(r.err, os.ErrDeadlineExceeded) {
		return "the stream broke off after " + after + ", before its end: " + t.p.secrets.Redact(errText(r.err))
	}
	return "the stream was still open after " + after + "; the probe stopped reading"
}

// record keeps the exchange, traces it and learns from it; then, while
// the check's run function runs, it ends the check when the run halted
// (haltOn).
func (t *checkRun) record(step string, raw []byte, r *reply) {
	x := Exchange{Request: t.p.secrets.Wire(raw, keepRequest), resp: r.resp, heard: r.heard, done: time.Now(),
		hung: r.err != nil && hungUp(r.err) && (r.resp == nil || !r.ended), sent: raw[:min(len(raw), keepRequest)]}
	if r.resp != nil {
		t.learn(raw, r)
		t.p.wire.note(t.check.ID, raw, r)
		x.Response = t.p.secrets.Wire(r.raw, keepResponse)
		if !r.ended {
			x.Response += "\n! " + t.unendedNote(r)
		}
		x.raw = r.raw[:min(len(r.raw), scanResponse)]
	} else {
		x.Response = "! no response: " + t.p.secrets.Redact(errText(r.err))
	}
	if len(r.paced) > 0 {
		x.Response += "\n! sent again after the target asked to wait: " + strings.Join(r.paced, "; ")
	}
	if r.fed != "" {
		x.Response += "\n! " + r.fed
	}
	r.index, r.step = len(t.exchanges), step
	t.exchanges = append(t.exchanges, x)
	if r.resp != nil && !r.heard.IsZero() {
		t.p.heardFrom(heard{check: t.check.ID, step: step, status: r.status(), sent: r.sent, at: r.heard})
	}
	if t.p.opts.Trace != nil {
		var err error
		if r.resp == nil {
			err = r.err
		}
		// Uncut: the tracer redacts each line before it cuts it, so a cut
		// here could leave half a token behind.
		t.p.tracer.Exchange(&t.trace, t.check.ID+": "+step, raw, r.resp, err)
		if r.resp != nil && !r.ended {
			t.trace.WriteString("! " + t.unendedNote(r) + "\n")
		}
		if r.fed != "" {
			t.trace.WriteString("! " + r.fed + "\n")
		}
		t.trace.WriteString("\n")
	}
	if t.judging {
		t.haltOn(r)
	}
}

// haltOn ends the check when the run cannot go on: r is a limit the
// runner could not wait out (the run stops sending), or r got no answer
// and the target no longer answers anyone, or another check halted the
// run. A check never judges a 429, nor an answer a dying target did not
// give.
func (t *checkRun) haltOn(r *reply) {
	if _, shown, limited := retryAfter(r, t.capacity); limited {
		r.close()
		t.stop(outcome{verdict: Error, unfinished: true,
			reason: t.p.rateLimited(shown) + ": " + strconv.Itoa(r.status()) + " to \"" + r.step + "\"; the run sent nothing more"})
	}
	if how := hangUp(r.err); r.resp == nil && how != "" && !t.p.answering(t.ctx, r.sent, t.check.ID, r.step, how) {
		t.stop(outcome{verdict: Error, unfinished: true,
			reason: "the target stopped answering (see " + pre03.ID + "): \"" + r.step + "\" got no answer (" + how + ")"})
	}
	if why := t.p.halted(); why != "" {
		r.close()
		t.stop(outcome{verdict: Error, unfinished: true, reason: "not finished: " + why})
	}
}

func (t *checkRun) traceNote(s string) {
	if t.p.opts.Trace != nil {
		t.trace.WriteString(s + "\n\n")
	}
}

func errText(err error) string {
	if err == nil {
		return "none"
	}
	return err.Error()
}

// learn notes what an answer teaches: a session id the target issued
// (to redact it and delete the session at the end), a session a DELETE
// ended.
func (t *checkRun) learn(raw []byte, r *reply) {
	t.p.noteNegotiated(raw, r)
	method, _, _ := bytes.Cut(raw, []byte(" "))
	sent := requestField(raw, "Mcp-Session-Id")
	if string(method) == "DELETE" && r.resp.Status >= 200 && r.resp.Status < 300 {
		for _, s := range t.created {
			if s.id == sent {
				s.ended = true
			}
		}
	}
	id, ok := r.resp.Get("Mcp-Session-Id")
	if !ok || id == "" || id == sent {
		return
	}
	t.p.secrets.AddSession(id)
	for _, s := range t.created {
		if s.id == id {
			return
		}
	}
	version := negotiatedVersion(r)
	if version == "" {
		version = protocolVersion
	}
	t.created = append(t.created, &session{id: id, authorization: requestField(raw, "Authorization"), version: version, init: r})
}

// requestField returns the value of the first field called name in a
// raw request's head, "" if there is none. Lines may end in CRLF or in a
// bare LF (LF-05 sends those), and the head ends at the first empty line.
func requestField(raw []byte, name string) string {
	// Line by line up to the head's end: the body, up to LF-01's 16 MiB,
	// is never scanned.
	_, rest, _ := bytes.Cut(raw, []byte("\n"))
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			break
		}
		n, v, ok := bytes.Cut(line, []byte(":"))
		if ok && strings.EqualFold(string(n), name) {
			return strings.Trim(string(v), " \t")
		}
	}
	return ""
}

// cleanup deletes every session the check caused and did not end
// (Transports §2.5 item 5), so a run leaves the target as it found it:
// cleanupAtOnce at a time, so SE-09's 64 sessions against a slow target
// take a few round trips, not 64.
func (t *checkRun) cleanup() {
	var open []*session
	for _, s := range t.created {
		if !s.ended {
			open = append(open, s)
		}
	}
	for len(open) > 0 {
		batch := open[:min(len(open), cleanupAtOnce)]
		open = open[len(batch):]
		replies := make([]*reply, len(batch))
		raws := make([][]byte, len(batch))
		var wg sync.WaitGroup
		for i, s := range batch {
			raws[i] = t.request("DELETE", s, nil).Bytes()
			wg.Go(func() { replies[i] = t.p.pacedTrip(t.ctx, raws[i], toHead, 0, false) })
		}
		wg.Wait()
		for i, r := range replies {
			r.close()
			t.record("cleanup: end the session", raws[i], r)
			batch[i].ended = r.resp != nil && r.resp.Status < 300
		}
	}
}

// cleanupAtOnce is how many DELETEs a cleanup sends at once.
const cleanupAtOnce = 8
