package probe_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe"
)

// oneStreamPerSession is the TypeScript SDK's standalone stream: one GET
// stream per session, its head sent and then nothing until the client
// leaves, and a second GET on the same session while it is open answered
// 409; a POST is answered as an event stream, on time and held open a
// while after its response (keepsStreamsOpen).
func oneStreamPerSession(p *flawProxy, r *proxied, ans []byte, nc net.Conn) bool {
	id := r.get("Mcp-Session-Id")
	switch {
	case r.method == "POST" && isStatus(ans, "200") && field(ans, "Content-Type") == "application/json":
		head, body := splitAnswer(ans)
		head = bytes.Replace(head, []byte("Content-Type: application/json"), []byte("Content-Type: text/event-stream\r\nCache-Control: no-store\r\nX-Accel-Buffering: no"), 1)
		return keepsStreamsOpen(p, r, joinAnswer(head, []byte("event: message\ndata: "+string(body)+"\n\n")), nc)
	case r.method != "GET" || id == "" || !isEventStream(ans):
		_, err := nc.Write(ans)
		return err == nil
	}
	open := stateOf[memo[bool]](p, "open streams")
	open.mu.Lock()
	if open.m[id] {
		open.mu.Unlock()
		_, err := nc.Write(answer("409 Conflict", "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Conflict: Only one SSE stream is allowed per session"}}`))
		return err == nil
	}
	if open.m == nil {
		open.m = map[string]bool{}
	}
	open.m[id] = true
	open.mu.Unlock()
	defer func() {
		open.mu.Lock()
		delete(open.m, id)
		open.mu.Unlock()
	}()
	head, _ := splitAnswer(ans)
	if _, err := nc.Write(chunkedHead(head)); err != nil {
		return false
	}
	holdOpen(nc)
	return false
}

// bodyLimit is the size limitsBodies refuses past.
const bodyLimit = 4 << 20

// limitsBodies is a server with a 4 MiB body limit: it serves a padded
// ping up to it (rawmcp's own limit is 16 KiB) and past it answers 413
// and resets the connection, or, when resetWins says so, reads the whole
// body and closes without an answer, as a client sees it when the reset
// overtakes the 413.
func limitsBodies(resetWins func() bool) flaw {
	return flaw{
		request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "POST" && len(r.body) > 16<<10 && bytes.Contains(r.body, []byte(`"method":"ping"`)) {
				return served(r.body)
			}
			return nil
		},
		raw: func(_ *flawProxy, nc net.Conn, pending []byte) bool {
			_, body, ok := bytes.Cut(pending, []byte("\r\n\r\n"))
			n, _ := strconv.Atoi(field(pending, "Content-Length"))
			switch {
			case !ok || n <= 1<<20:
				return false
			case n <= bodyLimit:
				id := requestID.FindSubmatch(body)
				if readBody(nc, n-len(body)) && id != nil {
					nc.Write(served([]byte(`{"id":` + string(id[1]) + `}`)))
				}
			case resetWins():
				readBody(nc, n-len(body))
			default:
				readBody(nc, bodyLimit-len(body))
				nc.Write(answer("413 Content Too Large", "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request entity too large"}}`))
			}
			return true
		},
	}
}

// misbehaving are targets that do what a well-behaved test server never
// does, each with the checks it concerns and the verdicts they must get:
// a server that dies, one that rate limits, one stream per session, a
// body limit that races the upload.
func misbehaving() []struct {
	name   string
	target func(t *testing.T, upstream string) (probe.Target, probe.Options)
	want   map[string]probe.Verdict
} {
	aimedAt := func(f flaw, only ...string) func(*testing.T, string) (probe.Target, probe.Options) {
		return func(t *testing.T, upstream string) (probe.Target, probe.Options) {
			target, err := probe.ParseTarget("http://" + startProxy(t, upstream, f) + "/mcp")
			if err != nil {
				t.Fatal(err)
			}
			opts := fullOptions()
			opts.Only = only
			return target, opts
		}
	}
	limited := map[string]probe.Verdict{}
	for id, v := range rawmcpVerdicts() {
		if strings.HasPrefix(id, "HO-") || strings.HasPrefix(id, "AU-") || id == "PRE-01" {
			limited[id] = v
		}
	}
	pass := func(id string) map[string]probe.Verdict {
		return map[string]probe.Verdict{"PRE-01": probe.Pass, id: probe.Pass}
	}
	return []struct {
		name   string
		target func(t *testing.T, upstream string) (probe.Target, probe.Options)
		want   map[string]probe.Verdict
	}{
		{"a foreign Origin kills the server after its 403", diesOnForeignOrigin, func() map[string]probe.Verdict {
			want := dyingVerdicts()
			want["PRE-03"] = probe.Fail
			return want
		}()},
		{"a limiter of 8 requests a second, Retry-After: 1", func(t *testing.T, upstream string) (probe.Target, probe.Options) {
			l := &limiter{perWindow: 8, window: time.Second, status: "429 Too Many Requests", retryAfter: "1"}
			return aimedAt(l.flaw(), "HO", "AU")(t, upstream)
		}, limited},
		{"one event stream per session, a second GET answered 409", aimedAt(flaw{deliver: oneStreamPerSession}, "DP-07"), pass("DP-07")},
		{"a 4 MiB body limit whose reset always overtakes its 413", aimedAt(limitsBodies(func() bool { return true }), "LF-01"), pass("LF-01")},
		{"a 4 MiB body limit whose 413 or reset comes first at random", aimedAt(limitsBodies(func() bool { return rand.IntN(2) == 0 }), "LF-01"), pass("LF-01")},
	}
}

// sameVerdictRuns is how many times TestSameTargetSameVerdicts probes
// each target.
const sameVerdictRuns = 5

// TestSameTargetSameVerdicts: each misbehaving target, probed again and
// again, gets the same verdicts every time, and the right ones: a
// -baseline gate that fails at random is no gate. Every run has its own
// server and front, so no run's leftovers reach another.
func TestSameTargetSameVerdicts(t *testing.T) {
	for _, tt := range misbehaving() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reports := make([]*probe.Report, sameVerdictRuns)
			var wg sync.WaitGroup
			for i := range reports {
				srv := startRawmcp(t)
				target, opts := tt.target(t, srv.Addr)
				wg.Go(func() { reports[i], _ = probe.Run(context.Background(), target, opts) })
			}
			wg.Wait()
			for i, rep := range reports {
				if rep == nil {
					t.Fatalf("run %d of %d: no report", i+1, sameVerdictRuns)
				}
				if diff := cmp.Diff(tt.want, verdicts(rep)); diff != "" {
					t.Errorf("run %d of %d: verdicts (-want +got):\n%s\n%s", i+1, sameVerdictRuns, diff, reasons(rep))
				}
			}
		})
	}
}
