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
	"rawmcp/wire/client/probe/testdata/schemacheck"
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
// within serve's default limits, and leaves no token in any output; the
// probe's README counts its verdicts as they are.
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
	// The probe's README counts this run's verdicts and the V2 group.
	readme, err := os.ReadFile("../../wire/client/probe/README.md")
	if err != nil {
		t.Fatal(err)
	}
	v2 := 0
	for _, c := range probe.Catalogue() {
		if c.Group == "V2" {
			v2++
		}
	}
	claim := regexp.MustCompile(`Every check that applies passes in about 2 s: (\d+) pass, (\d+) info .*?, and (\d+) skip \(the (\d+) checks of the 2026-07-28 group`).
		FindStringSubmatch(strings.Join(strings.Fields(string(readme)), " "))
	if claim == nil {
		t.Fatal("the probe's README no longer counts the run against rawmcp serve")
	}
	counted := []string{strconv.Itoa(doc.Counts["pass"]), strconv.Itoa(doc.Counts["info"]), strconv.Itoa(doc.Counts["skip"]), strconv.Itoa(v2)}
	if diff := cmp.Diff(counted, claim[1:]); diff != "" {
		t.Errorf("the probe's README's pass, info, skip and V2 counts (-run +README):\n%s", diff)
	}
	summary := regexp.MustCompile(`(?s)<summary>the whole table</summary>.*?\n(probe: [^\n]*)`).FindStringSubmatch(string(readme))
	wantSummary := fmt.Sprintf("probe: %d pass, 0 fail, 0 warn, %d skip, 0 error, %d info (MUST failed: none)", doc.Counts["pass"], doc.Counts["skip"], doc.Counts["info"])
	if summary == nil || summary[1] != wantSummary {
		t.Errorf("the probe's README's whole table does not end in this run's %q", wantSummary)
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

// TestProbeExitStatus: each exit status of probeExits, and each slip a
// user makes, with the line that says what happened.
func TestProbeExitStatus(t *testing.T) {
	s := startServe(t)
	broken := permissiveServer(t)
	closed := freePort(t)
	stalling := "http://" + stallingServer(t) + "/mcp"
	tlsPort, _ := tlsRelay(t, strings.TrimPrefix(strings.TrimSuffix(s.url, "/mcp"), "http://"))
	dir := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // a part of stderr
	}{
		{"no MUST fails", []string{"probe", "-url", s.url, "-token", probeAlice, "-only", "HO,PV"}, exitOK, ""},
		{"the URL as the argument, flags after it", []string{"probe", s.url, "-token", probeAlice, "-only", "HO-01"}, exitOK, ""},
		{"a skipped MUST is fine without -require-all", []string{"probe", "-url", s.url, "-token", probeAlice, "-only", "AU-07"}, exitOK, ""},
		{"a skipped MUST fails with -require-all", []string{"probe", "-url", s.url, "-token", probeAlice, "-only", "AU-07", "-require-all"}, exitFail,
			"rawmcp probe: -require-all: MUST checks not run: AU-07"},
		{"a server that serves everything fails MUST checks", []string{"probe", "-url", "http://" + broken + "/mcp", "-only", "HO-02,JR-01"}, exitFail,
			"rawmcp probe: MUST failed: HO-02"},
		{"the budget runs out", []string{"probe", stalling, "-only", "PV-01", "-budget", "2s", "-timeout", "20s"}, exitIncomplete,
			"rawmcp probe: the run is incomplete"},
		{"a refused token: not judged", []string{"probe", "-url", s.url, "-token", "tok-nobody-0000"}, exitUnjudged,
			"rawmcp probe: PRE-01: the token was refused: initialize answered 401"},
		{"nothing listening: not judged", []string{"probe", "-url", "http://" + closed + "/mcp"}, exitUnjudged, "rawmcp probe: PRE-01: no MCP endpoint at"},
		{"http:// to a TLS server: not judged, and the hint", []string{"probe", "http://127.0.0.1:" + tlsPort + "/mcp"}, exitUnjudged,
			"rawmcp probe: hint: the address answers TLS: is the URL https://127.0.0.1:" + tlsPort + "/mcp?"},
		{"a path that answers 404: not judged, and the hint", []string{"probe", strings.TrimSuffix(s.url, "/mcp") + "/api/mcp", "-token", probeAlice}, exitUnjudged,
			"rawmcp probe: hint: the path answered 404, and initialize is answered at " + s.url + ": is that the URL?"},
		{"a report the disk refuses after the run", []string{"probe", s.url, "-token", probeAlice, "-only", "HO-01", "-html", "/dev/full"}, exitUnwritten,
			"rawmcp probe: a report could not be written: write /dev/full: no space left on device"},
		{"another scheme", []string{"probe", "-url", "ftp://127.0.0.1/mcp"}, exitUsage,
			"rawmcp probe: the URL must be http:// or https://host[:port]/path, without user info, query or fragment\nusage: rawmcp probe [flags] URL\n"},
		{"no URL", []string{"probe"}, exitUsage, "rawmcp probe: give the endpoint's URL: rawmcp probe http://127.0.0.1:PORT/mcp\n" +
			"usage: rawmcp probe [flags] URL\n       rawmcp probe -list [-only IDS] [-md]\nrawmcp probe -h for all flags\n"},
		{"the URL twice", []string{"probe", "-url", s.url, "http://127.0.0.1:1/mcp"}, exitUsage, "rawmcp probe: the URL is given twice"},
		{"an unknown flag", []string{"probe", s.url, "-fast"}, exitUsage, "rawmcp probe: flag provided but not defined: -fast\nusage:"},
		{"-token2 equal to -token", []string{"probe", s.url, "-token", probeAlice, "-token2", probeAlice}, exitUsage,
			"rawmcp probe: -token2 is -token: SE-07 needs another principal's token, or leave -token2 out"},
		{"-explore with -html", []string{"probe", s.url, "-explore", "3", "-html", filepath.Join(dir, "x.html")}, exitUsage,
			"rawmcp probe: -explore writes its own report (text or -json): -html, -sarif, -baseline and -write-baseline are the checks'"},
		{"-explore with -baseline", []string{"probe", s.url, "-explore", "3", "-baseline", writeTemp(t, `{}`)}, exitUsage, "-explore writes its own report"},
		{"an -html path that cannot be written, before the run", []string{"probe", "http://" + closed + "/mcp", "-html", filepath.Join(dir, "no", "such", "dir.html")}, exitUsage,
			"rawmcp probe: -html: open " + filepath.Join(dir, "no", "such", "dir.html") + ": no such file or directory"},
		{"a -sarif path that is a directory", []string{"probe", "http://" + closed + "/mcp", "-sarif", dir}, exitUsage, "rawmcp probe: -sarif: open " + dir + ": is a directory"},
		{"-html and -sarif the same file", []string{"probe", s.url, "-html", filepath.Join(dir, "r"), "-sarif", filepath.Join(dir, "r")}, exitUsage,
			"rawmcp probe: -html and -sarif name the same file"},
		{"a -sarif-location outside the repository", []string{"probe", s.url, "-sarif", filepath.Join(dir, "p.sarif"), "-sarif-location", "../x"}, exitUsage,
			"rawmcp probe: -sarif-location must be a path relative to the repository's root"},
		{"a -resolve without ADDR", []string{"probe", "-url", s.url, "-resolve", "mcp.example.test:443"}, exitUsage,
			`invalid value "mcp.example.test:443" for flag -resolve: probe: -resolve must be HOST:PORT:ADDR, ADDR an IP address (127.0.0.1, [::1])`},
		{"a -cacert without a certificate", []string{"probe", "-url", s.url, "-cacert", filepath.Join("testdata", "probe-named.json")}, exitUsage,
			"rawmcp probe: -cacert: no PEM certificate in the file"},
		{"a -baseline naming no check", []string{"probe", "-url", s.url, "-baseline", writeTemp(t, `{"HO-99": "warn"}`)}, exitUsage,
			`rawmcp probe: -baseline: probe: the baseline names "HO-99", which is no check id or group`},
		{"a -baseline with a syntax error says where", []string{"probe", s.url, "-baseline", writeTemp(t, "{\n  \"HO-01\": \"warn\",\n}")}, exitUsage,
			"is not JSON: invalid character '}' looking for beginning of object key string at line 3, column 1"},
		{"a baseline that matches", []string{"probe", "-url", s.url, "-token", probeAlice, "-only", "PV", "-baseline", writeTemp(t, `{"PV-04": "info"}`)}, exitOK, ""},
		{"a recorded MUST failure that still fails", []string{"probe", "-url", "http://" + broken + "/mcp", "-only", "HO-02", "-baseline", writeTemp(t, `{"HO-02": "fail"}`)}, exitOK, ""},
		{"a regression", []string{"probe", "-url", "http://" + broken + "/mcp", "-only", "HO-02", "-baseline", writeTemp(t, `{}`)}, exitFail,
			"rawmcp probe: baseline: 1 regression (HO-02)"},
		{"a baseline entry no longer needed is no regression", []string{"probe", "-url", s.url, "-token", probeAlice, "-only", "HO-01", "-baseline", writeTemp(t, `{"HO-01": "warn"}`)}, exitOK, ""},
		{"a skip not in the baseline is no regression", []string{"probe", "-url", s.url, "-token", probeAlice, "-only", "PV,SE-07", "-baseline", writeTemp(t, `{"HO-01": "warn"}`)}, exitOK, ""},
		{"a group key", []string{"probe", "-url", "http://" + broken + "/mcp", "-only", "HO-02,HO-06", "-baseline", writeTemp(t, `{"HO": "fail"}`)}, exitOK, ""},
		{"an expired entry accepts nothing", []string{"probe", "http://" + broken + "/mcp", "-only", "HO-02", "-baseline",
			writeTemp(t, `{"HO-02": {"verdict": "fail", "reason": "ships in 2.3", "expires": "2020-01-31"}}`)}, exitFail,
			"rawmcp probe: baseline: 1 regression (HO-02), 1 expired entry (HO-02)"},
		{"an unknown check", []string{"probe", "-url", s.url, "-only", "HO-99"}, exitUsage, `rawmcp probe: "HO-99" is neither a check id`},
		{"PRE-01 cannot be skipped", []string{"probe", "-url", s.url, "-skip", "PRE-01"}, exitUsage, "PRE-01 cannot be skipped"},
		{"serve's token file given to -tokens", []string{"probe", "-url", s.url, "-tokens", filepath.Join("testdata", "probe-tokens.json")}, exitUsage,
			"rawmcp probe: -tokens: probe: the tokens file is a rawmcp serve token file (a list of token records)"},
		{"a -tokens file with a syntax error says where", []string{"probe", s.url, "-tokens", writeTemp(t, `{"expired": "a" "low_scope": "b"}`)}, exitUsage,
			"is not JSON: invalid character '\"' after object key:value pair at line 1, column 17"},
	}
	covered := map[int]bool{}
	for _, tt := range tests {
		covered[tt.code] = true
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := rawmcp(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if tt.stderr != "" && !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
			if tt.code == exitUsage && strings.Count(stderr, "\n") > 4 {
				t.Errorf("a usage error is one line, the short usage and where the rest is:\n%s", stderr)
			}
		})
	}
	for _, e := range probeExits {
		if !covered[e.code] {
			t.Errorf("exit status %d (%s) has no case", e.code, e.meaning)
		}
	}
}

