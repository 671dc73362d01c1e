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

// group is a section of the catalogue, the revision its checks are judged
// on, and its checks.
type group struct {
	Group
	era    era
	checks []*Check
}

// era is which MCP revision a group's checks need the target to speak.
// It is said once, by the group: the catalogue adds its need to each
// check, so that no check repeats it.
type era uint8

const (
	// eraLegacy: every check needs a 2025-11-25 target (NeedLegacy).
	eraLegacy era = iota + 1
	// eraModern: every check needs a 2026-07-28 target (NeedModern).
	eraModern
	// eraBoundary: the HTTP boundary, judged on whichever revision the
	// target speaks; a check that cannot be says so itself (asks).
	eraBoundary
)

// need is what era adds to c's needs.
func (e era) need(c *Check) Need {
	switch {
	case e == eraLegacy, e == eraBoundary && c.asks == askSession:
		return NeedLegacy
	case e == eraModern:
		return NeedModern
	}
	return 0
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
			c.Needs |= g.era.need(&c)
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
