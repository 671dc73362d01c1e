package probe_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe"
	"rawmcp/wire/client/probe/testdata/schemacheck"
)

// originUnchecked is the small flawed target of the golden reports:
// rawmcp behind a proxy that lets a foreign Origin through on POST (HO-02
// fails, HO-03 and HO-04 rest on it) and refuses the server's own origin
// (HO-05 warns).
var originUnchecked = flaw{request: func(p *flawProxy, r *proxied) []byte {
	switch r.get("Origin") {
	case "http://evil.example":
		if r.method == "POST" {
			r.drop("Origin")
		}
	case "http://" + p.upstream:
		return answer("403 Forbidden", "", "")
	}
	return nil
}}

// TestGoldenReports: the text, -json, SARIF and HTML reports of one run
// against a small flawed target are the files in testdata/golden, the
// target's port, the run's time and the session ids' correlation ids
// made constant; the SARIF validates against the SARIF 2.1.0 schema and
// code scanning's upload rules, the -json document against its schema.
// go test -run TestGoldenReports -update rewrites the files (after a
// change of a check's fix, link or title, say).
func TestGoldenReports(t *testing.T) {
	srv := startRawmcp(t)
	addr := startProxy(t, srv.Addr, originUnchecked)
	target, err := probe.ParseTarget("http://" + addr + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := probe.Run(context.Background(), target, probe.Options{Token: alice, Only: []string{"HO", "PV", "SE-07"}, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rep.Started, rep.Duration = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), 1234*time.Millisecond
	constant := []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`127\.0\.0\.1:[0-9]+`), "127.0.0.1:PORT"},
		{regexp.MustCompile(`session:[0-9a-f]+`), "session:ID"},
		{regexp.MustCompile(`Date: [A-Za-z]{3}, [0-9]{2} [A-Za-z]{3} [0-9]{4} [0-9:]{8} GMT`), "Date: DATE"},
		// Request ids count up across the checks run at once, and the
		// lengths of the bodies that carry them follow.
		{regexp.MustCompile(`id(\\?"|&#34;):[0-9]+`), "id$1:N"},
		{regexp.MustCompile(`Content-Length: [0-9]+`), "Content-Length: N"},
		{regexp.MustCompile(`id: [A-Za-z0-9_-]+-([0-9]+)`), "id: EVENT-$1"},
	}
	forms := []struct {
		file  string
		write func(b *bytes.Buffer) error
		check func(t *testing.T, doc []byte)
	}{
		{"flawed.txt", func(b *bytes.Buffer) error { return rep.WriteText(b) }, nil},
		{"flawed.json", func(b *bytes.Buffer) error { return rep.WriteJSON(b) }, func(t *testing.T, doc []byte) {
			for _, p := range schemacheck.ReportSchema().Validate(doc) {
				t.Errorf("the -json document does not validate: %s", p)
			}
		}},
		{"flawed.sarif", func(b *bytes.Buffer) error { return rep.WriteSARIF(b, probe.DefaultSARIFLocation) }, func(t *testing.T, doc []byte) {
			for _, p := range schemacheck.SARIF(doc) {
				t.Errorf("the SARIF log does not validate: %s", p)
			}
		}},
		{"flawed.html", func(b *bytes.Buffer) error { return rep.WriteHTML(b) }, nil},
	}
	update := flag.Lookup("update").Value.(flag.Getter).Get().(bool)
	for _, f := range forms {
		t.Run(f.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.write(&b); err != nil {
				t.Fatal(err)
			}
			got := b.Bytes()
			if f.check != nil {
				f.check(t, got)
			}
			for _, c := range constant {
				got = c.re.ReplaceAll(got, []byte(c.with))
			}
			path := filepath.Join("testdata", "golden", f.file)
			if update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -run TestGoldenReports -update writes it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s (-want +got; -update rewrites it):\n%s", path, diff)
			}
		})
	}
}
