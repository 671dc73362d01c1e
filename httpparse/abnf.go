package httpparse

import (
	"bytes"
	"encoding/binary"
	"iter"
	"math/bits"
)

// Byte classes of the grammars the parser enforces, one 256-entry table
// each, so every check in a hot loop is a single indexed load (as Go's
// net/textproto validHeaderFieldByte and picohttpparser's token_char_map).
// Core rules (RFC 5234 Appendix B.1):
//
//	ALPHA  = %x41-5A / %x61-7A
//	DIGIT  = %x30-39
//	HEXDIG = DIGIT / "A" / "B" / "C" / "D" / "E" / "F"   ; either case (RFC 5234 §2.3)
//	VCHAR  = %x21-7E
//	HTAB   = %x09
//	SP     = %x20

const (
	alpha  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
)

// RFC 9110 §5.6.2:
//
//	token = 1*tchar
//	tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
//	        "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
var tcharSet = byteSet(alpha + digits + "!#$%&'*+-.^_`|~")

// RFC 3986 §2.3, §2.2:
//
//	unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
//	sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
const (
	unreserved = alpha + digits + "-._~"
	subDelims  = "!$&'()*+,;="
)

// RFC 9112 §3.2.1 and RFC 3986 §3.3, §3.4:
//
//	origin-form   = absolute-path [ "?" query ]
//	absolute-path = 1*( "/" segment )
//	segment       = *pchar
//	pchar         = unreserved / pct-encoded / sub-delims / ":" / "@"
//	pct-encoded   = "%" HEXDIG HEXDIG
//
// pathSet holds "/" and every pchar byte except "%", whose escape the
// target scanner checks itself. The profile refuses the query (A-P01: a
// token there is never used), so "?" is not in the set.
var pathSet = byteSet(unreserved + subDelims + ":@/")

// RFC 3986 §3.2.2:
//
//	reg-name = *( unreserved / pct-encoded / sub-delims )
//
// "%" is checked with its escape, as in pathSet.
var regNameSet = byteSet(unreserved + subDelims)

// RFC 3986 §3.2.2:
//
//	IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
var ipvFutureSet = byteSet(unreserved + subDelims + ":")

var hexdigSet = byteSet(digits + "ABCDEFabcdef")

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// hexValue returns the value of a HEXDIG, or false for any other byte.
func hexValue(c byte) (int, bool) {
	switch {
	case !hexdigSet[c]:
		return 0, false
	case isDigit(c):
		return int(c - '0'), true
	}
	return int(lowerASCII(c)-'a') + 10, true
}

// RFC 9110 §5.5:
//
//	field-value   = *field-content
//	field-content = field-vchar [ 1*( SP / HTAB / field-vchar ) field-vchar ]
//	field-vchar   = VCHAR / obs-text
//	obs-text      = %x80-FF
//
// fieldValueSet holds every byte that may appear inside a value: SP, HTAB,
// VCHAR and obs-text (kept opaque). It leaves out every other control byte,
// DEL included, where RFC 9110 only requires refusing CR, LF and NUL
// (profile H-P04). The same set is what a quoted-pair may escape (RFC 9110
// §5.6.4).
var fieldValueSet = func() [256]bool {
	set := byteRange(0x21, 0x7e)
	for c := 0x80; c <= 0xff; c++ {
		set[c] = true
	}
	set[' '], set['\t'] = true, true
	return set
}()

// controlBytes flags, in the high bit of each byte, the control bytes
// (below 0x20, or DEL) among the eight packed little-endian in w: zero
// when there is none, and otherwise its lowest flag marks the first. The
// masks are the "has less than" and "has zero byte" tricks of Sean
// Anderson's Bit Twiddling Hacks: a borrow only runs upward from a control
// byte, so flags above the first may be wrong but never the first itself;
// obs-text bytes have the high bit set and never trip them.
func controlBytes(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below20 := (w - ones*0x20) &^ w & highs
	del := w ^ ones*0x7f
	isDEL := (del - ones) &^ del & highs
	return below20 | isDEL
}

