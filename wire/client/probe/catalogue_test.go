package probe

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// maxHelp bounds a check's help: what is sent and what evidence passes,
// in a sentence or two; how the code decides is the run function's.
const maxHelp = 320

// TestEveryCheckListed: a Check declared in a group file but left out of
// its group's list would never run, and one listed in another group's
// file (its own, xx.go, or a topic file of the group, xx_topic.go) would
// be documented under the wrong heading.
func TestEveryCheckListed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if typ, ok := lit.Type.(*ast.Ident); !ok || typ.Name != "Check" {
				return true
			}
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if key, isIdent := kv.Key.(*ast.Ident); !ok || !isIdent || key.Name != "ID" {
					continue
				}
				id, _ := strconv.Unquote(kv.Value.(*ast.BasicLit).Value)
				declared = append(declared, id)
				code, _, _ := strings.Cut(id, "-")
				if want := strings.ToLower(code); name != want+".go" && !strings.HasPrefix(name, want+"_") {
					t.Errorf("%s is declared in %s, want %s.go or a topic file %s_<topic>.go", id, name, want, want)
				}
			}
			return false
		})
	}
	var listed []string
	for _, c := range catalogue {
		listed = append(listed, c.ID)
	}
	slices.Sort(declared)
	slices.Sort(listed)
	if diff := cmp.Diff(declared, listed); diff != "" {
		t.Errorf("declared checks (-) vs the group lists (+):\n%s", diff)
	}
}

var update = flag.Bool("update", false, "rewrite CHECKS.md from the catalogue")

// TestChecksMarkdownIsCurrent: the committed CHECKS.md is what the
// catalogue generates (rawmcp probe -list -md); -update rewrites it.
func TestChecksMarkdownIsCurrent(t *testing.T) {
	var b strings.Builder
	if err := WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("CHECKS.md", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile("CHECKS.md")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(committed), b.String()); diff != "" {
		t.Errorf("CHECKS.md is stale; regenerate it with go test ./wire/client/probe -run TestChecksMarkdownIsCurrent -update (-committed +generated):\n%s", diff)
	}
}

// TestNotMetCarriesEvidence: every "not met" a run function returns says
// what was expected and what came back (outcome.with), so a report never
// shows a failure with only prose.
func TestNotMetCarriesEvidence(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "outcome.go" {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		withed := map[token.Pos]bool{}
		var unmet []*ast.CallExpr
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "with":
					if inner, ok := sel.X.(*ast.CallExpr); ok {
						withed[inner.Pos()] = true
					}
				case "unmet", "unmetAt":
					unmet = append(unmet, call)
				}
			}
			return true
		})
		for _, call := range unmet {
			if !withed[call.Pos()] {
				t.Errorf("%s: not met without .with(expected, actual)", fset.Position(call.Pos()))
			}
		}
	}
}
