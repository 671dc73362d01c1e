package probe_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"rawmcp/wire/client/probe"
)

// packagedCase is one behaviour of the servers people run and what the
// probe must say of it: the verdicts the raw exchanges support, never one
// they contradict.
type packagedCase struct {
	name   string
	server *packaged
	token  string // the run's -token
	// want are the verdicts of the checks this behaviour decides; says,
	// what each such check's reason must contain.
	want map[string]probe.Verdict
	says map[string]string
	// never are verdicts no check may get against this server.
	never []probe.Verdict
	// silent are words no reason may contain: a cause the server did not
	// give.
	silent []string
}

var packagedCases = []packagedCase{
	{name: "a sessionless server: the session checks skip, none warns or errors",
		server: &packaged{},
		want:   map[string]probe.Verdict{"SE-01": probe.Skip, "SE-05": probe.Skip, "SE-09": probe.Skip, "PRE-02": probe.Skip},
		says:   map[string]string{"SE-05": "session ids", "SE-09": "session ids"},
		never:  []probe.Verdict{probe.Error}},
	{name: "a 200 KB tools/list is read whole",
		server: &packaged{sessions: true, toolsList: 200 << 10},
		never:  []probe.Verdict{probe.Error},
		silent: []string{"too large", "502"}},
	{name: "the server's own 400 for an unknown session and bare 401, nothing in front: no hop is blamed",
		server: &packaged{sessions: true, unknownSession400: true, token: "packaged-token", bareAuth: true},
		token:  "packaged-token",
		want:   map[string]probe.Verdict{"SE-02": probe.Warn, "AU-01": probe.Fail},
		silent: []string{"a hop dropped", "proxy dropped"}},
	{name: "a router's 404 to GET and DELETE is no version refusal and no authentication",
		server: &packaged{sessions: true, router404: true, token: "packaged-token"},
		token:  "packaged-token",
		want:   map[string]probe.Verdict{"PV-02": probe.Pass, "AU-10": probe.Pass}},
	{name: "a 400 whose body names another cause is not the version refusal",
		server: &packaged{sessions: true, versionBlind: true},
		want:   map[string]probe.Verdict{"PV-01": probe.Error, "PV-03": probe.Error},
		says:   map[string]string{"PV-01": "-32602", "PV-03": "-32602"}},
	{name: "an HTML page with nosniff is called HTML, not sniffable",
		server: &packaged{sessions: true, nosniff: true},
		want:   map[string]probe.Verdict{"EH-02": probe.Warn},
		says:   map[string]string{"EH-02": "MM-05 404 is HTML (nosniff does not stop a browser rendering it)"}},
	{name: "an HTML page no script can run in is no finding",
		server: &packaged{sessions: true, nosniff: true, inertPages: true},
		silent: []string{"MM-05 404 is HTML"}},
	{name: "a stream's head held is the defect DP-07 reports, not an error",
		server: &packaged{sessions: true, sse: true, holdGET: true},
		want:   map[string]probe.Verdict{"DP-07": probe.Warn},
		says:   map[string]string{"DP-07": "GET: no head within"}},
	{name: "a 10 MiB body limit is reported as measured",
		server: &packaged{sessions: true, bodyLimit: 10 << 20},
		want:   map[string]probe.Verdict{"LF-01": probe.Pass},
		says:   map[string]string{"LF-01": "413"}},
}

// TestPackagedServers: against servers that behave as the popular
// packages do, each verdict is the one the raw exchange supports.
func TestPackagedServers(t *testing.T) {
	for _, tt := range packagedCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep := runPackaged(t, tt.server, tt.token)
			got := verdicts(rep)
			for id, v := range tt.want {
				if got[id] != v {
					t.Errorf("%s is %s, want %s", id, got[id], v)
				}
			}
			for _, res := range rep.Results {
				if s, ok := tt.says[res.Check.ID]; ok && !strings.Contains(res.Reason, s) {
					t.Errorf("%s's reason %q does not say %q", res.Check.ID, res.Reason, s)
				}
				for _, v := range tt.never {
					if res.Verdict == v {
						t.Errorf("%s is %s: %s", res.Check.ID, v, res.Reason)
					}
				}
				for _, word := range tt.silent {
					if strings.Contains(res.Reason, word) {
						t.Errorf("%s's reason names %q, which the server never said: %s", res.Check.ID, word, res.Reason)
					}
				}
			}
			if t.Failed() {
				t.Logf("every verdict but a pass:\n%s", reasons(rep))
			}
		})
	}
}

// TestPreflightSaysWhy: when initialize is refused, PRE-01 says what the
// refusal was, from what the answer shows: a Host allowlist that takes the
// other loopback name (and which), a 403 that no name fixes, an HTML page.
func TestPreflightSaysWhy(t *testing.T) {
	for _, tt := range []struct {
		name  string
		serve func(endpoint *url.URL) http.HandlerFunc
		says  []string
	}{
		{"a Host allowlist of localhost:PORT", func(endpoint *url.URL) http.HandlerFunc {
			server := &packaged{sessions: true, hosts: []string{"localhost:" + endpoint.Port()}}
			return server.serve
		}, []string{"initialize answered 403 for Host: 127.0.0.1:", `(it said "Invalid Host header")`, "with Host: localhost:", "was served", "probe http://localhost:"}},
		{"a 421 to every name", func(*url.URL) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, "Misdirected Request", http.StatusMisdirectedRequest)
			}
		}, []string{"initialize answered 421 for Host: 127.0.0.1:", "DNS-rebinding allowlist", "Host: localhost:", "answered 421 too"}},
		{"an HTML page", func(*url.URL) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, "<html><body>Sign in</body></html>")
			}
		}, []string{"initialize answered 200 with an HTML page"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var handler http.HandlerFunc
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler(w, r) }))
			t.Cleanup(srv.Close)
			endpoint, err := url.Parse(srv.URL + "/mcp")
			if err != nil {
				t.Fatal(err)
			}
			handler = tt.serve(endpoint)
			target, err := probe.ParseTarget(endpoint.String())
			if err != nil {
				t.Fatal(err)
			}
			rep, err := probe.Run(context.Background(), target, probe.Options{Only: []string{"PRE-01"}})
			if !errors.Is(err, probe.ErrNotMCP) {
				t.Fatalf("Run: %v, want ErrNotMCP", err)
			}
			pre := rep.Results[len(rep.Results)-1]
			for _, want := range tt.says {
				if !strings.Contains(pre.Reason, want) {
					t.Errorf("PRE-01's reason %q does not say %q", pre.Reason, want)
				}
			}
		})
	}
}

func runPackaged(t *testing.T, server *packaged, token string) *probe.Report {
	t.Helper()
	target, err := probe.ParseTarget(server.start(t))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := probe.Run(context.Background(), target, probe.Options{Token: token})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, reasons(rep))
	}
	return rep
}
