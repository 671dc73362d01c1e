package rule

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// constantsOf returns every constant of type ID declared in the package's
// own source, found by parsing it, so the test cannot share a hand-kept
// list with the table it checks.
func constantsOf(t *testing.T) map[string]ID {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ID{}
	for _, f := range pkgs["rule"].Files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if typ, ok := vs.Type.(*ast.Ident); !ok || typ.Name != "ID" {
					continue
				}
				for i, name := range vs.Names {
					v, err := strconv.Unquote(vs.Values[i].(*ast.BasicLit).Value)
					if err != nil {
						t.Fatal(err)
					}
					out[name.Name] = ID(v)
				}
			}
		}
	}
	if len(out) < 40 {
		t.Fatalf("found %d ID constants: the parse went wrong", len(out))
	}
	return out
}

// TestEveryConstantIsExplained: each ID constant has exactly one table
// entry with a level, a source and a sentence; each entry has a constant.
func TestEveryConstantIsExplained(t *testing.T) {
	consts := constantsOf(t)
	named := map[ID]string{}
	for name, id := range consts {
		if other, dup := named[id]; dup {
			t.Errorf("%s and %s both spell %s", name, other, id)
		}
		named[id] = name
		r, ok := byID[id]
		switch {
		case !ok:
			t.Errorf("%s (%s) has no table entry", name, id)
		case r.Level < MUST || r.Level > PROFILE:
			t.Errorf("%s has no level", id)
		case r.Source == "" || r.Text == "":
			t.Errorf("%s lacks a source or a sentence", id)
		}
	}
	for _, r := range All() {
		if _, ok := named[r.ID]; !ok {
			t.Errorf("table entry %s has no constant", r.ID)
		}
	}
}

// TestProfileRulesArePROFILE: a P-rule is the profile's own choice, and
// only P-rules are.
func TestProfileRulesArePROFILE(t *testing.T) {
	for _, r := range All() {
		isP := len(r.ID) > 3 && r.ID[2] == 'P'
		if isP != (r.Level == PROFILE) {
			t.Errorf("%s is at level %s", r.ID, r.Level)
		}
	}
}

func TestUnknownIDHasNoText(t *testing.T) {
	if got := ID("X-00").Text(); got != "" {
		t.Errorf("Text of an unknown id = %q", got)
	}
}

// TestFamiliesAreTheDocumented: the package comment names every family of
// ids the tables hold (the letter before the dash), and no other.
func TestFamiliesAreTheDocumented(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "rule.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile(`\b([A-Z])- `).FindAllStringSubmatch(f.Doc.Text(), -1) {
		documented[m[1]] = true
	}
	held := map[string]bool{}
	for _, r := range All() {
		held[string(r.ID[:1])] = true
	}
	if diff := cmp.Diff(held, documented); diff != "" {
		t.Errorf("families (-tables +package comment):\n%s", diff)
	}
}
