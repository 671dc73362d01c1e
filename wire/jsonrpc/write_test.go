package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// wireCases drive both directions: each writer call must produce wire, and Decode(wire)
// must give message.
var wireCases = []struct {
	name    string
	written []byte
	wire    string
	message Message
}{
	{"T-60/ping request", AppendRequest(nil, IntID(7), "ping", nil), pingBody,
		Message{Kind: KindRequest, ID: IntID(7), Method: "ping"}},
	{"T-60/request with a string id and params", AppendRequest(nil, stringID("r-1"), "resources/list", []byte(`{"cursor":"c"}`)),
		`{"jsonrpc":"2.0","id":"r-1","method":"resources/list","params":{"cursor":"c"}}`,
		Message{Kind: KindRequest, ID: stringID("r-1"), Method: "resources/list", Params: []byte(`{"cursor":"c"}`)}},
	{"T-62/empty result for ping", AppendResult(nil, IntID(7), nil), `{"jsonrpc":"2.0","id":7,"result":{}}`,
		Message{Kind: KindResult, ID: IntID(7), Result: []byte(`{}`)}},
	{"T-62/result echoes a string id with escapes", AppendResult(nil, stringID(`a"b`), []byte(`{"resources":[]}`)),
		`{"jsonrpc":"2.0","id":"a\"b","result":{"resources":[]}}`,
		Message{Kind: KindResult, ID: stringID(`a"b`), Result: []byte(`{"resources":[]}`)}},
	{"T-66/method not found keeps the id", AppendError(nil, IntID(7), CodeMethodNotFound, "Method not found"),
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`,
		Message{Kind: KindError, ID: IntID(7), Error: []byte(`{"code":-32601,"message":"Method not found"}`)}},
	{"T-63/error without id when the id was unreadable", AppendError(nil, ID{}, ErrDuplicateKey.Code, ErrDuplicateKey.Message),
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: duplicate member name"}}`,
		Message{Kind: KindError, Error: []byte(`{"code":-32700,"message":"Parse error: duplicate member name"}`)}},
	{"T-63/error message is JSON-escaped", AppendError(nil, IntID(1), ErrBadVersion.Code, ErrBadVersion.Message),
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}}`,
		Message{Kind: KindError, ID: IntID(1), Error: []byte(`{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}`)}},
	{"T-64/notification without params", AppendNotification(nil, "notifications/initialized", nil),
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		Message{Kind: KindNotification, Method: "notifications/initialized"}},
	{"T-64/notification with params", AppendNotification(nil, "notifications/message", []byte(`{"level":"info"}`)),
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`,
		Message{Kind: KindNotification, Method: "notifications/message", Params: []byte(`{"level":"info"}`)}},
	{"S-P02/pretty-printed params are compacted", AppendRequest(nil, IntID(1), "m", []byte("{\n  \"a\" : [1, 2],\n\t\"b\": \"x y\\\" z\"\r\n}")),
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,2],"b":"x y\" z"}}`,
		Message{Kind: KindRequest, ID: IntID(1), Method: "m", Params: []byte(`{"a":[1,2],"b":"x y\" z"}`)}},
	{"S-P02/pretty-printed result is compacted", AppendResult(nil, IntID(1), []byte("{ \"s\" : \"\\\\\" ,\n \"t\":true }")),
		`{"jsonrpc":"2.0","id":1,"result":{"s":"\\","t":true}}`,
		Message{Kind: KindResult, ID: IntID(1), Result: []byte(`{"s":"\\","t":true}`)}},
	{"S-P02/writers append to dst", AppendResult([]byte("data: "), IntID(2), nil)[len("data: "):],
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		Message{Kind: KindResult, ID: IntID(2), Result: []byte(`{}`)}},
}

func TestWriters(t *testing.T) {
	for _, tc := range wireCases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.wire, string(tc.written)); diff != "" {
				t.Errorf("written (-want +got):\n%s", diff)
			}
			got, err := Decode([]byte(tc.wire))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tc.message, got, allowID); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIDs(t *testing.T) {
	tests := []struct {
		name     string
		id       ID
		wantRaw  string
		wantZero bool
	}{
		{"T-61/zero ID is absent", ID{}, "", true},
		{"T-61/integer id", IntID(-42), "-42", false},
		{"T-61/integer id 0 is present", IntID(0), "0", false},
		{"T-61/string id is quoted", stringID("a\nb"), `"a\nb"`, false},
		{"T-61/empty string id is present", stringID(""), `""`, false},
		{"T-61/a token of idInline bytes, held inline", stringID(strings.Repeat("x", idInline-2)), `"` + strings.Repeat("x", idInline-2) + `"`, false},
		{"T-61/a token one byte past idInline, held as a string", stringID(strings.Repeat("x", idInline-1)), `"` + strings.Repeat("x", idInline-1) + `"`, false},
		{"T-61/smallest int64 fits inline", IntID(-9223372036854775808), "-9223372036854775808", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.id.Raw() != tc.wantRaw || tc.id.IsZero() != tc.wantZero || tc.id.Len() != len(tc.wantRaw) {
				t.Errorf("Raw() = %q, IsZero() = %v, Len() = %d; want %q, %v, %d", tc.id.Raw(), tc.id.IsZero(), tc.id.Len(), tc.wantRaw, tc.wantZero, len(tc.wantRaw))
			}
			if got := string(tc.id.AppendRaw([]byte("id="))); got != "id="+tc.wantRaw {
				t.Errorf("AppendRaw = %q, want %q", got, "id="+tc.wantRaw)
			}
		})
	}
	if n := IntID(-9223372036854775808).n; n != 20 {
		t.Errorf("an int64 id is held inline: n = %d, want 20", n)
	}
	if long := stringID(strings.Repeat("x", idInline-1)); long.n != 0 || long.long == "" {
		t.Errorf("a token past idInline is held as a string: %+v", long)
	}
	if stringID("1") == IntID(1) {
		t.Error(`the string id "1" must differ from the integer id 1`)
	}
}

func TestAppendString(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"S-P02/RFC 8259 §7/empty", "", `""`},
		{"S-P02/RFC 8259 §7/plain ASCII", "ping", `"ping"`},
		{"S-P02/RFC 8259 §7/quotation mark and reverse solidus", `a"b\c`, `"a\"b\\c"`},
		{"S-P02/RFC 8259 §7/two-character escapes", "\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"S-P02/RFC 8259 §7/other control characters", "\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"S-P02/RFC 8259 §7/solidus and DEL stay", "/\x7f", "\"/\x7f\""},
		{"S-P02/RFC 8259 §7/HTML characters stay", "<a>&", `"<a>&"`},
		{"S-P02/RFC 8259 §7/line and paragraph separators are escaped", "a\u2028b\u2029", `"a\u2028b\u2029"`},
		{"S-P02/RFC 8259 §8.1/multi-byte UTF-8 stays", "é😀", `"é😀"`},
		{"RFC 8259 §8.1/invalid byte becomes U+FFFD", "a\xffb", `"a\ufffdb"`},
		{"RFC 8259 §8.1/truncated sequence becomes U+FFFD per byte", "\xe2\x82", `"\ufffd\ufffd"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendString(nil, tc.in)
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("AppendString (-want +got):\n%s", diff)
			}
			if bytes.ContainsAny(got, "\r\n") {
				t.Errorf("AppendString wrote a raw CR or LF: %q", got)
			}
			value, ok := StringValue(got)
			if !ok {
				t.Fatalf("StringValue refuses %s", got)
			}
			var decoded string
			if err := json.Unmarshal(got, &decoded); err != nil || decoded != value {
				t.Errorf("encoding/json reads %q (%v), StringValue %q", decoded, err, value)
			}
			if utf8.ValidString(tc.in) && value != tc.in {
				t.Errorf("round trip gives %q, want %q", value, tc.in)
			}
		})
	}
}
