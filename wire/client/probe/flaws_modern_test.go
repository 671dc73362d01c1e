package probe_test

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe"
)

// boundaryGroups are the groups judged on whichever revision the target
// speaks.
var boundaryGroups = []string{"PRE", "HO", "MM", "JR", "AU", "RS", "LF", "EH", "DP"}

// needsSession begins the runner's skip of a boundary check that needs
// a 2025-11-25 session, on a target that has none to give; what of the
// session follows.
const needsSession = "needs a target that speaks MCP 2025-11-25, for "

// outcomeOf is a result as the table below writes it: the verdict, and
// for a skip its reason up to the first colon, a 2025-11-25 session's
// up to what of it the check needs.
func outcomeOf(res probe.Result) string {
	switch {
	case res.Verdict != probe.Skip:
		return string(res.Verdict)
	case strings.HasPrefix(res.Reason, needsSession):
		return "skip: " + needsSession + "…"
	}
	why, _, _ := strings.Cut(res.Reason, ":")
	return "skip: " + why
}

// TestModernOnlyTargetGetsTheBoundary: the boundary's checks judge a
// server that speaks only 2026-07-28 through its own requests: the
// modern-only reference, correct at the boundary, passes every one that
// has a modern form, with and without a token; what still skips needs a
// 2025-11-25 session (its id, its GET stream, notifications/initialized,
// its streams' resumption and timing, its affinity, its headers across a
// hop), an option the run lacks, or a TLS URL.
func TestModernOnlyTargetGetsTheBoundary(t *testing.T) {
	session := "skip: " + needsSession + "…"
	common := map[string]string{
		"PRE-01": "pass", "PRE-02": session, "PRE-03": "pass",
		"HO-01": "pass", "HO-02": "pass", "HO-03": "pass", "HO-04": "pass", "HO-05": "pass", "HO-06": "pass",
		"MM-01": "pass", "MM-02": "pass", "MM-03": "pass", "MM-04": session, "MM-05": "pass", "MM-06": session, "MM-07": "pass",
		"JR-01": "pass", "JR-02": "pass", "JR-03": "pass", "JR-04": "pass", "JR-05": "pass", "JR-06": "pass",
		"JR-07": "pass", "JR-08": "pass", "JR-09": "pass", "JR-10": "pass", "JR-11": "pass",
		"RS-01": session, "RS-02": session, "RS-03": session, "RS-04": "pass",
		"LF-01": "pass", "LF-02": "pass", "LF-03": "pass", "LF-04": "pass", "LF-05": "pass", "LF-06": "pass", "LF-07": "pass", "LF-08": "pass",
		"EH-01": "pass", "EH-02": "pass",
		"DP-01": "pass", "DP-02": "skip: loopback", "DP-03": "skip: loopback", "DP-06": session, "DP-07": session, "DP-08": "skip: needs -slow (it holds a stream up to 3s)",
		"DP-09": session, "DP-10": "pass", "DP-11": "pass", "DP-12": "info",
	}
	unprotected := "skip: needs a target that refuses requests without a token"
	for _, tt := range []struct {
		name  string
		ref   modernRef
		opts  probe.Options
		other map[string]string
	}{
		{"without a token", modernRef{}, probe.Options{Strict: true}, map[string]string{
			"AU-01": "skip: the target serves requests without a token", "AU-02": unprotected, "AU-03": unprotected, "AU-04": unprotected, "AU-05": "skip: needs -token",
			"AU-06": "skip: needs -token", "AU-07": "skip: needs -tokens", "AU-08": "skip: needs -tokens", "AU-09": "skip: needs -tokens",
			"AU-10": "skip: needs -token", "AU-11": unprotected, "DP-04": unprotected, "DP-05": unprotected,
		}},
		{"with alice's token and the named ones", modernRef{token: alice, lowScope: lowScope}, probe.Options{Token: alice, Named: named, Strict: true}, map[string]string{
			"AU-01": "pass", "AU-02": "pass", "AU-03": "pass", "AU-04": "pass", "AU-05": "pass", "AU-06": "pass", "AU-07": "pass", "AU-08": "pass",
			"AU-09": "pass", "AU-10": "pass", "AU-11": "pass", "DP-04": "pass", "DP-05": "pass",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.opts.Only, tt.opts.Timeout = boundaryGroups, 20*time.Second
			rep := run(t, startModernRef(t, tt.ref), tt.opts)
			want := map[string]string{}
			for _, m := range []map[string]string{common, tt.other} {
				for id, o := range m {
					want[id] = o
				}
			}
			got := map[string]string{}
			for _, res := range rep.Results {
				got[res.Check.ID] = outcomeOf(res)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s\n%s", diff, reasons(rep))
			}
		})
	}
}

// servesGetAndDelete answers a GET with an event stream and a DELETE
// with 204, as a 2025-11-25 server does on a session.
func servesGetAndDelete(r *proxied) []byte {
	if r.method == "GET" {
		return []byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nX-Accel-Buffering: no\r\nContent-Length: 0\r\n\r\n")
	}
	return []byte("HTTP/1.1 204 No Content\r\n\r\n")
}

