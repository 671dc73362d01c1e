package probe

import "strconv"

// editions are the checks each edition of the catalogue added, edition N
// at index N. Reports and baselines carry the edition they were made
// with, so a check a newer rawmcp adds is known as new to a baseline
// written before it, never taken for a regression. Adding checks is a
// new edition: append their ids (TestCatalogueEditions fails on a check
// no edition lists).
var editions = [][]string{
	1: {
		"PRE-01", "PRE-02", "PRE-03",
		"HO-01", "HO-02", "HO-03", "HO-04", "HO-05", "HO-06",
		"MM-01", "MM-02", "MM-03", "MM-04", "MM-05", "MM-06", "MM-07",
		"PV-01", "PV-02", "PV-03", "PV-04", "PV-05", "PV-06",
		"SE-01", "SE-02", "SE-03", "SE-04", "SE-05", "SE-06", "SE-07", "SE-08", "SE-09",
		"JR-01", "JR-02", "JR-03", "JR-04", "JR-05", "JR-06", "JR-07", "JR-08", "JR-09", "JR-10", "JR-11",
		"AU-01", "AU-02", "AU-03", "AU-04", "AU-05", "AU-06", "AU-07", "AU-08", "AU-09", "AU-10", "AU-11",
		"RS-01", "RS-02", "RS-03", "RS-04",
		"LF-01", "LF-02", "LF-03", "LF-04", "LF-05", "LF-06", "LF-07", "LF-08",
		"EH-01", "EH-02",
		"DP-01", "DP-02", "DP-03", "DP-04", "DP-05", "DP-06", "DP-07", "DP-08", "DP-09", "DP-10", "DP-11", "DP-12",
		"V2-01", "V2-02", "V2-03", "V2-04", "V2-05", "V2-06", "V2-07", "V2-08", "V2-09", "V2-10",
		"V2-11", "V2-12", "V2-13", "V2-14", "V2-15", "V2-16", "V2-17", "V2-18", "V2-19", "V2-20",
		"V2-21", "V2-22", "V2-23", "V2-24", "V2-25", "V2-26", "V2-27", "V2-28", "V2-29", "V2-30", "V2-31",
		"V2-32", "V2-33", "V2-34", "V2-35", "V2-36", "V2-37", "V2-38",
		"L-01", "L-02",
	},
}

// CatalogueEdition is the catalogue's edition: the number of the newest
// entry of editions.
var CatalogueEdition = len(editions) - 1

// editionOf is the edition that added check id, 0 for none.
func editionOf(id string) int {
	for n, ids := range editions {
		for _, x := range ids {
			if x == id {
				return n
			}
		}
	}
	return 0
}

// CatalogueLine names the catalogue for a version line: "check catalogue
// edition 1, 106 checks".
func CatalogueLine() string {
	return "check catalogue edition " + strconv.Itoa(CatalogueEdition) + ", " + plural(len(catalogue), "check")
}
