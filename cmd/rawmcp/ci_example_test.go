package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"rawmcp/wire/client/probe"
)

// TestCIExample runs testdata/ci-example.sh, the README's CI example as
// steps here: a correct server exits 0 with no SARIF result, the flawed
// one exits 1 with its finding, its baseline makes the next run exit 0,
// an expired entry exits 1, a usage error 2, nothing listening 4; every
// SARIF log validates.
func TestCIExample(t *testing.T) {
	cmd := exec.Command("bash", "testdata/ci-example.sh")
	cmd.Env = append(os.Environ(), "RAWMCP="+binary, "WORK="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestReadmeBaselineIsOneProbeReads: the baseline the CI section of
// README.md shows is a file -baseline reads, and its check entries are
// findings' verdicts, as -write-baseline writes them.
func TestReadmeBaselineIsOneProbeReads(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i := strings.Index(text, "-write-baseline .github/mcp-probe-baseline.json")
	if i < 0 {
		t.Fatal("README.md no longer shows how the first baseline is written")
	}
	start := strings.Index(text[i:], "```json\n")
	if start < 0 {
		t.Fatal("README.md shows no baseline after -write-baseline")
	}
	end := strings.Index(text[i+start:], "\n```")
	if end < 0 {
		t.Fatal("README.md's baseline after -write-baseline is not closed")
	}
	example := text[i+start+len("```json\n") : i+start+end]
	b, err := probe.ParseBaseline([]byte(example))
	if err != nil {
		t.Fatalf("the README's baseline: %v\n%s", err, example)
	}
	for key, a := range b.Accepted {
		if a.Verdict != probe.Fail && a.Verdict != probe.Warn && a.Verdict != probe.Error {
			t.Errorf("the README's baseline accepts %s %q, which every check not named may already do", key, a.Verdict)
		}
	}
}
