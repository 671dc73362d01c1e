package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/policy"
	"rawmcp/wire/client"
	"rawmcp/wire/client/clienttest"
	"rawmcp/wire/client/probe"
)

// The principals of testdata/probe-tokens.json, the token file `rawmcp
// serve -tokens` is started with (two principals and the named tokens of
// testdata/probe-named.json; README shows the same run).
const (
	probeAlice = "tok-alice-3fQ9zWk2Lp0Xb7"
	probeBob   = "tok-bob-8sT1nVq4Rm6Yc2"
)

// servedProbe is a running `rawmcp serve` for the probe tests.
type servedProbe struct {
	url    string
	dir    string // for the HTML report
	stderr *syncBuffer
	cmd    *exec.Cmd
}

// syncBuffer is serve's stderr, written by exec's copying goroutine and
// read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe starts `rawmcp serve -tokens` with its default limits and
// stops it (SIGTERM) when the test ends.
func startServe(t *testing.T) *servedProbe {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(binary, "serve", "-tokens", filepath.Join("testdata", "probe-tokens.json"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &servedProbe{dir: dir, stderr: &syncBuffer{}, cmd: cmd}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading serve's first line: %v", err)
	}
	var first struct{ URL string }
	if err := json.Unmarshal(line, &first); err != nil {
		t.Fatal(err)
	}
	s.url = first.URL
	return s
}

func (s *servedProbe) fullArgs(extra ...string) []string {
	// A generous -timeout: a slow answer on a loaded machine must not read
	// as a missing one.
	return append([]string{"probe", "-url", s.url, "-token", probeAlice, "-token2", probeBob,
		"-tokens", filepath.Join("testdata", "probe-named.json"), "-timeout", "20s"}, extra...)
}

type probeDoc struct {
	Target    string   `json:"target"`
	Revisions []string `json:"revisions"`
	Checks    []struct {
		ID, Verdict, Reason string
	} `json:"checks"`
	Counts map[string]int `json:"counts"`
}

// TestProbeServePassesEveryCheck is the deployment's end-to-end check: `rawmcp probe
// -strict` against `rawmcp serve` with two principals and the named
// tokens passes every check (PV-04 is info; the deployment group and the
// 2026-07-28 group below),
// within serve's default limits, and leaves no token in any output.
func TestProbeServePassesEveryCheck(t *testing.T) {
	s := startServe(t)
	html := filepath.Join(s.dir, "report.html")
	start := time.Now()
	stdout, stderr, code := rawmcp(t, s.fullArgs("-strict", "-json", "-html", html)...)
	elapsed := time.Since(start)
	if code != exitOK {
		t.Fatalf("exit status %d; stderr:\n%s", code, stderr)
	}
	var doc probeDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("-json output is not one document: %v", err)
	}
	want := map[string]string{}
	for _, c := range probe.Catalogue() {
		want[c.ID] = "pass"
	}
	want["PV-04"] = "info"
	// The deployment group on plain loopback http, without -slow: no TLS
	// and no cleartext twin to check, a GET stream that ends at once (no
	// hold to tell apart), no CORS at all.
	for _, id := range []string{"DP-02", "DP-03", "DP-07", "DP-08"} {
		want[id] = "skip"
	}
	want["DP-12"] = "info"
	// serve speaks MCP 2025-11-25 only: the V2 group skips, the era
	// group passes (a 2026-07-28 request gets the fallback signal).
	for _, c := range probe.Catalogue() {
		if c.Group == "V2" {
			want[c.ID] = "skip"
		}
	}
	if diff := cmp.Diff([]string{"2025-11-25"}, doc.Revisions); diff != "" {
		t.Errorf("revisions (-want +got):\n%s", diff)
	}
	got := map[string]string{}
	for _, c := range doc.Checks {
		got[c.ID] = c.Verdict
		if c.Verdict != want[c.ID] {
			t.Logf("%s %s: %s", c.ID, c.Verdict, c.Reason)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	// The run should take under 60 s; a time is reported, never asserted
	// (a loaded machine is not a failure).
	t.Logf("the probe ran in %s", elapsed)
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"stdout": stdout, "html": string(page), "serve's log": s.stderr.String()} {
		for _, secret := range []string{probeAlice, probeBob, "tok-aud-5gH2jKl9Pq3Wn8", "tok-iss-7dF4hJk1Lz6Xc9", "tok-exp-2aS5dFg8Hj1Kl4", "tok-low-9qW3eRt6Yu0Io7"} {
			if strings.Contains(out, secret) {
				t.Errorf("A-33/%s carries a token", name)
			}
		}
	}
}

// TestProbeTraceNamesTokensAsServeDoes: -trace prints every exchange curl
// -v style with the token as a correlation id, and it is the id serve's
// log gives the same token.
func TestProbeTraceNamesTokensAsServeDoes(t *testing.T) {
	s := startServe(t)
	_, trace, code := rawmcp(t, "probe", "-url", s.url, "-token", probeAlice, "-only", "HO-02", "-trace")
	if code != exitOK {
		t.Fatalf("exit status %d:\n%s", code, trace)
	}
	id := client.Correlate([]byte(probeAlice))
	for _, want := range []string{"* HO-02: initialize with Origin: http://evil.example", "> Authorization: Bearer <token:" + id + ">",
		"< HTTP/1.1 403 Forbidden", "< Mcp-Session-Id: <session:", "= HO-02 pass: answered 403"} {
		if !strings.Contains(trace, want) {
			t.Errorf("the trace lacks %q", want)
		}
	}
	if strings.Contains(trace, probeAlice) {
		t.Error("A-33/the trace carries the token")
	}
	// A bound for a loaded machine: the loop ends as soon as the line is
	// logged.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.stderr.String(), "token="+id) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(s.stderr.String(), "token="+id) {
		t.Errorf("serve's log does not name the token %s:\n%s", id, s.stderr.String())
	}
}