// deepMember is JR-07's nested member beside the modern _meta.
var deepMember = regexp.MustCompile(`"x":\[+\]+,`)

// modernFormFlaw is a flaw of a boundary check's modern form, shown on
// the modern-only reference (alice's token required) behind the proxy.
// Most breaks are HTTP's whatever the revision, and the row says so:
// the group table's flaw, verdict and reason (sameAsLegacy; a says of
// the row's own replaces the table's where the reason names the revision)
// make the check fail on 2026-07-28 requests as on 2025-11-25 ones. The
// rest are their own.
type modernFormFlaw struct {
	flawCase
	sameAsLegacy bool
}

var modernFormFlaws = []modernFormFlaw{
	{sameAsLegacy: true, flawCase: flawCase{check: "HO-01"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "HO-02"}},
	// 2026-07-28 serves no GET or DELETE: the flaw serves them anyway.
	{flawCase: flawCase{check: "HO-03", name: "a foreign Origin is served a GET stream and a DELETE", want: probe.Fail, says: "GET answered 200 and DELETE answered 204, not 403",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method != "POST" && r.get("Origin") == "http://evil.example" {
				return servesGetAndDelete(r)
			}
			return nil
		}}}},
	{sameAsLegacy: true, flawCase: flawCase{check: "HO-04"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "HO-05"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "HO-06"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "MM-01"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "MM-02"}},
	{flawCase: flawCase{check: "MM-03", name: "a GET accepting only application/json gets a stream", want: probe.Fail, says: "served a GET whose Accept",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "GET" && r.path == "/mcp" && r.get("Accept") == "application/json" {
				return servesGetAndDelete(r)
			}
			return nil
		}}}},
	{sameAsLegacy: true, flawCase: flawCase{check: "JR-01", says: "a batch with MCP-Protocol-Version: 2026-07-28 answered 200"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "JR-02"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "JR-03"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "JR-04"}},
	{flawCase: flawCase{check: "JR-05", name: "of two method members the last wins", want: probe.Fail, says: "took the last of two method members and ran server/discover",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			r.body = bytes.Replace(r.body, []byte(`"method":"rawmcp-probe/no-such-method","method":"server/discover"`), []byte(`"method":"server/discover"`), 1)
			return nil
		}}}},
	{sameAsLegacy: true, flawCase: flawCase{check: "JR-06"}},
	{flawCase: flawCase{check: "JR-07", name: "a 10 000-deep document is served", want: probe.Fail, says: "was parsed and served",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			r.body = deepMember.ReplaceAll(r.body, nil)
			return nil
		}}}},
	{flawCase: flawCase{check: "JR-08", name: "truncated JSON is completed and served", want: probe.Fail, says: "truncated JSON answered 200",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if bytes.HasSuffix(r.body, []byte(`"method":"se`)) {
				r.body = append(r.body, `rver/discover","params":{"_meta":`+modernMeta+`}}`...)
			}
			return nil
		}}}},
	{sameAsLegacy: true, flawCase: flawCase{check: "JR-09"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "EH-01"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "LF-01"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "LF-04"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "LF-05"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "LF-06"}},
	{flawCase: flawCase{check: "AU-01", name: "server/discover without a token gets 401 without a challenge", want: probe.Fail, says: "401 without WWW-Authenticate",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if r.get("Authorization") == "" && r.get("Mcp-Method") == "server/discover" && r.get("Origin") == "" && r.get("X-Forwarded-Host") == "" {
				return withoutField(ans, "WWW-Authenticate")
			}
			return ans
		}}}},
	{sameAsLegacy: true, flawCase: flawCase{check: "AU-02"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "AU-03"}},
	// net/http writes the field Www-Authenticate: the flaw finds it by
	// its name, whatever its case.
	{flawCase: flawCase{check: "AU-04", name: "Basic credentials get an error code", want: probe.Warn, says: "with Authorization: Basic: 401 with error=",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if challenge := field(ans, "WWW-Authenticate"); strings.HasPrefix(r.get("Authorization"), "Basic ") && challenge != "" {
				return withField(withoutField(ans, "WWW-Authenticate"), "WWW-Authenticate", challenge+`, error="invalid_token"`)
			}
			return ans
		}}}},
	{sameAsLegacy: true, flawCase: flawCase{check: "AU-05"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "AU-06"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "AU-07"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "AU-08"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "AU-09", says: "(server/discover, resources/list, tools/list and prompts/list): scope is not enforced"}},
	{flawCase: flawCase{check: "AU-10", name: "GET and DELETE are served without a token", want: probe.Fail, says: "GET answered 200 text/event-stream and DELETE answered 204, not 401",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method != "POST" && r.path == "/mcp" && r.get("Authorization") == "" {
				return servesGetAndDelete(r)
			}
			return nil
		}}}},
	{sameAsLegacy: true, flawCase: flawCase{check: "AU-11"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "DP-01"}},
	// The twin's request is the target's revision's: a twin that serves
	// it is seen by what it served, a DiscoverResult.
	{flawCase: flawCase{check: "DP-03", name: "the cleartext twin serves server/discover, with its own credential", want: probe.Warn,
		says: "POST server/discover answered 200 application/json with a result, a DiscoverResult naming 2026-07-28: MCP in cleartext",
		front: func(t *testing.T, upstream string) (probe.Target, probe.Options) {
			return modernOverTLS(t, upstream, gatewayTwin)
		}}},
	{sameAsLegacy: true, flawCase: flawCase{check: "DP-04"}},
	{flawCase: flawCase{check: "DP-05", name: "X-Forwarded-Host trusted", want: probe.Fail, says: "server/discover without a token, with forwarded headers: evil.example in",
		flaw: flaw{response: trustsForwardedHost}}},
	{sameAsLegacy: true, flawCase: flawCase{check: "DP-10"}},
	{sameAsLegacy: true, flawCase: flawCase{check: "DP-12"}},
}

