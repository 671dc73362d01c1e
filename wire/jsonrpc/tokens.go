package jsonrpc

import "strconv"

// skipWhitespace returns the offset of the first byte at or after i that is not
//
//	ws = *( %x20 / %x09 / %x0A / %x0D )   ; RFC 8259 §2
func skipWhitespace(data []byte, i int) int {
	for i < len(data) && isWhitespace(data[i]) {
		i++
	}
	return i
}

func isWhitespace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r'
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// scanLiteral checks `false / null / true` (RFC 8259 §3): lowercase, spelled out.
func scanLiteral(data []byte, i int, literal string) (int, error) {
	end := i + len(literal)
	if end > len(data) || string(data[i:end]) != literal {
		return 0, ErrSyntax.at(i)
	}
	return end, nil
}

// Classes of bytes inside a string token.
const (
	stringPlainASCII = iota
	stringNonASCII   // part of a multi-byte UTF-8 sequence (already validated)
	stringQuote
	stringBackslash
	stringControl // %x00-1F must be escaped (RFC 8259 §7)
)

var stringByteClass = func() (class [256]uint8) {
	for b := range class {
		switch {
		case b < 0x20:
			class[b] = stringControl
		case b == '"':
			class[b] = stringQuote
		case b == '\\':
			class[b] = stringBackslash
		case b >= 0x80:
			class[b] = stringNonASCII
		}
	}
	return class
}()

// scanString checks the string token whose opening quote is at i and returns the offset
// after its closing quote. plain reports that the contents are ASCII without escapes, so
// they equal their unescaped value byte for byte.
//
//	string    = quotation-mark *char quotation-mark     ; RFC 8259 §7
//	char      = unescaped / escape
//	unescaped = %x20-21 / %x23-5B / %x5D-10FFFF
func scanString(data []byte, i int) (end int, plain bool, err error) {
	plain = true
	for j := i + 1; j < len(data); {
		switch stringByteClass[data[j]] {
		case stringPlainASCII:
			j++
		case stringNonASCII:
			plain = false
			j++
		case stringQuote:
			return j + 1, plain, nil
		case stringBackslash:
			plain = false
			if j, err = scanEscape(data, j); err != nil {
				return 0, false, err
			}
		default:
			return 0, false, ErrSyntax.at(j)
		}
	}
	return 0, false, ErrSyntax.at(len(data))
}

// scanEscape checks the escape sequence whose backslash is at i and returns the offset
// after it. A \u escape of a UTF-16 surrogate must be a high surrogate directly followed by
// a \u escape of a low one (RFC 8259 §7): a lone surrogate has no UTF-8 encoding, and
// encoding/json would silently turn it into U+FFFD.
//
//	escape = "\" ( %x22 / %x5C / %x2F / %x62 / %x66 / %x6E / %x72 / %x74 / %x75 4HEXDIG )
func scanEscape(data []byte, i int) (int, error) {
	if i+1 >= len(data) {
		return 0, ErrSyntax.at(len(data))
	}
	switch data[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2, nil
	case 'u':
		unit, ok := hex4(data, i+2)
		switch {
		case !ok:
			return 0, ErrSyntax.at(i)
		case isLowSurrogate(unit):
			return 0, ErrLoneSurrogate.at(i)
		case !isHighSurrogate(unit):
			return i + 6, nil
		}
		if i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
			if low, ok := hex4(data, i+8); ok && isLowSurrogate(low) {
				return i + 12, nil
			}
		}
		return 0, ErrLoneSurrogate.at(i)
	}
	return 0, ErrSyntax.at(i)
}

func isHighSurrogate(unit rune) bool { return 0xD800 <= unit && unit <= 0xDBFF }
func isLowSurrogate(unit rune) bool  { return 0xDC00 <= unit && unit <= 0xDFFF }

// hex4 decodes the 4HEXDIG at data[i:i+4].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var unit rune
	for _, b := range data[i : i+4] {
		switch {
		case '0' <= b && b <= '9':
			b -= '0'
		case 'a' <= b && b <= 'f':
			b -= 'a' - 10
		case 'A' <= b && b <= 'F':
			b -= 'A' - 10
		default:
			return 0, false
		}
		unit = unit<<4 | rune(b)
	}
	return unit, true
}

// maxFiniteIntegerDigits bounds the integer part that cannot overflow a float64 whatever
// its digits: 10^308 < math.MaxFloat64 ≈ 1.8e308 < 10^309. Only longer integer parts and
// exponents need strconv.ParseFloat.
const maxFiniteIntegerDigits = 308

// scanNumber checks the number token at i and returns the offset after it. Values beyond
// float64 (1e400) are refused: encoding/json cannot decode them into any, and a client
// that rounds them to Infinity would see another value than the server.
//
//	number = [ minus ] int [ frac ] [ exp ]     ; RFC 8259 §6
//	int    = zero / ( digit1-9 *DIGIT )
//	frac   = decimal-point 1*DIGIT
//	exp    = e [ minus / plus ] 1*DIGIT
func scanNumber(data []byte, i int) (int, error) {
	start := i
	if data[i] == '-' {
		i++
	}
	if i >= len(data) || !isDigit(data[i]) {
		if isNonFiniteAt(data, start) {
			return 0, ErrNonFinite.at(start)
		}
		return 0, ErrSyntax.at(i)
	}
	integerStart := i
	if data[i] == '0' {
		i++
		if i < len(data) && isDigit(data[i]) {
			return 0, ErrSyntax.at(i) // leading zero
		}
	} else {
		i = skipDigits(data, i)
	}
	integerDigits := i - integerStart
	if i < len(data) && data[i] == '.' {
		if i+1 >= len(data) || !isDigit(data[i+1]) {
			return 0, ErrSyntax.at(i + 1)
		}
		i = skipDigits(data, i+1)
	}
	hasExponent := i < len(data) && (data[i] == 'e' || data[i] == 'E')
	if hasExponent {
		i++
		if i < len(data) && (data[i] == '-' || data[i] == '+') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return 0, ErrSyntax.at(i)
		}
		i = skipDigits(data, i)
	}
	if hasExponent || integerDigits > maxFiniteIntegerDigits {
		// The token is well-formed, so the only possible error is ErrRange for a value
		// beyond ±MaxFloat64 (an underflow rounds to zero without error).
		if _, err := strconv.ParseFloat(string(data[start:i]), 64); err != nil {
			return 0, ErrNumberOverflow.at(start)
		}
	}
	return i, nil
}

func skipDigits(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}

// isNonFiniteAt reports the spellings of non-finite numbers that JavaScript and Python's
// json module emit (NaN, Infinity, -Infinity), with either sign. They are not JSON
// (RFC 8259 §6) and get their own reason so a peer can tell why its body was refused.
func isNonFiniteAt(data []byte, i int) bool {
	if i < len(data) && (data[i] == '-' || data[i] == '+') {
		i++
	}
	rest := data[i:]
	return hasPrefix(rest, "NaN") || hasPrefix(rest, "Infinity")
}

func hasPrefix(data []byte, prefix string) bool {
	return len(data) >= len(prefix) && string(data[:len(prefix)]) == prefix
}
