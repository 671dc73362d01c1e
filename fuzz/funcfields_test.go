package fuzz

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// calledOnly are the packages that are only ever called: the leaves
// (TestImportRules) and the connection's rules. Holding no
// function-typed field, they keep no way to call back up: what they
// decide goes back to their caller as values.
var calledOnly = []string{"httpparse", "sseframe", "policy", "state", "wire/jsonrpc", "wire/rule", "wire/h1"}

// TestLeavesHoldNoFunctionFields: no struct in those packages' non-test
// code has a field of function type, directly or as the element of a
// slice, array, map or pointer. An observer or a callback set from above
// is such a field.
func TestLeavesHoldNoFunctionFields(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	for _, pkg := range calledOnly {
		paths, err := filepath.Glob(filepath.Join("..", pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(fset, path, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			files++
			ast.Inspect(f, func(n ast.Node) bool {
				st, ok := n.(*ast.StructType)
				if !ok {
					return true
				}
				for _, field := range st.Fields.List {
					if holdsFunc(field.Type) {
						t.Errorf("%s: a field of function type in %s: return values to the caller instead", fset.Position(field.Pos()), pkg)
					}
				}
				return true
			})
		}
	}
	if files < len(calledOnly) {
		t.Fatalf("read %d files in %d leaf packages: the check would pass vacuously", files, len(calledOnly))
	}
}

func holdsFunc(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.FuncType:
		return true
	case *ast.StarExpr:
		return holdsFunc(e.X)
	case *ast.ArrayType:
		return holdsFunc(e.Elt)
	case *ast.MapType:
		return holdsFunc(e.Key) || holdsFunc(e.Value)
	case *ast.ChanType:
		return holdsFunc(e.Value)
	case *ast.ParenExpr:
		return holdsFunc(e.X)
	}
	return false
}
