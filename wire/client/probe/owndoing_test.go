package probe_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe"
)

// The probe's own requests never cause its findings, and one defect is
// one finding: the tests of what a check asks of a server, held to what
// the server uses.

// TestMissingMetadataIsOneFailure: a dual-era resource server without
// Protected Resource Metadata fails AU-02, and V2-30, which needs the
// same document on the modern path, rests on that finding instead of
// failing for it a second time.
func TestMissingMetadataIsOneFailure(t *testing.T) {
	upstream := startModernRef(t, modernRef{token: alice, legacy: true})
	addr := startProxy(t, upstream, flaw{request: func(_ *flawProxy, r *proxied) []byte {
		if strings.HasPrefix(r.path, "/.well-known/") {
			return answer("404 Not Found", "text/plain", "not found")
		}
		return nil
	}})
	rep := run(t, addr, probe.Options{Token: alice, Strict: true, Only: []string{"AU-02", "AU-11", "V2-30"}})
	want := map[string]probe.Verdict{"PRE-01": probe.Pass, "AU-02": probe.Fail, "AU-11": probe.Skip, "V2-30": probe.Skip}
	if diff := cmp.Diff(want, verdicts(rep)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s\n%s", diff, reasons(rep))
	}
	for _, res := range rep.Results {
		if res.Check.ID == "V2-30" && !strings.HasPrefix(res.Reason, "see AU-02 (fail)") {
			t.Errorf("V2-30: %s", res.Reason)
		}
	}
}

// ownOriginCORS is a front that grants CORS to the target's own origin
// alone, allowing exactly allowed request headers and exposing
// Mcp-Session-Id; with noEventIDs it also strips the id lines of every
// event stream, as a server that sends no event ids.
func ownOriginCORS(allowed string, noEventIDs bool) flaw {
	ids := regexp.MustCompile(`(?m)^id: [^\n]*\n`)
	return flaw{
		request: func(p *flawProxy, r *proxied) []byte {
			if r.method != "OPTIONS" || r.get("Origin") != "http://"+p.upstream {
				return nil
			}
			return []byte("HTTP/1.1 204 No Content\r\nAccess-Control-Allow-Origin: http://" + p.ln.Addr().String() +
				"\r\nAccess-Control-Allow-Methods: GET, POST, DELETE\r\nAccess-Control-Allow-Headers: " + allowed + "\r\n\r\n")
		},
		response: func(p *flawProxy, r *proxied, ans []byte) []byte {
			if noEventIDs && isEventStream(ans) {
				head, body := splitAnswer(ans)
				ans = joinAnswer(head, ids.ReplaceAll(body, nil))
			}
			if r.get("Origin") != "http://"+p.upstream {
				return ans
			}
			return withField(withField(ans, "Access-Control-Allow-Origin", "http://"+p.ln.Addr().String()), "Access-Control-Expose-Headers", "Mcp-Session-Id")
		},
	}
}

// TestDP12AsksForWhatTheServerUses: the preflight DP-12 judges asks for
// Last-Event-ID only of a server that sends event ids (a client resumes
// with it), and for Mcp-Method and Mcp-Name only of a server that speaks
// 2026-07-28, so a CORS policy is never faulted for a header no client of
// that server sends.
func TestDP12AsksForWhatTheServerUses(t *testing.T) {
	const base = "authorization, content-type, mcp-session-id, mcp-protocol-version"
	tests := []struct {
		name     string
		upstream func(t *testing.T) string
		front    flaw
		want     probe.Verdict
		reason   string
	}{
		{"event ids sent, Last-Event-ID not allowed", func(t *testing.T) string { return startRawmcp(t).Addr }, ownOriginCORS(base, false),
			probe.Warn, "the own origin's preflight does not allow last-event-id"},
		{"no event ids, Last-Event-ID not needed", func(t *testing.T) string { return startRawmcp(t).Addr }, ownOriginCORS(base, true),
			probe.Pass, "no CORS for http://evil.example; the own origin's preflight allows " + base + " and Mcp-Session-Id is exposed"},
		{"a 2026-07-28 server, Mcp-Method and Mcp-Name not allowed", func(t *testing.T) string {
			return startModernRef(t, modernRef{token: alice, legacy: true})
		}, ownOriginCORS(base+", last-event-id", false),
			probe.Warn, "the own origin's preflight does not allow mcp-method and mcp-name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			target, err := probe.ParseTarget("http://" + startProxy(t, tt.upstream(t), tt.front) + "/mcp")
			if err != nil {
				t.Fatal(err)
			}
			rep, err := probe.Run(context.Background(), target, probe.Options{Token: alice, Only: []string{"DP-12"}})
			if rep == nil {
				t.Fatal(err)
			}
			for _, res := range rep.Results {
				if res.Check.ID == "DP-12" && (res.Verdict != tt.want || res.Reason != tt.reason) {
					t.Errorf("DP-12 %s: %s\nwant %s: %s", res.Verdict, res.Reason, tt.want, tt.reason)
				}
			}
		})
	}
}
