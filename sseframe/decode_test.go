package sseframe

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeCase is one stream and what Decode must make of it: the events
// (those before the fault when an error is expected), the sentinel error
// and the offset the *SyntaxError names.
type decodeCase struct {
	name       string
	stream     string
	lim        Limits // zero: DefaultLimits
	want       []Event
	wantErr    error
	wantOffset int
}

var decodeCases = []decodeCase{
	// S-02: line ends.
	{name: "S-02/CRLF, CR and LF mixed in one event", stream: "data: a\r\ndata: b\rdata: c\n\r\n", want: []Event{{Data: "a\nb\nc"}}},
	{name: "S-02/CRLF is one line end, not CR then LF", stream: "data: a\r\ndata: b\r\n\r\n", want: []Event{{Data: "a\nb"}}},
	{name: "S-02/LF then CR is two line ends", stream: "data: a\n\rdata: b\n\n", want: []Event{{Data: "a"}, {Data: "b"}}},
	{name: "S-02/CR at the end of the stream ends the blank line", stream: "data: a\n\r", want: []Event{{Data: "a"}}},

	// S-03: byte order mark.
	{name: "S-03/one leading BOM is skipped", stream: "\uFEFFdata: x\n\n", want: []Event{{Data: "x"}}},
	{name: "S-03/a stream of only a BOM is empty", stream: "\uFEFF"},
	{name: "S-03/a second BOM is part of the field name", stream: "\uFEFF\uFEFFdata: x\n\n", wantErr: ErrUnknownField, wantOffset: 3},
	{name: "S-03/a BOM after the start is part of the field name", stream: "data: x\n\n\uFEFFdata: y\n\n", want: []Event{{Data: "x"}}, wantErr: ErrUnknownField, wantOffset: 9},

	// S-04: comments.
	{name: "S-04/comment lines are skipped", stream: ": hello\ndata: x\n: inside\n\n", want: []Event{{Data: "x"}}},
	{name: "S-04/a comment-only block dispatches nothing", stream: ": ping\n\n"},
	{name: "S-04/a final comment line needs no blank line", stream: "data: x\n\n: keepalive\n", want: []Event{{Data: "x"}}},
	{name: "S-04/an empty comment is a comment", stream: ":\ndata: x\n\n", want: []Event{{Data: "x"}}},

	// S-05: splitting a field.
	{name: "S-05/data without colon is data with an empty value", stream: "data\n\n", want: []Event{{Data: ""}}},
	{name: "S-05/value without leading space", stream: "data:x\n\n", want: []Event{{Data: "x"}}},
	{name: "S-05/only one leading space is dropped", stream: "data:  x\n\n", want: []Event{{Data: " x"}}},
	{name: "S-05/a leading tab is kept", stream: "data:\tx\n\n", want: []Event{{Data: "\tx"}}},
	{name: "S-05/the first colon splits", stream: "data:a:b\n\n", want: []Event{{Data: "a:b"}}},
	{name: "S-05/trailing space is kept", stream: "data: x \n\n", want: []Event{{Data: "x "}}},

	// S-06: field names.
	{name: "S-06/field names are case-sensitive", stream: "Data: x\n\n", wantErr: ErrUnknownField},
	{name: "S-06/profile: an unknown field is an error", stream: "data: x\nfoo: y\n\n", wantErr: ErrUnknownField, wantOffset: 8},
	{name: "S-06/a space before the colon is part of the name", stream: "data : x\n\n", wantErr: ErrUnknownField},
	{name: "S-06/a name without colon must still be known", stream: "retr\n\n", wantErr: ErrUnknownField},

	// S-07: data and event.
	{name: "S-07/data lines join with LF", stream: "data: a\ndata: b\n\n", want: []Event{{Data: "a\nb"}}},
	{name: "S-07/event sets the type", stream: "event: notice\ndata: x\n\n", want: []Event{{Type: "notice", Data: "x"}}},
	{name: "S-07/the last event field wins", stream: "event: a\nevent: b\ndata: x\n\n", want: []Event{{Type: "b", Data: "x"}}},
	{name: "S-07/an empty event field leaves the default type", stream: "event: a\nevent:\ndata: x\n\n", want: []Event{{Data: "x"}}},
	{name: "S-07/the type does not persist to the next event", stream: "event: a\ndata: x\n\ndata: y\n\n", want: []Event{{Type: "a", Data: "x"}, {Data: "y"}}},
	{name: "S-07/profile: space in the type", stream: "event: a b\ndata: x\n\n", wantErr: ErrInvalidType},
	{name: "S-07/profile: NUL in the type", stream: "event: a\x00\ndata: x\n\n", wantErr: ErrInvalidType},
	{name: "S-07/profile: non-ASCII type", stream: "event: \u00e9\ndata: x\n\n", wantErr: ErrInvalidType},
	{name: "S-P02/profile: NUL in data", stream: "data: a\x00\n\n", wantErr: ErrInvalidData},

	// S-08: id.
	{name: "S-08/the last event id persists across events", stream: "id: 1\ndata: a\n\ndata: b\n\n", want: []Event{{ID: "1", Data: "a"}, {ID: "1", Data: "b"}}},
	{name: "S-08/an empty id resets the last event id", stream: "id: 1\ndata: a\n\nid\ndata: b\n\n", want: []Event{{ID: "1", Data: "a"}, {Data: "b"}}},
	{name: "S-08/an id-only block sets the id and dispatches nothing", stream: "id: 5\n\ndata: x\n\n", want: []Event{{ID: "5", Data: "x"}}},
	{name: "S-08/an id after the data line applies to the event", stream: "data: x\nid: 7\n\n", want: []Event{{ID: "7", Data: "x"}}},
	{name: "S-08/the last id field in a block wins", stream: "id: 1\nid: 2\ndata: x\n\n", want: []Event{{ID: "2", Data: "x"}}},
	{name: "S-08/profile: id with NUL is an error, not ignored", stream: "data: a\n\nid: a\x00b\ndata: x\n\n", want: []Event{{Data: "a"}}, wantErr: ErrInvalidID, wantOffset: 9},
	{name: "S-P01/id with a space", stream: "id: a b\ndata: x\n\n", wantErr: ErrInvalidID},
	{name: "S-P01/id one byte over MaxIDLen", stream: "id: " + strings.Repeat("i", MaxIDLen+1) + "\ndata: x\n\n", wantErr: ErrInvalidID},

	// S-09: retry.
	{name: "S-09/retry sets the event's Retry", stream: "retry: 2000\ndata: x\n\n", want: []Event{{Retry: 2000, Data: "x"}}},
	{name: "S-09/leading zeros are digits", stream: "retry: 007\ndata: x\n\n", want: []Event{{Retry: 7, Data: "x"}}},
	{name: "S-09/retry 0 reads as no retry", stream: "retry: 0\ndata: x\n\n", want: []Event{{Data: "x"}}},
	{name: "S-09/retry does not persist to the next event", stream: "retry: 5\ndata: a\n\ndata: b\n\n", want: []Event{{Retry: 5, Data: "a"}, {Data: "b"}}},
	{name: "S-09/a retry in a block without data is not reported", stream: "retry: 5\n\ndata: b\n\n", want: []Event{{Data: "b"}}},
	{name: "S-09/profile: retry with a non-digit", stream: "retry: 2s\ndata: x\n\n", wantErr: ErrInvalidRetry},
	{name: "S-09/profile: empty retry", stream: "retry:\ndata: x\n\n", wantErr: ErrInvalidRetry},
	{name: "S-09/profile: retry without colon", stream: "retry\ndata: x\n\n", wantErr: ErrInvalidRetry},
	{name: "S-09/profile: signed retry", stream: "retry: +5\ndata: x\n\n", wantErr: ErrInvalidRetry},
	{name: "S-09/profile: negative retry", stream: "retry: -5\ndata: x\n\n", wantErr: ErrInvalidRetry},
	{name: "S-09/profile: retry with a space after the digits", stream: "retry: 5 \ndata: x\n\n", wantErr: ErrInvalidRetry},
	{name: "S-09/profile: retry one past the largest int", stream: "retry: 9223372036854775808\ndata: x\n\n", wantErr: ErrInvalidRetry},

	// S-10: dispatch.
	{name: "S-10/a block without data dispatches nothing", stream: "event: a\n\n"},
	{name: "S-10/empty data dispatches an empty event", stream: "id: X\ndata:\n\n", want: []Event{{ID: "X", Data: ""}}},
	{name: "S-10/only one trailing LF is removed", stream: "data\ndata\n\n", want: []Event{{Data: "\n"}}},
	{name: "S-10/extra blank lines dispatch nothing", stream: "\n\n\ndata: x\n\n\n\n", want: []Event{{Data: "x"}}},

	// S-11: end of stream.
	{name: "S-11/an empty stream has no events", stream: ""},
	{name: "S-11/profile: a final event without blank line is truncated", stream: "data: x\n", wantErr: ErrTruncated, wantOffset: 8},
	{name: "S-11/profile: a final id-only block without blank line is truncated", stream: "data: a\n\nid: 1\n", want: []Event{{Data: "a"}}, wantErr: ErrTruncated, wantOffset: 15},
	{name: "S-11/profile: a final line without line end is truncated", stream: "data: a\n\ndata: b", want: []Event{{Data: "a"}}, wantErr: ErrTruncated, wantOffset: 9},
	{name: "S-11/profile: a final comment without line end is truncated", stream: ": ka", wantErr: ErrTruncated},

	// S-01: the stream is UTF-8.
	{name: "S-01/profile: invalid UTF-8 in data", stream: "data: a\n\ndata: \xff\n\n", want: []Event{{Data: "a"}}, wantErr: ErrInvalidUTF8, wantOffset: 9},
	{name: "S-01/profile: invalid UTF-8 in a comment", stream: ": \xff\n", wantErr: ErrInvalidUTF8},
	{name: "S-01/profile: UTF-8 surrogate", stream: "data: \xed\xa0\x80\n\n", wantErr: ErrInvalidUTF8},
	{name: "S-01/profile: overlong UTF-8", stream: "data: \xc0\xaf\n\n", wantErr: ErrInvalidUTF8},
	{name: "S-01/profile: a UTF-8 sequence cut by a line end", stream: "data: \xe2\x9c\n\x93\n\n", wantErr: ErrInvalidUTF8},
	{name: "S-03/profile: a partial BOM is not a BOM", stream: "\xEF\xBBdata: x\n\n", wantErr: ErrInvalidUTF8},

	// S-15: the priming event as a client sees it.
	{
		name:   "S-15/priming event then a response with the next id",
		stream: "id: X\nretry: 2000\ndata:\n\nid: Y\ndata: {}\n\n",
		want:   []Event{{ID: "X", Retry: 2000}, {ID: "Y", Data: "{}"}},
	},
}

