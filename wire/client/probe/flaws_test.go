package probe_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client"
	"rawmcp/wire/client/probe"
)

// flawCase is one deliberate break of a correct server and the check
// that must notice it. The proxy applies the flaw in front of rawmcp;
// everything else about the server stays correct, so every other verdict
// must stay what it is without the proxy. The tables are by group, in
// flaws_<group>_test.go.
type flawCase struct {
	check string        // the check that must notice
	name  string        // what is broken
	flaw  flaw          // how the proxy breaks it
	want  probe.Verdict // the check's verdict with -strict
	// also are the checks that build on the broken behaviour and so
	// cannot keep their verdict (SE-04 needs a DELETE that works), with
	// the verdict each must get instead.
	also map[string]probe.Verdict
	// says is what the check's reason must contain: it noticed this
	// flaw, not another (and for PV-04, which is informational and never
	// changes verdict, it is the only evidence).
	says string
	// front, if set, stands in front of the server instead of the flaw
	// proxy and says how the run reaches it (TLS, a public name, no
	// token), for the deployment checks; base is what the same front
	// earns without the flaw.
	front func(t *testing.T, upstream string) (probe.Target, probe.Options)
	base  func() map[string]probe.Verdict
}

// allFlaws are the flaws of every group.
func allFlaws() []flawCase {
	return slices.Concat(preFlaws, hoFlaws, mmFlaws, pvFlaws, seFlaws, jrFlaws, auFlaws, rsFlaws, lfFlaws, ehFlaws, dpFlaws)
}

// flawFor is the flaw case of check.
func flawFor(t *testing.T, check string) flawCase {
	for _, fc := range allFlaws() {
		if fc.check == check {
			return fc
		}
	}
	t.Fatalf("no flaw for %s", check)
	return flawCase{}
}

// flawedRuns is how many flawed targets are probed at once: each run is
// mostly waiting (LF-07's trickle, stream windows), but LF-01's 8 MiB
// and the race detector make too many at once slow on a small machine.
const flawedRuns = 12

// TestEachFlawFailsItsCheck: against rawmcp behind a proxy with one flaw,
// exactly the check for that flaw changes verdict (and the checks that
// build on the broken behaviour, each named); the proxy without a flaw
// changes none. Every flawed target gets one full run, so "nothing else
// changed" covers the whole catalogue.
func TestEachFlawFailsItsCheck(t *testing.T) {
	cases := append([]flawCase{{name: "no flaw: the proxy changes nothing"}}, allFlaws()...)
	reports := make([]*probe.Report, len(cases))
	errs := make([]error, len(cases))
	slots := make(chan struct{}, flawedRuns)
	var wg sync.WaitGroup
	for i, tt := range cases {
		srv := startRawmcp(t)
		addr := startProxy(t, srv.Addr, tt.flaw)
		target, err := probe.ParseTarget("http://" + addr + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		opts := fullOptions()
		if tt.front != nil {
			target, opts = tt.front(t, srv.Addr)
		}
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			reports[i], errs[i] = probe.Run(context.Background(), target, opts)
		})
	}
	wg.Wait()
	for i, tt := range cases {
		t.Run(tt.check+"/"+tt.name, func(t *testing.T) {
			rep, err := reports[i], errs[i]
			if rep == nil {
				t.Fatalf("Run: %v", err)
			}
			want := rawmcpVerdicts()
			if tt.base != nil {
				want = tt.base()
			}
			if tt.check == "PRE-01" {
				// The preflight gates the run: a target that fails it is
				// probed no further.
				want = map[string]probe.Verdict{"PRE-01": tt.want}
				if !errors.Is(err, probe.ErrNotMCP) {
					t.Errorf("error %v, want ErrNotMCP", err)
				}
			} else if tt.check != "" {
				want[tt.check] = tt.want
			}
			for id, v := range tt.also {
				want[id] = v
			}
			if diff := cmp.Diff(want, verdicts(rep)); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s\n%s", diff, reasons(rep))
			}
			for _, res := range rep.Results {
				if res.Check.ID != tt.check {
					continue
				}
				if strings.TrimSpace(res.Reason) == "" {
					t.Errorf("%s %s without a reason", tt.check, res.Verdict)
				}
				if !strings.Contains(res.Reason, tt.says) {
					t.Errorf("%s reason %q, want it to say %q", tt.check, res.Reason, tt.says)
				}
			}
		})
	}
}

// TestEveryCheckHasAFlaw: every check of the catalogue has a flaw case,
// and every flaw case names a check of the catalogue, so a check cannot
// land without a test that makes it fail.
func TestEveryCheckHasAFlaw(t *testing.T) {
	catalogue := map[string]bool{}
	for _, c := range probe.Catalogue() {
		catalogue[c.ID] = true
	}
	covered := map[string]bool{}
	flaws := allFlaws()
	for _, mf := range v2Flaws {
		flaws = append(flaws, mf.flawCase)
	}
	for _, fc := range flaws {
		if fc.says == "" {
			t.Errorf("flaw %q says nothing: name what %s's reason must contain", fc.name, fc.check)
		}
		if !catalogue[fc.check] {
			t.Errorf("flaw %q names %q, which is no check of the catalogue", fc.name, fc.check)
		}
		covered[fc.check] = true
	}
	for _, c := range probe.Catalogue() {
		if !covered[c.ID] {
			t.Errorf("%s has no flaw case: add one to flaws_%s_test.go", c.ID, strings.ToLower(c.Group))
		}
	}
}

