package httpparse

import (
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocListsTheSingletons: the package comment's list of the fields that
// may not repeat is the parser's own list (knownNames), so neither can
// grow without the other.
func TestDocListsTheSingletons(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(f.Doc.Text()), " ")
	m := regexp.MustCompile(`\(H-15, H-16\); (.+?) may not repeat`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatal(`the package comment has no "...; NAMES may not repeat" sentence`)
	}
	var documented []string
	for _, name := range regexp.MustCompile(`, | and `).Split(m[1], -1) {
		documented = append(documented, strings.ToLower(name))
	}
	var singletons []string
	for _, keys := range knownNames {
		for _, k := range keys {
			if k.class == classSingleton {
				singletons = append(singletons, k.name)
			}
		}
	}
	slices.Sort(documented)
	slices.Sort(singletons)
	if !slices.Equal(documented, singletons) {
		t.Errorf("doc.go names the singletons %q, the parser holds %q", documented, singletons)
	}
}
