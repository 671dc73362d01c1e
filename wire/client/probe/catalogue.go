package probe

import (
	"slices"
	"strings"
)

// groups are the catalogue's sections in its order. A group is one file
// (ho.go for HO) declaring each check right above its run function and
// the group's list of them (hoGroup); adding a group is that file and a
// line here.
var groups = []*group{
	&preGroup,
	&hoGroup,
	&mmGroup,
	&pvGroup,
	&seGroup,
	&jrGroup,
	&auGroup,
	&rsGroup,
	&lfGroup,
	&ehGroup,
	&dpGroup,
	&v2Group,
	&eraGroup,
}

// group is a section of the catalogue and its checks.
type group struct {
	Group
	checks []*Check
}

// catalogue is every check: group order, then id within a group, each
// with its Group set from the group that lists it.
var catalogue = func() []Check {
	var out []Check
	for _, g := range groups {
		checks := slices.Clone(g.checks)
		slices.SortFunc(checks, func(a, b *Check) int { return strings.Compare(a.ID, b.ID) })
		for _, c := range checks {
			c := *c
			c.Group = g.Code
			out = append(out, c)
		}
	}
	return out
}()

// Catalogue returns the catalogue's checks as copies: a caller may keep
// or change them without touching the run.
func Catalogue() []*Check {
	out := make([]*Check, len(catalogue))
	for i := range catalogue {
		c := catalogue[i]
		out[i] = &c
	}
	return out
}

// preflight is PRE-01: Run runs it first, always; a target that fails it
// is not probed further.
var preflight = &catalogue[0]
