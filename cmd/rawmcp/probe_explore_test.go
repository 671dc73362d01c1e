package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProbeExplore: rawmcp probe -explore against rawmcp serve finds
// nothing and exits 0; against a server that serves everything it exits
// 1, prints the shortest walk and the command that replays it, which
// exits 1 again; usage errors exit 2. No output carries a token.
func TestProbeExplore(t *testing.T) {
	s := startServe(t)
	broken := "http://" + permissiveServer(t) + "/mcp"
	saved := filepath.Join(t.TempDir(), "walks.json")
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"steps":[{"op":"dance"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // lines or phrases that must be on stdout
		stderr string
	}{
		{"rawmcp serve: no finding", []string{"probe", "-url", s.url, "-token", probeAlice, "-token2", probeBob, "-timeout", "20s", "-explore", "30", "-seed", "5"}, exitOK,
			[]string{"explore " + s.url + ": seed 5, 30 walks of at most 8 steps", "walks: 30 pass, 0 fail, 0 warn", "no finding"}, ""},
		{"a server that serves everything", []string{"probe", "-url", broken, "-explore", "10", "-seed", "5", "-explore-save", saved}, exitFail,
			[]string{"EX-04 MUST fail", "shortest: 2 steps", "  1. initialize → 200 application/json with a result", "replay: rawmcp probe -url " + broken + " -explore-replay " + saved}, ""},
		{"-json carries the walks and the findings", []string{"probe", "-url", broken, "-explore", "2", "-seed", "5", "-json"}, exitFail,
			[]string{`"walks": [`, `"rule": "EX-04"`, `"shrunk": {`, `"op": "initialize"`}, ""},
		{"its saved walks replayed", []string{"probe", "-url", broken, "-explore-replay", saved}, exitFail,
			[]string{"explore " + broken + ": 3 walks replayed", "EX-04 MUST fail", "replay: rawmcp probe -url " + broken + " -explore-replay " + saved}, ""},
		{"-explore and -explore-replay", []string{"probe", "-url", broken, "-explore", "3", "-explore-replay", saved}, exitUsage, nil,
			"rawmcp probe: give -explore N (N > 0) or -explore-replay FILE, not both"},
		{"a negative -explore", []string{"probe", "-url", broken, "-explore", "-3"}, exitUsage, nil,
			"rawmcp probe: give -explore N (N > 0) or -explore-replay FILE, not both"},
		{"a walk of one step", []string{"probe", "-url", broken, "-explore", "3", "-explore-steps", "1"}, exitUsage, nil,
			"probe: -explore walks have 2 to 64 steps"},
		{"a replay file of unknown ops", []string{"probe", "-url", broken, "-explore-replay", bad}, exitUsage, nil,
			"rawmcp probe: -explore-replay: probe: -explore-replay: the file is not a walk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := rawmcp(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if tt.stderr != "" && !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
			for _, secret := range []string{probeAlice, probeBob} {
				if strings.Contains(stdout+stderr, secret) {
					t.Error("the output carries a token")
				}
			}
		})
	}
}
