package probe_test

import (
	"context"
	"errors"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/clienttest"
	"rawmcp/wire/client/probe"
)

// limiter is a rate limiter in front of the server, as web frameworks
// ship them: a fixed window of perWindow requests; past it, every request
// is answered status with retryAfter until the window ends. A zero window
// never ends once it is reached, and with after set, the limit is reached
// at the first request after says, whatever came before.
type limiter struct {
	perWindow  int
	window     time.Duration
	status     string // "429 Too Many Requests"
	retryAfter string // its Retry-After
	after      func(r *proxied) bool
	// field, when set, replaces Retry-After: {"RateLimit", "limit=8, …"}.
	field [2]string

	mu      sync.Mutex
	start   time.Time
	count   int
	tripped bool
	limited int // how many requests it answered itself
}

func (l *limiter) flaw() flaw {
	return flaw{request: func(_ *flawProxy, r *proxied) []byte {
		l.mu.Lock()
		defer l.mu.Unlock()
		now := time.Now()
		if l.window > 0 && now.Sub(l.start) >= l.window {
			l.start, l.count = now, 0
		}
		l.count++
		l.tripped = l.tripped || l.after != nil && l.after(r)
		if l.count <= l.perWindow && !l.tripped {
			return nil
		}
		l.limited++
		field := l.field
		if field[0] == "" {
			field = [2]string{"Retry-After", l.retryAfter}
		}
		return withField(answer(l.status, "application/json", `{"error":"too many requests"}`), field[0], field[1])
	}}
}

// foreignOrigin is the Origin of a page on another site (HO-02's).
const foreignOrigin = "http://evil.example"

func (l *limiter) answered() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limited
}

// TestShortRateLimitIsWaitedOut: behind a limiter of 8 requests a second
// that asks to retry after 1 s, the runner holds the run's requests back
// and sends the limited ones again, so no check judges a 429: every
// verdict is the one rawmcp earns without the limiter.
func TestShortRateLimitIsWaitedOut(t *testing.T) {
	srv := startRawmcp(t)
	l := &limiter{perWindow: 8, window: time.Second, status: "429 Too Many Requests", retryAfter: "1"}
	opts := fullOptions()
	opts.Only = []string{"HO", "AU"}
	rep := run(t, startProxy(t, srv.Addr, l.flaw()), opts)
	want := map[string]probe.Verdict{}
	for id, v := range rawmcpVerdicts() {
		if strings.HasPrefix(id, "HO-") || strings.HasPrefix(id, "AU-") || id == "PRE-01" {
			want[id] = v
		}
	}
	if diff := cmp.Diff(want, verdicts(rep)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s\n%s", diff, reasons(rep))
	}
	if rep.Incomplete || rep.Stopped != "" {
		t.Errorf("incomplete %v, stopped %q: a short limit is waited out", rep.Incomplete, rep.Stopped)
	}
	if l.answered() == 0 {
		t.Fatal("the limiter never answered: the test proves nothing")
	}
	retried := false
	for _, res := range rep.Results {
		for _, x := range res.Exchanges {
			retried = retried || strings.Contains(x.Response, "! sent again after the target asked to wait: 429, Retry-After: 1 s")
		}
	}
	if !retried {
		t.Errorf("no exchange says it was sent again after a 429")
	}
}

