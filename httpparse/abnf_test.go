package httpparse

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Oracles written straight from the ABNF, one rule per line, independent
// of the tables in abnf.go.

func isALPHA(c byte) bool   { return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' }
func isDIGIT(c byte) bool   { return '0' <= c && c <= '9' }
func isVCHAR(c byte) bool   { return 0x21 <= c && c <= 0x7e }
func isObsText(c byte) bool { return c >= 0x80 }
func isHEXDIG(c byte) bool {
	return isDIGIT(c) || strings.IndexByte("ABCDEFabcdef", c) >= 0
}
func oneOf(c byte, set string) bool { return c < 0x80 && strings.IndexByte(set, c) >= 0 }

// RFC 9110 §5.6.2
func oracleTchar(c byte) bool {
	return oneOf(c, "!#$%&'*+-.^_`|~") || isDIGIT(c) || isALPHA(c)
}

// RFC 3986 §2.3, §2.2
func oracleUnreserved(c byte) bool { return isALPHA(c) || isDIGIT(c) || oneOf(c, "-._~") }
func oracleSubDelims(c byte) bool  { return oneOf(c, "!$&'()*+,;=") }

// RFC 3986 §3.3: pchar without its pct-encoded branch, plus the "/" of
// absolute-path.
func oraclePathByte(c byte) bool {
	return oracleUnreserved(c) || oracleSubDelims(c) || c == ':' || c == '@' || c == '/'
}

// RFC 9110 §5.5 under H-P04: field-vchar, SP and HTAB.
func oracleFieldValueByte(c byte) bool {
	return isVCHAR(c) || isObsText(c) || c == ' ' || c == '\t'
}

// RFC 9110 §5.6.4
func oracleQdtext(c byte) bool {
	return c == '\t' || c == ' ' || c == 0x21 || 0x23 <= c && c <= 0x5b || 0x5d <= c && c <= 0x7e || isObsText(c)
}

// TestByteTables sweeps all 256 bytes through every table.
func TestByteTables(t *testing.T) {
	tables := []struct {
		name   string
		table  *[256]bool
		oracle func(byte) bool
	}{
		{"H-21/tchar", &tcharSet, oracleTchar},
		{"H-13/path byte", &pathSet, oraclePathByte},
		{"H-20/field value byte", &fieldValueSet, oracleFieldValueByte},
		{"H-56/qdtext", &qdtextSet, oracleQdtext},
		{"H-13/HEXDIG", &hexdigSet, isHEXDIG},
		{"H-16/reg-name byte", &regNameSet, func(c byte) bool { return oracleUnreserved(c) || oracleSubDelims(c) }},
		{"H-16/IPvFuture byte", &ipvFutureSet, func(c byte) bool { return oracleUnreserved(c) || oracleSubDelims(c) || c == ':' }},
	}
	for _, tb := range tables {
		t.Run(tb.name, func(t *testing.T) {
			for c := range 256 {
				if got, want := tb.table[c], tb.oracle(byte(c)); got != want {
					t.Errorf("byte %#02x: table says %v, ABNF says %v", c, got, want)
				}
			}
		})
	}
}

// TestControlBytes checks the word-at-a-time step of the value loop
// against the byte oracle: every byte value in every position of an
// otherwise plain word, then random words, which mix several control,
// DEL and obs-text bytes (a borrow from the first may corrupt the flags
// of those above it, never the position of the first).
func TestControlBytes(t *testing.T) {
	oracle := func(w [8]byte) int {
		for i, c := range w {
			if c < 0x20 || c == 0x7f {
				return i
			}
		}
		return 8
	}
	check := func(w [8]byte) {
		// The index of the lowest flag, 8 when there is none.
		if got, want := bits.TrailingZeros64(controlBytes(binary.LittleEndian.Uint64(w[:])))/8, oracle(w); got != want {
			t.Errorf("H-P04/first control byte of % x at %d, want %d", w, got, want)
		}
	}
	for pos := range 8 {
		for c := range 256 {
			w := [8]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}
			w[pos] = byte(c)
			check(w)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	interesting := []byte{0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1f, 0x20, 0x21, 0x7e, 0x7f, 0x80, 0x81, 0xfe, 0xff}
	for range 100000 {
		var w [8]byte
		for i := range w {
			if rng.IntN(2) == 0 {
				w[i] = interesting[rng.IntN(len(interesting))]
			} else {
				w[i] = byte(rng.IntN(256))
			}
		}
		check(w)
	}
}

// TestValueRun checks the value loop against fieldValueSet: a plain run
// of every length up to 40 ended by each byte value, with an HTAB at each
// position, so every word boundary and the byte tail are crossed.
func TestValueRun(t *testing.T) {
	oracle := func(b []byte) int {
		for i, c := range b {
			if !fieldValueSet[c] {
				return i
			}
		}
		return len(b)
	}
	for n := range 41 {
		for c := range 256 {
			b := []byte(strings.Repeat("v", n) + string(rune(0)) + "tail")
			b[n] = byte(c)
			if got, want := valueRun(b), oracle(b); got != want {
				t.Errorf("H-P04/valueRun(%q) = %d, want %d", b, got, want)
			}
			if got, want := valueRun(b[:n]), n; got != want {
				t.Errorf("H-P04/valueRun(%q) = %d, want %d", b[:n], got, want)
			}
		}
		for tab := range n {
			b := []byte(strings.Repeat("v", n) + "\r\n")
			b[tab] = '\t'
			if got, want := valueRun(b), n; got != want {
				t.Errorf("H-P04/valueRun(%q) = %d, want %d", b, got, want)
			}
		}
	}
}

// TestTokenRun checks the name loop against oracleTchar: a run of every
// length up to 40, of common and of rarer tchar, ended by each byte value.
func TestTokenRun(t *testing.T) {
	oracle := func(b []byte) int {
		for i, c := range b {
			if !oracleTchar(c) {
				return i
			}
		}
		return len(b)
	}
	for n := range 41 {
		for _, fill := range []string{"Content-Length9", "!#$%&'*+.^_`|~"} {
			run := strings.Repeat(fill, 3)[:n]
			for c := range 256 {
				b := []byte(run + string(rune(0)) + "tail: v")
				b[n] = byte(c)
				if got, want := tokenRun(b), oracle(b); got != want {
					t.Errorf("H-P04/tokenRun(%q) = %d, want %d", b, got, want)
				}
			}
			if got := tokenRun([]byte(run)); got != n {
				t.Errorf("H-P04/tokenRun(%q) = %d, want %d", run, got, n)
			}
		}
	}
}

// sweepCase is one position in a request where every byte value is
// tried: raw(c) builds the request, accepted(c) is the ABNF's verdict.
type sweepCase struct {
	name     string
	raw      func(c byte) string
	accepted func(c byte) bool
	// element returns what Parse should have extracted for an accepted c.
	element func(r *Request) string
	want    func(c byte) string
}

// TestParseByteSweep puts each of the 256 byte values into the method,
// a field name, a field value and the path of an otherwise valid request
// and checks Parse against the ABNF oracles: accepted exactly when the
// oracle says so, refused with 400 otherwise, the same whole and byte at a
// time.
func TestParseByteSweep(t *testing.T) {
	const tail = " / HTTP/1.1\r\nHost: a\r\n\r\n"
	const head = "GET / HTTP/1.1\r\nHost: a\r\n"
	lastField := func(r *Request) string { f := r.Fields[len(r.Fields)-1]; return string(f.Name) + ":" + string(f.Value) }
	cases := []sweepCase{
		{
			name:     "H-08/method byte",
			raw:      func(c byte) string { return "G" + string(c) + "T" + tail },
			accepted: oracleTchar,
			element:  func(r *Request) string { return string(r.MethodToken) },
			want:     func(c byte) string { return "G" + string(c) + "T" },
		},
		{
			name:     "H-21/first byte of a field name",
			raw:      func(c byte) string { return head + string(c) + "X: v\r\n\r\n" },
			accepted: oracleTchar,
			element:  lastField,
			want:     func(c byte) string { return string(c) + "X:v" },
		},
		{
			name: "H-21/inner byte of a field name",
			raw:  func(c byte) string { return head + "X" + string(c) + "Y: v\r\n\r\n" },
			// a colon there ends the name: "X" with value "Y: v"
			accepted: func(c byte) bool { return oracleTchar(c) || c == ':' },
			element:  lastField,
			want: func(c byte) string {
				if c == ':' {
					return "X:Y: v"
				}
				return "X" + string(c) + "Y:v"
			},
		},
		{
			name:     "H-P04/inner byte of a field value",
			raw:      func(c byte) string { return head + "X: a" + string(c) + "b\r\n\r\n" },
			accepted: oracleFieldValueByte,
			element:  lastField,
			want:     func(c byte) string { return "X:a" + string(c) + "b" },
		},
		{
			name:     "H-P04/byte in the middle of a long value",
			raw:      func(c byte) string { return head + "X: 0123456789a" + string(c) + "bcdefghijklmnop\r\n\r\n" },
			accepted: oracleFieldValueByte,
			element:  lastField,
			want:     func(c byte) string { return "X:0123456789a" + string(c) + "bcdefghijklmnop" },
		},
		{
			name:     "H-13/path byte",
			raw:      func(c byte) string { return "GET /a" + string(c) + "b" + tail[2:] },
			accepted: oraclePathByte,
			element:  func(r *Request) string { return string(r.Path) },
			want:     func(c byte) string { return "/a" + string(c) + "b" },
		},
	}
	lim := DefaultLimits()
	for _, sc := range cases {
		t.Run(sc.name, func(t *testing.T) {
			for i := range 256 {
				c := byte(i)
				raw := []byte(sc.raw(c))
				var req Request
				n, err := Parse(raw, 0, lim, &req)
				whole := outcomeOf(t, n, err, &req)
				if diff := cmp.Diff(whole, parseIncrementally(t, raw, 1, lim)); diff != "" {
					t.Errorf("byte %#02x: byte at a time differs (-whole +incremental):\n%s", c, diff)
				}
				switch {
				case sc.accepted(c) && err != nil:
					t.Errorf("byte %#02x: got %v, want accepted", c, err)
				case sc.accepted(c):
					if got, want := sc.element(&req), sc.want(c); got != want {
						t.Errorf("byte %#02x: parsed %q, want %q", c, got, want)
					}
				case whole.Err == nil || whole.Err.Status != 400:
					t.Errorf("byte %#02x: got %+v, want a 400", c, whole)
				}
			}
		})
	}
}

func TestEqualFold(t *testing.T) {
	// Only A-Z fold: the Kelvin sign and other bytes never match letters.
	cases := []struct {
		a    string
		b    string
		want bool
	}{
		{"Content-Length", "content-length", true},
		{"CONTENT-LENGTH", "content-length", true},
		{"AZ", "az", true}, // both ends of A-Z
		{"content-lengtx", "content-length", false},
		{"content-length ", "content-length", false},
		{"\xe2\x84\xaa", "k", false},
		{"@", "`", false}, // 0x40 vs 0x60 differ only in the 0x20 bit
		{"[", "{", false},
	}
	for _, c := range cases {
		if got := equalFold([]byte(c.a), c.b); got != c.want {
			t.Errorf("H-21/equalFold(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
