package probe

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAfterIsRunnable: every check a check comes after exists, runs in
// the same phase or an earlier one and not in the long lane (a dependent
// waits for it, so it must already have been handed out), and the
// dependencies form no cycle.
func TestAfterIsRunnable(t *testing.T) {
	byID := map[string]Check{}
	for _, c := range catalogue {
		byID[c.ID] = c
	}
	for _, c := range catalogue {
		for _, id := range c.After {
			d, ok := byID[id]
			switch {
			case !ok:
				t.Errorf("%s comes after %s, which is no check", c.ID, id)
			case runOrder(d.phase) > runOrder(c.phase):
				t.Errorf("%s (phase %d) comes after %s (phase %d), which runs later", c.ID, c.phase, id, d.phase)
			case d.long:
				t.Errorf("%s comes after %s, which runs in the long lane", c.ID, id)
			}
		}
	}
	var visit func(id string, path []string)
	visit = func(id string, path []string) {
		if slices.Contains(path, id) {
			t.Fatalf("a cycle of After: %s", strings.Join(append(path, id), " → "))
		}
		for _, next := range byID[id].After {
			visit(next, append(path, id))
		}
	}
	for _, c := range catalogue {
		visit(c.ID, nil)
	}
}

// runOrder is a phase's place in the run (phaseConcurrent, the zero
// value, runs second).
func runOrder(ph phase) int {
	if ph == phasePreflight {
		return -1
	}
	return int(ph)
}

// TestDependenciesFirst: a check is handed out after the checks of its
// batch it comes after, whatever the batch's order, and the rest keep
// their order.
func TestDependenciesFirst(t *testing.T) {
	a, b, c, d := &Check{ID: "A", After: []string{"C"}}, &Check{ID: "B"}, &Check{ID: "C", After: []string{"D"}}, &Check{ID: "D"}
	var got []string
	for _, x := range dependenciesFirst([]*Check{a, b, c, d}) {
		got = append(got, x.ID)
	}
	if diff := cmp.Diff([]string{"D", "C", "A", "B"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestClientDutyIsHardeningAtMost: a requirement that binds the client is
// not the server's obligation, so no check resting on one fails a server
// as a MUST or warns it as a SHOULD.
func TestClientDutyIsHardeningAtMost(t *testing.T) {
	for _, c := range catalogue {
		if c.Binds == Client && c.Level != Hardening && c.Level != Informational {
			t.Errorf("%s rests on a requirement binding the client, at level %s: hardening at most", c.ID, c.Level)
		}
	}
}

// TestEveryCheckNamesItsObligation: each check names the section its
// level rests on and the party it binds (the keyword may be "" only for
// the profile's own rule). Filling them is under way, check by check:
// until every check has them the test lists the ones missing and skips.
func TestEveryCheckNamesItsObligation(t *testing.T) {
	var missing []string
	for _, c := range catalogue {
		switch {
		case c.Section == "" || c.Binds == "":
			missing = append(missing, c.ID)
		case c.Keyword == "" && c.Binds != Profile:
			t.Errorf("%s binds %s without a keyword", c.ID, c.Binds)
		case c.Keyword != "" && !slices.Contains([]string{"MUST", "SHOULD", "MAY"}, c.Keyword):
			t.Errorf("%s keyword %q: MUST, SHOULD, MAY or none", c.ID, c.Keyword)
		}
	}
	if len(missing) > 0 {
		t.Skipf("%d checks do not name their obligation yet: %s", len(missing), strings.Join(missing, ", "))
	}
}
