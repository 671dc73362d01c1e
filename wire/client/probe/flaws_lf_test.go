package probe_test

import (
	"bytes"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"rawmcp/wire/client/probe"
)

// requestID is the id at the start of a JSON-RPC request body.
var requestID = regexp.MustCompile(`^\{"jsonrpc":"2.0","id":(\d+)`)

var lfFlaws = []flawCase{
	{check: "LF-01", name: "a body of any size is read and served", want: probe.Fail, says: "read and served bodies of 8 MiB and 16 MiB",
		flaw: flaw{raw: func(_ *flawProxy, nc net.Conn, pending []byte) bool {
			_, body, ok := bytes.Cut(pending, []byte("\r\n\r\n"))
			n, _ := strconv.Atoi(field(pending, "Content-Length"))
			if !ok || n <= 1<<20 {
				return false
			}
			id := requestID.FindSubmatch(body)
			if readBody(nc, n-len(body)) && id != nil {
				nc.Write(served([]byte(`{"id":` + string(id[1]) + `}`)))
			}
			return true
		}}},
	{check: "LF-02", name: "CL+TE is framed by TE and the connection kept", want: probe.Fail, says: "answered the request smuggled behind the body", flaw: flaw{dechunk: true}},
	{check: "LF-03", name: "conflicting Content-Length answered 400 and the connection kept", want: probe.Fail, says: "answered 400 but kept the connection open",
		flaw: flaw{raw: func(_ *flawProxy, nc net.Conn, pending []byte) bool {
			head, _, _ := bytes.Cut(pending, []byte("\r\n\r\n"))
			if bytes.Count(bytes.ToLower(head), []byte("\r\ncontent-length:")) < 2 {
				return false
			}
			nc.Write(answer("400 Bad Request", "application/json", `{"jsonrpc":"2.0","error":{"code":-32600,"message":"bad framing"}}`))
			holdOpen(nc)
			return true
		}}},
	{check: "LF-04", name: "a folded header line is unfolded and served", want: probe.Fail, says: "the folded line was taken as part of the header",
		flaw: flaw{raw: func(p *flawProxy, nc net.Conn, pending []byte) bool {
			if !bytes.Contains(pending, []byte("\r\n ")) {
				return false
			}
			p.pipe(nc, bytes.ReplaceAll(pending, []byte("\r\n "), []byte(" ")))
			return true
		}}},
	{check: "LF-05", name: "bare LF line ends are served", want: probe.Warn, says: "with bare LF line ends", // RFC 9112 allows it
		flaw: flaw{raw: func(p *flawProxy, nc net.Conn, pending []byte) bool {
			if !bytes.Contains(pending, []byte("\n")) || bytes.Contains(pending, []byte("\r\n")) {
				return false
			}
			p.pipe(nc, bytes.ReplaceAll(pending, []byte("\n"), []byte("\r\n")))
			return true
		}}},
	{check: "LF-06", name: "200 header fields are served", want: probe.Fail, says: "200 header fields: answered 200",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if len(r.header) > 100 {
				var kept [][2]string
				for _, h := range r.header {
					if !strings.HasPrefix(h[0], "X-Probe-") {
						kept = append(kept, h)
					}
				}
				r.header = kept
			}
			return nil
		}}},
	{check: "LF-07", name: "a slow head is waited for without end", want: probe.Fail, says: "still open after 7s",
		flaw: flaw{raw: func(_ *flawProxy, nc net.Conn, pending []byte) bool {
			if bytes.Contains(pending, []byte("\n")) || len(pending) > 16<<10 {
				return false
			}
			holdOpen(nc)
			return true
		}}},
	{check: "LF-08", name: "the body of a refused POST is read as the next request", want: probe.Fail, says: "then answered the request inside the unread body",
		flaw: flaw{response: func(p *flawProxy, r *proxied, ans []byte) []byte {
			if r.method == "POST" && r.get("Accept") == "text/html" && bytes.HasPrefix(r.body, []byte("GET ")) {
				return append(withoutField(ans, "Connection"), p.forward(r.body)...)
			}
			return ans
		}}},
}

// readBody reads and drops n bytes of a body, as a server without a
// size limit would.
func readBody(nc net.Conn, n int) bool {
	buf := make([]byte, 64<<10)
	for n > 0 {
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		m, err := nc.Read(buf)
		n -= m
		if err != nil {
			return n <= 0
		}
	}
	return true
}

// holdOpen keeps the connection, reading what comes, until the client
// closes it (or far longer than any check waits).
func holdOpen(nc net.Conn) {
	buf := make([]byte, 4<<10)
	nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		if _, err := nc.Read(buf); err != nil {
			return
		}
	}
}

