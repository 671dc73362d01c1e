package sseframe

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAppendEventRefuses(t *testing.T) {
	tests := []struct {
		name    string
		ev      Event
		wantErr error
	}{
		{"S-14/LF in id would forge a field", Event{ID: "1\ndata: forged"}, ErrInvalidID},
		{"S-14/CR in id would end the line", Event{ID: "1\rx"}, ErrInvalidID},
		{"S-14/NUL in id makes readers ignore it", Event{ID: "1\x00"}, ErrInvalidID},
		{"S-P01/space in id", Event{ID: "a b"}, ErrInvalidID},
		{"S-P01/DEL in id", Event{ID: "a\x7f"}, ErrInvalidID},
		{"S-P01/non-ASCII id", Event{ID: "\u00e9"}, ErrInvalidID},
		{"S-P01/id one byte over MaxIDLen", Event{ID: strings.Repeat("i", MaxIDLen+1)}, ErrInvalidID},
		{"S-14/LF in type would forge a field", Event{Type: "message\ndata: forged"}, ErrInvalidType},
		{"S-14/CR in type", Event{Type: "a\r"}, ErrInvalidType},
		{"S-14/NUL in type", Event{Type: "a\x00"}, ErrInvalidType},
		{"S-14/space in type", Event{Type: "a b"}, ErrInvalidType},
		{"S-09/negative retry", Event{Retry: -1}, ErrInvalidRetry},
		{"S-14/CR in data would end the line", Event{Data: "a\rb"}, ErrInvalidData},
		{"S-14/CRLF in data", Event{Data: "a\r\nb"}, ErrInvalidData},
		{"S-P02/NUL in data", Event{Data: "a\x00b"}, ErrInvalidData},
		{"S-01/invalid UTF-8 in data", Event{Data: "a\xffb"}, ErrInvalidData},
		{"S-01/UTF-8 surrogate in data", Event{Data: "\xed\xa0\x80"}, ErrInvalidData},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dst, spare := prefixedBuffer()
			got, err := AppendEvent(dst, tc.ev)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("AppendEvent error = %v, want %v", err, tc.wantErr)
			}
			checkUnchanged(t, got, spare)
		})
	}
}

// prefixedBuffer returns a buffer holding "prefix" with spare capacity
// filled with a marker byte, and the full backing array to compare with.
func prefixedBuffer() (dst, spare []byte) {
	backing := bytes.Repeat([]byte{0xAA}, 64)
	copy(backing, "prefix")
	return backing[:len("prefix")], bytes.Clone(backing)
}

// checkUnchanged asserts that a refused append returned "prefix" and wrote
// nothing, not even into the spare capacity.
func checkUnchanged(t *testing.T, got, spare []byte) {
	t.Helper()
	if string(got) != "prefix" {
		t.Errorf("returned %q, want the unchanged %q", got, "prefix")
	}
	if diff := cmp.Diff(spare, got[:cap(got)]); diff != "" {
		t.Errorf("backing array written on refusal (-want +got):\n%s", diff)
	}
}

func TestAppendEventAppendsToDst(t *testing.T) {
	t.Run("S-14/events append after existing bytes", func(t *testing.T) {
		got, err := AppendEvent([]byte("data: a\n\n"), Event{Data: "b"})
		if err != nil {
			t.Fatalf("AppendEvent: %v", err)
		}
		if diff := cmp.Diff("data: a\n\ndata: b\n\n", string(got)); diff != "" {
			t.Errorf("AppendEvent bytes (-want +got):\n%s", diff)
		}
	})
}

// visibleASCII is the S-P01 oracle for one byte, written from the rule
// (VCHAR, RFC 5234 B.1) rather than from the code under test.
func visibleASCII(b byte) bool { return '!' <= b && b <= '~' }

// TestIDAndTypeByteSweep checks every byte value against the oracle, alone
// and in the middle of an id, through ValidID, AppendEvent and Decode (as
// textproto's TestReadMIMEHeaderBytes does for header bytes).
func TestIDAndTypeByteSweep(t *testing.T) {
	for b := 0; b < 256; b++ {
		for _, value := range []string{string([]byte{byte(b)}), "a" + string([]byte{byte(b)}) + "z"} {
			ok := visibleASCII(byte(b))
			if got := ValidID([]byte(value)); got != ok {
				t.Errorf("S-P01/ValidID(%q) = %v, want %v", value, got, ok)
			}
			wantIDErr, wantTypeErr := error(nil), error(nil)
			if !ok {
				wantIDErr, wantTypeErr = ErrInvalidID, ErrInvalidType
			}
			wire, err := AppendEvent(nil, Event{ID: value})
			if !errors.Is(err, wantIDErr) {
				t.Errorf("S-P01/AppendEvent(ID %q) error = %v, want %v", value, err, wantIDErr)
			}
			if err == nil {
				checkDecodesTo(t, wire, Event{ID: value})
			}
			wire, err = AppendEvent(nil, Event{Type: value})
			if !errors.Is(err, wantTypeErr) {
				t.Errorf("S-14/AppendEvent(Type %q) error = %v, want %v", value, err, wantTypeErr)
			}
			if err == nil {
				checkDecodesTo(t, wire, Event{Type: value})
			}
			if b == '\r' || b == '\n' {
				continue // a line end, not part of the value: the decoder tables cover it
			}
			wantDecodeErr := wantIDErr
			if b >= 0x80 {
				wantDecodeErr = ErrInvalidUTF8 // a lone byte of 0x80 or more is never UTF-8
			}
			_, err = Decode([]byte("id: "+value+"\ndata:\n\n"), DefaultLimits())
			if !errors.Is(err, wantDecodeErr) {
				t.Errorf("S-P01/Decode(id %q) error = %v, want %v", value, err, wantDecodeErr)
			}
		}
	}
}

