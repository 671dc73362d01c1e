package probe

import (
	"slices"
	"testing"
)

// TestCatalogueEditions: every check of the catalogue is in exactly one
// edition and every id an edition lists is a check, so a check added
// without a new edition, or an edition naming a typo, fails here.
func TestCatalogueEditions(t *testing.T) {
	if len(editions[0]) != 0 {
		t.Errorf("edition 0 lists %v: editions start at 1", editions[0])
	}
	seen := map[string]int{}
	for n, ids := range editions {
		for _, id := range ids {
			if first, ok := seen[id]; ok {
				t.Errorf("%s is in edition %d and in edition %d", id, first, n)
			}
			seen[id] = n
			if lookup(id) == nil {
				t.Errorf("edition %d lists %s, which is no check", n, id)
			}
		}
	}
	for _, c := range Catalogue() {
		if _, ok := seen[c.ID]; !ok {
			t.Errorf("%s is in no edition: add it to a new edition at the end of editions (edition.go)", c.ID)
		}
	}
	if editionOf("PRE-01") != 1 || editionOf("XX-01") != 0 || CatalogueEdition != len(editions)-1 {
		t.Errorf("editionOf(PRE-01) %d, editionOf(XX-01) %d, CatalogueEdition %d", editionOf("PRE-01"), editionOf("XX-01"), CatalogueEdition)
	}
	if !slices.Contains(editions[CatalogueEdition], editions[CatalogueEdition][0]) {
		t.Error("the newest edition is empty")
	}
}
