package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rawmcp/httpparse"
	"rawmcp/policy"
)

// constValues returns the constants of type typ declared in the non-test
// files of the package in dir, name to value: found from the package's
// source, not from a second list kept by hand.
func constValues(t *testing.T, dir, typ string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != typ {
					continue
				}
				for i, n := range vs.Names {
					v, err := strconv.Unquote(vs.Values[i].(*ast.BasicLit).Value)
					if err != nil {
						t.Fatalf("%s: %v", n.Name, err)
					}
					out[n.Name] = v
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s constants in %s", typ, dir)
	}
	return out
}

// TestParseRulesCoverEveryReason: every refusal of the request parser has
// its own entry in parseRules (the response parser's RespReason* belong to
// the client and never reach the server's answers).
func TestParseRulesCoverEveryReason(t *testing.T) {
	for name, v := range constValues(t, "../httpparse", "Reason") {
		if strings.HasPrefix(name, "Resp") {
			continue
		}
		id, ok := parseRules[httpparse.Reason(v)]
		if !ok {
			t.Errorf("httpparse.%s has no rule in parseRules", name)
		} else if id.Text() == "" {
			t.Errorf("httpparse.%s maps to %s, which the rule table lacks", name, id)
		}
	}
}

// TestDenialRulesCoverEveryReason: every policy.Reason names its rule.
func TestDenialRulesCoverEveryReason(t *testing.T) {
	for name, v := range constValues(t, "../policy", "Reason") {
		id, ok := denialRules[policy.Reason(v)]
		if !ok {
			t.Errorf("policy.%s has no rule in denialRules", name)
		} else if id.Text() == "" {
			t.Errorf("policy.%s maps to %s, which the rule table lacks", name, id)
		}
	}
}

// TestParserCommentsCiteTheAnsweringRule: where a comment right above a
// refusal of the request parser (fault(status, ReasonX, ...)) cites rule
// ids, one of them is the rule the server answers that Reason with
// (parseRules), so a reader who follows the comment lands on the rule the
// trace will print, not on a neighbouring or a client-side one.
func TestParserCommentsCiteTheAnsweringRule(t *testing.T) {
	reasons := constValues(t, "../httpparse", "Reason")
	checked := 0
	inspectSources(t, "../httpparse/*.go", func(f *sourceFile, n ast.Node) {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) < 2 {
			return
		}
		if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "fault" {
			return
		}
		arg, ok := call.Args[1].(*ast.Ident)
		if !ok || !strings.HasPrefix(arg.Name, "Reason") {
			return
		}
		line := f.line(call)
		cg := f.endsOn[line-1]
		if cg == nil {
			cg = f.endsOn[line] // a comment on the line itself
		}
		if cg == nil {
			return
		}
		ids := citedRuleID.FindAllString(cg.Text(), -1)
		if len(ids) == 0 {
			return
		}
		checked++
		want := parseRules[httpparse.Reason(reasons[arg.Name])]
		if !slices.Contains(ids, string(want)) {
			t.Errorf("%s:%d: the comment above httpparse.%s cites %v; the server answers it with %s (%s)",
				filepath.Base(f.path), line, arg.Name, ids, want, want.Text())
		}
	})
	if checked < 5 {
		t.Fatalf("checked %d comments: the walk went wrong", checked)
	}
}

// TestDecisionCommentsCiteTheirRule: in the server's decision code (this
// package's route and answers), a comment just above a rule.X that cites
// rule ids cites X's, so the number a reader sees beside a decision is the
// one its answer carries.
func TestDecisionCommentsCiteTheirRule(t *testing.T) {
	ids := map[string]string{}
	for name, v := range constValues(t, "rule", "ID") {
		ids[name] = v
	}
	checked := 0
	inspectSources(t, "*.go", func(f *sourceFile, n ast.Node) {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return
		}
		if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "rule" || ids[sel.Sel.Name] == "" {
			return
		}
		line := f.line(sel)
		// The nearest comment ending at most two lines above (one
		// above an if whose body decides counts).
		var cg *ast.CommentGroup
		for l := line; l >= line-2 && cg == nil; l-- {
			cg = f.endsOn[l]
		}
		if cg == nil {
			return
		}
		cited := citedRuleID.FindAllString(cg.Text(), -1)
		if len(cited) == 0 {
			return
		}
		checked++
		if want := ids[sel.Sel.Name]; !slices.Contains(cited, want) {
			t.Errorf("%s:%d: the comment above rule.%s cites %v, not its %s", f.path, line, sel.Sel.Name, cited, want)
		}
	})
	if checked < 3 {
		t.Fatalf("checked %d comments: the walk went wrong", checked)
	}
}

// citedRuleID is a rule id as comments cite it: T-54, H-P08, A-07, S-P02.
var citedRuleID = regexp.MustCompile(`\b[THAS]-P?[0-9]{2,}\b`)

// sourceFile is one parsed non-test file of a walk, with the comment
// group that ends on each of its lines.
type sourceFile struct {
	path   string
	fset   *token.FileSet
	endsOn map[int]*ast.CommentGroup
}

func (f *sourceFile) line(n ast.Node) int { return f.fset.Position(n.Pos()).Line }

// inspectSources parses the non-test Go files glob matches, comments
// kept, and calls visit on every node of each.
func inspectSources(t *testing.T, glob string, visit func(f *sourceFile, n ast.Node)) {
	t.Helper()
	paths, err := filepath.Glob(glob)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		f := &sourceFile{path: path, fset: fset, endsOn: map[int]*ast.CommentGroup{}}
		for _, cg := range file.Comments {
			f.endsOn[fset.Position(cg.End()).Line] = cg
		}
		ast.Inspect(file, func(n ast.Node) bool {
			visit(f, n)
			return true
		})
	}
}
