package main

import (
	"os"
	"os/exec"
	"testing"
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
