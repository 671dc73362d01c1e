package httpparse

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
// target scanner checks itself. The profile refuses the query (T-P14: no
// query string anywhere), so "?" is not in the set.
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

// plainValueWord reports whether the eight bytes packed in w are all
// field-value bytes without a single control byte: none below 0x20 and no
// DEL. Values are the longest runs in a head (bearer tokens, Accept), so
// the value loop skips such words whole and leaves the rest, HTAB
// included, to fieldValueSet. The tests are the exact "has less than" and
// "has zero byte" tricks of Sean Anderson's Bit Twiddling Hacks; obs-text
// bytes have the high bit set and never trip them.
func plainValueWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below20 := (w - ones*0x20) &^ w & highs
	del := w ^ ones*0x7f
	isDEL := (del - ones) &^ del & highs
	return below20|isDEL == 0
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

// isOWS reports whether c is optional whitespace (RFC 9110 §5.6.3):
//
//	OWS = *( SP / HTAB )
func isOWS(c byte) bool { return c == ' ' || c == '\t' }

// lowerASCII folds A-Z only: field names, media types and codings are
// case-insensitive ASCII (RFC 9110 §5.1, §8.3.1), never Unicode-folded.
func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// equalFold reports whether b equals s, ignoring ASCII case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		if lowerASCII(b[i]) != lowerASCII(s[i]) {
			return false
		}
	}
	return true
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
