package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"rawmcp/wire"
	"rawmcp/wire/client"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/scenario"
)

// binary is the rawmcp command, built once for every test: the tests run
// it as a user would, as a subprocess, and read its stdout and exit status.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rawmcp-cmd-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "rawmcp")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	code := 1
	if err := build.Run(); err == nil {
		code = m.Run()
	} else {
		fmt.Fprintln(os.Stderr, "building rawmcp:", err)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// rawmcp runs the binary and returns stdout, stderr and the exit status.
func rawmcp(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running rawmcp %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

const profileMembers = `"profile":"loopback-streamable-http-teaching-profile-v1","protocol_version":"2025-11-25"`

func TestVerdicts(t *testing.T) {
	blocked := strconv.Itoa(len(scenario.ProbeChecks()) + len(scenario.Attacks()) + 1) // the probe's checks, the table and the leak check
	tests := []struct {
		name   string
		args   []string
		stdout string
		code   int
	}{
		{"demo prints PASS and exits 0", []string{"demo"},
			`{"http_round_trips":9,` + profileMembers + `,"verdict":"PASS"}` + "\n", exitOK},
		{"attack prints BLOCK and exits 0", []string{"attack"},
			`{"blocked_attacks":` + blocked + `,` + profileMembers + `,"verdict":"BLOCK"}` + "\n", exitOK},
		{"experiments prints PASS for all ten", []string{"experiments"},
			`{"experiments":10,"passed":10,` + profileMembers + `,"verdict":"PASS"}` + "\n", exitOK},
		{"experiments N runs one", []string{"experiments", "-trace", "10"},
			`{"experiments":1,"passed":1,` + profileMembers + `,"verdict":"PASS"}` + "\n", exitOK},
		{"demo -trace keeps stdout to the verdict", []string{"demo", "-trace"},
			`{"http_round_trips":9,` + profileMembers + `,"verdict":"PASS"}` + "\n", exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := rawmcp(t, tt.args...)
			if diff := cmp.Diff(tt.stdout, stdout); diff != "" {
				t.Errorf("stdout (-want +got):\n%s\nstderr:\n%s", diff, stderr)
			}
			if code != tt.code {
				t.Errorf("exit status %d, want %d", code, tt.code)
			}
		})
	}
}

func TestAttackVerboseListsEveryAttack(t *testing.T) {
	_, stderr, _ := rawmcp(t, "attack", "-v")
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(lines) != len(scenario.ProbeChecks())+len(scenario.Attacks())+1 {
		t.Fatalf("%d lines on stderr, want one per probe check, attack and the leak check:\n%s", len(lines), stderr)
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, "BLOCKED ") || !strings.Contains(line, "expected ") || !strings.Contains(line, ", observed ") {
			t.Errorf("line %q: want BLOCKED, the expected and the observed status", line)
		}
	}
}

func TestTraceRedactsAndAnnotates(t *testing.T) {
	_, stderr, code := rawmcp(t, "demo", "-trace")
	if code != exitOK {
		t.Fatalf("exit status %d", code)
	}
	for _, want := range []string{"> Authorization: Bearer <token:", "< Mcp-Session-Id: <session:", "= T-53: ", "= T-45: "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the trace lacks %q", want)
		}
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		code       int
		stdoutHelp bool
	}{
		{"help prints the commands on stdout", []string{"help"}, exitOK, true},
		{"help <command> is that command's -h", []string{"help", "serve"}, exitOK, false},
		{"help bench is bench's -h", []string{"help", "bench"}, exitOK, false},
		{"-h on a command exits 0", []string{"demo", "-h"}, exitOK, false},
		{"no command is a usage error", nil, exitUsage, false},
		{"an unknown command is a usage error", []string{"fly"}, exitUsage, false},
		{"an unknown flag is a usage error", []string{"demo", "-fast"}, exitUsage, false},
		{"a stray argument is a usage error", []string{"attack", "all"}, exitUsage, false},
		{"experiment 0 does not exist", []string{"experiments", "0"}, exitUsage, false},
		{"experiment 11 does not exist", []string{"experiments", "11"}, exitUsage, false},
		{"T-06/serve refuses 0.0.0.0", []string{"serve", "-addr", "0.0.0.0:0"}, exitUsage, false},
		{"serve refuses zero sessions", []string{"serve", "-sessions", "0"}, exitUsage, false},
		{"bench refuses a non-loopback URL", []string{"bench", "-url", "http://10.0.0.1:80/mcp", "-requests", "1"}, exitUsage, false},
		{"serve without a readable token file fails", []string{"serve", "-tokens", "/nonexistent/tokens.json"}, exitFail, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := rawmcp(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if got := strings.Contains(stdout, "Commands:"); got != tt.stdoutHelp {
				t.Errorf("help on stdout: %v, want %v", got, tt.stdoutHelp)
			}
			if tt.code != exitOK && stderr == "" {
				t.Error("a failure must say why on stderr")
			}
			if len(tt.args) > 1 && tt.args[0] != "bench" && tt.code == exitUsage && strings.Count(stderr, "\n") > 4 {
				t.Errorf("a command's usage error is one line, the short usage and where the rest is:\n%s", stderr)
			}
			if len(tt.args) > 1 && tt.args[len(tt.args)-1] == "-h" && !strings.HasPrefix(stdout, "usage: rawmcp "+tt.args[0]) {
				t.Errorf("-h prints the command's help on stdout: %q", stdout)
			}
		})
	}
}

