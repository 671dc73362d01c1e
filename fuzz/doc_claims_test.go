package fuzz

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/sseframe"
	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/lifecycle"
	"rawmcp/wire/rule"
)

// packageComment returns the package comment of the Go file at path, its
// lines joined by single spaces.
func packageComment(t *testing.T, path string) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatalf("%s has no package comment", path)
	}
	return strings.Join(strings.Fields(f.Doc.Text()), " ")
}

// TestDocNamesEveryTest: this package's comment names every test and fuzz
// target of the package, and only those, so a new test cannot go
// unexplained and a removed one cannot stay listed.
func TestDocNamesEveryTest(t *testing.T) {
	paths, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var declared []string
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && regexp.MustCompile(`^(Test|Fuzz)[A-Z]`).MatchString(fn.Name.Name) {
				declared = append(declared, fn.Name.Name)
			}
		}
	}
	named := regexp.MustCompile(`\b(?:Test|Fuzz)[A-Z]\w*`).FindAllString(packageComment(t, "doc.go"), -1)
	slices.Sort(declared)
	slices.Sort(named)
	named = slices.Compact(named)
	if len(declared) < 10 {
		t.Fatalf("found %d tests: the parse went wrong", len(declared))
	}
	if diff := cmp.Diff(declared, named); diff != "" {
		t.Errorf("tests (-declared +named in doc.go):\n%s", diff)
	}
}

// TestClientDocNamesItsImporters: the last paragraph of wire/client's
// package comment names, in parentheses, every package whose non-test code
// imports wire/client, and no other.
func TestClientDocNamesItsImporters(t *testing.T) {
	doc := packageComment(t, "../wire/client/doc.go")
	i := strings.Index(doc, "Every client rawmcp has is built on it:")
	if i < 0 {
		t.Fatal(`wire/client's package comment has no "Every client rawmcp has is built on it:" paragraph`)
	}
	var named []string
	for _, m := range regexp.MustCompile(`\(([a-z][\w/]*)\)`).FindAllStringSubmatch(doc[i:], -1) {
		named = append(named, m[1])
	}
	var importers []string
	for pkg, imports := range sourceImports(t, "..") {
		if slices.Contains(imports, "rawmcp/wire/client") {
			importers = append(importers, pkg)
		}
	}
	slices.Sort(named)
	slices.Sort(importers)
	if len(importers) < 2 {
		t.Fatalf("found %d importers of wire/client: the walk went wrong", len(importers))
	}
	if diff := cmp.Diff(importers, named); diff != "" {
		t.Errorf("importers of wire/client (-code +package comment):\n%s", diff)
	}
}

// TestRuleTextsQuoteTheDefaults: a rule sentence that quotes a limit
// quotes the value the server runs with by default; traces print these
// sentences next to every answer.
func TestRuleTextsQuoteTheDefaults(t *testing.T) {
	cfg := wire.NewConfig(nil, nil)
	for _, tc := range []struct {
		id    rule.ID
		value int
	}{
		{rule.InFlightGate, cfg.MaxInFlight},
		{rule.SessionCapacity, state.DefaultConfig().MaxSessions},
		{rule.EventIDSyntax, sseframe.MaxIDLen},
	} {
		if !regexp.MustCompile(`\b` + strconv.Itoa(tc.value) + `\b`).MatchString(tc.id.Text()) {
			t.Errorf("%s says %q, but the default is %d", tc.id, tc.id.Text(), tc.value)
		}
	}
}

// TestReadmeCountsTheLifecycleEvents: fuzz/README.md's count of the
// lifecycle model's events is the model's alphabet.
func TestReadmeCountsTheLifecycleEvents(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`; (\d+) events: `).FindSubmatch(readme)
	if m == nil {
		t.Fatal(`fuzz/README.md has no "; N events: " count`)
	}
	if got, want := string(m[1]), strconv.Itoa(len(lifecycle.Alphabet())); got != want {
		t.Errorf("fuzz/README.md counts %s events, the model has %s", got, want)
	}
}

// TestEveryPackageHasAComment: every package of the module opens with a
// package comment ("Package name …", or "Command name …" for a command),
// so go doc has something to say about each one.
func TestEveryPackageHasAComment(t *testing.T) {
	commented := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != ".." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		opening := "Package " + f.Name.Name + " "
		if f.Name.Name == "main" {
			opening = "Command " + filepath.Base(dir) + " "
		}
		commented[dir] = commented[dir] || f.Doc != nil && strings.HasPrefix(f.Doc.Text(), opening)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(commented) < 15 {
		t.Fatalf("found %d packages: the walk went wrong", len(commented))
	}
	for dir, ok := range commented {
		if !ok {
			t.Errorf("%s has no package comment", dir)
		}
	}
}
