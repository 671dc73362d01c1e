package probe

import (
	"strings"
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

func TestShapedLike(t *testing.T) {
	id := "Ab9-x_Z0.q"
	forged := shapedLike(id)
	if forged == id || len(forged) != len(id) {
		t.Fatalf("shapedLike(%q) = %q", id, forged)
	}
	for i := range id {
		for _, class := range []string{"0123456789", "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"} {
			if strings.IndexByte(class, id[i]) >= 0 && strings.IndexByte(class, forged[i]) < 0 {
				t.Errorf("offset %d: %q became %q, another class", i, id[i], forged[i])
			}
		}
		if !strings.ContainsRune("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", rune(id[i])) && forged[i] != id[i] {
			t.Errorf("offset %d: punctuation %q changed", i, id[i])
		}
	}
}