// TestServe starts `rawmcp serve`, reads its first line, initializes with
// the token it printed, and stops it with SIGTERM.
func TestServe(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "tokens.json")
	err := os.WriteFile(tokenFile, []byte(`[{"token": "dG9rZW4tZnJvbS1hLWZpbGU", "token_id": "file-1",
	  "issuer": "https://as.rawmcp.invalid", "audience": "self", "resource": "self",
	  "authorization_resource": "self", "token_resource": "self", "subject": "dana", "tenant": "initech",
	  "scopes": ["mcp:connect", "resources:read"], "revision": 1, "active": true, "expiry": "2099-01-01T00:00:00Z"}]`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		members []string
		token   string // "" = the one printed
	}{
		{"a demo token is generated and printed", nil, []string{"metadata_url", "token", "url"}, ""},
		{"with -tokens no token is printed", []string{"-tokens", tokenFile}, []string{"metadata_url", "url"}, "dG9rZW4tZnJvbS1hLWZpbGU"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binary, append([]string{"serve"}, tt.args...)...)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			line, err := bufio.NewReader(stdout).ReadBytes('\n')
			if err != nil {
				t.Fatalf("reading the first line: %v; stderr:\n%s", err, stderr.String())
			}
			var first map[string]string
			if err := json.Unmarshal(line, &first); err != nil {
				t.Fatalf("first line %q is not one JSON object: %v", line, err)
			}
			var members []string
			for name := range first {
				members = append(members, name)
			}
			slices.Sort(members)
			if diff := cmp.Diff(tt.members, members); diff != "" {
				t.Errorf("members of the first line (-want +got):\n%s", diff)
			}
			token := tt.token
			if token == "" {
				token = first["token"]
			}
			if status := initialize(t, first["url"], token); status != 200 {
				t.Errorf("initialize with the token: %d, want 200", status)
			}
			bench := exec.Command(binary, "bench", "-url", first["url"], "-token", token, "-requests", "200", "-conns", "4", "-json", "-progress", "0")
			out, err := bench.Output()
			var result struct{ Requests, Errors int }
			if err != nil || json.Unmarshal(out, &result) != nil || result.Requests != 200 || result.Errors != 0 {
				t.Errorf("rawmcp bench against serve: %v, %s", err, out)
			}

			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("after SIGTERM: %v, want exit status 0; stderr:\n%s", err, stderr.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("serve did not stop within 10 s of SIGTERM")
			}
			if strings.Contains(stderr.String(), token) {
				t.Errorf("A-P07/the log carries the token:\n%s", stderr.String())
			}
		})
	}
}

// initialize sends one raw 2025-11-25 initialize to url and returns the
// status.
func initialize(t *testing.T, url, token string) int {
	t.Helper()
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	c := client.New(addr)
	defer c.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cmd-test","version":"1"}}}`
	req := client.Request{Method: "POST", Path: "/mcp", Header: [][2]string{
		{"Host", addr}, {"Accept", "application/json, text/event-stream"}, {"Content-Type", "application/json"},
		{"Authorization", "Bearer " + token},
	}, Body: []byte(body)}
	resp, err := c.Do(req.Bytes(), false)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return resp.Status
}

// TestClientAnnouncesTheServerRelease: the client side states rawmcp's
// release without importing the server, so the two constants are kept
// equal here, where both are in reach.
func TestClientAnnouncesTheServerRelease(t *testing.T) {
	if client.Version != wire.ServerVersion {
		t.Errorf("client.Version %q, wire.ServerVersion %q", client.Version, wire.ServerVersion)
	}
}

// TestAttackSaysWhichProbeChecksItRuns: the top README and attack's -h
// name the probe command whose checks attack runs, with the groups it
// leaves out as wire/scenario leaves them out.
func TestAttackSaysWhichProbeChecksItRuns(t *testing.T) {
	want := "rawmcp probe -strict -skip " + strings.Join(scenario.ProbeSkipped(), ",")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "every check of `"+want+"`") {
		t.Errorf("README.md does not say attack runs every check of `%s`", want)
	}
	if less := "less the " + strings.Join(scenario.ProbeSkipped(), " and ") + " groups"; !strings.Contains(string(readme), less) {
		t.Errorf("README.md's map does not say attack runs the probe's catalogue %s", less)
	}
	help, _, _ := rawmcp(t, "attack", "-h")
	if !strings.Contains(help, "Runs the probe's catalogue as "+want+" does") {
		t.Errorf("attack -h does not name %q:\n%s", want, help)
	}
}
