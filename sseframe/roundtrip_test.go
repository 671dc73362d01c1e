package sseframe

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// roundTripCases drive both directions, as h11's SIMPLE_CASES do: each
// Event must encode to exactly wire, and wire must decode back to exactly
// the Event.
var roundTripCases = []struct {
	name string
	ev   Event
	wire string
}{
	{
		name: "S-15/priming event: id, retry, empty data",
		ev:   Event{ID: "X", Retry: 2000},
		wire: "id: X\nretry: 2000\ndata:\n\n",
	},
	{
		name: "S-15/empty data writes one bare data line",
		ev:   Event{},
		wire: "data:\n\n",
	},
	{
		name: "S-P02/one JSON-RPC message on one data line",
		ev:   Event{ID: "s1.p2.7", Data: `{"jsonrpc":"2.0","id":1,"result":{"resources":[]}}`},
		wire: "id: s1.p2.7\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resources\":[]}}\n\n",
	},
	{
		name: "S-14/all fields in the order id, event, retry, data",
		ev:   Event{ID: "7", Type: "message", Retry: 1, Data: "x"},
		wire: "id: 7\nevent: message\nretry: 1\ndata: x\n\n",
	},
	{
		name: "S-07/event field carries the type",
		ev:   Event{Type: "notice", Data: "x"},
		wire: "event: notice\ndata: x\n\n",
	},
	{
		name: "S-07/multi-line data writes one data line per line",
		ev:   Event{Data: "a\nb\nc"},
		wire: "data: a\ndata: b\ndata: c\n\n",
	},
	{
		name: "S-07/empty line inside data is a bare data line",
		ev:   Event{Data: "a\n\nb"},
		wire: "data: a\ndata:\ndata: b\n\n",
	},
	{
		name: "S-10/trailing LF of data survives as a last bare data line",
		ev:   Event{Data: "a\n"},
		wire: "data: a\ndata:\n\n",
	},
	{
		name: "S-10/data of one LF is two bare data lines",
		ev:   Event{Data: "\n"},
		wire: "data:\ndata:\n\n",
	},
	{
		name: "S-05/leading space of data survives behind the separator space",
		ev:   Event{Data: " x"},
		wire: "data:  x\n\n",
	},
	{
		name: "S-05/colon inside data is not a separator",
		ev:   Event{Data: "a: b"},
		wire: "data: a: b\n\n",
	},
	{
		name: "S-04/data that looks like a comment is data",
		ev:   Event{Data: ": not a comment"},
		wire: "data: : not a comment\n\n",
	},
	{
		name: "S-05/colon inside an id is not a separator",
		ev:   Event{ID: "a:b", Data: "x"},
		wire: "id: a:b\ndata: x\n\n",
	},
	{
		name: "S-P01/id of every visible ASCII punctuation",
		ev:   Event{ID: "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", Data: "x"},
		wire: "id: !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\ndata: x\n\n",
	},
	{
		name: "S-P01/id of exactly MaxIDLen bytes",
		ev:   Event{ID: strings.Repeat("i", MaxIDLen), Data: "x"},
		wire: "id: " + strings.Repeat("i", MaxIDLen) + "\ndata: x\n\n",
	},
	{
		name: "S-09/retry of the largest int",
		ev:   Event{Retry: math.MaxInt, Data: "x"},
		wire: "retry: " + strconv.Itoa(math.MaxInt) + "\ndata: x\n\n",
	},
	{
		name: "S-01/UTF-8 data passes unchanged",
		ev:   Event{Data: "h\u00e9llo \u2713 \U0001F600"},
		wire: "data: h\u00e9llo \u2713 \U0001F600\n\n",
	},
	{
		name: "S-03/BOM inside data is data",
		ev:   Event{Data: "\uFEFFx"},
		wire: "data: \uFEFFx\n\n",
	},
	{
		name: "S-07/tab and other controls in data pass unchanged",
		ev:   Event{Data: "\t\x01\x1b\x7f"},
		wire: "data: \t\x01\x1b\x7f\n\n",
	},
}

func TestAppendEventWritesExactBytes(t *testing.T) {
	for _, tc := range roundTripCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendEvent(nil, tc.ev)
			if err != nil {
				t.Fatalf("AppendEvent: %v", err)
			}
			if diff := cmp.Diff(tc.wire, string(got)); diff != "" {
				t.Errorf("AppendEvent bytes (-want +got):\n%s", diff)
			}
		})
	}
}

// lineEndWays rewrites an LF-only stream the ways S-02 and S-03 say must
// read the same, as h11's test_io runs each case more than one way.
var lineEndWays = []struct {
	name    string
	rewrite func(string) string
}{
	{"LF", func(s string) string { return s }},
	{"CRLF", func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }},
	{"CR", func(s string) string { return strings.ReplaceAll(s, "\n", "\r") }},
	{"BOM", func(s string) string { return utf8BOM + s }},
}

func TestDecodeReadsEncodedBytes(t *testing.T) {
	for _, tc := range roundTripCases {
		for _, way := range lineEndWays {
			t.Run(tc.name+"/"+way.name, func(t *testing.T) {
				got, err := Decode([]byte(way.rewrite(tc.wire)), DefaultLimits())
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if diff := cmp.Diff([]Event{tc.ev}, got); diff != "" {
					t.Errorf("Decode (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// The whole table written back to back reads back in order, each event
// without an id carrying the last id before it (§9.2.6).
func TestDecodeReadsTableBackToBack(t *testing.T) {
	t.Run("S-08/ids persist across the table written back to back", testTableBackToBack)
}

func testTableBackToBack(t *testing.T) {
	var stream []byte
	var want []Event
	lastID := ""
	for _, tc := range roundTripCases {
		stream = append(stream, ": between events\n"...)
		var err error
		if stream, err = AppendEvent(stream, tc.ev); err != nil {
			t.Fatalf("AppendEvent(%s): %v", tc.name, err)
		}
		if tc.ev.ID != "" {
			lastID = tc.ev.ID
		}
		ev := tc.ev
		ev.ID = lastID
		want = append(want, ev)
	}
	lim := DefaultLimits()
	lim.MaxEvents = len(roundTripCases)
	got, err := Decode(stream, lim)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
}

func TestCommentsAroundAnEventAreSkipped(t *testing.T) {
	t.Run("S-13/keepalive comments around an event are skipped", testCommentsAroundEvent)
}

func testCommentsAroundEvent(t *testing.T) {
	stream, err := AppendEvent([]byte(": keepalive\n"), Event{ID: "1", Data: "x"})
	if err != nil {
		t.Fatalf("AppendEvent: %v", err)
	}
	stream = append(stream, ": keepalive\n"...)
	got, err := Decode(stream, DefaultLimits())
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if diff := cmp.Diff([]Event{{ID: "1", Data: "x"}}, got); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
}
