package fuzz

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestImportRules checks the package rules (README, Layout) on the source
// itself, so a change that breaks them fails CI rather than a review.
func TestImportRules(t *testing.T) {
	leaves := []string{"httpparse", "sseframe", "policy", "state", "wire/jsonrpc", "wire/rule"}
	imports := sourceImports(t, "..")
	if len(imports) == 0 {
		t.Fatal("no packages found: the test would pass vacuously")
	}
	for pkg, list := range imports {
		for _, imp := range list {
			isStd := !strings.Contains(strings.Split(imp, "/")[0], ".") && !strings.HasPrefix(imp, "rawmcp")
			switch {
			case imp == "net/http" || strings.HasPrefix(imp, "net/http/"):
				t.Errorf("%s imports %s outside tests: net/http may only be the reference in tests", pkg, imp)
			case imp == "net" && pkg != "wire" && pkg != "wire/client" && pkg != "wire/client/clienttest":
				t.Errorf("%s imports net: only wire (the server), wire/client (the raw client) and the tests' fake servers touch sockets", pkg)
			case slices.Contains(leaves, pkg) && !isStd:
				t.Errorf("leaf %s imports %s: leaves import only the standard library", pkg, imp)
			case !isStd && !strings.HasPrefix(imp, "rawmcp"):
				t.Errorf("%s imports third-party %s outside tests: go-cmp is for tests only", pkg, imp)
			}
		}
	}
	// A client works against any server URL by construction: nothing under
	// wire/client may reach into the server's packages.
	server := []string{"rawmcp/wire", "rawmcp/wire/mcp", "rawmcp/wire/assemble", "rawmcp/wire/scenario", "rawmcp/policy", "rawmcp/state"}
	clients := 0
	for pkg, list := range imports {
		if pkg != "wire/client" && !strings.HasPrefix(pkg, "wire/client/") {
			continue
		}
		clients++
		for _, imp := range list {
			if slices.Contains(server, imp) {
				t.Errorf("%s imports %s: the client side never imports the server's packages", pkg, imp)
			}
		}
	}
	if clients < 2 {
		t.Errorf("found %d packages under wire/client: the check would pass vacuously", clients)
	}
	// clienttest's certificates, keys and fake servers are throwaway:
	// only tests may import it.
	for pkg, list := range imports {
		if slices.Contains(list, "rawmcp/wire/client/clienttest") {
			t.Errorf("%s imports wire/client/clienttest outside tests: it is for tests only", pkg)
		}
	}
	// The lifecycle model predicts the server's answers: built on the
	// server's packages, it would agree with their bugs.
	if _, ok := imports["wire/lifecycle"]; !ok {
		t.Errorf("wire/lifecycle not found: its rule would pass vacuously")
	}
	for _, imp := range imports["wire/lifecycle"] {
		if strings.HasPrefix(imp, "rawmcp/") && imp != "rawmcp/wire/rule" {
			t.Errorf("wire/lifecycle imports %s: the model may use only wire/rule and the standard library", imp)
		}
	}
	// The connection's rules do no I/O and read no clock, so they are
	// tested with byte chunks alone: no socket, file, system call or time.
	if _, ok := imports["wire/h1"]; !ok {
		t.Errorf("wire/h1 not found: its rule would pass vacuously")
	}
	for _, imp := range imports["wire/h1"] {
		switch {
		case strings.HasPrefix(imp, "rawmcp/") && imp != "rawmcp/httpparse" && imp != "rawmcp/wire/rule":
			t.Errorf("wire/h1 imports %s: it may use only httpparse and wire/rule", imp)
		case slices.Contains([]string{"net", "os", "syscall", "time", "io"}, imp):
			t.Errorf("wire/h1 imports %s: the connection's rules are sans-I/O and read no clock", imp)
		}
	}
	for _, imp := range imports["wire/mcp"] {
		if strings.HasPrefix(imp, "rawmcp/") && imp != "rawmcp/wire/jsonrpc" && imp != "rawmcp/state" && imp != "rawmcp/wire/rule" {
			t.Errorf("wire/mcp imports %s: it may use only wire/jsonrpc, wire/rule and state", imp)
		}
	}
}

// sourceImports maps each package directory (relative to root) to the
// imports of its non-test files.
func sourceImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			out[rel] = append(out[rel], imp)
		}
		if _, ok := out[rel]; !ok {
			out[rel] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
