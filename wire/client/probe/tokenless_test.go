package probe_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe"
)

// TestRunWithoutTheTokenItNeeds: against rawmcp, which asks for a token,
// a run without one is not stopped at PRE-01: it judges what needs no
// token (Host, Origin, methods, framing, the 401 and its challenge, the
// metadata, the scans and the schema check of what came back) and skips everything else with
// "needs -token", a 401 never taken for the refusal a check asked about.
func TestRunWithoutTheTokenItNeeds(t *testing.T) {
	srv := startRawmcp(t)
	rep := run(t, srv.Addr, probe.Options{Strict: true})
	judged := map[string]probe.Verdict{
		"PRE-01": probe.Pass, "PRE-03": probe.Pass,
		"HO-01": probe.Pass, "HO-02": probe.Pass, "HO-04": probe.Pass, "HO-06": probe.Pass,
		"MM-01": probe.Pass, "MM-02": probe.Pass, "MM-05": probe.Pass, "MM-07": probe.Pass,
		"JR-10": probe.Pass, "JR-11": probe.Pass,
		"AU-01": probe.Pass, "AU-02": probe.Pass, "AU-03": probe.Pass, "AU-04": probe.Pass, "AU-11": probe.Pass,
		"LF-02": probe.Pass, "LF-03": probe.Pass, "LF-04": probe.Pass, "LF-05": probe.Pass, "LF-06": probe.Pass, "LF-07": probe.Pass, "LF-08": probe.Pass,
		"EH-02": probe.Pass,
		"DP-01": probe.Pass, "DP-04": probe.Pass, "DP-05": probe.Pass, "DP-11": probe.Pass, "DP-12": probe.Info,
		// A plain http URL on loopback: no TLS, no twin, token or not.
		"DP-02": probe.Skip, "DP-03": probe.Skip,
	}
	want := map[string]probe.Verdict{}
	for _, c := range probe.Catalogue() {
		want[c.ID] = probe.Skip
		if v, ok := judged[c.ID]; ok {
			want[c.ID] = v
		}
	}
	if diff := cmp.Diff(want, verdicts(rep)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s\n%s", diff, reasons(rep))
	}
	for _, res := range rep.Results {
		if _, ok := judged[res.Check.ID]; !ok && !strings.HasPrefix(res.Reason, "needs -token") {
			t.Errorf("%s skipped with %q, want it to say it needs -token", res.Check.ID, res.Reason)
		}
	}
	if rep.Results[0].Reason != `the target requires a token (initialize answered 401): without -token the run judges what needs none, by 2025-11-25's rules (the revision it negotiates is unknown); the rest skips with "needs -token"` {
		t.Errorf("PRE-01: %s", rep.Results[0].Reason)
	}
}
