package probe_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe"
)

// TestFailureCarriesExpectedAndActual: a check that fails says what it
// expected and what came back, beside its one-line reason; a pass carries
// neither.
func TestFailureCarriesExpectedAndActual(t *testing.T) {
	srv := startRawmcp(t)
	addr := startProxy(t, srv.Addr, flaw{request: func(_ *flawProxy, r *proxied) []byte {
		if r.method == "POST" && r.get("Origin") == "http://evil.example" {
			r.drop("Origin")
		}
		return nil
	}})
	rep := run(t, addr, probe.Options{Token: alice, Only: []string{"HO-01", "HO-02"}})
	type evidence struct{ Verdict, Expected, Actual string }
	got := map[string]evidence{}
	for _, res := range rep.Results {
		got[res.Check.ID] = evidence{string(res.Verdict), res.Expected, res.Actual}
	}
	want := map[string]evidence{
		"PRE-01": {"pass", "", ""},
		"HO-01":  {"pass", "", ""},
		"HO-02":  {"fail", "403", "200 application/json with a result for Origin: http://evil.example"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
