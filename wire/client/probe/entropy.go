package probe

import (
	"crypto/rand"
	"math"
	"math/big"
	"strings"
)

// idAnalysis is what a handful of session ids reveal about how they are
// made.
type idAnalysis struct {
	// badID is the index of the first id with a byte outside 0x21-0x7E
	// (-1: none), with that byte and its offset.
	badID, badOffset int
	badByte          byte
	duplicate        bool
	// sequence: the ids read as numbers that count up or down by small
	// steps (a counter, a timestamp).
	sequence bool
	// length is the shortest id; varying the offsets below it where the
	// ids differ; alphabet the smallest usual alphabet that holds every
	// character at those offsets.
	length, varying int
	alphabet        string
	bits            float64
}

// alphabets are the usual id alphabets, smallest first.
var alphabets = []struct {
	name  string
	chars string
}{
	{"decimal", "0123456789"},
	{"hex", "0123456789abcdef"},
	{"hex", "0123456789ABCDEF"},
	{"alphanumeric", "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"},
	{"base64url", "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"},
	{"base64", "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/="},
}

// forgeID returns an id shaped like a and b, two issued ones, but neither:
// it changes only the offsets where they differ (what the server makes
// random), each to another character of the smallest usual alphabet
// holding both, and keeps the rest (a prefix, dashes, a UUID's version
// digit). A server that checks ids by format cannot refuse it as
// malformed; only a lookup can tell it was never issued. Without an offset
// to change it returns b.
func forgeID(a, b string) string {
	out := []byte(b)
	random := make([]byte, len(out))
	rand.Read(random)
	for i := range min(len(a), len(b)) {
		if a[i] == b[i] {
			continue
		}
		for _, al := range alphabets {
			if strings.IndexByte(al.chars, a[i]) < 0 || strings.IndexByte(al.chars, b[i]) < 0 {
				continue
			}
			for k := range len(al.chars) {
				if c := al.chars[(int(random[i])+k)%len(al.chars)]; c != a[i] && c != b[i] {
					out[i] = c
					break
				}
			}
			break
		}
	}
	return string(out)
}

// analyzeIDs estimates the entropy of ids from the ids themselves: an
// offset where every sample has the same character carries no entropy (a
// prefix, a version digit, a dash), and each other offset carries the
// bits of the alphabet its characters come from. With six samples a truly
// random character repeats at an offset with odds of 1 in 16^5 or worse,
// so the estimate only errs upward for ids that are random-looking but
// derived (a hash of a counter): black-box evidence cannot tell those
// apart, and the sequence test catches the plain counters.
func analyzeIDs(ids []string) idAnalysis {
	a := idAnalysis{badID: -1}
	seen := map[string]bool{}
	for i, id := range ids {
		for j := 0; j < len(id) && a.badID < 0; j++ {
			if id[j] < 0x21 || id[j] > 0x7e {
				a.badID, a.badOffset, a.badByte = i, j, id[j]
			}
		}
		a.duplicate = a.duplicate || seen[id]
		seen[id] = true
	}
	if len(ids) == 0 {
		return a
	}
	a.length = len(ids[0])
	for _, id := range ids {
		a.length = min(a.length, len(id))
	}
	var chars strings.Builder
	for j := 0; j < a.length; j++ {
		differs := false
		for _, id := range ids[1:] {
			differs = differs || id[j] != ids[0][j]
		}
		if differs {
			a.varying++
			for _, id := range ids {
				chars.WriteByte(id[j])
			}
		}
	}
	a.alphabet, a.bits = "printable", math.Log2(94)
	for _, al := range alphabets {
		if containsOnly(chars.String(), al.chars) {
			a.alphabet, a.bits = al.name, math.Log2(float64(len(al.chars)))
			break
		}
	}
	a.bits *= float64(a.varying)
	a.sequence = countsUp(ids)
	return a
}

func containsOnly(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

// countsUp reports ids that read as decimal or hex numbers (dashes
// dropped, as in a UUID) whose successive differences are all below 2^40:
// a counter or a clock, not a random source, whose next value is near.
func countsUp(ids []string) bool {
	if len(ids) < 2 {
		return false
	}
	for _, base := range []int{10, 16} {
		values := make([]*big.Int, 0, len(ids))
		for _, id := range ids {
			v, ok := new(big.Int).SetString(strings.ReplaceAll(id, "-", ""), base)
			if !ok {
				break
			}
			values = append(values, v)
		}
		if len(values) != len(ids) {
			continue
		}
		limit := new(big.Int).Lsh(big.NewInt(1), 40)
		near := true
		for i := 1; i < len(values); i++ {
			d := new(big.Int).Sub(values[i], values[i-1])
			near = near && d.Sign() != 0 && d.CmpAbs(limit) < 0
		}
		if near {
			return true
		}
	}
	return false
}
