package loadgen_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/client/loadgen"
	"rawmcp/wire/scenario"
)

// startFixture starts a rawmcp server with the profile's 8 sessions.
func startFixture(t *testing.T, configure func(*wire.Config)) *scenario.Fixture {
	t.Helper()
	tableCfg := state.DefaultConfig()
	f, err := scenario.Start(scenario.Options{TableConfig: &tableCfg, Configure: func(cfg *wire.Config) {
		cfg.OnDecision = nil
		if configure != nil {
			configure(cfg)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// runMain runs Main and decodes its -json result.
func runMain(t *testing.T, args ...string) (code int, res loadgen.Result, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = loadgen.Main(args, &out, &errOut)
	if code != loadgen.ExitUsage {
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("stdout is not the JSON result: %v", err)
		}
	}
	return code, res, out.String(), errOut.String()
}

// summary is the part of a Result that does not depend on timing.
type summary struct {
	Code     int
	Method   string
	Conns    int
	Sessions int
	Requests int64
	Failed   int64
	Errors   map[loadgen.Fault]int64
}

func summarize(code int, r loadgen.Result) summary {
	return summary{code, r.Method, r.Conns, r.Sessions, r.Requests, r.Failed, r.Errors}
}

func TestMainAgainstRawmcp(t *testing.T) {
	f := startFixture(t, nil)
	for _, tc := range []struct {
		name string
		args []string
		want summary
	}{
		{"T-59/ping on 4 connections sharing one session", []string{"-conns", "4", "-requests", "200", "-method", "ping"},
			summary{0, "ping", 4, 1, 200, 0, nil}},
		{"T-14/resources/list as SSE on 4 connections and 2 sessions", []string{"-conns", "4", "-sessions", "2", "-requests", "200", "-method", "resources"},
			summary{0, "resources", 4, 2, 200, 0, nil}},
		{"a single connection", []string{"-conns", "1", "-requests", "50"},
			summary{0, "ping", 1, 1, 50, 0, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-url", f.URL, "-token", f.Tokens["alice"], "-json"}, tc.args...)
			code, res, stdout, stderr := runMain(t, args...)
			if diff := cmp.Diff(tc.want, summarize(code, res)); diff != "" {
				t.Errorf("result (-want +got):\n%s\nstderr: %s", diff, stderr)
			}
			if res.Latency.P50 <= 0 || res.Latency.P50 > res.Latency.P90 || res.Latency.P90 > res.Latency.P99 || res.Latency.P99 > res.Latency.Max {
				t.Errorf("latencies out of order: %+v", res.Latency)
			}
			if strings.Contains(stdout+stderr, f.Tokens["alice"]) {
				t.Error("the output carries the bearer token")
			}
		})
	}
	// Every run ended its sessions: the profile's 8 places are all free.
	if n := f.Sessions.Len(time.Now()); n != 0 {
		t.Errorf("%d sessions left after the runs, want 0", n)
	}
}

// TestRenewsSessionOn404 moves the server's clock past the session TTL in
// the middle of a run: every connection's next request gets 404, one of
// them initializes a new session, and every request is still answered.
func TestRenewsSessionOn404(t *testing.T) {
	var offset atomic.Int64
	var decisions atomic.Int64
	f := startFixture(t, func(cfg *wire.Config) {
		cfg.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
		cfg.OnDecision = func(wire.Decision) {
			if decisions.Add(1) == 50 {
				offset.Store(int64(state.DefaultConfig().TTL + time.Second))
			}
		}
	})
	code, res, _, stderr := runMain(t, "-url", f.URL, "-token", f.Tokens["alice"], "-json", "-conns", "4", "-requests", "300")
	if diff := cmp.Diff(summary{0, "ping", 4, 1, 300, 0, nil}, summarize(code, res)); diff != "" {
		t.Errorf("result (-want +got):\n%s\nstderr: %s", diff, stderr)
	}
	if res.SessionsRenewed != 1 {
		t.Errorf("sessions renewed = %d, want 1: one connection initializes, the others use its session", res.SessionsRenewed)
	}
}

// TestHandshakeRefused: a token the server refuses stops the run before
// any load, with the step and status named and the token not printed.
func TestHandshakeRefused(t *testing.T) {
	f := startFixture(t, nil)
	for _, tc := range []struct {
		name, token string
	}{
		{"A-10/an expired token", f.Tokens["expired"]},
		{"A-08/no token", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stdout, stderr := runMain(t, "-url", f.URL, "-token", tc.token, "-requests", "10")
			want := "rawmcp bench: " + (&loadgen.StepError{Step: "initialize", Status: 401, Fault: loadgen.FaultStatus}).Error() + "\n"
			if code != loadgen.ExitUsage || stdout != "" || stderr != want {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, nothing, %q", code, stdout, stderr, loadgen.ExitUsage, want)
			}
		})
	}
}

// TestProgress: a run by duration writes progress lines to stderr while it
// lasts.
func TestProgress(t *testing.T) {
	f := startFixture(t, nil)
	code, res, _, stderr := runMain(t, "-url", f.URL, "-token", f.Tokens["alice"], "-json", "-conns", "2",
		"-duration", "300ms", "-progress", "50ms")
	if code != loadgen.ExitOK || res.Failed != 0 || res.Requests == 0 {
		t.Fatalf("exit %d, %d requests, %d failed", code, res.Requests, res.Failed)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "bench: ") {
		t.Errorf("progress on stderr = %q, want a line every 50ms", stderr)
	}
	if res.Seconds < 0.3 {
		t.Errorf("ran %.3fs, want at least the 300ms asked for", res.Seconds)
	}
}

func TestMainUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no -url", []string{"-requests", "10"}},
		{"an unknown method", []string{"-url", "http://127.0.0.1:1/mcp", "-method", "tools/call"}},
		{"both -duration and -requests", []string{"-url", "http://127.0.0.1:1/mcp", "-duration", "1s", "-requests", "10"}},
		{"more sessions than connections", []string{"-url", "http://127.0.0.1:1/mcp", "-conns", "2", "-sessions", "3"}},
		{"no connections", []string{"-url", "http://127.0.0.1:1/mcp", "-conns", "0"}},
		{"a stray argument", []string{"-url", "http://127.0.0.1:1/mcp", "extra"}},
		{"an unknown flag", []string{"-rate", "100"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := loadgen.Main(tc.args, &out, &errOut); code != loadgen.ExitUsage || out.Len() != 0 || errOut.Len() == 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, nothing, a complaint", code, out.String(), errOut.String(), loadgen.ExitUsage)
			}
		})
	}
}