// TestLongRateLimitStopsTheRun: a limiter that, once reached, asks to
// wait a minute stops the run: the check whose request it refused and
// every check after say "rate limited (Retry-After: 60 s)", none judges
// the 429, and the report is incomplete and says why. A 503 with
// Retry-After is the same, and so is a 429 that says when in the
// RateLimit field instead. The limit is reached at HO-01's request, the
// first after PRE-01 with one check at a time, so the verdicts are fixed.
func TestLongRateLimitStopsTheRun(t *testing.T) {
	for _, tt := range []struct {
		status string
		field  [2]string
		shown  string
	}{
		{"429 Too Many Requests", [2]string{"Retry-After", "60"}, "Retry-After: 60 s"},
		{"503 Service Unavailable", [2]string{"Retry-After", "60"}, "Retry-After: 60 s"},
		{"429 Too Many Requests", [2]string{"RateLimit", "limit=8, remaining=0, reset=60"}, "RateLimit reset=60 s"},
	} {
		t.Run(tt.status+", "+tt.field[0], func(t *testing.T) {
			t.Parallel()
			srv := startRawmcp(t)
			l := &limiter{perWindow: 1 << 30, status: tt.status, field: tt.field,
				after: func(r *proxied) bool { return r.get("Host") == "evil.example" }}
			opts := fullOptions()
			opts.Only, opts.Concurrency = []string{"HO", "AU"}, 1
			rep := run(t, startProxy(t, srv.Addr, l.flaw()), opts)
			code, stopped := tt.status[:3], "rate limited ("+tt.shown+")"
			want := map[string]probe.Verdict{"PRE-01": probe.Pass}
			reasons := map[string]string{}
			for _, c := range probe.Catalogue() {
				if c.Group == "HO" || c.Group == "AU" {
					want[c.ID], reasons[c.ID] = probe.Error, "not run: "+stopped
				}
			}
			reasons["HO-01"] = stopped + `: ` + code + ` to "initialize with Host: evil.example"; the run sent nothing more`
			got, gotReasons := map[string]probe.Verdict{}, map[string]string{}
			for _, res := range rep.Results {
				got[res.Check.ID] = res.Verdict
				if res.Check.ID != "PRE-01" {
					gotReasons[res.Check.ID] = res.Reason
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(reasons, gotReasons); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
			if !rep.Incomplete || rep.Stopped != stopped {
				t.Errorf("incomplete %v, stopped %q", rep.Incomplete, rep.Stopped)
			}
			if !strings.HasSuffix(rep.Summary(), "; incomplete: "+stopped) {
				t.Errorf("summary %q", rep.Summary())
			}
		})
	}
}

// TestNothingListeningIsNoDeath: a target that never answered did not
// stop answering: PRE-01 says it was not reached, and nothing more.
func TestNothingListeningIsNoDeath(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	target, err := probe.ParseTarget("http://" + addr + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := probe.Run(context.Background(), target, probe.Options{})
	if !errors.Is(err, probe.ErrNotMCP) {
		t.Fatalf("error %v, want ErrNotMCP", err)
	}
	if pre := rep.Results[0]; !strings.HasPrefix(pre.Reason, "no MCP endpoint at http://"+addr+"/mcp") || rep.Stopped != "" || rep.Incomplete {
		t.Errorf("PRE-01 %s: %s; stopped %q, incomplete %v", pre.Verdict, pre.Reason, rep.Stopped, rep.Incomplete)
	}
}

// TestRateLimitedPreflight: a run against a target that is already
// limiting says so in PRE-01, not "no MCP endpoint".
func TestRateLimitedPreflight(t *testing.T) {
	srv := startRawmcp(t)
	l := &limiter{perWindow: 0, status: "429 Too Many Requests", retryAfter: "60"}
	target, err := probe.ParseTarget("http://" + startProxy(t, srv.Addr, l.flaw()) + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := probe.Run(context.Background(), target, fullOptions())
	if !errors.Is(err, probe.ErrNotMCP) {
		t.Fatalf("error %v, want ErrNotMCP", err)
	}
	pre := rep.Results[0]
	if pre.Verdict != probe.Error || pre.Reason != `rate limited (Retry-After: 60 s): 429 to "initialize"; the run sent nothing more` {
		t.Errorf("PRE-01 %s: %s", pre.Verdict, pre.Reason)
	}
	if !rep.Incomplete || rep.Stopped != "rate limited (Retry-After: 60 s)" {
		t.Errorf("incomplete %v, stopped %q", rep.Incomplete, rep.Stopped)
	}
}

// TestDeathAfterTheLastRequest: a target that the run's last check kills
// is found by PRE-03's own request at the end, reported even though PRE-03
// was not selected, and makes the run one with a MUST failed; the check
// whose request was answered last does not pass.
func TestDeathAfterTheLastRequest(t *testing.T) {
	srv := startRawmcp(t)
	addr := startProxy(t, srv.Addr, flaw{deliver: func(p *flawProxy, r *proxied, answer []byte, nc net.Conn) bool {
		dies := r.get("Origin") == foreignOrigin
		if dies {
			p.stopListening()
		}
		_, err := nc.Write(answer)
		if dies {
			p.die()
			return false
		}
		return err == nil
	}})
	opts := fullOptions()
	opts.Only = []string{"HO-02"}
	rep := run(t, addr, opts)
	if diff := cmp.Diff(map[string]probe.Verdict{"PRE-01": probe.Pass, "HO-02": probe.Error, "PRE-03": probe.Fail}, verdicts(rep)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s\n%s", diff, reasons(rep))
	}
	const why = `the target stopped answering: the last answer was to HO-02's request "initialize with Origin: http://evil.example" (403); ` +
		`the first request without one was PRE-03's "the run's last request, what PRE-01 sent" (connection refused): a request can stop the server`
	if last := rep.Results[len(rep.Results)-1]; last.Check.ID != "PRE-03" || last.Reason != why {
		t.Errorf("the last result: %s %q, want PRE-03 %q", last.Check.ID, last.Reason, why)
	}
	if !rep.Incomplete || rep.Stopped != "the target stopped answering (see PRE-03)" {
		t.Errorf("incomplete %v, stopped %q", rep.Incomplete, rep.Stopped)
	}
	if diff := cmp.Diff([]string{"PRE-03"}, rep.MustIDs(probe.Fail)); diff != "" {
		t.Errorf("MUST failed (-want +got):\n%s", diff)
	}
}

// TestSlowIsNotDead: a target that closes a request it does not like and
// then takes longer than -timeout to answer the runner's own question is
// slow, not dead: the run goes on and nothing says it stopped answering.
func TestSlowIsNotDead(t *testing.T) {
	var initializes atomic.Int32
	id := regexp.MustCompile(`"id":(\d+),"method":"initialize"`)
	addr := clienttest.Serve(t, nil, func(nc net.Conn) {
		buf := make([]byte, 64<<10)
		n, _ := nc.Read(buf)
		m := id.FindSubmatch(buf[:n])
		switch {
		case m == nil:
			return // closed unanswered
		case initializes.Add(1) > 1:
			nc.Read(buf) // held until the client gives up
			return
		}
		body := `{"jsonrpc":"2.0","id":` + string(m[1]) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"slow","version":"1"}}}`
		nc.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body))
	})
	rep := run(t, addr, probe.Options{Only: []string{"MM-05"}, Timeout: 300 * time.Millisecond})
	if diff := cmp.Diff(map[string]probe.Verdict{"PRE-01": probe.Pass, "MM-05": probe.Error}, verdicts(rep)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s\n%s", diff, reasons(rep))
	}
	if rep.Stopped != "" || initializes.Load() < 2 {
		t.Errorf("stopped %q after %d initializes: the runner's question timed out, and a slow target is no dead one", rep.Stopped, initializes.Load())
	}
}