// valueRun returns the length of the run of field-value bytes at the
// start of b. Values are the longest runs in a head (bearer tokens,
// Accept), so it goes a word at a time to the first control byte; only an
// HTAB there, a control byte fieldValueSet allows, sends it on, and the
// last few bytes of b go by the table. It is a leaf of its own rather than
// a loop in the scanner so that its loop keeps everything in registers.
// (Where a word loop stops early, the next loop takes over: making its
// length test > instead of >= changes how fast, never what.)
func valueRun(b []byte) int {
	n := 0
	for len(b) >= 16 && controlBytes(binary.LittleEndian.Uint64(b))|controlBytes(binary.LittleEndian.Uint64(b[8:])) == 0 {
		b, n = b[16:], n+16
	}
	for len(b) >= 8 {
		m := controlBytes(binary.LittleEndian.Uint64(b))
		if m == 0 {
			b, n = b[8:], n+8
			continue
		}
		i := bits.TrailingZeros64(m) / 8
		if b[i] != '\t' {
			return n + i
		}
		b, n = b[i+1:], n+i+1
	}
	for len(b) > 0 && fieldValueSet[b[0]] {
		b, n = b[1:], n+1
	}
	return n
}

// tokenRun returns the length of the run of tchar at the start of b. (A
// word-at-a-time version, as valueRun, measured slower: names are short.)
func tokenRun(b []byte) int {
	n := 0
	for n < len(b) && tcharSet[b[n]] {
		n++
	}
	return n
}

// RFC 9110 §5.6.4:
//
//	quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE
//	qdtext        = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
//	quoted-pair   = "\" ( HTAB / SP / VCHAR / obs-text )
var qdtextSet = func() [256]bool {
	set := fieldValueSet
	set['"'], set['\\'] = false, false
	return set
}()

func byteSet(chars string) (set [256]bool) {
	for i := 0; i < len(chars); i++ {
		set[chars[i]] = true
	}
	return set
}

func byteRange(lo, hi byte) (set [256]bool) {
	for c := int(lo); c <= int(hi); c++ {
		set[c] = true
	}
	return set
}

// isToken reports whether b matches token (RFC 9110 §5.6.2).
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !tcharSet[c] {
			return false
		}
	}
	return true
}

// takeToken returns the longest run of tchar at v[i:], possibly empty, and
// the index after it.
func takeToken(v []byte, i int) ([]byte, int) {
	start := i
	for i < len(v) && tcharSet[v[i]] {
		i++
	}
	return v[start:i], i
}

// RFC 9110 §5.6.3:
//
//	OWS = *( SP / HTAB )
//	BWS = OWS
func isOWS(c byte) bool { return c == ' ' || c == '\t' }

// skipOWS returns the index of the first byte at or after i that is not
// OWS, or len(v).
func skipOWS(v []byte, i int) int {
	for i < len(v) && isOWS(v[i]) {
		i++
	}
	return i
}

// trimOWS strips leading and trailing OWS.
func trimOWS(b []byte) []byte {
	for len(b) > 0 && isOWS(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isOWS(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// listElements yields the non-empty elements of a comma-separated list with
// their OWS removed (RFC 9110 §5.6.1: recipients ignore empty elements):
//
//	#element => [ element ] *( OWS "," OWS [ element ] )
func listElements(v []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for len(v) > 0 {
			var elem []byte
			elem, v, _ = bytes.Cut(v, []byte(","))
			if elem = trimOWS(elem); len(elem) > 0 && !yield(elem) {
				return
			}
		}
	}
}

// quotedStringEnd returns the index just past the quoted-string that
// starts with the DQUOTE at v[i] (RFC 9110 §5.6.4, grammar at qdtextSet).
// On a malformed one it returns false and the index of the first byte
// that breaks it: the byte a backslash escapes, or len(v) when the string
// never closes.
func quotedStringEnd(v []byte, i int) (int, bool) {
	for i++; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 == len(v) || !fieldValueSet[v[i+1]] {
				return i + 1, false
			}
			i++
		case !qdtextSet[c]:
			return i, false
		}
	}
	return len(v), false
}

// lowerASCII folds A-Z only: field names, media types and codings are
// case-insensitive ASCII (RFC 9110 §5.1, §8.3.1), never Unicode-folded.
func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// equalFold reports whether a equals b, ignoring ASCII case. Unlike
// strings.EqualFold and bytes.EqualFold it never folds beyond ASCII, so
// the Kelvin sign U+212A never matches "k" and a name that only looks like
// Transfer-Encoding is not taken for it.
func equalFold[A, B string | []byte](a A, b B) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}