// TestHardeningWarnsWithoutStrict: a hardening check not met is a warn
// unless -strict, which makes it a fail; a MUST fails either way.
func TestHardeningWarnsWithoutStrict(t *testing.T) {
	for _, tt := range []struct {
		check string
		want  probe.Verdict
	}{
		{"HO-01", probe.Warn},
		{"HO-02", probe.Fail},
	} {
		t.Run(tt.check, func(t *testing.T) {
			t.Parallel()
			srv := startRawmcp(t)
			opts := fullOptions()
			opts.Strict, opts.Only = false, []string{tt.check}
			rep := run(t, startProxy(t, srv.Addr, flawFor(t, tt.check).flaw), opts)
			if got := verdicts(rep)[tt.check]; got != tt.want {
				t.Errorf("%s = %s, want %s\n%s", tt.check, got, tt.want, reasons(rep))
			}
		})
	}
}

// TestEchoScanSaysWhatItCannotSee (A-P07): a token shorter than
// client.MinSecret is not looked for in the answers, its bytes occurring
// by chance; EH-01 still passes and says so. The proxy stands the short
// token in for alice's.
func TestEchoScanSaysWhatItCannotSee(t *testing.T) {
	const short = "t0ken"
	srv := startRawmcp(t)
	addr := startProxy(t, srv.Addr, flaw{request: func(_ *flawProxy, r *proxied) []byte {
		if r.get("Authorization") == "Bearer "+short {
			r.set("Authorization", "Bearer "+alice)
		}
		return nil
	}})
	opts := fullOptions()
	opts.Token, opts.Only = short, []string{"EH-01"}
	rep := run(t, addr, opts)
	for _, res := range rep.Results {
		if res.Check.ID != "EH-01" {
			continue
		}
		if res.Verdict != probe.Pass || !strings.HasSuffix(res.Reason, " (1 token shorter than 8 bytes not looked for)") {
			t.Errorf("EH-01 %s: %s, want a pass that names the token not looked for", res.Verdict, res.Reason)
		}
		return
	}
	t.Errorf("no EH-01 result:\n%s", reasons(rep))
}

// TestTraceOfSessionIDOne (A-P07): against a target whose session id is
// "1" the trace hides the id in its header fields, request and response,
// and nowhere else: the status lines read HTTP/1.1 200 OK. The proxy
// stands "1" in for the first id the server issues, both ways.
func TestTraceOfSessionIDOne(t *testing.T) {
	type firstID struct {
		sync.Mutex
		id string
	}
	srv := startRawmcp(t)
	addr := startProxy(t, srv.Addr, flaw{
		request: func(p *flawProxy, r *proxied) []byte {
			f := stateOf[firstID](p, "first id")
			f.Lock()
			defer f.Unlock()
			if f.id != "" && r.get("Mcp-Session-Id") == "1" {
				r.set("Mcp-Session-Id", f.id)
			}
			return nil
		},
		response: func(p *flawProxy, _ *proxied, ans []byte) []byte {
			f := stateOf[firstID](p, "first id")
			f.Lock()
			defer f.Unlock()
			_, rest, ok := bytes.Cut(ans, []byte("\r\nMcp-Session-Id: "))
			if !ok {
				return ans
			}
			id, _, _ := bytes.Cut(rest, []byte("\r\n"))
			if f.id == "" {
				f.id = string(id)
			}
			if string(id) != f.id {
				return ans
			}
			return bytes.Replace(ans, []byte("Mcp-Session-Id: "+f.id+"\r\n"), []byte("Mcp-Session-Id: 1\r\n"), 1)
		},
	})
	var trace bytes.Buffer
	opts := fullOptions()
	opts.Only, opts.Trace = []string{"PRE-01"}, &trace
	run(t, addr, opts)
	out := trace.String()
	label := client.SessionLabel("1")
	for _, want := range []string{"< HTTP/1.1 200 OK\n", "< Mcp-Session-Id: " + label + "\n", "> Mcp-Session-Id: " + label + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the trace has no line %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "HTTP/"+label) || strings.Contains(out, "Mcp-Session-Id: 1\n") {
		t.Errorf("the trace shows the id out of place or in its field:\n%s", out)
	}
}

// TestStalledOpenNamesTheBoundThatEnded: a session whose initialize is
// answered with an event stream that never brings the result, in a run
// whose budget ends before -timeout would: the check's reason says the
// check's time ran out, not that a longer -timeout would help.
func TestStalledOpenNamesTheBoundThatEnded(t *testing.T) {
	srv := startRawmcp(t)
	addr := startProxy(t, srv.Addr, flaw{deliver: func(p *flawProxy, r *proxied, answer []byte, nc net.Conn) bool {
		// PRE-01's initialize with the token is answered; MM-06's stalls.
		if _, method, _ := bodyOf(r); method == "initialize" && r.get("Authorization") != "" && stateOf[atomic.Int32](p, "initializes").Add(1) > 1 {
			if _, err := nc.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")); err == nil {
				holdOpen(nc)
			}
			return false
		}
		_, err := nc.Write(answer)
		return err == nil
	}})
	opts := fullOptions()
	opts.Only, opts.Budget = []string{"MM-06"}, 3*time.Second
	rep := run(t, addr, opts)
	for _, res := range rep.Results {
		if res.Check.ID != "MM-06" {
			continue
		}
		const want = "not finished: the 3s budget ran out (error so far: could not open a session: initialize answered 200 text/event-stream, but its result had not come "
		if !strings.HasPrefix(res.Reason, want) || !strings.HasSuffix(res.Reason, " later, when the check's time ran out)") {
			t.Errorf("MM-06 %s: %s\nwant the budget named, not -timeout", res.Verdict, res.Reason)
		}
		return
	}
	t.Errorf("no MM-06 result:\n%s", reasons(rep))
}