// TestLF07SaysWhatItSentAndWaited: against a server that waits for a slow
// head without end, a run whose budget ends before LF-07's 7 s wait says
// how long it did wait, not 7 s, and its exchange (in the report and in
// the trace) shows the bytes that went out, not the whole initialize the
// probe meant to send, with how many of them the connection took.
func TestLF07SaysWhatItSentAndWaited(t *testing.T) {
	var trace bytes.Buffer
	opts := fullOptions()
	opts.Budget, opts.Trace = 3*time.Second, &trace
	res := resultThrough(t, flawFor(t, "LF-07").flaw, opts, "LF-07")
	waited := regexp.MustCompile(`still open after (\S+) with (\d+) bytes of a head`).FindStringSubmatch(res.Reason)
	if waited == nil {
		t.Fatalf("LF-07 %s: %s; want it still open after the wait it had", res.Verdict, res.Reason)
	}
	if d, err := time.ParseDuration(waited[1]); err != nil || d > opts.Budget {
		t.Errorf("LF-07 says it waited %s in a %s run: %s", waited[1], opts.Budget, res.Reason)
	}
	if len(res.Exchanges) != 1 {
		t.Fatalf("LF-07 kept %d exchanges, want 1", len(res.Exchanges))
	}
	x := res.Exchanges[0]
	took := "! the connection took " + waited[2] + " of "
	if strings.Contains(x.Request, `"method":"initialize"`) || !strings.Contains(x.Response, took) {
		t.Errorf("LF-07's exchange shows bytes it never sent, or not how many went out:\n%s\n%s", x.Request, x.Response)
	}
	_, lf07, _ := strings.Cut(trace.String(), "* LF-07: ")
	if strings.Contains(lf07, `"method":"initialize"`) || !strings.Contains(lf07, took) {
		t.Errorf("LF-07's trace shows bytes it never sent, or not how many went out:\n%s", lf07)
	}
}

// TestLF05EndsItsSession: a session opened by LF-05's bare-LF initialize is
// deleted with the token it was opened with. The request's fields were read
// only from CRLF-ended lines, so the cleanup's DELETE went without
// Authorization and got 401, leaving the session open, behind nginx, Caddy
// and HAProxy alike (all three serve bare LF).
func TestLF05EndsItsSession(t *testing.T) {
	srv := startRawmcp(t)
	rep := run(t, startProxy(t, srv.Addr, flawFor(t, "LF-05").flaw), probe.Options{Token: alice, Only: []string{"LF-05"}})
	deletes := 0
	for _, res := range rep.Results {
		if res.Check.ID != "LF-05" {
			continue
		}
		if res.Verdict != probe.Warn {
			t.Fatalf("LF-05 %s: %s, want the flaw to warn it", res.Verdict, res.Reason)
		}
		for _, x := range res.Exchanges {
			if !strings.HasPrefix(x.Request, "DELETE ") {
				continue
			}
			deletes++
			if !strings.Contains(x.Request, "\r\nAuthorization: Bearer ") || !strings.HasPrefix(x.Response, "HTTP/1.1 2") {
				t.Errorf("the session's DELETE:\n%s\nanswered:\n%s\nwant it sent with the token and served", x.Request, x.Response)
			}
		}
	}
	if deletes != 1 {
		t.Errorf("%d DELETEs in LF-05's exchanges, want the one that ends its session", deletes)
	}
}

// TestLF01SaysHowMuchOfTheBodyWentBeforeA5xx: a hop that answers 502
// after taking a part of the 8 MiB body (Caddy, when rawmcp's 413 and close
// overtake its upload) gets a reason that says how many bytes went, not
// that the whole body was read: the reason said "after reading the whole
// 8 MiB body" while the exchange showed 4128768 of 8388894 bytes taken.
func TestLF01SaysHowMuchOfTheBodyWentBeforeA5xx(t *testing.T) {
	srv := startRawmcp(t)
	badGateway := flaw{raw: func(_ *flawProxy, nc net.Conn, pending []byte) bool {
		n, _ := strconv.Atoi(field(pending, "Content-Length"))
		if n <= 1<<20 {
			return false
		}
		if tc, ok := nc.(*net.TCPConn); ok {
			tc.SetReadBuffer(64 << 10) // so the rest of the body waits in the probe
		}
		readBody(nc, 1<<20)
		nc.Write([]byte("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
		time.Sleep(2 * time.Second) // reading nothing more, as a hop whose upstream is gone
		return true
	}}
	rep := run(t, startProxy(t, srv.Addr, badGateway), probe.Options{Token: alice, Only: []string{"LF-01"}})
	for _, res := range rep.Results {
		if res.Check.ID != "LF-01" {
			continue
		}
		if res.Verdict != probe.Warn {
			t.Errorf("LF-01 %s, want warn (a 502 is no sign of a limit)", res.Verdict)
		}
		if strings.Contains(res.Reason, "whole") || !strings.Contains(res.Reason, "502") || !regexp.MustCompile(`\d+ of \d+ bytes`).MatchString(res.Reason) {
			t.Errorf("LF-01 reason %q, want the 502 and how many bytes of the body went before it", res.Reason)
		}
	}
}
