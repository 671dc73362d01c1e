package jsonrpc

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Duplicate member names. RFC 8259 §4 says names SHOULD be unique and leaves the meaning of
// duplicates to the implementation: encoding/json keeps the last one, other parsers the
// first, so two components could act on different values. encoding/json also matches
// names to struct fields case-insensitively, so "method" and "Method" can reach the same
// field. The profile therefore refuses two names that are equal after unescaping and
// simple case folding, at any depth (T-P13).

// pairwiseNameLimit is how many names an object may have before its duplicate check moves
// from pairwise comparison (no allocation, at most 120 comparisons) to a map of folded
// names (one allocation per name, linear in the number of names).
const pairwiseNameLimit = 16

// nameSpan locates the contents of a member name token between its quotes.
type nameSpan struct {
	start, end int
	plain      bool // ASCII without escapes
}

// memberNames is one open object's view of the nameTable.
type memberNames struct {
	first int  // position in the nameTable of the object's first name
	inSet bool // the object outgrew pairwiseNameLimit; its names are in nameTable.sets
}

// inlineNames is how many names of the open objects the nameTable keeps inside itself, on
// the caller's stack: enough for every object of a typical MCP request.
const inlineNames = 2 * pairwiseNameLimit

// nameTable holds the names of all open objects as one stack whose segments belong to the
// open objects from outermost to innermost; sets[depth-1] is the folded-name set of the
// open object at that depth once it outgrew pairwise comparison. The first inlineNames
// names live in an array field rather than behind a slice, so a nameTable on the stack
// needs no heap memory.
type nameTable struct {
	count    int
	inline   [inlineNames]nameSpan
	overflow []nameSpan // names count beyond inlineNames
	sets     []map[string]struct{}
}

func (t *nameTable) name(k int) nameSpan {
	if k < inlineNames {
		return t.inline[k]
	}
	return t.overflow[k-inlineNames]
}

func (t *nameTable) push(name nameSpan) {
	if t.count < inlineNames {
		t.inline[t.count] = name
	} else {
		t.overflow = append(t.overflow, name)
	}
	t.count++
}

func (t *nameTable) truncate(count int) {
	t.count = count
	t.overflow = t.overflow[:max(0, count-inlineNames)]
}

func (t *nameTable) open() memberNames {
	return memberNames{first: t.count}
}

func (t *nameTable) close(object memberNames, depth int) {
	if object.inSet {
		clear(t.sets[depth-1])
	}
	t.truncate(object.first)
}

// addIsDuplicate records name as a member of object (depth levels deep) and reports
// whether the object already has a member with the same folded name.
func (t *nameTable) addIsDuplicate(data []byte, object *memberNames, depth int, name nameSpan) bool {
	if object.inSet {
		return !addToSet(t.sets[depth-1], data, name)
	}
	for k := object.first; k < t.count; k++ {
		if sameFoldedName(data, t.name(k), name) {
			return true
		}
	}
	if t.count-object.first < pairwiseNameLimit {
		t.push(name)
		return false
	}
	for len(t.sets) < depth {
		t.sets = append(t.sets, nil)
	}
	if t.sets[depth-1] == nil {
		t.sets[depth-1] = make(map[string]struct{})
	}
	set := t.sets[depth-1]
	for k := object.first; k < t.count; k++ {
		addToSet(set, data, t.name(k))
	}
	addToSet(set, data, name)
	t.truncate(object.first)
	object.inSet = true
	return false
}

// addToSet adds the folded name to set and reports whether it was new.
func addToSet(set map[string]struct{}, data []byte, name nameSpan) bool {
	var buffer [64]byte
	folded := appendFoldedName(buffer[:0], data[name.start:name.end])
	if _, seen := set[string(folded)]; seen {
		return false
	}
	set[string(folded)] = struct{}{}
	return true
}

// sameFoldedName compares two checked names after unescaping and folding, without
// allocating.
func sameFoldedName(data []byte, a, b nameSpan) bool {
	x, y := data[a.start:a.end], data[b.start:b.end]
	if a.plain && b.plain {
		return len(x) == len(y) && equalFoldASCII(x, y)
	}
	for len(x) > 0 && len(y) > 0 {
		rx, nx := nextUnescapedRune(x)
		ry, ny := nextUnescapedRune(y)
		if rx != ry && foldRune(rx) != foldRune(ry) {
			return false
		}
		x, y = x[nx:], y[ny:]
	}
	return len(x) == 0 && len(y) == 0
}

func equalFoldASCII(x, y []byte) bool {
	for i := range x {
		if upperASCII(x[i]) != upperASCII(y[i]) {
			return false
		}
	}
	return true
}

func upperASCII(b byte) byte {
	if 'a' <= b && b <= 'z' {
		return b - ('a' - 'A')
	}
	return b
}

// appendFoldedName appends the unescaped, folded form of checked name contents; two names
// collide exactly when these forms are equal.
func appendFoldedName(dst, contents []byte) []byte {
	for len(contents) > 0 {
		r, n := nextUnescapedRune(contents)
		dst = utf8.AppendRune(dst, foldRune(r))
		contents = contents[n:]
	}
	return dst
}

// foldRune maps r to the smallest rune of its simple case-folding orbit, the canonical form
// encoding/json's foldName uses (src/encoding/json/fold.go): "k", "K" and U+212A KELVIN
// SIGN all fold to "K", "s" and U+017F LONG S to "S".
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		return rune(upperASCII(byte(r)))
	}
	for {
		next := unicode.SimpleFold(r)
		if next <= r {
			return next
		}
		r = next
	}
}

// nextUnescapedRune decodes the first character of string contents that scanString accepted,
// resolving an escape, and returns it with the number of bytes it used.
func nextUnescapedRune(contents []byte) (rune, int) {
	b := contents[0]
	if b >= utf8.RuneSelf {
		return utf8.DecodeRune(contents)
	}
	if b != '\\' {
		return rune(b), 1
	}
	switch contents[1] {
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		unit, _ := hex4(contents, 2)
		if !isHighSurrogate(unit) {
			return unit, 6
		}
		low, _ := hex4(contents, 8)
		return utf16.DecodeRune(unit, low), 12
	}
	return rune(contents[1]), 2 // \" \\ \/
}

// appendUnescaped appends the value of string contents that scanString accepted.
func appendUnescaped(dst, contents []byte) []byte {
	for len(contents) > 0 {
		r, n := nextUnescapedRune(contents)
		if contents[0] == '\\' {
			dst = utf8.AppendRune(dst, r)
		} else {
			dst = append(dst, contents[:n]...)
		}
		contents = contents[n:]
	}
	return dst
}

// StringValue unquotes a raw JSON string token, such as a member value returned by Member.
// It reports false for anything that is not one strict string token: missing quotes,
// control characters, bad or lone-surrogate escapes, invalid UTF-8.
func StringValue(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	end, plain, err := scanString(raw, 0)
	if err != nil || end != len(raw) {
		return "", false
	}
	contents := raw[1 : end-1]
	if plain {
		return string(contents), true
	}
	if !utf8.Valid(contents) {
		return "", false
	}
	return string(appendUnescaped(make([]byte, 0, len(contents)), contents)), true
}
