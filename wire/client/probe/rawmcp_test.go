package probe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/policy"
	"rawmcp/wire/assemble"
	"rawmcp/wire/client/clienttest"
	"rawmcp/wire/client/probe"
)

// The principals and named tokens of the test server, in the format of
// rawmcp serve -tokens ("self" is the server's canonical URI).
const (
	issuer       = "https://as.rawmcp.invalid"
	alice        = "tok-alice-3fQ9zWk2Lp0Xb7"
	bob          = "tok-bob-8sT1nVq4Rm6Yc2"
	wrongAud     = "tok-aud-5gH2jKl9Pq3Wn8"
	wrongIssuer  = "tok-iss-7dF4hJk1Lz6Xc9"
	expired      = "tok-exp-2aS5dFg8Hj1Kl4"
	lowScope     = "tok-low-9qW3eRt6Yu0Io7"
	tokenRecords = `[
 {"token": "` + alice + `", "token_id": "alice", "issuer": "` + issuer + `", "audience": "self", "resource": "self", "authorization_resource": "self", "token_resource": "self", "subject": "alice", "tenant": "acme", "scopes": ["mcp:connect", "resources:read"], "revision": 1, "active": true, "expiry": "2099-01-01T00:00:00Z"},
 {"token": "` + bob + `", "token_id": "bob", "issuer": "` + issuer + `", "audience": "self", "resource": "self", "authorization_resource": "self", "token_resource": "self", "subject": "bob", "tenant": "acme", "scopes": ["mcp:connect", "resources:read"], "revision": 1, "active": true, "expiry": "2099-01-01T00:00:00Z"},
 {"token": "` + wrongAud + `", "token_id": "aud", "issuer": "` + issuer + `", "audience": "http://127.0.0.1:1/mcp", "resource": "self", "authorization_resource": "self", "token_resource": "self", "subject": "alice", "tenant": "acme", "scopes": ["mcp:connect", "resources:read"], "revision": 1, "active": true, "expiry": "2099-01-01T00:00:00Z"},
 {"token": "` + wrongIssuer + `", "token_id": "iss", "issuer": "https://evil.invalid", "audience": "self", "resource": "self", "authorization_resource": "self", "token_resource": "self", "subject": "alice", "tenant": "acme", "scopes": ["mcp:connect", "resources:read"], "revision": 1, "active": true, "expiry": "2099-01-01T00:00:00Z"},
 {"token": "` + expired + `", "token_id": "exp", "issuer": "` + issuer + `", "audience": "self", "resource": "self", "authorization_resource": "self", "token_resource": "self", "subject": "alice", "tenant": "acme", "scopes": ["mcp:connect", "resources:read"], "revision": 1, "active": true, "expiry": "2001-01-01T00:00:00Z"},
 {"token": "` + lowScope + `", "token_id": "low", "issuer": "` + issuer + `", "audience": "self", "resource": "self", "authorization_resource": "self", "token_resource": "self", "subject": "carol", "tenant": "acme", "scopes": ["mcp:connect"], "revision": 1, "active": true, "expiry": "2099-01-01T00:00:00Z"}
]`
)

var named = map[string]string{"wrong_audience": wrongAud, "wrong_issuer": wrongIssuer, "expired": expired, "low_scope": lowScope}

