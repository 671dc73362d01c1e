package probe

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseIDs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string // the IDError's name, "" for none
	}{
		{"", nil, ""},
		{"HO-02", []string{"HO-02"}, ""},
		{"ho-02, au", []string{"HO-02", "AU"}, ""},
		{"LF-07 LF-07,,SE", []string{"LF-07", "SE"}, ""},
		{"HO-99", nil, "HO-99"},
		{"HO-02,nope", nil, "NOPE"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseIDs(tt.in)
			var idErr *IDError
			switch {
			case tt.err == "" && err != nil, tt.err != "" && (!errors.As(err, &idErr) || idErr.Name != tt.err):
				t.Fatalf("ParseIDs(%q) error %v, want IDError %q", tt.in, err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSelect(t *testing.T) {
	ids := func(checks []*Check) []string {
		var out []string
		for _, c := range checks {
			out = append(out, c.ID)
		}
		return out
	}
	tests := []struct {
		name       string
		only, skip []string
		want       []string
		err        error
	}{
		{"a group", []string{"RS"}, nil, []string{"RS-01", "RS-02", "RS-03", "RS-04"}, nil},
		{"a group less a check", []string{"RS"}, []string{"RS-02"}, []string{"RS-01", "RS-03", "RS-04"}, nil},
		{"catalogue order, whatever the order asked", []string{"LF-01", "HO-01"}, nil, []string{"HO-01", "LF-01"}, nil},
		{"PRE-01 is never selected: Run always runs it", []string{"PRE"}, nil, []string{"PRE-02", "PRE-03"}, nil},
		{"PRE-01 cannot be skipped", nil, []string{"PRE-01"}, nil, ErrSkipPreflight},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select(tt.only, tt.skip)
			if !errors.Is(err, tt.err) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, ids(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	all, _ := Select(nil, nil)
	if len(all) != len(catalogue)-1 {
		t.Errorf("Select(nil, nil) = %d checks, want all but PRE-01", len(all))
	}
}

// TestCatalogue keeps the catalogue whole: every check has an id of its
// group, a level, a source, one line, help text and a run function; a
// rule it names is in the rule table; groups appear in order, and ids in
// order within a group.
func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	group := 0
	for _, c := range catalogue {
		if seen[c.ID] {
			t.Errorf("%s twice", c.ID)
		}
		seen[c.ID] = true
		for group < len(Groups) && Groups[group].Code != c.Group {
			group++
		}
		switch {
		case group == len(Groups):
			t.Errorf("%s: group %q out of order or unknown", c.ID, c.Group)
			group = 0
		case len(c.ID) != len(c.Group)+3 || c.ID[:len(c.Group)+1] != c.Group+"-":
			t.Errorf("%s is not an id of group %s", c.ID, c.Group)
		case c.Level != Must && c.Level != Should && c.Level != Hardening && c.Level != Informational:
			t.Errorf("%s: level %q", c.ID, c.Level)
		case c.Source == "" || c.Title == "" || c.Sends == "" || c.Passes == "" || c.run == nil:
			t.Errorf("%s lacks a source, a line, what it sends, what passes or a run function", c.ID)
		case len(c.Sends)+len(c.Passes) > maxHelp:
			t.Errorf("%s: help of %d bytes, over %d: say what is sent and what passes, not how the code decides", c.ID, len(c.Sends)+len(c.Passes), maxHelp)
		}
		if c.Rule != "" && c.Rule.Text() == "" {
			t.Errorf("%s cites %s, which the rule table lacks", c.ID, c.Rule)
		}
	}
	if catalogue[0].ID != "PRE-01" || preflight.ID != "PRE-01" {
		t.Error("PRE-01 must come first")
	}
}

func TestVerdictFor(t *testing.T) {
	tests := []struct {
		level  Level
		strict bool
		want   Verdict
	}{
		{Must, false, Fail}, {Should, false, Warn}, {Should, true, Warn},
		{Hardening, false, Warn}, {Hardening, true, Fail}, {Informational, true, Info},
	}
	for _, tt := range tests {
		if got := verdictFor(tt.level, tt.strict); got != tt.want {
			t.Errorf("verdictFor(%s, strict %v) = %s, want %s", tt.level, tt.strict, got, tt.want)
		}
	}
}

// FuzzParseIDs: ParseIDs returns only names Select accepts, each once,
// or an IDError; it never panics.
func FuzzParseIDs(f *testing.F) {
	for _, seed := range []string{"HO-02", "ho-02, au", "LF-07 LF-07,,SE", "PRE-01,x", "\xff,\t"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, list string) {
		ids, err := ParseIDs(list)
		var idErr *IDError
		if err != nil {
			if !errors.As(err, &idErr) {
				t.Fatalf("error %v is no IDError", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("%q twice", id)
			}
			seen[id] = true
		}
		if _, err := Select(ids, nil); err != nil {
			t.Fatalf("Select refuses what ParseIDs returned: %v", err)
		}
	})
}
