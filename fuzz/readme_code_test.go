package fuzz

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
)

// declared returns every name file declares at top level: functions as
// Name, methods as Type.Name, and types, constants and variables.
func declared(t *testing.T, file string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../"+file, nil, 0)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	names := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = true
				continue
			}
			recv := d.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if id, ok := recv.(*ast.Ident); ok {
				names[id.Name+"."+d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	return names
}

var (
	backtickedGo   = regexp.MustCompile("`([\\w/]+\\.go)`")
	backtickedName = regexp.MustCompile("`([A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)?)`")
	// fileThenName is a file and the name a reader is sent to in it.
	fileThenName = regexp.MustCompile("`([\\w/]+\\.go)` `([A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)?)`")
)

// TestREADMENamesCode: the README sends a reader to files and functions
// by name ("Follow one POST", "Where to look"); each named function is
// declared in the file the README names beside it, so a rename cannot
// leave the walk pointing at nothing.
func TestREADMENamesCode(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	follow := strings.Index(text, "## Follow one POST")
	if follow < 0 {
		t.Fatal("README has no Follow one POST section")
	}
	checked := 0
	// In the walk's table a row names its files, then its functions.
	for _, line := range strings.Split(text[follow:], "\n") {
		if strings.HasPrefix(line, "## ") && !strings.HasPrefix(line, "## Follow") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) < 3 {
			continue
		}
		var files []string
		dir := ""
		for _, m := range backtickedGo.FindAllStringSubmatch(cells[1], -1) {
			f := m[1]
			if !strings.Contains(f, "/") {
				f = path.Join(dir, f) // "envelope.go, strict.go": the same folder
			}
			dir = path.Dir(f)
			files = append(files, f)
		}
		names := map[string]bool{}
		for _, f := range files {
			for n := range declared(t, f) {
				names[n] = true
			}
		}
		for _, m := range backtickedName.FindAllStringSubmatch(cells[2], -1) {
			checked++
			if !names[m[1]] {
				t.Errorf("README's walk, row %s: %s is not declared in %v", strings.TrimSpace(cells[0]), m[1], files)
			}
		}
	}
	for _, m := range fileThenName.FindAllStringSubmatch(text, -1) {
		checked++
		if !declared(t, m[1])[m[2]] {
			t.Errorf("README sends the reader to %s in %s, which does not declare it", m[2], m[1])
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d names: the README's tables were not found", checked)
	}
}

// TestREADMEMapListsEveryPackage: the README's "Map of the tree" has a row
// for every package of the module (a folder with a non-test .go file) and
// no row for a folder that holds none, so a new package cannot go
// unexplained and a moved one cannot leave its row behind.
func TestREADMEMapListsEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "## Map of the tree")
	if start < 0 {
		t.Fatal("README has no Map of the tree section")
	}
	text = text[start+len("## Map of the tree"):]
	if end := strings.Index(text, "\n## "); end >= 0 {
		text = text[:end]
	}
	mapped := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if m := mapRow.FindStringSubmatch(line); m != nil {
			mapped[m[1]] = true
		}
	}
	packages := map[string]bool{}
	for pkg := range sourceImports(t, "..") {
		packages[pkg] = true
	}
	if len(packages) < 10 || len(mapped) < 10 {
		t.Fatalf("%d packages, %d map rows: the walk or the table was not found", len(packages), len(mapped))
	}
	for pkg := range packages {
		if !mapped[pkg] {
			t.Errorf("package %s/ has no row in the README's map", pkg)
		}
	}
	for dir := range mapped {
		if !packages[dir] {
			t.Errorf("the README's map lists %s/, which is not a package of the module", dir)
		}
	}
}

// mapRow is a row of the map: its first cell is a folder, `path/`.
var mapRow = regexp.MustCompile("^\\| `([\\w/]+)/` \\|")
