package probe

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAnalyzeIDs: what six issued session ids reveal (PRE-02).
func TestAnalyzeIDs(t *testing.T) {
	type verdict struct {
		BadID     int
		Duplicate bool
		Sequence  bool
		Alphabet  string
		Varying   int
		Bits      int
	}
	tests := []struct {
		name string
		ids  []string
		want verdict
	}{
		{"rawmcp: 32 base64url characters from 24 random bytes",
			[]string{"_vS1mOmhzvZQ3qXbhyZ_u3aAFiq0ozFf", "eG-faRdxjoVgHjg6YMe2VqLmZe_sFaRc", "Kq3n0cL9-aPzW1yTbX7uE4mRj2sVdH8f",
				"b9ZtQ1xw-Lm3Nc7VaS0oPqRe4YuIjK2g", "M0nB8vC7xZ6lK5jH4gF3dS2aQ1wE9rT-", "pO9iU8yT7rE6wQ5aS4dF3gH2jK1lZ0x_"},
			verdict{-1, false, false, "base64url", 32, 192}},
		{"UUIDv4: the dashes and the version digit carry nothing",
			[]string{"3f1c9a2e-7b4d-4e8f-9a1b-2c3d4e5f6a7b", "a9b8c7d6-e5f4-4a3b-8c2d-1e0f9a8b7c6d", "0f1e2d3c-4b5a-4697-a8b9-cadbecfd0e1f",
				"7c6b5a49-3827-4615-b0a9-f8e7d6c5b4a3", "d4c3b2a1-0f9e-4d8c-9b7a-6f5e4d3c2b1a", "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"},
			verdict{-1, false, false, "hex", 31, 124}},
		{"a counter", []string{"1", "2", "3", "4", "5", "6"}, verdict{-1, false, true, "decimal", 1, 3}},
		{"a nanosecond clock", []string{"1764605000123456789", "1764605000124001234", "1764605000124533321",
			"1764605000125012345", "1764605000125555555", "1764605000126000001"}, verdict{-1, false, true, "decimal", 7, 23}},
		{"a fixed prefix with four random hex digits", []string{"session-3fa1", "session-09bc", "session-d4e2", "session-71aa", "session-c3f0", "session-5b6d"},
			verdict{-1, false, false, "hex", 4, 16}},
		{"T-40/a space in an id", []string{"abc def", "abcdefg"}, verdict{0, false, false, "printable", 4, 26}},
		{"two equal ids", []string{"x7Qp2Lm9", "x7Qp2Lm9", "Zt4kW8nB"}, verdict{-1, true, false, "alphanumeric", 8, 47}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := analyzeIDs(tt.ids)
			got := verdict{a.badID, a.duplicate, a.sequence, a.alphabet, a.varying, int(a.bits)}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestForgeID: a forged id keeps the shape two issued ids share (their
// length, every offset where they agree, the alphabet of every offset
// where they differ) and is neither of them.
func TestForgeID(t *testing.T) {
	tests := []struct {
		name  string
		a, b  string
		shape string // a regular expression every id of the kind matches
	}{
		{"UUID", "3f2b8c1e-9d4a-4c7b-8e2f-1a6b9c0d3e4f", "a71c0e55-2b3f-4e8d-b1c9-7f0a2d4e6b18", `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$`},
		{"prefix and UUID (mcp-go)", "mcp-session-3f2b8c1e-9d4a-4c7b-8e2f-1a6b9c0d3e4f", "mcp-session-a71c0e55-2b3f-4e8d-b1c9-7f0a2d4e6b18", `^mcp-session-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$`},
		{"hex", "9f86d081884c7d659a2feaa0c55ad015", "2c26b46b68ffc68ff99b453c1d304134", `^[0-9a-f]{32}$`},
		{"upper hex", "9F86D081884C7D65", "2C26B46B68FFC68F", `^[0-9A-F]{16}$`},
		{"base64url", "gFuQF8LHGJ6LK4Jy_-x2Qw", "Zk-3_pQ9aB7cD1eF2gH4iJ", `^[0-9A-Za-z_-]{22}$`},
		{"decimal", "8061992365112058", "1945002374561129", `^[0-9]{16}$`},
		{"a counter keeps its common digits", "s-000001", "s-000042", `^s-0000[0-9]{2}$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shape := regexp.MustCompile(tt.shape)
			for range 50 {
				forged := forgeID(tt.a, tt.b)
				if forged == tt.a || forged == tt.b || !shape.MatchString(forged) {
					t.Fatalf("forgeID(%q, %q) = %q: not a new id of the shape %s", tt.a, tt.b, forged, tt.shape)
				}
				for i := range tt.a {
					if tt.a[i] == tt.b[i] && forged[i] != tt.a[i] {
						t.Fatalf("forgeID(%q, %q) = %q changed offset %d, where the issued ids agree", tt.a, tt.b, forged, i)
					}
				}
			}
		})
	}
}

// TestForgeIDWithoutVariation: ids that agree everywhere (or differ only
// in characters no usual alphabet holds together) leave nothing to
// change, and the forgery is the id itself, which SE-02 refuses to send.
func TestForgeIDWithoutVariation(t *testing.T) {
	for _, ids := range [][2]string{{"same-id", "same-id"}, {"a.b", "a!b"}} {
		if got := forgeID(ids[0], ids[1]); got != ids[1] {
			t.Errorf("forgeID(%q, %q) = %q, want %q", ids[0], ids[1], got, ids[1])
		}
	}
}
