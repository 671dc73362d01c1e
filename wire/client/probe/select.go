package probe

import (
	"errors"
	"strconv"
	"strings"
)

// IDError reports a name in -only or -skip that is neither a check id nor
// a group code.
type IDError struct {
	Name string
}

func (e *IDError) Error() string {
	return "probe: " + strconv.Quote(e.Name) + " is neither a check id (HO-02) nor a group code (HO)"
}

// ErrSkipPreflight reports -skip naming PRE-01, which every check needs.
var ErrSkipPreflight = errors.New("probe: PRE-01 cannot be skipped: every other check depends on it")

// ParseIDs reads a -only or -skip value: check ids or group codes,
// separated by commas or spaces, in any case ("ho-02,AU" is HO-02 and the
// AU group). Names are returned upper-cased, each once, in order.
func ParseIDs(list string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, name := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		name = strings.ToUpper(name)
		if !isCheckID(name) && !isGroupCode(name) {
			return nil, &IDError{Name: name}
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out, nil
}

func isCheckID(name string) bool {
	for _, c := range Catalogue() {
		if c.ID == name {
			return true
		}
	}
	return false
}

func isGroupCode(name string) bool {
	for _, g := range Groups {
		if g.Code == name {
			return true
		}
	}
	return false
}

// Select returns the checks of the catalogue that only (all, if empty)
// names and skip does not, in catalogue order, PRE-01 left out: Run
// always runs it first. Names are as ParseIDs returns them.
func Select(only, skip []string) ([]*Check, error) {
	for _, name := range append(append([]string(nil), only...), skip...) {
		if !isCheckID(name) && !isGroupCode(name) {
			return nil, &IDError{Name: name}
		}
	}
	for _, name := range skip {
		if name == preflight.ID {
			return nil, ErrSkipPreflight
		}
	}
	names := func(list []string, c *Check) bool {
		for _, n := range list {
			if n == c.ID || n == c.Group {
				return true
			}
		}
		return false
	}
	var out []*Check
	for _, c := range Catalogue() {
		if c.ID == preflight.ID || len(only) > 0 && !names(only, c) || names(skip, c) {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}
