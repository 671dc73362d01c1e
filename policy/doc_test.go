package policy

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocScopeTableIsRequiredScopes: the package comment's table of scopes
// per operation is what requiredScopes answers, row by row ("any other
// method" for a method rawmcp does not serve), so the table a reader
// trusts cannot drift from the one the server applies.
func TestDocScopeTableIsRequiredScopes(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	start := strings.Index(doc, "\top                          scopes\n")
	if start < 0 {
		t.Fatal("the package comment has no scopes table")
	}
	documented, served := map[string]string{}, map[string]string{}
	for _, line := range strings.Split(doc[start:], "\n")[1:] {
		if !strings.HasPrefix(line, "\t") {
			break
		}
		op, scopes, _ := strings.Cut(strings.TrimSpace(line), "  ")
		scopes, _, _ = strings.Cut(strings.TrimSpace(scopes), " (")
		asked := op
		if op == "any other method" {
			asked = "tools/call"
		}
		documented[op] = scopes
		served[op] = strings.Join(requiredScopes(asked), " ")
	}
	if len(documented) < 5 {
		t.Fatalf("read %d rows of the scopes table: the parse went wrong", len(documented))
	}
	if diff := cmp.Diff(served, documented); diff != "" {
		t.Errorf("doc.go's scopes table (-requiredScopes +doc):\n%s", diff)
	}
	for _, e := range scopesBeyondConnect {
		if _, ok := documented[e.op]; !ok {
			t.Errorf("%s needs %v but has no row in doc.go's scopes table", e.op, e.scopes)
		}
	}
}
