package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"rawmcp/policy"
)

// TestProbeProgressInAPipe: with stderr not a terminal, one short line
// per finished check, each numbered of the total (PRE-03, the run's last
// word, is counted even when the report leaves out its pass); stdout stays the
// report alone (one JSON document with -json); -q and -trace silence the
// progress.
func TestProbeProgressInAPipe(t *testing.T) {
	s := startServe(t)
	stdout, stderr, code := rawmcp(t, "probe", s.url, "-token", probeAlice, "-only", "HO,PV", "-json")
	if code != exitOK {
		t.Fatalf("exit status %d:\n%s", code, stderr)
	}
	var doc probeDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v", err)
	}
	line := regexp.MustCompile(`^probe: ([0-9]+)/([0-9]+) (pass|fail|warn|skip|error|info) +([A-Z0-9]+-[0-9]{2}) \([0-9.a-zµ]+\)$`)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	finished := len(doc.Checks) + 1 // PRE-03 passed, unselected
	if len(lines) != finished {
		t.Fatalf("%d progress lines for %d checks:\n%s", len(lines), finished, stderr)
	}
	seen := map[string]bool{}
	for i, l := range lines {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("line %q is no progress line", l)
			continue
		}
		if m[1] != itoa(i+1) || m[2] != itoa(finished) {
			t.Errorf("line %q: want %d/%d", l, i+1, finished)
		}
		seen[m[4]] = true
	}
	for _, c := range append(doc.Checks, struct{ ID, Verdict, Reason string }{ID: "PRE-03"}) {
		if !seen[c.ID] {
			t.Errorf("no progress line for %s", c.ID)
		}
	}
	for _, quiet := range []string{"-q", "-trace"} {
		_, stderr, _ := rawmcp(t, "probe", s.url, "-token", probeAlice, "-only", "HO-01", quiet)
		if strings.Contains(stderr, "probe: 1/") {
			t.Errorf("%s: progress on stderr:\n%s", quiet, stderr)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestProbeExploreProgress: -explore shows the walks done of N.
func TestProbeExploreProgress(t *testing.T) {
	s := startServe(t)
	_, stderr, code := rawmcp(t, "probe", s.url, "-token", probeAlice, "-explore", "3", "-seed", "1")
	if code != exitOK {
		t.Fatalf("exit status %d:\n%s", code, stderr)
	}
	for _, want := range []string{"probe: explore: walks 1 of 3 (", "probe: explore: walks 3 of 3 ("} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestVersion: rawmcp version, --version and probe -version print the
// release and the catalogue's edition on stdout.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}, {"probe", "-version"}} {
		stdout, stderr, code := rawmcp(t, args...)
		if code != exitOK || stderr != "" || stdout != versionLine()+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", args, code, stdout, stderr, versionLine())
		}
	}
	if !regexp.MustCompile(`^rawmcp [0-9]+\.[0-9]+\.[0-9]+ \(check catalogue edition [0-9]+, [0-9]+ checks\)$`).MatchString(versionLine()) {
		t.Errorf("version line %q", versionLine())
	}
}

// TestServeHelpShowsTheTokenFile: serve -h shows the token file's format
// as JSON, on stdout.
func TestServeHelpShowsTheTokenFile(t *testing.T) {
	stdout, _, code := rawmcp(t, "serve", "-h")
	if code != exitOK {
		t.Fatalf("exit status %d", code)
	}
	for _, want := range []string{`[{"token": "tok-alice-3fQ9zW", "token_id": "alice-1", "issuer": "https://as.rawmcp.invalid",`, `"scopes": ["mcp:connect", "resources:read"]`, `"expiry": "2099-01-01T00:00:00Z"}]`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("serve -h lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "ParseTokenFile") {
		t.Error("serve -h names a Go function instead of the format")
	}
	start, end := strings.Index(stdout, "[{"), strings.Index(stdout, "}]")
	if start < 0 || end < start {
		t.Fatal("no token file in serve -h")
	}
	example := regexp.MustCompile(`\n +`).ReplaceAllString(stdout[start:end+2], " ")
	if _, err := policy.ParseTokenFile([]byte(example), "http://127.0.0.1:1/mcp"); err != nil {
		t.Errorf("the example in serve -h is no token file serve reads: %v\n%s", err, example)
	}
}
