package client

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/sseframe"
)

// TestEvents reads event streams the way WHATWG HTML §9.2.6 does,
// including what rawmcp's strict decoder refuses.
func TestEvents(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   []sseframe.Event
	}{
		{"S-15/a priming event then a message", "id: p1\nretry: 2000\ndata:\n\nid: p2\ndata: {\"a\":1}\n\n",
			[]sseframe.Event{{ID: "p1", Data: "", Retry: 2000}, {ID: "p2", Data: `{"a":1}`}}},
		{"S-02/CRLF, CR and LF all end lines", "data: a\r\ndata: b\rdata: c\n\n",
			[]sseframe.Event{{Data: "a\nb\nc"}}},
		{"S-03/a leading BOM is skipped", "\xEF\xBB\xBFdata: x\n\n", []sseframe.Event{{Data: "x"}}},
		{"S-04/comments are skipped", ": ping\n\ndata: x\n\n", []sseframe.Event{{Data: "x"}}},
		{"S-06/an unknown field is ignored, not refused", "foo: bar\ndata: x\n\n", []sseframe.Event{{Data: "x"}}},
		{"S-07/event sets the type", "event: message\ndata: x\n\n", []sseframe.Event{{Type: "message", Data: "x"}}},
		{"S-08/an id with NUL is ignored", "id: a\x00b\ndata: x\n\n", []sseframe.Event{{Data: "x"}}},
		{"S-08/the last id persists", "id: 7\ndata: a\n\ndata: b\n\n", []sseframe.Event{{ID: "7", Data: "a"}, {ID: "7", Data: "b"}}},
		{"S-09/a retry that is no number is ignored", "retry: soon\ndata: x\n\n", []sseframe.Event{{Data: "x"}}},
		{"S-10/a block without data dispatches nothing", "id: 9\n\n", nil},
		{"S-11/a block without its blank line is not yet an event", "data: a\n\ndata: b\n", []sseframe.Event{{Data: "a"}}},
		{"a CR at the end may still become CRLF", "data: a\r\n\r", nil},
		{"a colon-less line is a field with no value", "data\n\n", []sseframe.Event{{Data: ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Events([]byte(tt.stream))); diff != "" {
				t.Errorf("Events (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzEvents: wherever rawmcp's strict decoder accepts a stream, the
// lenient reader sees the same events; on any input it never panics.
func FuzzEvents(f *testing.F) {
	for _, seed := range []string{"id: p1\nretry: 2000\ndata:\n\n", "data: a\r\ndata: b\r\r", ": c\n\nevent: e\ndata: x\n\n", "id: 1\n\ndata: y\n\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		got := Events(stream)
		want, err := sseframe.Decode(stream, sseframe.DefaultLimits())
		if err != nil || len(stream) > 0 && stream[len(stream)-1] == '\r' {
			return // a final CR ends the strict decoder's complete stream; here it waits
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Events differs from sseframe.Decode (-strict +lenient):\n%s", diff)
		}
	})
}
