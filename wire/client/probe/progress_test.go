package probe_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe"
)

// TestRunReportsProgress: Options.Progress hears every check of the run
// finish once, with the verdict the report gives it, and every check
// that ran start before it finishes; Planned counts them beforehand.
// PRE-03, the run's last word, is heard even when the report leaves out
// its pass because it was not selected.
func TestRunReportsProgress(t *testing.T) {
	srv := startRawmcp(t)
	opts := probe.Options{Token: alice, Only: []string{"HO", "PV", "SE-07"}}
	var mu sync.Mutex
	var events []probe.Progress
	opts.Progress = func(p probe.Progress) {
		mu.Lock()
		events = append(events, p)
		mu.Unlock()
	}
	rep := run(t, srv.Addr, opts)
	finished := map[string]probe.Verdict{}
	started := map[string]bool{}
	for _, e := range events {
		if e.Verdict == "" {
			started[e.ID] = true
			continue
		}
		if _, twice := finished[e.ID]; twice {
			t.Errorf("%s finished twice", e.ID)
		}
		finished[e.ID] = e.Verdict
	}
	want := verdicts(rep)
	if _, reported := want["PRE-03"]; !reported {
		want["PRE-03"] = probe.Pass
	}
	if diff := cmp.Diff(want, finished); diff != "" {
		t.Errorf("finished (-report +progress):\n%s", diff)
	}
	for _, res := range rep.Results {
		if res.Verdict != probe.Skip && !started[res.Check.ID] {
			t.Errorf("%s ran (%s) but was never said to start", res.Check.ID, res.Verdict)
		}
	}
	if n := probe.Planned(opts); n != len(finished) {
		t.Errorf("Planned %d, progress heard %d finish", n, len(finished))
	}
}

// fakeClock advances by step each time it is read.
func fakeClock(step time.Duration) func() time.Time {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	return func() time.Time {
		t := now
		now = now.Add(step)
		return t
	}
}

// TestProgressLine: in a pipe, one line per finished check, nothing for
// a start; on a terminal, one line redrawn in place naming the running
// checks (three at most), cleared at the end; an exploration shows its
// walks.
func TestProgressLine(t *testing.T) {
	var pipe bytes.Buffer
	l := probe.NewProgressLine(&pipe, 3, false, fakeClock(700*time.Millisecond))
	l.Step(probe.Progress{ID: "PRE-01"})
	l.Step(probe.Progress{ID: "PRE-01", Verdict: probe.Pass})
	l.Tick()
	l.Step(probe.Progress{ID: "HO-02", Verdict: probe.Fail})
	l.Walk(1, 50)
	l.Close()
	want := "probe: 1/3 pass  PRE-01 (700ms)\nprobe: 2/3 fail  HO-02 (1.4s)\nprobe: explore: walks 1 of 50 (2.1s)\n"
	if diff := cmp.Diff(want, pipe.String()); diff != "" {
		t.Errorf("in a pipe (-want +got):\n%s", diff)
	}

	var term bytes.Buffer
	l = probe.NewProgressLine(&term, 68, true, fakeClock(time.Second))
	l.Tick()
	for _, id := range []string{"HO-01", "HO-02", "AU-03", "LF-07"} {
		l.Step(probe.Progress{ID: id})
	}
	l.Step(probe.Progress{ID: "HO-02", Verdict: probe.Fail})
	l.Close()
	draws := strings.Split(term.String(), "\r\x1b[K")
	wantDraws := []string{"",
		"probe: 0/68 checks, 1s",
		"probe: 0/68 checks, 2s; running HO-01",
		"probe: 0/68 checks, 3s; running HO-01, HO-02",
		"probe: 0/68 checks, 4s; running HO-01, HO-02, AU-03",
		"probe: 0/68 checks, 5s; running HO-01, HO-02, AU-03 and 1 more",
		"probe: 1/68 checks, 6s; running HO-01, AU-03, LF-07",
		"",
	}
	if diff := cmp.Diff(wantDraws, draws); diff != "" {
		t.Errorf("on a terminal (-want +got):\n%s", diff)
	}
	if strings.Contains(term.String(), "\n") {
		t.Error("the live line wrote a newline: it must redraw in place")
	}
}
