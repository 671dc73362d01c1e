package probe

import (
	"reflect"
	"slices"
	"time"
)

// SetIdleHold shortens DP-08's hold for the tests, which cannot wait
// 130 s per run. It is set once, before any run starts.
func SetIdleHold(d time.Duration) { idleHold = d }

// SetTwinAddr aims DP-03's cleartext twin at a test's listener: addr
// maps the target's dialled address to the twin's.
func SetTwinAddr(addr func(dial string) string) {
	twinAddr = func(t Target) string { return addr(t.Dial) }
}

// SetHeldAfter widens DP-07's bound for a loaded test machine.
func SetHeldAfter(d time.Duration) { heldAfter = d }

// ModernForms are the ids of the boundary checks with a modern form: on
// a target that speaks only 2026-07-28 they send the opening request as
// server/discover.
func ModernForms() []string {
	var out []string
	for _, c := range catalogue {
		if c.asks == askEither {
			out = append(out, c.ID)
		}
	}
	return out
}

// RefusalRows are the ids of the rows of the refusal table, sorted.
func RefusalRows() []string {
	var out []string
	for id := range refusals {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// RunByRefusal are the ids of the catalogue's checks whose run function
// is the refusal table's, in catalogue order (sorted, as V2 ids are).
func RunByRefusal() []string {
	var out []string
	for _, c := range catalogue {
		if c.run != nil && reflect.ValueOf(c.run).Pointer() == reflect.ValueOf(runRefusal).Pointer() {
			out = append(out, c.ID)
		}
	}
	return out
}