// TestMainHelp: -h prints the usage on stderr and is no usage error, as
// -h on every other rawmcp command.
func TestMainHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	code := loadgen.Main([]string{"-h"}, &out, &errOut)
	if code != loadgen.ExitOK || out.Len() != 0 || !strings.HasPrefix(errOut.String(), "usage: rawmcp bench -url ") {
		t.Errorf("exit %d, stdout %q, stderr %q; want %d, nothing, the usage", code, out.String(), errOut.String(), loadgen.ExitOK)
	}
}

// TestSessionsEnded: a run ends every session it made, even when its
// setup connection idled out meanwhile, and even when the run could not
// start because the server refused one of them.
func TestSessionsEnded(t *testing.T) {
	f := startFixture(t, func(cfg *wire.Config) {
		// An idle timeout a busy connection never meets even on a loaded
		// machine (a 100 ms one cut load connections between two requests
		// there), and a run well past it, so the setup connection idles out.
		cfg.SSERetry = 50 * time.Millisecond
		cfg.IdleTimeout = time.Second
	})
	t.Run("after a run longer than the server's idle timeout", func(t *testing.T) {
		code, res, _, stderr := runMain(t, "-url", f.URL, "-token", f.Tokens["alice"], "-json", "-conns", "3", "-sessions", "3", "-duration", "2500ms")
		if code != loadgen.ExitOK || res.Failed != 0 {
			t.Fatalf("exit %d, %d failed; stderr %s", code, res.Failed, stderr)
		}
		if n := f.Sessions.Len(time.Now()); n != 0 {
			t.Errorf("%d sessions left, want 0", n)
		}
	})
	t.Run("T-P18/after the server refused the ninth session", func(t *testing.T) {
		code, _, _, stderr := runMain(t, "-url", f.URL, "-token", f.Tokens["alice"], "-conns", "9", "-sessions", "9", "-requests", "9")
		want := "rawmcp bench: " + (&loadgen.StepError{Step: "initialize", Status: 503, Fault: loadgen.FaultStatus}).Error() + "\n"
		if code != loadgen.ExitUsage || stderr != want {
			t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr, loadgen.ExitUsage, want)
		}
		if n := f.Sessions.Len(time.Now()); n != 0 {
			t.Errorf("%d sessions left, want 0", n)
		}
	})
}
