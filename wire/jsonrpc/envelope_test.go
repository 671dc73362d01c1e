package jsonrpc

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// allowID lets go-cmp look inside ID, which hides its token.
var allowID = cmp.AllowUnexported(ID{})

type decodeCase struct {
	name    string
	input   string
	want    Message
	wantErr *Error
}

// decodeCases drive TestDecode and seed FuzzStrictJSON.
var decodeCases = []decodeCase{
	// Requests and notifications (MCP 2025-11-25 Base §1.1, §1.3).
	{name: "T-60/ping request", input: pingBody,
		want: Message{Kind: KindRequest, ID: IntID(7), Method: "ping"}},
	{name: "T-60/request with params", input: `{"jsonrpc":"2.0","id":"a","method":"resources/list","params":{"cursor":"c"}}`,
		want: Message{Kind: KindRequest, ID: stringID("a"), Method: "resources/list", Params: []byte(`{"cursor":"c"}`)}},
	{name: "T-60/members in any order, whitespace kept in raw params", input: " {\"params\" : { \"a\" : 1 } ,\n\"method\":\"x\",\"id\":2,\"jsonrpc\":\"2.0\"}\n",
		want: Message{Kind: KindRequest, ID: IntID(2), Method: "x", Params: []byte(`{ "a" : 1 }`)}},
	{name: "T-60/escaped version string", input: `{"jsonrpc":"\u0032.0","id":1,"method":"ping"}`,
		want: Message{Kind: KindRequest, ID: IntID(1), Method: "ping"}},
	{name: "T-60/escaped member name matches", input: `{"jsonrpc":"2.0","id":1,"\u006dethod":"ping"}`,
		want: Message{Kind: KindRequest, ID: IntID(1), Method: "ping"}},
	{name: "T-60/escaped method is unescaped", input: `{"jsonrpc":"2.0","id":1,"method":"a\/b\u00e9"}`,
		want: Message{Kind: KindRequest, ID: IntID(1), Method: "a/bé"}},
	{name: "T-60/empty method is left to method dispatch (-32601)", input: `{"jsonrpc":"2.0","id":1,"method":""}`,
		want: Message{Kind: KindRequest, ID: IntID(1), Method: ""}},
	{name: "T-64/notification has no id", input: `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		want: Message{Kind: KindNotification, Method: "notifications/initialized"}},
	{name: "T-64/notification with params", input: `{"jsonrpc":"2.0","method":"n","params":{}}`,
		want: Message{Kind: KindNotification, Method: "n", Params: []byte(`{}`)}},

	// Ids (T-61).
	{name: "T-61/string id kept with its escapes", input: `{"jsonrpc":"2.0","id":"a\u0062","method":"m"}`,
		want: Message{Kind: KindRequest, ID: newID([]byte(`"a\u0062"`)), Method: "m"}},
	{name: "T-61/empty string id", input: `{"jsonrpc":"2.0","id":"","method":"m"}`,
		want: Message{Kind: KindRequest, ID: stringID(""), Method: "m"}},
	{name: "T-61/id -0 is an integer", input: `{"jsonrpc":"2.0","id":-0,"method":"m"}`,
		want: Message{Kind: KindRequest, ID: newID([]byte("-0")), Method: "m"}},
	{name: "T-61/largest int64 id", input: `{"jsonrpc":"2.0","id":9223372036854775807,"method":"m"}`,
		want: Message{Kind: KindRequest, ID: IntID(9223372036854775807), Method: "m"}},
	{name: "T-61/smallest int64 id", input: `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"}`,
		want: Message{Kind: KindRequest, ID: IntID(-9223372036854775808), Method: "m"}},
	{name: "T-61/an 18-digit id", input: `{"jsonrpc":"2.0","id":999999999999999999,"method":"m"}`,
		want: Message{Kind: KindRequest, ID: IntID(999999999999999999), Method: "m"}},
	{name: "T-P03/a 20-digit id beyond int64", input: `{"jsonrpc":"2.0","id":10000000000000000000,"method":"m"}`,
		wantErr: ErrBadID.at(22)},
	{name: "T-P03/big integer id beyond int64", input: `{"jsonrpc":"2.0","id":9223372036854775808,"method":"m"}`,
		wantErr: ErrBadID.at(22)},
	{name: "T-P03/integer id below int64", input: `{"jsonrpc":"2.0","id":-9223372036854775809,"method":"m"}`,
		wantErr: ErrBadID.at(22)},
	{name: "T-P03/null id", input: `{"jsonrpc":"2.0","id":null,"method":"m"}`, wantErr: ErrBadID.at(22)},
	{name: "T-P03/fractional id", input: `{"jsonrpc":"2.0","id":1.5,"method":"m"}`, wantErr: ErrBadID.at(22)},
	{name: "T-P03/exponent id", input: `{"jsonrpc":"2.0","id":1e3,"method":"m"}`, wantErr: ErrBadID.at(22)},
	{name: "T-P03/boolean id", input: `{"jsonrpc":"2.0","id":true,"method":"m"}`, wantErr: ErrBadID.at(22)},
	{name: "T-P03/object id", input: `{"jsonrpc":"2.0","id":{},"method":"m"}`, wantErr: ErrBadID.at(22)},
	{name: "T-P03/array id", input: `{"jsonrpc":"2.0","id":[1],"method":"m"}`, wantErr: ErrBadID.at(22)},
	{name: "T-P03/null id on a response", input: `{"jsonrpc":"2.0","id":null,"result":{}}`, wantErr: ErrBadID.at(22)},

	// Version (T-60).
	{name: "T-60/missing jsonrpc", input: `{"id":1,"method":"m"}`, wantErr: ErrBadVersion.at(0)},
	{name: "T-60/jsonrpc 2.1", input: `{"jsonrpc":"2.1","id":1,"method":"m"}`, wantErr: ErrBadVersion.at(11)},
	{name: "T-60/jsonrpc as a number", input: `{"jsonrpc":2.0,"id":1,"method":"m"}`, wantErr: ErrBadVersion.at(11)},
	{name: "T-60/jsonrpc with a trailing space", input: `{"jsonrpc":"2.0 ","id":1,"method":"m"}`, wantErr: ErrBadVersion.at(11)},

	// Responses (T-62, T-63).
	{name: "T-62/result response", input: `{"jsonrpc":"2.0","id":7,"result":{}}`,
		want: Message{Kind: KindResult, ID: IntID(7), Result: []byte(`{}`)}},
	{name: "T-P03/result must be an object", input: `{"jsonrpc":"2.0","id":7,"result":1}`, wantErr: ErrBadResponse.at(33)},
	{name: "T-P03/result needs an id", input: `{"jsonrpc":"2.0","result":{}}`, wantErr: ErrBadResponse.at(26)},
	{name: "T-63/error response", input: `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found","data":[1]}}`,
		want: Message{Kind: KindError, ID: IntID(7), Error: []byte(`{"code":-32601,"message":"Method not found","data":[1]}`)}},
	{name: "T-63/error response without id (id unreadable)", input: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`,
		want: Message{Kind: KindError, Error: []byte(`{"code":-32700,"message":"Parse error"}`)}},
	{name: "T-63/error code must be an integer", input: `{"jsonrpc":"2.0","id":7,"error":{"code":1.5,"message":"m"}}`, wantErr: ErrBadResponse.at(32)},
	{name: "T-63/error code as a string", input: `{"jsonrpc":"2.0","id":7,"error":{"code":"1","message":"m"}}`, wantErr: ErrBadResponse.at(32)},
	{name: "T-63/error code missing", input: `{"jsonrpc":"2.0","id":7,"error":{"message":"m"}}`, wantErr: ErrBadResponse.at(32)},
	{name: "T-63/error message must be a string", input: `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":null}}`, wantErr: ErrBadResponse.at(32)},
	{name: "T-63/error member names are exact", input: `{"jsonrpc":"2.0","id":7,"error":{"Code":1,"message":"m"}}`, wantErr: ErrBadResponse.at(32)},
	{name: "T-63/error must be an object", input: `{"jsonrpc":"2.0","id":7,"error":"boom"}`, wantErr: ErrBadResponse.at(32)},
	{name: "T-63/result and error together", input: `{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"m"}}`, wantErr: ErrBadResponse.at(0)},

	// Shapes that are no message.
	{name: "T-P03/batch array", input: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, wantErr: ErrBatch.at(0)},
	{name: "T-P03/empty batch array", input: ` []`, wantErr: ErrBatch.at(1)},
	{name: "T-P03/null body", input: `null`, wantErr: ErrNotObject.at(0)},
	{name: "T-P03/string body", input: `"ping"`, wantErr: ErrNotObject.at(0)},
	{name: "T-P03/number body", input: `1`, wantErr: ErrNotObject.at(0)},
	{name: "T-60/unknown member", input: `{"jsonrpc":"2.0","id":1,"method":"m","extra":1}`, wantErr: ErrUnknownMember.at(37)},
	{name: "T-60/an unknown member after all six known ones", input: `{"jsonrpc":"2.0","id":1,"method":"m","params":{},"result":{},"error":{},"extra":1}`,
		wantErr: ErrUnknownMember.at(72)},
	{name: `T-60/"Method" alone is an unknown member`, input: `{"jsonrpc":"2.0","id":1,"Method":"m"}`, wantErr: ErrUnknownMember.at(24)},
	{name: "T-60/method must be a string", input: `{"jsonrpc":"2.0","id":1,"method":1}`, wantErr: ErrBadMethod.at(33)},
	{name: "T-60/id alone is no message", input: `{"jsonrpc":"2.0","id":1}`, wantErr: ErrBadMethod.at(0)},
	{name: "T-60/params without method", input: `{"jsonrpc":"2.0","id":1,"params":{}}`, wantErr: ErrBadMethod.at(0)},
	{name: "T-60/params on a response", input: `{"jsonrpc":"2.0","id":1,"result":{},"params":{}}`, wantErr: ErrBadMethod.at(0)},
	{name: "T-60/method with result", input: `{"jsonrpc":"2.0","id":1,"method":"m","result":{}}`, wantErr: ErrMixedMessage.at(0)},
	{name: "T-60/params array (MCP requires an object)", input: `{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`, wantErr: ErrBadParams.at(46)},
	{name: "T-60/params null", input: `{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, wantErr: ErrBadParams.at(46)},

	// Strict JSON comes first (T-02, T-P13).
	{name: `T-P13/case variant duplicate "Method"`, input: `{"jsonrpc":"2.0","id":1,"method":"m","Method":"n"}`, wantErr: ErrDuplicateKey.at(37)},
	{name: "T-P13/duplicate id", input: `{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`, wantErr: ErrDuplicateKey.at(24)},
	{name: "T-P13/trailing garbage", input: pingBody + "x", wantErr: ErrTrailingBytes.at(len(pingBody))},
	{name: "T-P13/leading BOM", input: "\xef\xbb\xbf" + pingBody, wantErr: ErrBOM.at(0)},
	{name: "T-P13/invalid UTF-8 in the method", input: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", wantErr: ErrInvalidUTF8.at(34)},
	{name: "T-P13/params nested to depth 64 in all", input: `{"jsonrpc":"2.0","method":"m","params":` + nested(`{"a":`, "1", "}", 63) + "}",
		want: Message{Kind: KindNotification, Method: "m", Params: []byte(nested(`{"a":`, "1", "}", 63))}},
	{name: "T-P13/params nested to depth 65 in all", input: `{"jsonrpc":"2.0","method":"m","params":` + nested(`{"a":`, "1", "}", 64) + "}",
		wantErr: ErrTooDeep.at(len(`{"jsonrpc":"2.0","method":"m","params":`) + 5*63)},
}

// stringID is the string id s, as Decode reads it (invalid UTF-8 in s is
// written as U+FFFD).
func stringID(s string) ID { return newID(AppendString(nil, s)) }

func TestDecode(t *testing.T) {
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode([]byte(tc.input))
			assertError(t, err, tc.wantErr)
			if diff := cmp.Diff(tc.want, got, allowID); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeAllocations(t *testing.T) {
	tests := []struct {
		body string
		want float64
	}{
		{pingBody, 0},       // a known method is its constant, the id is held inline
		{initializeBody, 0}, // params alias the body
		{`{"jsonrpc":"2.0","id":123456789,"method":"resources/list"}`, 0},
		{`{"jsonrpc":"2.0","id":1234,"method":"x/unknown"}`, 1},                // an unknown method is copied
		{`{"jsonrpc":"2.0","id":1234,"method":"p\u0069ng"}`, 1},                // so is a known one written with an escape
		{`{"jsonrpc":"2.0","id":"abcdefghijklmnopqrstuv","method":"ping"}`, 1}, // an id token past idInline (24 bytes) is a string
		{`{"jsonrpc":"2.0","id":"abcdefghijklmnopqrstu","method":"ping"}`, 0},
	}
	for _, tc := range tests {
		data := []byte(tc.body)
		if allocs := testing.AllocsPerRun(100, func() { _, _ = Decode(data) }); allocs != tc.want {
			t.Errorf("Decode(%.20q...) allocates %v times, want %v", tc.body, allocs, tc.want)
		}
	}
}

func TestMember(t *testing.T) {
	const obj = ` {"id":1, "ID2" : [1, {"x":"}"}] ,"s":"a\"b","\u006e":null,"o":{"id":2}} `
	tests := []struct {
		name   string
		obj    string
		member string
		want   string
		wantOK bool
	}{
		{"T-60/first member", obj, "id", `1`, true},
		{"T-60/nested value returned raw", obj, "ID2", `[1, {"x":"}"}]`, true},
		{"T-60/string value with an escaped quote", obj, "s", `"a\"b"`, true},
		{"T-60/escaped name matches its value", obj, "n", `null`, true},
		{"T-60/names are not case-folded", obj, "Id", ``, false},
		{"T-60/nested members are not members", obj, "x", ``, false},
		{"T-60/object value", obj, "o", `{"id":2}`, true},
		{"T-60/missing member", obj, "method", ``, false},
		{"T-60/empty object", `{}`, "id", ``, false},
		{"T-60/array is no object", `[{"id":1}]`, "id", ``, false},
		{"T-60/empty input", ``, "id", ``, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Member([]byte(tc.obj), tc.member)
			if ok != tc.wantOK || string(got) != tc.want {
				t.Errorf("Member(%s) = %q, %v; want %q, %v", tc.member, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestStringValue(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		want   string
		wantOK bool
	}{
		{"T-65/RFC 8259 §7/plain", `"ping"`, "ping", true},
		{"T-65/RFC 8259 §7/empty", `""`, "", true},
		{"T-65/RFC 8259 §7/every escape", `"\"\\\/\b\f\n\r\t\u00e9"`, "\"\\/\b\f\n\r\té", true},
		{"T-65/RFC 8259 §7/surrogate pair", `"\ud83d\ude00"`, "😀", true},
		{"T-65/RFC 8259 §7/NUL escape", `"\u0000"`, "\x00", true},
		{"T-65/RFC 8259 §7/raw UTF-8 next to an escape", `"é\n"`, "é\n", true},
		{"T-65/RFC 8259 §7/no quotes", `ping`, "", false},
		{"T-65/RFC 8259 §7/bytes after the string", `"a"b`, "", false},
		{"T-65/RFC 8259 §7/unterminated", `"a`, "", false},
		{"T-65/RFC 8259 §7/raw control character", "\"a\x01\"", "", false},
		{"T-P13/lone surrogate", `"\ud800"`, "", false},
		{"T-P13/invalid UTF-8", "\"\xff\\n\"", "", false},
		{"T-P13/invalid UTF-8 without escapes", "\"\xff\"", "", false},
		{"T-65/RFC 8259 §7/empty input", ``, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := StringValue([]byte(tc.raw))
			if ok != tc.wantOK || got != tc.want {
				t.Errorf("StringValue(%q) = %q, %v; want %q, %v", tc.raw, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestKindString(t *testing.T) {
	got := []string{KindRequest.String(), KindNotification.String(), KindResult.String(), KindError.String(), Kind(0).String()}
	want := []string{"request", "notification", "result", "error", "invalid kind 0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Kind.String (-want +got):\n%s", diff)
	}
}

func TestErrorReasons(t *testing.T) {
	parseErrors := []*Error{ErrInvalidUTF8, ErrBOM, ErrDuplicateKey, ErrNonFinite, ErrNumberOverflow, ErrTooDeep, ErrTrailingBytes, ErrLoneSurrogate, ErrSyntax}
	invalidRequests := []*Error{ErrBatch, ErrNotObject, ErrBadVersion, ErrBadID, ErrBadMethod, ErrBadParams, ErrBadResponse, ErrMixedMessage, ErrUnknownMember}
	for _, e := range parseErrors {
		if e.Code != CodeParseError || !strings.HasPrefix(e.Message, "Parse error: ") {
			t.Errorf("%v: want code %d and the JSON-RPC message as prefix", e, CodeParseError)
		}
	}
	for _, e := range invalidRequests {
		if e.Code != CodeInvalidRequest || !strings.HasPrefix(e.Message, "Invalid Request: ") {
			t.Errorf("%v: want code %d and the JSON-RPC message as prefix", e, CodeInvalidRequest)
		}
	}
	located := ErrSyntax.at(5)
	if got, want := located.Error(), "jsonrpc: Parse error: invalid JSON syntax (code -32700, offset 5)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !located.Is(ErrSyntax) || located.Is(ErrBOM) || located.Is(&Error{Code: CodeInvalidRequest, Message: ErrSyntax.Message}) {
		t.Error("Is must match on code and message, whatever the offset")
	}
}

// TestIsInt64Token: an integer id fits int64 (T-61), decided without
// strconv for the ids of at most 18 digits that always fit.
func TestIsInt64Token(t *testing.T) {
	for raw, want := range map[string]bool{
		"0": true, "-0": true, "999999999999999999": true, "-999999999999999999": true,
		"9223372036854775807": true, "-9223372036854775808": true,
		"9223372036854775808": false, "-9223372036854775809": false, "10000000000000000000": false,
		"-": false, "1-": false, "1.5": false, "1e3": false, `"1"`: false,
	} {
		if got := isInt64Token([]byte(raw)); got != want {
			t.Errorf("isInt64Token(%q) = %v, want %v", raw, got, want)
		}
	}
}