// TestCorrelationIDsAgree: the client side computes correlation ids
// without the server's packages; both must name a secret alike.
func TestCorrelationIDsAgree(t *testing.T) {
	for _, secret := range []string{"", probeAlice, "Zürich", strings.Repeat("x", 1000)} {
		if got, want := client.Correlate([]byte(secret)), policy.Correlate([]byte(secret)); got != want {
			t.Errorf("Correlate(%q) = %s on the client, %s on the server", secret, got, want)
		}
	}
}

// TestProbeExitStatus: 0 when no MUST failed, 1 when one did (or a MUST
// skipped with -require-all), 2 for usage errors and targets that are no
// MCP endpoint.
func TestProbeExitStatus(t *testing.T) {
	s := startServe(t)
	broken := permissiveServer(t)
	closed := freePort(t)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // a line that must be on stderr
	}{
		{"no MUST fails", []string{"probe", "-url", s.url, "-token", probeAlice, "-only", "HO,PV"}, exitOK, ""},
		{"a skipped MUST is fine without -require-all", []string{"probe", "-url", s.url, "-token", probeAlice, "-only", "AU-07"}, exitOK, ""},
		{"a skipped MUST fails with -require-all", []string{"probe", "-url", s.url, "-token", probeAlice, "-only", "AU-07", "-require-all"}, exitFail,
			"rawmcp probe: -require-all: MUST checks not run: AU-07"},
		{"a server that serves everything fails MUST checks", []string{"probe", "-url", "http://" + broken + "/mcp", "-only", "HO-02,JR-01"}, exitFail, ""},
		{"a refused token is PRE-01's error", []string{"probe", "-url", s.url, "-token", "tok-nobody-0000"}, exitUsage,
			"rawmcp probe: PRE-01: the token was refused: initialize answered 401"},
		{"nothing listening is PRE-01's error", []string{"probe", "-url", "http://" + closed + "/mcp"}, exitUsage, "rawmcp probe: PRE-01: no MCP endpoint at"},
		{"another scheme", []string{"probe", "-url", "ftp://127.0.0.1/mcp"}, exitUsage,
			"rawmcp probe: the URL must be http:// or https://host[:port]/path, without user info, query or fragment"},
		{"a -resolve without ADDR", []string{"probe", "-url", s.url, "-resolve", "mcp.example.test:443"}, exitUsage,
			`invalid value "mcp.example.test:443" for flag -resolve: probe: -resolve must be HOST:PORT:ADDR, ADDR an IP address (127.0.0.1, [::1])`},
		{"a -cacert without a certificate", []string{"probe", "-url", s.url, "-cacert", filepath.Join("testdata", "probe-named.json")}, exitUsage,
			"rawmcp probe: -cacert: no PEM certificate in the file"},
		{"a -baseline naming no check", []string{"probe", "-url", s.url, "-baseline", writeTemp(t, `{"HO-99": "warn"}`)}, exitUsage,
			`rawmcp probe: -baseline: probe: the baseline names "HO-99", which is no check id`},
		{"a baseline that matches", []string{"probe", "-url", s.url, "-token", probeAlice, "-only", "PV", "-baseline", writeTemp(t, `{"PV-04": "info"}`)}, exitOK, ""},
		{"a recorded MUST failure that still fails", []string{"probe", "-url", "http://" + broken + "/mcp", "-only", "HO-02", "-baseline", writeTemp(t, `{"HO-02": "fail"}`)}, exitOK, ""},
		{"a regression", []string{"probe", "-url", "http://" + broken + "/mcp", "-only", "HO-02", "-baseline", writeTemp(t, `{}`)}, exitFail,
			"rawmcp probe: -baseline: regressions: 1; entries that no longer hold: 0\n  regression  HO-02  fail, the baseline says pass\n"},
		{"a baseline entry that no longer holds", []string{"probe", "-url", s.url, "-token", probeAlice, "-only", "HO-01", "-baseline", writeTemp(t, `{"HO-01": "warn"}`)}, exitFail,
			"rawmcp probe: -baseline: regressions: 0; entries that no longer hold: 1\n  no longer   HO-01  pass, the baseline says warn: update the baseline\n"},
		{"no -url", []string{"probe"}, exitUsage, "rawmcp probe: give -url"},
		{"an unknown check", []string{"probe", "-url", s.url, "-only", "HO-99"}, exitUsage, `rawmcp probe: "HO-99" is neither a check id`},
		{"PRE-01 cannot be skipped", []string{"probe", "-url", s.url, "-skip", "PRE-01"}, exitUsage, "PRE-01 cannot be skipped"},
		{"a tokens file that is no object", []string{"probe", "-url", s.url, "-tokens", filepath.Join("testdata", "probe-tokens.json")}, exitUsage,
			"rawmcp probe: -tokens: probe: the tokens file is not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := rawmcp(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if tt.stderr != "" && !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
		})
	}
}

