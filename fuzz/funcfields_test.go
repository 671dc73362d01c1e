package fuzz

import (
	"go/ast"
	"go/types"
	"strings"
	"testing"
)

// calledOnly are the packages that are only ever called: the leaves
// (TestImportRules), the connection's rules and the MCP handler. Holding
// no function and no interface value, they keep no way to call back up:
// what they decide goes back to their caller as values.
var calledOnly = []string{"httpparse", "sseframe", "policy", "state", "wire/jsonrpc", "wire/rule", "wire/h1", "wire/mcp"}

// allowedInterfaceFields are the interface-typed fields a called-only
// package may hold, by "package.Type.field", each with why it calls
// nothing back up.
var allowedInterfaceFields = map[string]string{
	// The session ids' entropy: crypto/rand.Reader in production, a
	// fixed reader in tests; a Read returns bytes and decides nothing.
	"state.Table.random": "the source of random session ids",
}

// TestLeavesHoldNoFunctionFields: no struct in those packages' non-test
// code has a field that holds a function or an interface value: of a
// function type, named (type hook func()) or not, or of an interface
// type, directly or as the element of a slice, array, map, channel or
// pointer, or inside a struct it holds. An observer or a callback set
// from above is such a field, and so is an interface its caller fills
// with its own code. An error is a value handed back, not a callback, and
// a field in allowedInterfaceFields says why it is none.
func TestLeavesHoldNoFunctionFields(t *testing.T) {
	imp := loadModule(t, "..")
	fields := 0
	for _, pkg := range calledOnly {
		files := imp.files["rawmcp/"+pkg]
		if len(files) == 0 {
			t.Fatalf("no files of %s: the check would pass vacuously", pkg)
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				spec, ok := n.(*ast.TypeSpec)
				if !ok {
					return true
				}
				st, ok := spec.Type.(*ast.StructType)
				if !ok {
					return true
				}
				for _, field := range st.Fields.List {
					fields++
					typ := imp.info.Types[field.Type].Type
					for _, name := range fieldNames(field) {
						where := pkg[strings.LastIndex(pkg, "/")+1:] + "." + spec.Name.Name + "." + name
						if _, ok := allowedInterfaceFields[where]; ok {
							continue
						}
						if what := holdsCallable(typ, map[types.Type]bool{}); what != "" {
							t.Errorf("%s: %s holds %s: return values to the caller instead", imp.fset.Position(field.Pos()), where, what)
						}
					}
				}
				return true
			})
		}
	}
	if fields < 50 {
		t.Fatalf("read %d struct fields in %d packages: the check would pass vacuously", fields, len(calledOnly))
	}
}

func fieldNames(f *ast.Field) []string {
	if len(f.Names) == 0 {
		return []string{types.ExprString(f.Type)} // embedded
	}
	var names []string
	for _, n := range f.Names {
		names = append(names, n.Name)
	}
	return names
}

// holdsCallable says what in typ can call code it was handed ("" for
// nothing): a function, or an interface other than error.
func holdsCallable(typ types.Type, seen map[types.Type]bool) string {
	if seen[typ] {
		return ""
	}
	seen[typ] = true
	if types.Identical(typ, types.Universe.Lookup("error").Type()) {
		return ""
	}
	switch u := typ.Underlying().(type) {
	case *types.Signature:
		return "a function (" + typ.String() + ")"
	case *types.Interface:
		return "an interface (" + typ.String() + ")"
	case *types.Pointer:
		return holdsCallable(u.Elem(), seen)
	case *types.Slice:
		return holdsCallable(u.Elem(), seen)
	case *types.Array:
		return holdsCallable(u.Elem(), seen)
	case *types.Chan:
		return holdsCallable(u.Elem(), seen)
	case *types.Map:
		if what := holdsCallable(u.Key(), seen); what != "" {
			return what
		}
		return holdsCallable(u.Elem(), seen)
	case *types.Struct:
		named, _ := typ.(*types.Named)
		for f := range u.Fields() {
			if named != nil && named.Obj().Pkg() != nil {
				if _, ok := allowedInterfaceFields[named.Obj().Pkg().Name()+"."+named.Obj().Name()+"."+f.Name()]; ok {
					continue
				}
			}
			if what := holdsCallable(f.Type(), seen); what != "" {
				return what + " in " + typ.String() + "." + f.Name()
			}
		}
	}
	return ""
}