// startRawmcp starts a rawmcp server with serve's defaults (8 sessions,
// 64 in processing) and the test tokens.
func startRawmcp(t *testing.T) *assemble.Server {
	t.Helper()
	srv, err := assemble.Start("127.0.0.1:0", assemble.Config{
		Issuer: issuer,
		Tokens: func(canonical string) ([]policy.TokenFileEntry, error) {
			return policy.ParseTokenFile([]byte(tokenRecords), canonical)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// fullOptions is a strict run with every token, the slow checks
// included (TestMain shortens DP-08's hold). The exchange timeout and the
// budget are far above the defaults: the flaw test runs twelve probes at
// once under the race detector, on a machine other work may load too,
// and a slow answer must not read as a missing one, nor a slow run as one
// cut short.
func fullOptions() probe.Options {
	return probe.Options{Token: alice, Token2: bob, Named: named, Strict: true, Slow: true, Timeout: 20 * time.Second, Budget: 5 * time.Minute}
}

func run(t *testing.T, addr string, opts probe.Options) *probe.Report {
	t.Helper()
	target, err := probe.ParseTarget("http://" + addr + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := probe.Run(context.Background(), target, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep
}

func verdicts(rep *probe.Report) map[string]probe.Verdict {
	out := map[string]probe.Verdict{}
	for _, res := range rep.Results {
		out[res.Check.ID] = res.Verdict
	}
	return out
}

func reasons(rep *probe.Report) string {
	var b strings.Builder
	for _, res := range rep.Results {
		if res.Verdict != probe.Pass {
			b.WriteString(res.Check.ID + " " + string(res.Verdict) + ": " + res.Reason + "\n")
		}
	}
	return b.String()
}

// rawmcpVerdicts is what rawmcp on plain loopback http earns with
// -strict, -slow and every token: every check passes, PV-04 is reported,
// and of the deployment group, the TLS checks skip (an http URL on
// loopback has no TLS and no cleartext twin), DP-07 skips (rawmcp ends
// each GET stream at once, so no hop holding streams could be told
// apart), DP-12 reports no CORS at all, and the V2 group skips (rawmcp
// serves no server/discover).
func rawmcpVerdicts() map[string]probe.Verdict {
	want := map[string]probe.Verdict{}
	for _, c := range probe.Catalogue() {
		want[c.ID] = probe.Pass
	}
	want["PV-04"] = probe.Info
	for _, id := range []string{"DP-02", "DP-03", "DP-07"} {
		want[id] = probe.Skip
	}
	want["DP-12"] = probe.Info
	// rawmcp speaks 2025-11-25 only: the modern checks skip, the era
	// checks pass (a modern request gets the fallback signal).
	for _, c := range probe.Catalogue() {
		if c.Group == "V2" {
			want[c.ID] = probe.Skip
		}
	}
	return want
}

// TestRawmcpPassesEveryCheck: against rawmcp with its defaults, a strict
// run with two principals and the named tokens passes every check, and
// stays within the server's limits (no 503 but SE-09's).
func TestRawmcpPassesEveryCheck(t *testing.T) {
	srv := startRawmcp(t)
	rep := run(t, srv.Addr, fullOptions())
	if diff := cmp.Diff(rawmcpVerdicts(), verdicts(rep)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s\n%s", diff, reasons(rep))
	}
	// rawmcp speaks 2025-11-25 only (the profile keeps 2026-07-28 out).
	if diff := cmp.Diff([]string{"2025-11-25"}, rep.Revisions); diff != "" {
		t.Errorf("revisions (-want +got):\n%s", diff)
	}
	for _, res := range rep.Results {
		for _, x := range res.Exchanges {
			if strings.HasPrefix(x.Response, "HTTP/1.1 503") && res.Check.ID != "SE-09" {
				t.Errorf("%s tripped a limit: %s", res.Check.ID, firstLine(x.Response))
			}
		}
	}
	if live := srv.Sessions.Len(time.Now()); live != 0 {
		t.Errorf("%d sessions left after the run: every session must be deleted", live)
	}
}

func firstLine(s string) string { line, _, _ := strings.Cut(s, "\r\n"); return line }

// TestReportsCarryNoSecret: the JSON document and the HTML page name the
// tokens and session ids only by correlation id.
func TestReportsCarryNoSecret(t *testing.T) {
	srv := startRawmcp(t)
	rep := run(t, srv.Addr, probe.Options{Token: alice, Token2: bob, Named: named, Only: []string{"PRE", "SE-07", "AU"}})
	var doc, page bytes.Buffer
	if err := rep.WriteJSON(&doc); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	sessionID := regexp.MustCompile(`Mcp-Session-Id: [^<&\r\n]`)
	for name, out := range map[string][]byte{"json": doc.Bytes(), "html": page.Bytes()} {
		for _, secret := range []string{alice, bob, wrongAud, wrongIssuer, expired, lowScope} {
			if bytes.Contains(out, []byte(secret)) {
				t.Errorf("A-33/the %s report carries a token", name)
			}
		}
		if loc := sessionID.Find(out); loc != nil {
			t.Errorf("A-33/the %s report carries a session id: %q", name, loc)
		}
		if !bytes.Contains(out, []byte("<token:")) && !bytes.Contains(out, []byte("&lt;token:")) {
			t.Errorf("the %s report shows no correlation id", name)
		}
	}
}

// TestJSONDocument: the -json document's members are exactly the
// issue's, and counts is verdict → number.
func TestJSONDocument(t *testing.T) {
	srv := startRawmcp(t)
	rep := run(t, srv.Addr, probe.Options{Token: alice, Only: []string{"HO-02"}})
	var b bytes.Buffer
	rep.WriteJSON(&b)
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var members []string
	for k := range doc {
		members = append(members, k)
	}
	want := []string{"baseline", "catalogue_edition", "checks", "counts", "duration_ms", "incomplete", "negotiated", "protocol_version", "reached", "revisions", "schemas", "server", "started", "stopped", "target"}
	if diff := cmp.Diff(want, sorted(members)); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	var checks []map[string]json.RawMessage
	json.Unmarshal(doc["checks"], &checks)
	var checkMembers []string
	for k := range checks[1] {
		checkMembers = append(checkMembers, k)
	}
	if diff := cmp.Diff([]string{"actual", "exchanges", "expected", "fix", "group", "id", "level", "link", "reason", "rule", "source", "title", "verdict"}, sorted(checkMembers)); diff != "" {
		t.Errorf("check members (-want +got):\n%s", diff)
	}
	var counts map[string]int
	json.Unmarshal(doc["counts"], &counts)
	if diff := cmp.Diff(map[string]int{"pass": 2, "fail": 0, "warn": 0, "skip": 0, "error": 0, "info": 0}, counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	var server bytes.Buffer
	json.Compact(&server, doc["server"])
	if server.String() != `{"name":"rawmcp","version":"0.1.0"}` {
		t.Errorf("server = %s", server.String())
	}
}

func sorted(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// TestSkipsNameWhatIsMissing: without a second principal or named tokens
// the checks that need them skip, saying which option is missing, and
// nothing else changes.
func TestSkipsNameWhatIsMissing(t *testing.T) {
	srv := startRawmcp(t)
	rep := run(t, srv.Addr, probe.Options{Token: alice, Strict: true, Only: []string{"SE-07", "AU-07", "AU-08", "AU-09", "AU-10"}})
	got := map[string]string{}
	for _, res := range rep.Results {
		got[res.Check.ID] = string(res.Verdict) + ": " + res.Reason
	}
	want := map[string]string{
		"PRE-01": got["PRE-01"],
		"SE-07":  "skip: needs -token2",
		"AU-07":  "skip: needs -tokens",
		"AU-08":  "skip: needs -tokens",
		"AU-09":  "skip: needs -tokens",
		"AU-10":  "pass: GET and DELETE answered 401",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestPreflightGatesTheRun: PRE-01 failing ends the run with ErrNotMCP
// and a reason that says why.
func TestPreflightGatesTheRun(t *testing.T) {
	srv := startRawmcp(t)
	notMCP := fakeServer(t, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
	tests := []struct {
		name, addr, token string
		reason            string
	}{
		{"the token is refused", srv.Addr, "tok-nobody-0000", "the token was refused: initialize answered 401"},
		{"no MCP endpoint", notMCP, "", "no MCP endpoint at http://" + notMCP + "/mcp: initialize answered 404, not an InitializeResult; server/discover answered 404"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target, _ := probe.ParseTarget("http://" + tt.addr + "/mcp")
			rep, err := probe.Run(context.Background(), target, probe.Options{Token: tt.token})
			if !errors.Is(err, probe.ErrNotMCP) {
				t.Fatalf("error %v, want ErrNotMCP", err)
			}
			if len(rep.Results) != 1 || rep.Results[0].Verdict != probe.Error || rep.Results[0].Reason != tt.reason {
				t.Errorf("results %+v, want PRE-01 error %q", rep.Results, tt.reason)
			}
		})
	}
}

// fakeServer answers every request on every connection with answer.
func fakeServer(t *testing.T, answer string) string {
	t.Helper()
	return clienttest.Serve(t, nil, func(nc net.Conn) {
		nc.Read(make([]byte, 64<<10))
		nc.Write([]byte(answer))
	})
}

// TestNoAnswerIsNeverAPass: against a target that answers the handshake
// and then hangs up on every other request, no check judged by an answer
// on a live session passes, fails or warns: each is an error (or a skip,
// for what the target lacks). Checks judged by an initialize are left
// out (this target does answer those), and so are JR-07, where a hang-up
// after a deep document is the server breaking, and the framing checks,
// where a close is a refusal.
func TestNoAnswerIsNeverAPass(t *testing.T) {
	addr := handshakeOnly(t)
	rep := run(t, addr, probe.Options{Only: []string{"HO-03", "MM-03", "MM-04", "MM-05", "PV-01", "PV-02", "PV-03", "PV-04",
		"SE-01", "SE-02", "SE-03", "SE-04", "SE-05", "SE-06", "SE-07", "SE-08", "JR-01", "JR-02", "JR-03", "JR-04", "JR-05", "JR-06", "JR-08",
		"RS-01", "RS-02", "RS-03"}})
	if len(rep.Results) != 27 {
		t.Fatalf("%d results", len(rep.Results))
	}
	for _, res := range rep.Results[1:] {
		if res.Verdict != probe.Error && res.Verdict != probe.Skip {
			t.Errorf("%s %s on a target that answered nothing: %s", res.Check.ID, res.Verdict, res.Reason)
		}
	}
}

// handshakeOnly answers initialize (with a session id) and
// notifications/initialized, and closes the connection on anything else.
func handshakeOnly(t *testing.T) string {
	id := regexp.MustCompile(`"id":(\d+),"method":"initialize"`)
	return answerOnce(t, func(req string) string {
		switch m := id.FindStringSubmatch(req); {
		case m != nil && !strings.Contains(req, "Mcp-Session-Id"):
			body := `{"jsonrpc":"2.0","id":` + m[1] + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"resources":{}},"serverInfo":{"name":"mute","version":"1"}}}`
			return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s-" + m[1] + "-0123456789abcdef\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
		case strings.Contains(req, "notifications/initialized"):
			return "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
		}
		return ""
	})
}

// answerOnce is a fake server for the tests: on each connection it reads
// one request (whatever one read brings), writes what answer makes of it
// ("" writes nothing) and closes.
func answerOnce(t *testing.T, answer func(req string) string) string {
	t.Helper()
	return clienttest.Serve(t, nil, func(nc net.Conn) {
		buf := make([]byte, 64<<10)
		n, _ := nc.Read(buf)
		nc.Write([]byte(answer(string(buf[:n]))))
	})
}