// writeTemp writes a baseline to a file of the test's.
func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestProbeCleartextTokenSendsNothing: a token for a host that is not
// loopback over http exits 2 before a byte is sent, even with -resolve
// aiming the name at 127.0.0.1, and says what to use instead.
func TestProbeCleartextTokenSendsNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan []byte, 1)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 4096)
		n, _ := nc.Read(buf)
		accepted <- buf[:n]
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	_, stderr, code := rawmcp(t, "probe", "-url", "http://mcp.example.test:"+port+"/mcp", "-resolve", "mcp.example.test:"+port+":127.0.0.1", "-token", probeAlice)
	ln.Close()
	if code != exitUsage {
		t.Errorf("exit status %d, want %d", code, exitUsage)
	}
	want := "rawmcp probe: a bearer token is never sent over cleartext http to a host that is not loopback (anyone on the path could replay it): use the https:// URL\n"
	if stderr != want {
		t.Errorf("stderr\n%s\nwant\n%s", stderr, want)
	}
	select {
	case got := <-accepted:
		t.Errorf("the probe connected and sent %q", got)
	default:
	}
}

// TestProbeSARIF: -sarif writes a SARIF 2.1.0 log with a result for
// each check not passed.
func TestProbeSARIF(t *testing.T) {
	s := startServe(t)
	path := filepath.Join(s.dir, "probe.sarif")
	_, stderr, code := rawmcp(t, "probe", "-url", s.url, "-token", probeAlice, "-only", "PV", "-sarif", path)
	if code != exitOK {
		t.Fatalf("exit status %d; stderr:\n%s", code, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
				Level  string `json:"level"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("not a SARIF 2.1.0 log (%v):\n%s", err, data)
	}
	got := fmt.Sprint(log.Runs[0].Results)
	if got != "[{PV-04 note}]" {
		t.Errorf("results %s, want PV-04's note alone", got)
	}
}

// TestProbeTable: the human output groups the checks as the catalogue
// does, gives each non-pass its reason, and ends with the summary line.
func TestProbeTable(t *testing.T) {
	s := startServe(t)
	stdout, _, _ := rawmcp(t, "probe", "-url", s.url, "-token", probeAlice, "-only", "PV,SE-07")
	want := "reached " + s.url + " at " + strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp") + `
  cleartext http, no TLS
  Server: none; Via: none

speaks MCP 2025-11-25

Preflight
  pass  PRE-01 The endpoint speaks MCP
Protocol version
  pass  PV-01  A past version refused
  pass  PV-02  A future version refused on every method
  pass  PV-03  A malformed version refused
  info  PV-04  Missing header after init
               answered 400 with JSON-RPC error -32000: the server requires the header
  pass  PV-05  Negotiation answers a supported version
Sessions
  skip  SE-07  A session is bound to its principal
               needs -token2
probe: 5 pass, 0 fail, 0 warn, 1 skip, 0 error, 1 info (MUST failed: none)
`
	if diff := cmp.Diff(want, stdout); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestProbeList: -list prints the catalogue without touching the
// network; with -only, each check's help.
func TestProbeList(t *testing.T) {
	stdout, _, code := rawmcp(t, "probe", "-list")
	if code != exitOK {
		t.Fatalf("exit status %d", code)
	}
	row := regexp.MustCompile(`(?m)^  [A-Z][A-Z0-9]*-[0-9]{2} +(MUST|SHOULD|H|info) +\S+ +\S`)
	if n := len(row.FindAllString(stdout, -1)); n != len(probe.Catalogue()) {
		t.Errorf("%d check lines, want %d:\n%s", n, len(probe.Catalogue()), stdout)
	}
	stdout, _, _ = rawmcp(t, "probe", "-list", "-only", "AU-05")
	// Only the group of the check named, no empty group above it.
	if want := "Authorization (resource server)\n  AU-05 "; !strings.HasPrefix(stdout, want) {
		t.Errorf("-list -only AU-05 does not begin with %q:\n%s", want, stdout)
	}
	for _, want := range []string{"AU-05  H      T, auth, legacy ", " A token in the query is not accepted", "rule: A-19", "decoy"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("-list -only AU-05 lacks %q:\n%s", want, stdout)
		}
	}
	// The fix, folded over lines, then the link on a line of its own.
	checks, _ := probe.Select([]string{"AU-05"}, nil)
	au05 := checks[0]
	if want := "fix: " + au05.Fix + " link: " + au05.Link; !strings.Contains(strings.Join(strings.Fields(stdout), " "), want) {
		t.Errorf("-list -only AU-05 lacks %q:\n%s", want, stdout)
	}
	if want := "\n         link: " + au05.Link + "\n"; !strings.Contains(stdout, want) {
		t.Errorf("-list -only AU-05 lacks the link line %q:\n%s", want, stdout)
	}
}

// TestProbeListMarkdown: -list -md prints the catalogue document, the
// committed wire/client/probe/CHECKS.md; -md without -list, or with a
// selection, is a usage error.
func TestProbeListMarkdown(t *testing.T) {
	stdout, _, code := rawmcp(t, "probe", "-list", "-md")
	if code != exitOK {
		t.Fatalf("exit status %d", code)
	}
	committed, err := os.ReadFile("../../wire/client/probe/CHECKS.md")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(committed), stdout); diff != "" {
		t.Errorf("-list -md is not CHECKS.md (-committed +printed):\n%s", diff)
	}
	for _, args := range [][]string{{"probe", "-md"}, {"probe", "-list", "-md", "-only", "HO"}} {
		if _, _, code := rawmcp(t, args...); code != exitUsage {
			t.Errorf("%v: exit status %d, want %d", args, code, exitUsage)
		}
	}
}

// TestProbeHelp: rawmcp help probe lists the flags and the groups.
func TestProbeHelp(t *testing.T) {
	_, stderr, code := rawmcp(t, "help", "probe")
	if code != exitOK {
		t.Fatalf("exit status %d", code)
	}
	for _, want := range []string{"-url", "-token", "-token2", "-tokens", "-only", "-skip", "-strict", "-require-all", "-json", "-html", "-trace", "-timeout", "-slow", "-list", "-md", "-resolve", "-cacert", "-baseline", "-sarif", "-explore", "-seed", "-explore-steps", "-explore-save", "-explore-replay"} {
		if !strings.Contains(stderr, "  "+want+" ") && !strings.Contains(stderr, "  "+want+"\n") {
			t.Errorf("help lacks the flag %s", want)
		}
	}
	for _, g := range probe.Groups {
		if !strings.Contains(stderr, g.Title) {
			t.Errorf("help lacks the group %q", g.Title)
		}
	}
}

// permissiveServer is an MCP endpoint that serves everything: every
// request gets 200 and a result (an InitializeResult for initialize), on
// any Host, Origin or version. It passes PRE-01 and fails the rest.
func permissiveServer(t *testing.T) string {
	t.Helper()
	return clienttest.Serve(t, nil, func(nc net.Conn) {
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 64<<10)
		n, _ := nc.Read(buf)
		id := regexp.MustCompile(`"id":(\d+)`).FindSubmatch(buf[:n])
		body := `{"jsonrpc":"2.0","id":1,"result":{}}`
		if id != nil {
			body = `{"jsonrpc":"2.0","id":` + string(id[1]) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"yes","version":"1"}}}`
		}
		nc.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
			strconv.Itoa(len(body)) + "\r\n\r\n" + body))
	})
}

// freePort returns an address where nothing listens.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
