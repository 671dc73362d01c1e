package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// members returns n distinct members "k0":0,"k1":0,... without braces.
func members(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":0`)
	}
	return b.String()
}

// nested returns depth levels of open, value, close, e.g. nested(`{"a":`, "1", "}", 2) is
// {"a":{"a":1}}.
func nested(open, value, close string, depth int) string {
	return strings.Repeat(open, depth) + value + strings.Repeat(close, depth)
}

type strictCase struct {
	name  string
	input string
	want  *Error // nil: accepted
}

// checkStrict runs the strict check alone, as Decode runs it first.
func checkStrict(data []byte, maxDepth int) error {
	sc := takeScratch()
	defer sc.release()
	return sc.checkStrict(data, maxDepth)
}

// strictCases drive TestCheckStrict, TestCheckStrictAgreesWithEncodingJSON and the
// FuzzStrictJSON seeds.
var strictCases = []strictCase{
	// Accepted: RFC 8259 JSON texts that are also strict.
	{"T-65/RFC 8259 §2/an object", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil},
	{"T-65/RFC 8259 §2/a scalar is a JSON text", `1`, nil},
	{"T-65/RFC 8259 §2/whitespace of all four kinds around the value", " \t\r\n{}\n\r\t ", nil},
	{"T-65/RFC 8259 §3/literals", `[true,false,null]`, nil},
	{"T-65/RFC 8259 §4/empty containers", `{"a":{},"b":[],"c":[{}]}`, nil},
	{"T-65/RFC 8259 §6/-0", `-0`, nil},
	{"T-65/RFC 8259 §6/fraction and exponent forms", `[0.5,-1.25e-5,1E+5,2e0]`, nil},
	{"T-65/RFC 8259 §6/1e308 fits float64", `1e308`, nil},
	{"T-65/RFC 8259 §6/MaxFloat64", `1.7976931348623157e308`, nil},
	{"T-65/RFC 8259 §6/underflow rounds to zero", `1e-400`, nil},
	{"T-65/RFC 8259 §6/308-digit integer", strings.Repeat("9", 308), nil},
	{"T-65/RFC 8259 §6/309 digits that still fit", "1" + strings.Repeat("0", 308), nil},
	{`RFC 8259 §7/\u0000 in a string is fine`, `["\u0000"]`, nil},
	{"T-65/RFC 8259 §7/every escape", `["\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"]`, nil},
	{"T-65/RFC 8259 §7/DEL and U+FEFF inside a string", "[\"\x7f\xef\xbb\xbf\"]", nil},
	{"T-65/RFC 8259 §8.1/multi-byte UTF-8", `{"ключ":"値😀"}`, nil},
	{"T-P13/the same name in sibling objects", `[{"a":1},{"a":2}]`, nil},
	{"T-P13/the same name at each depth", `{"a":{"a":{"a":1}}}`, nil},
	{"T-P13/a name that is a prefix of another", `{"a":1,"ab":2,"\u0061b\u0063":3}`, nil},
	{"T-P13/sharp s is not ss (simple folding only)", `{"ß":1,"ss":2}`, nil},
	{"T-P13/16 distinct names (pairwise limit)", "{" + members(16) + "}", nil},
	{"T-P13/17 distinct names (folded-name set)", "{" + members(17) + "}", nil},
	{"T-P13/large sibling objects reuse a cleared set", "[{" + members(20) + "},{" + members(20) + "}]", nil},
	{"T-P13/large object inside a large object", `{"x":{` + members(20) + "}," + members(20) + "}", nil},

	// T-02: UTF-8 everywhere.
	{"T-P13/invalid UTF-8 in a string", "{\"a\":\"\xff\"}", ErrInvalidUTF8.at(6)},
	{"T-P13/invalid UTF-8 in a member name", "{\"\xfe\":1}", ErrInvalidUTF8.at(2)},
	{"T-P13/invalid UTF-8 outside strings", "[1,\xc3]", ErrInvalidUTF8.at(3)},
	{"T-P13/overlong encoding of NUL", "[\"\xc0\x80\"]", ErrInvalidUTF8.at(2)},
	{"T-P13/UTF-8 encoded surrogate", "[\"\xed\xa0\x80\"]", ErrInvalidUTF8.at(2)},
	{"T-P13/truncated sequence at the end", "\"\xe2\x82", ErrInvalidUTF8.at(1)},
	{"T-P13/lone high surrogate escape", `["\ud800"]`, ErrLoneSurrogate.at(2)},
	{"T-P13/lone low surrogate escape", `["\udc00"]`, ErrLoneSurrogate.at(2)},
	{"T-P13/high surrogate followed by another high", `["\ud800\ud800"]`, ErrLoneSurrogate.at(2)},
	{"T-P13/high surrogate followed by a letter escape", `["\ud800\u0041"]`, ErrLoneSurrogate.at(2)},
	{"T-P13/high surrogate followed by plain text", `["\ud800x"]`, ErrLoneSurrogate.at(2)},
	{"T-P13/high surrogate closing the string", `"\ud800"`, ErrLoneSurrogate.at(1)},

	// T-P13: BOM, duplicates, trailing bytes.
	{"T-P13/leading BOM", "\xef\xbb\xbf{}", ErrBOM.at(0)},
	{"T-P13/BOM after whitespace", " \xef\xbb\xbf{}", ErrSyntax.at(1)},
	{"T-P13/duplicate key", `{"a":1,"a":2}`, ErrDuplicateKey.at(7)},
	{"T-P13/duplicate key at depth 3", `{"x":{"y":{"z":1,"z":2}}}`, ErrDuplicateKey.at(17)},
	{"T-P13/duplicate key with different values types", `{"a":[1],"a":{}}`, ErrDuplicateKey.at(9)},
	{`T-P13/case variant duplicate "Method"`, `{"method":"a","Method":"b"}`, ErrDuplicateKey.at(14)},
	{`T-P13/case variant duplicate "ID"`, `{"id":1,"ID":2}`, ErrDuplicateKey.at(8)},
	{`T-P13/escaped duplicate "\u0061" == "a"`, `{"a":1,"\u0061":2}`, ErrDuplicateKey.at(7)},
	{`T-P13/escaped case variant "\u0041" == "a"`, `{"a":1,"\u0041":2}`, ErrDuplicateKey.at(7)},
	{"T-P13/KELVIN SIGN folds to k", "{\"k\":1,\"\u212a\":2}", ErrDuplicateKey.at(7)},
	{"T-P13/LONG S folds to s", `{"s":1,"ſ":2}`, ErrDuplicateKey.at(7)},
	{"T-P13/non-ASCII case variant", `{"é":1,"É":2}`, ErrDuplicateKey.at(8)},
	{"T-P13/surrogate pair escape equals raw UTF-8", `{"😀":1,"\ud83d\ude00":2}`, ErrDuplicateKey.at(10)},
	{"T-P13/duplicate as member 17 (pairwise limit)", "{" + members(16) + `,"k0":1}`, ErrDuplicateKey.at(len(members(16)) + 2)},
	{"T-P13/duplicate as member 18 (folded-name set)", "{" + members(17) + `,"k0":1}`, ErrDuplicateKey.at(len(members(17)) + 2)},
	{"T-P13/case variant in the folded-name set", "{" + members(17) + `,"K16":1}`, ErrDuplicateKey.at(len(members(17)) + 2)},
	{"T-P13/escaped variant in the folded-name set", "{" + members(17) + `,"\u004b3":1}`, ErrDuplicateKey.at(len(members(17)) + 2)},
	{"T-P13/duplicate after a large inner object closed", `{"x":{` + members(20) + "}," + members(20) + `,"X":1}`,
		ErrDuplicateKey.at(len(`{"x":{`+members(20)+"},"+members(20)) + 1)},
	{"T-P13/names of open objects beyond the inline ones", `{` + members(15) + `,"x":{` + members(15) + `,"y":{"a":1,"b":2}}}`, nil},
	{"T-P13/duplicate among names beyond the inline ones", `{` + members(15) + `,"x":{` + members(15) + `,"y":{"a":1,"A":2}}}`,
		ErrDuplicateKey.at(len(`{` + members(15) + `,"x":{` + members(15) + `,"y":{"a":1,`))},
	{"T-P13/duplicate after objects beyond the inline ones closed", `{` + members(15) + `,"x":{` + members(15) + `,"y":{"a":1}},"k3":1}`,
		ErrDuplicateKey.at(len(`{` + members(15) + `,"x":{` + members(15) + `,"y":{"a":1}},`))},
	{"T-P13/trailing garbage", `{}x`, ErrTrailingBytes.at(2)},
	{"T-P13/two values", `{}{}`, ErrTrailingBytes.at(2)},
	{"T-P13/NUL after the value", "{} \x00", ErrTrailingBytes.at(3)},
	{"T-P13/two scalars", `1 2`, ErrTrailingBytes.at(2)},
	{"T-P13/unbalanced close", `{}]`, ErrTrailingBytes.at(2)},
	{"T-P13/hex digits after zero", `0x10`, ErrTrailingBytes.at(1)},

	// Non-finite numbers and overflow.
	{"T-65/RFC 8259 §6/NaN", `NaN`, ErrNonFinite.at(0)},
	{"T-65/RFC 8259 §6/Infinity in an array", `[Infinity]`, ErrNonFinite.at(1)},
	{"T-65/RFC 8259 §6/-Infinity", `[-Infinity]`, ErrNonFinite.at(1)},
	{"T-65/RFC 8259 §6/+Infinity", `+Infinity`, ErrNonFinite.at(0)},
	{"T-65/RFC 8259 §6/-NaN", `-NaN`, ErrNonFinite.at(0)},
	{"T-65/RFC 8259 §6/lowercase nan", `nan`, ErrSyntax.at(0)},
	{"T-65/RFC 8259 §6/Inf is no spelling", `Inf`, ErrSyntax.at(0)},
	{"T-65/RFC 8259 §6/1e309 overflow", `1e309`, ErrNumberOverflow.at(0)},
	{"T-65/RFC 8259 §6/-1e309 overflow", `[-1e309]`, ErrNumberOverflow.at(1)},
	{"T-65/RFC 8259 §6/just above MaxFloat64", `1.8e308`, ErrNumberOverflow.at(0)},
	{"T-65/RFC 8259 §6/309-digit integer beyond float64", strings.Repeat("9", 309), ErrNumberOverflow.at(0)},

	// Number grammar.
	{"T-65/RFC 8259 §6/leading zero", `01`, ErrSyntax.at(1)},
	{"T-65/RFC 8259 §6/negative leading zero", `-01`, ErrSyntax.at(2)},
	{"T-65/RFC 8259 §6/double zero", `[00]`, ErrSyntax.at(2)},
	{"T-65/RFC 8259 §6/plus sign", `+1`, ErrSyntax.at(0)},
	{"T-65/RFC 8259 §6/minus alone", `-`, ErrSyntax.at(1)},
	{"T-65/RFC 8259 §6/minus before a letter", `[-a]`, ErrSyntax.at(2)},
	{"T-65/RFC 8259 §6/decimal point without digits", `1.`, ErrSyntax.at(2)},
	{"T-65/RFC 8259 §6/leading decimal point", `.5`, ErrSyntax.at(0)},
	{"T-65/RFC 8259 §6/exponent without digits", `1e`, ErrSyntax.at(2)},
	{"T-65/RFC 8259 §6/exponent sign without digits", `1e+`, ErrSyntax.at(3)},
	{"T-65/RFC 8259 §6/hex number in an array", `[0x10]`, ErrSyntax.at(2)},

	// String grammar.
	{"T-65/RFC 8259 §7/raw control character", "[\"\x01\"]", ErrSyntax.at(2)},
	{"T-65/RFC 8259 §7/raw tab", "[\"\t\"]", ErrSyntax.at(2)},
	{"T-65/RFC 8259 §7/raw newline", "[\"a\nb\"]", ErrSyntax.at(3)},
	{"T-65/RFC 8259 §7/unknown escape", `["\x"]`, ErrSyntax.at(2)},
	{"T-65/RFC 8259 §7/short unicode escape", `["\u12"]`, ErrSyntax.at(2)},
	{"T-65/RFC 8259 §7/non-hex unicode escape", `["\uZZZZ"]`, ErrSyntax.at(2)},
	{"T-65/RFC 8259 §7/backslash at the end", `"\`, ErrSyntax.at(2)},
	{"T-65/RFC 8259 §7/unterminated string", `["abc`, ErrSyntax.at(5)},
	{"T-65/RFC 8259 §7/single quotes", `{'a':1}`, ErrSyntax.at(1)},

	// Structure.
	{"T-65/RFC 8259 §2/empty input", ``, ErrSyntax.at(0)},
	{"T-65/RFC 8259 §2/whitespace only", "  \n", ErrSyntax.at(3)},
	{"T-65/RFC 8259 §3/capitalised literal", `True`, ErrSyntax.at(0)},
	{"T-65/RFC 8259 §3/truncated literal", `[tru]`, ErrSyntax.at(1)},
	{"T-65/RFC 8259 §3/literal at the end of the input", `nul`, ErrSyntax.at(0)},
	{"T-65/RFC 8259 §2/line comment", "//c\n{}", ErrSyntax.at(0)},
	{"T-65/RFC 8259 §2/block comment", `/*c*/{}`, ErrSyntax.at(0)},
	{"T-65/RFC 8259 §5/trailing comma in an array", `[1,]`, ErrSyntax.at(3)},
	{"T-65/RFC 8259 §4/trailing comma in an object", `{"a":1,}`, ErrSyntax.at(7)},
	{"T-65/RFC 8259 §5/missing comma", `[1 2]`, ErrSyntax.at(3)},
	{"T-65/RFC 8259 §4/missing colon", `{"a" 1}`, ErrSyntax.at(5)},
	{"T-65/RFC 8259 §4/missing value", `{"a":}`, ErrSyntax.at(5)},
	{"T-65/RFC 8259 §4/unquoted name", `{a:1}`, ErrSyntax.at(1)},
	{"T-65/RFC 8259 §4/number as name", `{1:1}`, ErrSyntax.at(1)},
	{"T-65/RFC 8259 §5/unclosed array", `[`, ErrSyntax.at(1)},
	{"T-65/RFC 8259 §4/unclosed object", `{"a":1`, ErrSyntax.at(6)},
	{"T-65/RFC 8259 §4/unclosed object after a name", `{"a"`, ErrSyntax.at(4)},
	{"T-65/RFC 8259 §4/object closed by a bracket", `{]`, ErrSyntax.at(1)},
	{"T-65/RFC 8259 §5/array closed by a brace", `[1}`, ErrSyntax.at(2)},
	{"T-65/RFC 8259 §5/close at the start", `]`, ErrSyntax.at(0)},
}

func TestCheckStrict(t *testing.T) {
	for _, tc := range strictCases {
		t.Run(tc.name, func(t *testing.T) {
			assertError(t, checkStrict([]byte(tc.input), MaxDepth), tc.want)
		})
	}
}

// assertError checks err against want (nil: no error) by reason and offset.
func assertError(t *testing.T, err error, want *Error) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("error = %v, want none", err)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want errors.Is %v", err, want)
	}
	var got *Error
	if !errors.As(err, &got) {
		t.Fatalf("error %v is no *Error", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

// rfc8259Violations are the reasons for input that is not JSON at all; the other reasons
// are the profile's hardening of valid JSON.
var rfc8259Violations = []*Error{ErrSyntax, ErrNonFinite, ErrTrailingBytes, ErrBOM}

// TestCheckStrictAgreesWithEncodingJSON uses encoding/json.Valid as the RFC 8259 oracle:
// whatever CheckStrict accepts it accepts, what is not JSON it refuses too, and the
// profile's extra rules refuse valid JSON that it accepts (which is why they exist).
func TestCheckStrictAgreesWithEncodingJSON(t *testing.T) {
	for _, tc := range strictCases {
		t.Run(tc.name, func(t *testing.T) {
			valid := json.Valid([]byte(tc.input))
			switch {
			case tc.want == nil && !valid:
				t.Error("CheckStrict accepts what json.Valid refuses")
			case tc.want == nil:
				var value any
				if err := json.Unmarshal([]byte(tc.input), &value); err != nil {
					t.Errorf("CheckStrict accepts what json.Unmarshal refuses: %v", err)
				}
			case isOneOf(tc.want, rfc8259Violations) && valid:
				t.Errorf("json.Valid accepts input refused as %v", tc.want)
			case errors.Is(tc.want, ErrInvalidUTF8):
				// json.Valid accepts invalid UTF-8 in strings and refuses it elsewhere.
			case !isOneOf(tc.want, rfc8259Violations) && !valid:
				t.Errorf("json.Valid refuses input that only the profile should refuse (%v)", tc.want)
			}
		})
	}
}

func isOneOf(err error, targets []*Error) bool {
	for _, target := range targets {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

func TestCheckStrictDepth(t *testing.T) {
	const sixteenKiB = 16 << 10
	tests := []struct {
		name     string
		input    string
		maxDepth int
		want     *Error
	}{
		{"T-P13/depth exactly 64 arrays accepted", nested("[", "", "]", 64), MaxDepth, nil},
		{"T-P13/depth 65 arrays rejected", nested("[", "", "]", 65), MaxDepth, ErrTooDeep.at(64)},
		{"T-P13/depth exactly 64 objects accepted", nested(`{"a":`, "1", "}", 64), MaxDepth, nil},
		{"T-P13/depth 65 objects rejected", nested(`{"a":`, "1", "}", 65), MaxDepth, ErrTooDeep.at(5 * 64)},
		{"T-P13/depth 64 with an empty innermost object", nested("[", "{}", "]", 63), MaxDepth, nil},
		{"T-P13/depth 65 with an empty innermost object", nested("[", "{}", "]", 64), MaxDepth, ErrTooDeep.at(64)},
		{"T-P13/depth exactly 64 of mixed objects and arrays", `{"a":` + nested(`[{"a":`, "[]", "}]", 31) + "}", MaxDepth, nil},
		{"T-P13/depth 65 of mixed objects and arrays", `[{"a":` + nested(`[{"a":`, "[]", "}]", 31) + "}]", MaxDepth, ErrTooDeep.at(6 + 6*31)},
		{"T-P13/16 KiB body of nested arrays", nested("[", "", "]", sixteenKiB/2), MaxDepth, ErrTooDeep.at(64)},
		{"T-P13/16 KiB of nested arrays within a large budget, no recursion", nested("[", "", "]", sixteenKiB/2), sixteenKiB / 2, nil},
		{"T-P13/16 KiB of nested arrays one level past a large budget", nested("[", "", "]", sixteenKiB/2), sixteenKiB/2 - 1, ErrTooDeep.at(sixteenKiB/2 - 1)},
		{"T-P13/budget 0 accepts a scalar", `"s"`, 0, nil},
		{"T-P13/budget 0 refuses an empty array", `[]`, 0, ErrTooDeep.at(0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertError(t, checkStrict([]byte(tc.input), tc.maxDepth), tc.want)
		})
	}
}

// TestCheckStrictAllocations pins the cost the ping round trip relies on: no allocation
// for bodies whose objects have at most pairwiseNameLimit members.
func TestCheckStrictAllocations(t *testing.T) {
	for _, body := range []string{pingBody, initializeBody, nested("[", "", "]", MaxDepth)} {
		data := []byte(body)
		if allocs := testing.AllocsPerRun(100, func() { _ = checkStrict(data, MaxDepth) }); allocs != 0 {
			t.Errorf("checkStrict(%.20q...) allocates %v times, want 0", body, allocs)
		}
	}
}

// TestCheckStrictScratchReuse: the pooled scratch carries nothing from one body to the
// next. A body refused inside an object that outgrew pairwise comparison leaves names in
// its set; the same names in the next body are no duplicates. A body refused inside
// objects leaves a name count; the next body still checks without allocating.
func TestCheckStrictScratchReuse(t *testing.T) {
	var names strings.Builder
	for k := range pairwiseNameLimit + 4 {
		fmt.Fprintf(&names, `"a%d":1,`, k)
	}
	refusedBig := []byte(`{"x":{` + names.String() + `"z":}}`)
	acceptedBig := []byte(`{"x":{` + names.String() + `"z":1}}`)
	// 15 names in each of two open objects, then one more: a name count just under
	// inlineNames when the body is refused.
	var fifteen strings.Builder
	for k := range pairwiseNameLimit - 1 {
		fmt.Fprintf(&fifteen, `"n%d":1,`, k)
	}
	refusedSmall := []byte(`{` + fifteen.String() + `"o":{` + fifteen.String() + `"c":}}`)
	for range 10 {
		if err := checkStrict(refusedBig, MaxDepth); err == nil {
			t.Fatal("refused body accepted")
		}
		if err := checkStrict(acceptedBig, MaxDepth); err != nil {
			t.Fatalf("T-P13/names of a refused body leaked into the next: %v", err)
		}
	}
	// The refusal's own error allocates; the body after it must add nothing.
	data := []byte(initializeBody)
	refusal := testing.AllocsPerRun(100, func() { _ = checkStrict(refusedSmall, MaxDepth) })
	both := testing.AllocsPerRun(100, func() {
		_ = checkStrict(refusedSmall, MaxDepth)
		_ = checkStrict(data, MaxDepth)
	})
	if both != refusal {
		t.Errorf("after a refused body, %.20q... allocates %v times, want 0", initializeBody, both-refusal)
	}
}

// lastCasedPlaneEnd bounds the fold sweep: Unicode has no case mappings beyond plane 1
// (the last cased script, Adlam, ends at U+1E95F).
const lastCasedPlaneEnd = 0x1FFFF

// TestFoldRuneMatchesEncodingJSON sweeps the cased planes: two names collide exactly when
// bytes.EqualFold, the matching encoding/json uses for struct fields, says they are equal.
func TestFoldRuneMatchesEncodingJSON(t *testing.T) {
	for r := rune(0); r <= lastCasedPlaneEnd; r++ {
		if isHighSurrogate(r) || isLowSurrogate(r) {
			continue
		}
		var encoded, otherEncoded [utf8.UTFMax]byte
		n := utf8.EncodeRune(encoded[:], r)
		for _, other := range [...]rune{unicode.SimpleFold(r), unicode.ToUpper(r), unicode.ToLower(r), unicode.ToTitle(r), r + 1} {
			m := utf8.EncodeRune(otherEncoded[:], other)
			want := bytes.EqualFold(encoded[:n], otherEncoded[:m])
			if got := foldRune(r) == foldRune(other); got != want {
				t.Errorf("foldRune(%U) == foldRune(%U) is %v, bytes.EqualFold says %v", r, other, got, want)
			}
		}
	}
}

// TestDuplicateNamesAreWhatEncodingJSONMatches shows why case variants are duplicates:
// encoding/json fills the field tagged with one name from a member called the other.
func TestDuplicateNamesAreWhatEncodingJSONMatches(t *testing.T) {
	tests := []struct {
		name      string
		tag, key  string
		duplicate bool
	}{
		{`T-P13/"ID" fills the field of "id"`, "id", "ID", true},
		{`T-P13/"Method" fills the field of "method"`, "method", "Method", true},
		{"T-P13/KELVIN SIGN fills the field of k", "k", "\u212a", true},
		{"T-P13/LONG S fills the field of s", "s", "ſ", true},
		{"T-P13/titlecase dz fills the field of lowercase dz", "ǆ", "ǅ", true},
		{"T-P13/sharp s does not fill the field of ss", "ss", "ß", false},
		{"T-P13/a different name fills nothing", "id", "idx", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			structType := reflect.StructOf([]reflect.StructField{
				{Name: "Field", Type: reflect.TypeFor[int](), Tag: reflect.StructTag(`json:"` + tc.tag + `"`)},
			})
			target := reflect.New(structType)
			body := `{` + string(AppendString(nil, tc.key)) + `:1}`
			if err := json.Unmarshal([]byte(body), target.Interface()); err != nil {
				t.Fatal(err)
			}
			if filled := target.Elem().Field(0).Int() == 1; filled != tc.duplicate {
				t.Errorf("encoding/json filled the field: %v, want %v", filled, tc.duplicate)
			}
			both := `{` + string(AppendString(nil, tc.tag)) + `:0,` + string(AppendString(nil, tc.key)) + `:1}`
			if got := errors.Is(checkStrict([]byte(both), MaxDepth), ErrDuplicateKey); got != tc.duplicate {
				t.Errorf("checkStrict(%s) reports a duplicate: %v, want %v", both, got, tc.duplicate)
			}
		})
	}
}
