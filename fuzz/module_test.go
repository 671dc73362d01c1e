package fuzz

import (
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// loadModule type-checks every package of the module under root from
// source (the non-test files this system builds), each once, the
// standard library from its export data; imp.info holds what every
// identifier and expression of them means.
func loadModule(t *testing.T, root string) *moduleImporter {
	t.Helper()
	fset := token.NewFileSet()
	files := map[string][]*ast.File{} // import path → files
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		// Only the files this system builds (build constraints and
		// _GOOS suffixes), as the compiler would.
		if ok, err := build.Default.MatchFile(filepath.Dir(p), d.Name()); err != nil || !ok {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		f, err := parser.ParseFile(fset, filepath.ToSlash(rel), mustRead(t, p), parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := path.Join("rawmcp", path.Dir(filepath.ToSlash(rel)))
		files[pkg] = append(files[pkg], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	imp := &moduleImporter{std: importer.Default(), files: files, fset: fset, done: map[string]*types.Package{}, info: &types.Info{
		Defs:  map[*ast.Ident]types.Object{},
		Uses:  map[*ast.Ident]types.Object{},
		Types: map[ast.Expr]types.TypeAndValue{},
	}}
	for pkg := range files {
		if _, err := imp.Import(pkg); err != nil {
			t.Fatalf("type-check %s: %v", pkg, err)
		}
	}
	return imp
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// moduleImporter type-checks the module's packages from the parsed files,
// each once, and takes the standard library from the default importer.
type moduleImporter struct {
	std   types.Importer
	files map[string][]*ast.File
	fset  *token.FileSet
	done  map[string]*types.Package
	info  *types.Info
}

func (m *moduleImporter) Import(p string) (*types.Package, error) {
	if pkg, ok := m.done[p]; ok {
		return pkg, nil
	}
	fs, ok := m.files[p]
	if !ok {
		return m.std.Import(p)
	}
	conf := types.Config{Importer: m}
	pkg, err := conf.Check(p, m.fset, fs, m.info)
	if err != nil {
		return nil, err
	}
	m.done[p] = pkg
	return pkg, nil
}