// limitCases put every limit at its value and one past it. No S-* rule
// names the reader's limits; they are the profile's fixed-limits rule
// (H-P07) applied to the SSE reader.
var limitCases = []decodeCase{
	{name: "H-P07/MaxEvents events", stream: "data: a\n\ndata: b\n\n", lim: Limits{MaxEvents: 2, MaxEventBytes: 64, MaxLineBytes: 64}, want: []Event{{Data: "a"}, {Data: "b"}}},
	{name: "H-P07/MaxEvents+1 events", stream: "data: a\n\ndata: b\n\ndata: c\n\n", lim: Limits{MaxEvents: 2, MaxEventBytes: 64, MaxLineBytes: 64}, want: []Event{{Data: "a"}, {Data: "b"}}, wantErr: ErrTooLarge, wantOffset: 26},
	{name: "H-P07/blocks that dispatch nothing do not count as events", stream: "id: 1\n\ndata: a\n\nid: 2\n\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 64, MaxLineBytes: 64}, want: []Event{{ID: "1", Data: "a"}}},
	{name: "H-P07/zero MaxEvents allows no event", stream: "data: a\n\n", lim: Limits{MaxEvents: 0, MaxEventBytes: 64, MaxLineBytes: 64}, wantErr: ErrTooLarge, wantOffset: 8},

	{name: "H-P07/MaxLineBytes bytes in a line", stream: "data: 1234\n\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 64, MaxLineBytes: 10}, want: []Event{{Data: "1234"}}},
	{name: "H-P07/MaxLineBytes+1 bytes in a line", stream: "data: 12345\n\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 64, MaxLineBytes: 10}, wantErr: ErrTooLarge},
	{name: "H-P07/the line end does not count against MaxLineBytes", stream: "data: 1234\r\n\r\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 64, MaxLineBytes: 10}, want: []Event{{Data: "1234"}}},
	{name: "H-P07/MaxLineBytes+1 bytes in a comment", stream: ": 123456789\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 64, MaxLineBytes: 10}, wantErr: ErrTooLarge},
	{name: "H-P07/an unterminated line over MaxLineBytes is too large, not truncated", stream: "data: a\n\ndata: 12345", lim: Limits{MaxEvents: 1, MaxEventBytes: 64, MaxLineBytes: 10}, want: []Event{{Data: "a"}}, wantErr: ErrTooLarge, wantOffset: 9},

	{name: "H-P07/MaxEventBytes bytes in an event", stream: "data: 12345678\n\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 16, MaxLineBytes: 64}, want: []Event{{Data: "12345678"}}},
	{name: "H-P07/MaxEventBytes+1 bytes in an event", stream: "data: 123456789\n\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 16, MaxLineBytes: 64}, wantErr: ErrTooLarge, wantOffset: 16},
	{name: "H-P07/MaxEventBytes+1 bytes crossed by a field line", stream: "data: 1234\ndata: 12\n\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 16, MaxLineBytes: 64}, wantErr: ErrTooLarge, wantOffset: 11},
	{name: "H-P07/CRLF line ends count against MaxEventBytes", stream: "data: 123456\r\n\r\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 16, MaxLineBytes: 64}, want: []Event{{Data: "123456"}}},
	{name: "H-P07/CRLF line ends count one byte past MaxEventBytes", stream: "data: 1234567\r\n\r\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 16, MaxLineBytes: 64}, wantErr: ErrTooLarge, wantOffset: 15},
	{name: "H-P07/a comment inside an event counts", stream: "data: 1234\n: c\n\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 16, MaxLineBytes: 64}, want: []Event{{Data: "1234"}}},
	{name: "H-P07/a comment inside an event counts one byte past", stream: "data: 1234\n: cc\n\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 16, MaxLineBytes: 64}, wantErr: ErrTooLarge, wantOffset: 16},
	{name: "H-P07/comments before the first field belong to no event", stream: ": keepalive 1\n: keepalive 2\ndata: 12345678\n\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 16, MaxLineBytes: 64}, want: []Event{{Data: "12345678"}}},
	{name: "H-P07/a block that dispatches nothing at MaxEventBytes", stream: "id: 1234567890\n\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 16, MaxLineBytes: 64}},
	{name: "H-P07/a block that dispatches nothing one byte past MaxEventBytes", stream: "id: 12345678901\n\n", lim: Limits{MaxEvents: 1, MaxEventBytes: 16, MaxLineBytes: 64}, wantErr: ErrTooLarge, wantOffset: 16},
}

func TestDecode(t *testing.T)       { runDecodeCases(t, decodeCases) }
func TestDecodeLimits(t *testing.T) { runDecodeCases(t, limitCases) }

func runDecodeCases(t *testing.T, cases []decodeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lim := tc.lim
			if lim == (Limits{}) {
				lim = DefaultLimits()
			}
			got, err := Decode([]byte(tc.stream), lim)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Decode events (-want +got):\n%s", diff)
			}
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Decode error = %v, want none", err)
				}
				return
			}
			var syntaxErr *SyntaxError
			if !errors.As(err, &syntaxErr) {
				t.Fatalf("Decode error = %v (%T), want a *SyntaxError", err, err)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("Decode error = %v, want %v", err, tc.wantErr)
			}
			if syntaxErr.Offset != tc.wantOffset {
				t.Errorf("Decode error offset = %d, want %d", syntaxErr.Offset, tc.wantOffset)
			}
		})
	}
}

func TestSyntaxErrorTextIsConstant(t *testing.T) {
	t.Run("S-P01/an error never quotes the stream", func(t *testing.T) {
		secret := "id: session-secret\x00\ndata: x\n\n"
		_, err := Decode([]byte(secret), DefaultLimits())
		if err == nil {
			t.Fatal("Decode accepted an id with NUL")
		}
		if diff := cmp.Diff(ErrInvalidID.Error()+" at offset 0", err.Error()); diff != "" {
			t.Errorf("error text (-want +got):\n%s", diff)
		}
	})
}
