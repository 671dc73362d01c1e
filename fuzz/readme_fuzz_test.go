package fuzz

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// fuzzCommand is one "go test ... -fuzz=PATTERN ... ./pkg" line of the
// README.
type fuzzCommand struct {
	line    int
	pattern string
	pkg     string
}

// TestReadmeFuzzCommands checks that every fuzz command in fuzz/README.md can
// run as written: go test refuses a -fuzz pattern that matches more than
// one fuzz target of the package, or none (as "-fuzz=FuzzParse ./httpparse"
// once matched FuzzParse and FuzzParseResponse). Each package's targets are
// listed once with go test -list, then every pattern is matched against
// them here.
func TestReadmeFuzzCommands(t *testing.T) {
	cmds := readmeFuzzCommands(t, "README.md")
	if len(cmds) == 0 {
		t.Fatal("no go test -fuzz command found in fuzz/README.md: the test would pass vacuously")
	}
	targets := map[string][]string{}
	for _, c := range cmds {
		if _, ok := targets[c.pkg]; !ok {
			targets[c.pkg] = fuzzTargets(t, c.pkg)
		}
	}
	for _, c := range cmds {
		// go test matches -fuzz like -run: the part before the first
		// slash selects the top-level target.
		top, _, _ := strings.Cut(c.pattern, "/")
		re, err := regexp.Compile(top)
		if err != nil {
			t.Errorf("fuzz/README.md:%d: -fuzz=%s is not a regexp: %v", c.line, c.pattern, err)
			continue
		}
		var matched []string
		for _, name := range targets[c.pkg] {
			if re.MatchString(name) {
				matched = append(matched, name)
			}
		}
		if len(matched) != 1 {
			t.Errorf("fuzz/README.md:%d: -fuzz=%s selects %d fuzz targets in %s, want exactly 1: %v (all: %v)",
				c.line, c.pattern, len(matched), c.pkg, matched, targets[c.pkg])
		}
	}
}

// readmeFuzzCommands returns the go test commands with a -fuzz flag, their
// pattern unquoted and their one package argument.
func readmeFuzzCommands(t *testing.T, path string) []fuzzCommand {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []fuzzCommand
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), " #")
		args := strings.Fields(text)
		if len(args) < 2 || args[0] != "go" || args[1] != "test" {
			continue
		}
		c := fuzzCommand{line: line}
		var pkgs []string
		for i, a := range args {
			switch {
			case strings.HasPrefix(a, "-fuzz="):
				c.pattern = strings.Trim(strings.TrimPrefix(a, "-fuzz="), `'"`)
			case a == "-fuzz" && i+1 < len(args):
				c.pattern = strings.Trim(args[i+1], `'"`)
			case strings.HasPrefix(a, "./"):
				pkgs = append(pkgs, a)
			}
		}
		if c.pattern == "" {
			continue
		}
		if len(pkgs) != 1 {
			t.Errorf("fuzz/README.md:%d: a -fuzz command takes exactly one package, found %v", line, pkgs)
			continue
		}
		c.pkg = pkgs[0]
		cmds = append(cmds, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

// fuzzTargets lists pkg's fuzz targets with go test -list, run from the
// module root as the README's commands are. -list also prints tests,
// benchmarks and examples, and a summary line: only Fuzz names count.
func fuzzTargets(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "test", "-list", "^Fuzz", pkg)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if exit, ok := err.(*exec.ExitError); ok {
		t.Fatalf("go test -list ^Fuzz %s: %v\n%s%s", pkg, err, out, exit.Stderr)
	}
	if err != nil {
		t.Fatalf("go test -list ^Fuzz %s: %v", pkg, err)
	}
	var names []string
	for name := range strings.FieldsSeq(string(out)) {
		if strings.HasPrefix(name, "Fuzz") {
			names = append(names, name)
		}
	}
	return names
}

// TestReadmeListsEveryFuzzTarget: every native fuzz target of the module
// has its command in the README, so a new target cannot go unrun.
func TestReadmeListsEveryFuzzTarget(t *testing.T) {
	cmds := readmeFuzzCommands(t, "README.md")
	cmd := exec.Command("go", "test", "-list", "^Fuzz", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go test -list ^Fuzz ./...: %v", err)
	}
	// go test prints a package's names, then "ok  \trawmcp/pkg\t…".
	var pending []string
	found := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 1 && strings.HasPrefix(fields[0], "Fuzz"):
			pending = append(pending, fields[0])
		case len(fields) >= 2 && (fields[0] == "ok" || fields[0] == "?"):
			pkg := "./" + strings.TrimPrefix(strings.TrimPrefix(fields[1], "rawmcp"), "/")
			for _, name := range pending {
				found++
				if !slices.ContainsFunc(cmds, func(c fuzzCommand) bool {
					top, _, _ := strings.Cut(c.pattern, "/")
					return c.pkg == pkg && regexp.MustCompile(top).MatchString(name)
				}) {
					t.Errorf("%s in %s has no fuzz command in fuzz/README.md", name, pkg)
				}
			}
			pending = nil
		}
	}
	if found < 10 {
		t.Fatalf("found %d fuzz targets: the listing went wrong", found)
	}
}
