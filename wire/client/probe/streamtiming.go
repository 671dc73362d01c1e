package probe

// When a stream's parts arrive: the head, the first bytes, the pieces
// after them (DP-07, DP-08).

import (
	"strconv"
	"strings"
	"time"

	"rawmcp/wire/client"
)

// heldAfter is the most a hop may take to pass a stream's head and first
// bytes (DP-07), and the probe watches for five times as long. Tests
// make it longer, so a loaded machine does not read as a hop.
var heldAfter = time.Second

func dp07Watch() time.Duration { return 5 * heldAfter }

// streamTiming is when a stream's parts arrived, from the request.
type streamTiming struct {
	r           *reply
	head, first time.Duration // -1: did not arrive
	open        bool          // the stream was still open once its first bytes came, and at heldAfter
	end         time.Duration // when the stream ended, read on after its first bytes (0: not read on)
}

type streamState uint8

const (
	streamOnTime streamState = iota // the first bytes within heldAfter, the stream open
	streamLate                      // the head or the first bytes after heldAfter
	streamEnded                     // the whole stream within heldAfter
	streamSilent                    // a head on time, then nothing while the watch lasted
	streamNone                      // no event stream
)

func (s streamTiming) state() streamState {
	switch {
	case s.r.resp == nil || !s.r.isSSE():
		return streamNone
	case s.head > heldAfter || s.first > heldAfter:
		return streamLate
	case !s.open && s.first >= 0:
		return streamEnded
	case s.first < 0 && s.r.ended:
		return streamEnded
	case s.first < 0:
		return streamSilent
	}
	return streamOnTime
}

func (s streamTiming) String() string {
	ms := func(d time.Duration) string { return max(d, time.Millisecond).Round(time.Millisecond).String() }
	switch s.state() {
	case streamNone:
		return s.r.describe()
	case streamSilent:
		return "the head after " + ms(s.head) + ", then nothing for " + dp07Watch().String()
	case streamEnded:
		return "the whole stream ended within " + ms(max(s.head, s.first, s.end))
	}
	d := "the head after " + ms(s.head)
	if s.first >= 0 {
		d += ", the first bytes after " + ms(s.first)
	}
	if !s.open {
		d += ", when the stream ended"
	}
	return d
}

// watchBoth watches two streams at once, so a pair costs one watch, and
// records them in order.
func (t *checkRun) watchBoth(stepA string, rawA []byte, stepB string, rawB []byte, watch time.Duration) (a, b streamTiming) {
	for try := 0; ; try++ {
		t.p.waitGate(t.ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			b = t.p.watch(rawB, watch)
		}()
		a = t.p.watch(rawA, watch)
		<-done
		// A limit on either leaves nothing to compare: both go again
		// after the wait, as pacedTrip sends one again.
		waitA, _, limitedA := retryAfter(a.r, t.capacity)
		waitB, _, limitedB := retryAfter(b.r, t.capacity)
		if !limitedA && !limitedB || try == retryLimit || !t.p.waitOut(t.ctx, max(waitA, waitB)) {
			break
		}
	}
	t.recordTiming(stepA, rawA, a)
	t.recordTiming(stepB, rawB, b)
	return a, b
}

// watch is watchStream's exchange, recording nothing: it touches no
// check state, so two may run at once.
func (p *prober) watch(raw []byte, watch time.Duration) streamTiming {
	tm := streamTiming{r: &reply{}, head: -1, first: -1}
	r := tm.r
	c := p.streamClient()
	defer c.Close()
	start := time.Now()
	r.sent = start
	if r.err = c.Send(raw); r.err == nil {
		var s *client.Stream
		s, r.err = c.ReadStream(isHEAD(raw), start.Add(watch), enough(toHead))
		if r.err == nil {
			tm.head = time.Since(start)
			r.heard = start.Add(tm.head)
			if !s.Ended {
				r.err = s.More(start.Add(watch), func(body []byte) bool { return len(body) > 0 })
			}
			if len(s.Response.Body) > 0 {
				tm.first = time.Since(start)
			}
			tm.open = !s.Ended && r.err == nil
			if tm.open && tm.first >= 0 && tm.first <= heldAfter {
				// A stream that ends within heldAfter looks the same
				// whether or not a hop holds it; whether its end came in
				// the read that brought its first bytes is the network's
				// chance, so it is read on until heldAfter to tell.
				if s.More(start.Add(heldAfter), nil) == nil && s.Ended {
					tm.open, tm.end = false, time.Since(start)
				}
			}
			r.resp, r.ended, r.raw = &s.Response, s.Ended, s.Raw
		}
	}
	r.elapsed = time.Since(start)
	return tm
}

// recordTiming records a watched exchange with its times.
func (t *checkRun) recordTiming(step string, raw []byte, tm streamTiming) {
	r := tm.r
	t.record(step, raw, r)
	if r.resp != nil {
		note := "\n! " + tm.String()
		t.exchanges[r.index].Response += note
		t.traceNote(strings.TrimPrefix(note, "\n"))
	}
}

// streamClient is a connection to the target for a check that reads a
// stream as it arrives (DP-07, DP-08) rather than through roundTrip.
func (p *prober) streamClient() *client.Client {
	c := client.New(p.target.Dial)
	c.Timeout, c.Dialer = p.timeout(), p.dialer
	return c
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// suspect names the usual idle timeout near second s.
func suspect(s int) string {
	for _, x := range []struct {
		at   int
		what string
	}{{15, "Envoy's 15 s route timeout"}, {50, "HAProxy's timeout server 50s, from its documentation's example"},
		{60, "a 60 s idle timeout: nginx proxy_read_timeout, AWS ALB, Apache, Traefik"}, {100, "Cloudflare's 100 s"}} {
		if s >= x.at-2 && s <= x.at+2 {
			return " (the usual suspect: " + x.what + ")"
		}
	}
	return ""
}

// describeArrivals says when body bytes came after the head.
func describeArrivals(at []time.Duration) string {
	switch len(at) {
	case 0:
		return "nothing came after the head"
	case 1:
		return "bytes came once, after " + at[0].Round(100*time.Millisecond).String()
	}
	gap := (at[len(at)-1] - at[0]) / time.Duration(len(at)-1)
	return "bytes came " + strconv.Itoa(len(at)) + " times, about every " + gap.Round(100*time.Millisecond).String()
}