// modernFormVerdicts is what the clean modern-only reference earns on
// the checks with a modern form, with -strict, alice's token and the
// named ones: every one passes but DP-12, which finds no CORS at all,
// and DP-03, which skips: an http URL has no cleartext twin (its row
// puts the reference behind TLS, and TestDP03OnAModernOnlyTarget holds
// what a clean twin earns there).
func modernFormVerdicts() map[string]probe.Verdict {
	want := map[string]probe.Verdict{"PRE-01": probe.Pass}
	for _, id := range probe.ModernForms() {
		want[id] = probe.Pass
	}
	want["DP-12"] = probe.Info
	want["DP-03"] = probe.Skip
	return want
}

// TestEveryModernFormHasAFlaw: a boundary check judged through the
// opening request on a 2026-07-28-only target is seen to fail there.
func TestEveryModernFormHasAFlaw(t *testing.T) {
	var rows []string
	for _, fc := range modernFormFlaws {
		rows = append(rows, fc.check)
	}
	var missing []string
	for _, id := range probe.ModernForms() {
		if !slices.Contains(rows, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		t.Errorf("modern forms without a row in modernFormFlaws: %v", missing)
	}
}

// TestEachModernFormFlawFailsItsCheck: against the modern-only reference
// behind a proxy with one flaw, the checks with a modern form keep their
// verdicts but the flawed one (and those that rest on it), which says
// why; the proxy without a flaw changes none. A row with a front (DP-01:
// a cleartext gateway on a public name; DP-03: a TLS front and its
// cleartext twin) runs its check alone.
func TestEachModernFormFlawFailsItsCheck(t *testing.T) {
	cases := []modernFormFlaw{{flawCase: flawCase{name: "no flaw: the reference passes"}}}
	for _, fc := range modernFormFlaws {
		if fc.sameAsLegacy {
			says := fc.says
			fc.flawCase = flawFor(t, fc.check)
			if says != "" {
				fc.says = says
			}
		}
		cases = append(cases, fc)
	}
	reports := make([]*probe.Report, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	for i, tt := range cases {
		upstream := startModernRef(t, modernRef{token: alice, lowScope: lowScope})
		// As fullOptions: many runs at once on a loaded machine, where a
		// slow answer must not read as a missing one.
		opts := probe.Options{Token: alice, Named: named, Strict: true, Only: probe.ModernForms(), Timeout: 20 * time.Second}
		var target probe.Target
		if tt.front != nil {
			target, opts = tt.front(t, upstream)
			opts.Only = []string{tt.check}
		} else {
			var err error
			if target, err = probe.ParseTarget("http://" + startProxy(t, upstream, tt.flaw) + "/mcp"); err != nil {
				t.Fatal(err)
			}
		}
		wg.Go(func() { reports[i], errs[i] = probe.Run(context.Background(), target, opts) })
	}
	wg.Wait()
	for i, tt := range cases {
		t.Run(tt.check+"/"+tt.name, func(t *testing.T) {
			rep := reports[i]
			if rep == nil {
				t.Fatalf("Run: %v", errs[i])
			}
			want := modernFormVerdicts()
			if tt.front != nil {
				want = map[string]probe.Verdict{"PRE-01": probe.Pass}
			}
			if tt.check != "" {
				want[tt.check] = tt.want
			}
			for id, v := range tt.also {
				if _, run := want[id]; run {
					want[id] = v
				}
			}
			if diff := cmp.Diff(want, verdicts(rep)); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s\n%s", diff, reasons(rep))
			}
			for _, res := range rep.Results {
				if res.Check.ID == tt.check && !strings.Contains(res.Reason, tt.says) {
					t.Errorf("%s reason %q, want it to say %q", tt.check, res.Reason, tt.says)
				}
				if res.Check.ID == tt.check && !slices.ContainsFunc(res.Exchanges, func(x probe.Exchange) bool { return strings.Contains(x.Request, "MCP-Protocol-Version: 2026-07-28") }) {
					t.Errorf("%s sent no 2026-07-28 request: its modern form did not run", tt.check)
				}
			}
		})
	}
}