// TestProbeExitTables: -h and the README list probe's exit statuses as
// probeExits has them, each once.
func TestProbeExitTables(t *testing.T) {
	help, _, code := rawmcp(t, "probe", "-h")
	if code != exitOK {
		t.Fatalf("probe -h: exit status %d", code)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range probeExits {
		if row := fmt.Sprintf("\n  %d  %s\n", e.code, e.meaning); strings.Count(help, row) != 1 {
			t.Errorf("-h does not list %q once", row)
		}
		if row := fmt.Sprintf("\n| %d | %s |\n", e.code, e.meaning); strings.Count(string(readme), row) != 1 {
			t.Errorf("README.md does not list %q once", row)
		}
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

// TestProbeSARIF: -sarif writes a SARIF 2.1.0 log that code scanning
// accepts, a result for each finding and none for a pass, skip or report,
// located at -sarif-location's file (by default the CI example's
// workflow).
func TestProbeSARIF(t *testing.T) {
	s := startServe(t)
	broken := "http://" + permissiveServer(t) + "/mcp"
	tests := []struct {
		name     string
		args     []string
		code     int
		results  []string
		location string
	}{
		{"a clean run has no result", []string{"probe", "-url", s.url, "-token", probeAlice, "-only", "PV"}, exitOK, nil, ".github/workflows/mcp-probe.yml"},
		{"a finding is a result", []string{"probe", "-url", broken, "-only", "HO-02", "-sarif-location", "deploy/mcp.yaml"}, exitFail, []string{"HO-02 error"}, "deploy/mcp.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "probe.sarif")
			_, stderr, code := rawmcp(t, append(tt.args, "-sarif", path)...)
			if code != tt.code {
				t.Fatalf("exit status %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			data := validSARIF(t, path)
			var log struct {
				Runs []struct {
					Results []struct {
						RuleID    string `json:"ruleId"`
						Level     string `json:"level"`
						Locations []struct {
							PhysicalLocation struct {
								ArtifactLocation struct{ URI string }
							}
						}
					} `json:"results"`
				} `json:"runs"`
			}
			json.Unmarshal(data, &log)
			var got []string
			for _, r := range log.Runs[0].Results {
				got = append(got, r.RuleID+" "+r.Level)
				if uri := r.Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != tt.location {
					t.Errorf("%s is located at %q, want %q", r.RuleID, uri, tt.location)
				}
			}
			if diff := cmp.Diff(tt.results, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

// validSARIF reads a SARIF file the probe wrote and fails the test
// unless it validates against the SARIF 2.1.0 schema and code scanning's
// upload rules.
func validSARIF(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range schemacheck.SARIF(data) {
		t.Errorf("%s does not validate: %s", path, p)
	}
	return data
}

// TestProbeTable: the human output on a pipe: what was reached, the
// findings first (none here), the skips by reason, the reports with
// their reason, the passes by group, then the summary line; no marks or
// colour.
func TestProbeTable(t *testing.T) {
	s := startServe(t)
	stdout, _, _ := rawmcp(t, "probe", "-url", s.url, "-token", probeAlice, "-only", "PV,SE-07")
	want := "reached " + s.url + " at " + strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp") + `
  cleartext http, no TLS
  Server: none; Via: none

speaks MCP 2025-11-25; ` + probe.CatalogueLine() + `

Skipped (1)
  Sessions: needs -token2: SE-07
Info (1)
  info  PV-04  Missing header after init
               answered 400 with JSON-RPC error -32000: the server requires the header
Passed (6)
  Preflight
    pass  PRE-01 The endpoint speaks MCP
  Protocol version
    pass  PV-01  A past version refused
    pass  PV-02  A future version refused on every method
    pass  PV-03  A malformed version refused
    pass  PV-05  Negotiation answers a supported version
    pass  PV-06  A supported version is answered as proposed
probe: 6 pass, 0 fail, 0 warn, 1 skip, 0 error, 1 info (MUST failed: none)
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
	for _, want := range []string{"AU-05  H      T, auth ", " A token in the query is not accepted", "rule: A-19", "decoy"} {
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

// TestProbeHelp: rawmcp help probe and probe -h print the flags and the
// groups on stdout and exit 0.
func TestProbeHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "probe"}, {"probe", "-h"}, {"probe", "--help"}} {
		stdout, stderr, code := rawmcp(t, args...)
		if code != exitOK || stderr != "" {
			t.Fatalf("%v: exit status %d, stderr %q", args, code, stderr)
		}
		for _, want := range []string{"-url", "-token", "-token2", "-tokens", "-only", "-skip", "-strict", "-require-all", "-json", "-q", "-html", "-trace", "-timeout", "-slow", "-list", "-md",
			"-resolve", "-cacert", "-baseline", "-write-baseline", "-sarif", "-sarif-location", "-version", "-explore", "-seed", "-explore-steps", "-explore-save", "-explore-replay"} {
			if !strings.Contains(stdout, "  "+want+" ") && !strings.Contains(stdout, "  "+want+"\n") && !strings.Contains(stdout, "  "+want+"\t") {
				t.Errorf("%v lacks the flag %s", args, want)
			}
		}
		for _, g := range probe.Groups {
			if !strings.Contains(stdout, g.Title) {
				t.Errorf("%v lacks the group %q", args, g.Title)
			}
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

// stallingServer answers the preflight's initialize at once and holds
// every other request unanswered for 5 s: a run's budget runs out on it.
func stallingServer(t *testing.T) string {
	t.Helper()
	return clienttest.Serve(t, nil, func(nc net.Conn) {
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 64<<10)
		n, _ := nc.Read(buf)
		req := buf[:n]
		id := regexp.MustCompile(`"id":(\d+)`).FindSubmatch(req)
		switch {
		case bytes.Contains(req, []byte(`"method":"initialize"`)) && id != nil:
			body := `{"jsonrpc":"2.0","id":` + string(id[1]) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"slow","version":"1"}}}`
			nc.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
				strconv.Itoa(len(body)) + "\r\n\r\n" + body))
		case bytes.Contains(req, []byte(`"method":"notifications/`)) || bytes.Contains(req, []byte(`"method":"server/discover"`)):
			nc.Write([]byte("HTTP/1.1 202 Accepted\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"))
		default:
			nc.Read(buf) // until the deadline
		}
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
