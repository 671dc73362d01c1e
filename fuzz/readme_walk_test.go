package fuzz

import (
	"go/ast"
	"go/types"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
)

// TestREADMEWalkIsOnThePath: each function a row of "Follow one POST"
// names is reached, in the module's static call graph (non-test code
// only), from a function an earlier row names, by a path through no
// function a later row names. So the walk names code a request runs, in
// the order it runs it: a function only tests call, or one the walk puts
// before its caller, fails.
func TestREADMEWalkIsOnThePath(t *testing.T) {
	rows := walkRows(t)
	if len(rows) < 10 {
		t.Fatalf("found %d walk rows: the README's table was not found", len(rows))
	}
	g := loadCallGraph(t, "..")
	// fn[i] are the functions row i names, as graph keys.
	fn := make([][]string, len(rows))
	rowOf := map[string]int{}
	for i, r := range rows {
		for _, name := range r.names {
			key, ok := g.find(r.files, name)
			if !ok {
				t.Errorf("README's walk, row %s: %s is not declared in %v", r.label, name, r.files)
				continue
			}
			fn[i] = append(fn[i], key)
			if _, seen := rowOf[key]; !seen {
				rowOf[key] = i
			}
		}
	}
	for i := 1; i < len(rows); i++ {
		var from []string
		for _, keys := range fn[:i] {
			from = append(from, keys...)
		}
		// A path may not pass through what a later row names.
		later := map[string]bool{}
		for _, keys := range fn[i+1:] {
			for _, k := range keys {
				if rowOf[k] > i {
					later[k] = true
				}
			}
		}
		reached := g.reachable(from, later)
		for _, key := range fn[i] {
			if reached[key] {
				continue
			}
			t.Errorf("README's walk, row %s: %s is not called on the path from the earlier rows (%s)", rows[i].label, key, strings.Join(from, ", "))
		}
	}
}

type walkRow struct {
	label string
	files []string
	names []string
}

// walkRows reads the table of "Follow one POST": each row's label, its
// files (a bare file name is in the folder of the one before it) and the
// functions it names.
func walkRows(t *testing.T) []walkRow {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	follow := strings.Index(text, "## Follow one POST")
	if follow < 0 {
		t.Fatal("README has no Follow one POST section")
	}
	var rows []walkRow
	for _, line := range strings.Split(text[follow:], "\n")[1:] {
		if strings.HasPrefix(line, "## ") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) < 3 {
			continue
		}
		r := walkRow{label: strings.TrimSpace(cells[0])}
		dir := ""
		for _, m := range backtickedGo.FindAllStringSubmatch(cells[1], -1) {
			f := m[1]
			if !strings.Contains(f, "/") {
				f = path.Join(dir, f)
			}
			dir = path.Dir(f)
			r.files = append(r.files, f)
		}
		for _, m := range backtickedName.FindAllStringSubmatch(cells[2], -1) {
			r.names = append(r.names, m[1])
		}
		if len(r.files) > 0 && len(r.names) > 0 {
			rows = append(rows, r)
		}
	}
	return rows
}

// callGraph is the module's non-test functions and methods, keyed
// "dir/file.go:Name" or "dir/file.go:Type.Name" by where they are
// declared, and for each the functions its body calls or takes as a value
// (a method value handed to a callback counts), an interface method
// standing for every method of the module that can implement it.
type callGraph struct {
	edges map[string][]string
}

func (g *callGraph) find(files []string, name string) (string, bool) {
	for _, f := range files {
		key := f + ":" + name
		if _, ok := g.edges[key]; ok {
			return key, true
		}
	}
	return "", false
}

// reachable is every function reached from roots through functions not
// in avoid (an avoided function is reached but not followed).
func (g *callGraph) reachable(roots []string, avoid map[string]bool) map[string]bool {
	seen := map[string]bool{}
	queue := slices.Clone(roots)
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		for _, next := range g.edges[k] {
			if seen[next] {
				continue
			}
			seen[next] = true
			if !avoid[next] {
				queue = append(queue, next)
			}
		}
	}
	return seen
}

// loadCallGraph type-checks the module's packages under root from source
// (the standard library from its export data) and builds the call graph.
func loadCallGraph(t *testing.T, root string) *callGraph {
	t.Helper()
	imp := loadModule(t, root)
	fset, files := imp.fset, imp.files
	key := func(fn *types.Func) string {
		name := fn.Name()
		if recv := fn.Signature().Recv(); recv != nil {
			rt := recv.Type()
			if p, ok := rt.(*types.Pointer); ok {
				rt = p.Elem()
			}
			if n, ok := rt.(*types.Named); ok {
				name = n.Obj().Name() + "." + name
			}
		}
		return fset.Position(fn.Pos()).Filename + ":" + name
	}
	// Every concrete method of the module, for interface calls.
	var concrete []*types.Func
	for _, pkg := range imp.done {
		if !strings.HasPrefix(pkg.Path(), "rawmcp") {
			continue
		}
		for _, n := range pkg.Scope().Names() {
			tn, ok := pkg.Scope().Lookup(n).(*types.TypeName)
			if !ok {
				continue
			}
			if named, ok := tn.Type().(*types.Named); ok {
				for m := range named.Methods() {
					concrete = append(concrete, m)
				}
			}
		}
	}
	g := &callGraph{edges: map[string][]string{}}
	for _, fs := range files {
		for _, f := range fs {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				caller := key(imp.info.Defs[fd.Name].(*types.Func))
				g.edges[caller] = g.edges[caller][:len(g.edges[caller]):len(g.edges[caller])]
				if fd.Body == nil {
					continue
				}
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					id, ok := n.(*ast.Ident)
					if !ok {
						return true
					}
					callee, ok := imp.info.Uses[id].(*types.Func)
					if !ok || callee.Pkg() == nil || !strings.HasPrefix(callee.Pkg().Path(), "rawmcp") {
						return true
					}
					recv := callee.Signature().Recv()
					if recv != nil && types.IsInterface(recv.Type()) {
						iface := recv.Type().Underlying().(*types.Interface)
						for _, m := range concrete {
							r := m.Signature().Recv().Type()
							if m.Name() == callee.Name() && (types.Implements(r, iface) || types.Implements(types.NewPointer(r), iface)) {
								g.edges[caller] = append(g.edges[caller], key(m))
							}
						}
						return true
					}
					g.edges[caller] = append(g.edges[caller], key(callee.Origin()))
					return true
				})
			}
		}
	}
	return g
}