// checkDecodesTo asserts that wire decodes to exactly want.
func checkDecodesTo(t *testing.T, wire []byte, want Event) {
	t.Helper()
	got, err := Decode(wire, DefaultLimits())
	if err != nil {
		t.Errorf("Decode(%q): %v", wire, err)
		return
	}
	if diff := cmp.Diff([]Event{want}, got); diff != "" {
		t.Errorf("Decode(%q) (-want +got):\n%s", wire, diff)
	}
}

func TestValidIDLength(t *testing.T) {
	tests := []struct {
		name string
		id   string
		want bool
	}{
		{"S-P01/empty id is not an id", "", false},
		{"S-P01/one byte", "a", true},
		{"S-P01/MaxIDLen bytes", strings.Repeat("a", MaxIDLen), true},
		{"S-P01/MaxIDLen+1 bytes", strings.Repeat("a", MaxIDLen+1), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ValidID([]byte(tc.id)); got != tc.want {
				t.Errorf("ValidID(%d bytes) = %v, want %v", len(tc.id), got, tc.want)
			}
		})
	}
}

// primingAndResponse is the shape of a POST SSE response: the priming
// event (S-15, S-P05) and one JSON-RPC response on a single line (S-P02).
var primingAndResponse = []Event{
	{ID: "s0123456789abcdef.p1.0", Retry: 2000},
	{ID: "s0123456789abcdef.p1.1", Type: "message", Data: `{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"mem://a","name":"a"}]}}`},
}

func TestAppendEventDoesNotAllocate(t *testing.T) {
	t.Run("S-P04/a Content-Length event set is built in the caller's buffer", func(t *testing.T) {
		dst := make([]byte, 0, 1024)
		allocs := testing.AllocsPerRun(100, func() {
			dst = dst[:0]
			for _, ev := range primingAndResponse {
				dst, _ = AppendEvent(dst, ev)
			}
		})
		if allocs != 0 {
			t.Errorf("AppendEvent allocated %v times per run, want 0", allocs)
		}
	})
}

func BenchmarkAppendEvent(b *testing.B) {
	dst := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		dst = dst[:0]
		for _, ev := range primingAndResponse {
			var err error
			if dst, err = AppendEvent(dst, ev); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.SetBytes(int64(len(dst)))
}

// TestAppendMessage: the bytes form writes and refuses what AppendEvent
// does for the same id and data, after what dst holds, and allocates
// nothing in a buffer that has room.
func TestAppendMessage(t *testing.T) {
	for _, c := range []struct {
		name     string
		id, data string
		want     string
		err      error
	}{
		{"S-P02/id and one data line", "p1-2", `{"a":1}`, "id: p1-2\ndata: {\"a\":1}\n\n", nil},
		{"S-P02/no id: no id line", "", "x", "data: x\n\n", nil},
		{"S-P02/LF splits data lines", "1", "a\nb", "id: 1\ndata: a\ndata: b\n\n", nil},
		{"S-15/empty data is one empty data line", "1", "", "id: 1\ndata:\n\n", nil},
		{"S-P01/id with a space refused", "a b", "x", "", ErrInvalidID},
		{"S-P01/id of 129 bytes refused", strings.Repeat("i", MaxIDLen+1), "x", "", ErrInvalidID},
		{"S-P01/id of 128 bytes taken", strings.Repeat("i", MaxIDLen), "x", "id: " + strings.Repeat("i", MaxIDLen) + "\ndata: x\n\n", nil},
		{"S-P02/CR in data refused", "1", "a\rb", "", ErrInvalidData},
		{"S-P02/NUL in data refused", "1", "a\x00b", "", ErrInvalidData},
		{"S-P02/invalid UTF-8 in data refused", "1", "a\xffb", "", ErrInvalidData},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := AppendMessage([]byte("> "), []byte(c.id), []byte(c.data))
			if err != c.err || string(got) != "> "+c.want {
				t.Errorf("AppendMessage(%q, %q) = %q, %v; want %q, %v", c.id, c.data, got, err, "> "+c.want, c.err)
			}
			wantEvent, errEvent := AppendEvent([]byte("> "), Event{ID: c.id, Data: c.data})
			if errEvent != err || string(wantEvent) != string(got) {
				t.Errorf("AppendEvent gives %q, %v", wantEvent, errEvent)
			}
		})
	}
	dst := make([]byte, 0, 256)
	id, data := []byte("p1-2"), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	if allocs := testing.AllocsPerRun(100, func() { dst, _ = AppendMessage(dst[:0], id, data) }); allocs != 0 {
		t.Errorf("AppendMessage allocated %v times per run, want 0", allocs)
	}
}
