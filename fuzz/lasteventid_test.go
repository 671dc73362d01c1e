package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"rawmcp/wire/client"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
	"rawmcp/sseframe"
)

// FuzzLastEventID sends fuzzed Last-Event-ID values through the whole
// server. Every input starts from the same state: sessions A (alice) and B
// (bob), each initialized and each having answered one GET, so both
// streams have delivered a priming event and a notification, and A has
// also answered resources/list on a POST stream. Then alice sends GET on A
// with the fuzzed value as the raw bytes of the Last-Event-ID field.
// Invariant (T-36, T-37, T-P11, S-P01; MCP 2025-11-25 Transports §2.4):
//
//   - the answer is 200 or 400, never 404 (which would make the client
//     drop a live session and re-initialize) and never 5xx; a value over
//     the field-value limit may also get 431 (H-P07);
//   - a 200 answers only a cursor that A's GET stream delivered;
//   - a 200 never carries an event id of B's stream: every id in it has
//     A's stream prefix;
//   - a 200 begins with a fresh priming event (new id, empty data, retry of
//     at least 2 s) and replays exactly A's notifications after the
//     cursor, never one at or before it.
//
// Values with CR or LF are skipped: they cannot be inside a field value,
// they end it, and header injection is FuzzServer's to explore.
func FuzzLastEventID(f *testing.F) {
	setup := learnStreamSetup(f)
	for _, v := range cursorSeeds(setup) {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		if bytes.ContainsAny(value, "\r\n") {
			t.Skip("CR or LF ends the field line")
		}
		srv := newFuzzServer(t)
		defer shutdown(t, srv)
		out := serve(t, srv, concat(setup.input, cursorRequest(setup.aSession, value)), 0)
		if !bytes.HasPrefix(out, setup.output) {
			t.Fatal("the setup was answered differently than when it was learned: the fuzz server is not deterministic")
		}
		resps, _, _, err := parseAll(out[len(setup.output):])
		if err != nil || len(resps) != 1 {
			t.Fatalf("want one well-formed answer to the GET, got %d (%v)", len(resps), err)
		}
		// The server sees the value with its surrounding OWS removed
		// (RFC 9112 §5.1).
		cursor := string(bytes.Trim(value, " \t"))
		switch r := resps[0]; {
		case r.Status == 200:
			if err := resumeFault(setup, cursor, r.Body); err != nil {
				t.Fatal(err)
			}
		case r.Status == 400, r.Status == 431 && len(cursor) > httpparse.DefaultLimits().MaxValue:
			if err := errorBodyFault(r); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("Last-Event-ID answered %d, want 200 or 400", r.Status)
		}
	})
}

// streamSetup is the state every FuzzLastEventID input starts from, as
// requests and the exact bytes they are answered with.
type streamSetup struct {
	input              []byte
	output             []byte
	aSession, bSession string
	// aEvents and bEvents are the events of each session's first GET, in
	// delivery order: the priming event, then the notification.
	aEvents, bEvents []sseframe.Event
	// aPostID is the id of the event answering A's resources/list: a POST
	// stream's id, never a cursor (T-37).
	aPostID string
}

// learnStreamSetup builds the setup one exchange at a time, learning each
// session id before the requests that carry it. Fresh servers issue the
// same ids, so the whole setup replays pipelined on one connection.
func learnStreamSetup(tb testing.TB) streamSetup {
	tb.Helper()
	srv := newFuzzServer(tb)
	defer shutdown(tb, srv)
	var s streamSetup
	step := func(input []byte, statuses ...int) []httpparse.Response {
		resps, out := serveExpecting(tb, srv, input, statuses...)
		s.input, s.output = append(s.input, input...), append(s.output, out...)
		return resps
	}
	resps := step(postRequest(tokenAlice, "", initializeBody(1)), 200)
	s.aSession, _ = resps[0].Get("Mcp-Session-Id")
	resps = step(concat(
		postRequest(tokenAlice, s.aSession, initializedBody),
		postRequest(tokenAlice, s.aSession, listResourcesBody),
		getRequest(tokenAlice, s.aSession, "")), 202, 200, 200)
	s.aPostID = decodeStream(tb, resps[1].Body)[0].ID
	s.aEvents = decodeStream(tb, resps[2].Body)
	resps = step(postRequest(tokenBob, "", initializeBody(1)), 200)
	s.bSession, _ = resps[0].Get("Mcp-Session-Id")
	resps = step(concat(
		postRequest(tokenBob, s.bSession, initializedBody),
		getRequest(tokenBob, s.bSession, "")), 202, 200)
	s.bEvents = decodeStream(tb, resps[1].Body)
	if len(s.aEvents) != 2 || len(s.bEvents) != 2 {
		tb.Fatalf("setup: first GETs delivered %d and %d events, want a priming event and a notification each", len(s.aEvents), len(s.bEvents))
	}
	if streamOf(s.aEvents[0].ID) == streamOf(s.bEvents[0].ID) {
		tb.Fatal("setup: sessions A and B share an event-id stream prefix")
	}
	return s
}

// cursorRequest is alice's GET on session A with value as the raw bytes of
// the Last-Event-ID field, the head's last line.
func cursorRequest(session string, value []byte) []byte {
	h := clientFields(tokenAlice, session, "text/event-stream", false)
	h = append(h, [2]string{"Last-Event-ID", string(value)})
	return client.Request{Method: "GET", Path: "/mcp", Header: h}.Bytes()
}

// The clauses of FuzzLastEventID's invariant about a 200, one error each.
var (
	errUndeliveredCursor = errors.New("200 for a Last-Event-ID that session A's GET stream never delivered")
	errForeignEvent      = errors.New("a resume on session A carries an event id of another stream")
	errNoPriming         = errors.New("a resume does not begin with a fresh priming event")
	errReplay            = errors.New("a resume must replay exactly the notifications after the cursor, none at or before it")
)

// resumeFault returns the first way body, a 200 answer to a GET on A with
// cursor as Last-Event-ID, breaks the invariant, or nil.
func resumeFault(s streamSetup, cursor string, body []byte) error {
	pos := slices.IndexFunc(s.aEvents, func(e sseframe.Event) bool { return e.ID == cursor })
	if pos < 0 {
		return errUndeliveredCursor
	}
	events, err := sseframe.Decode(body, sseframe.DefaultLimits())
	if err != nil {
		return fmt.Errorf("%w: the body does not decode: %w", errNoPriming, err)
	}
	aStream := streamOf(s.aEvents[0].ID)
	for _, e := range events {
		if streamOf(e.ID) != aStream {
			return errForeignEvent
		}
	}
	if len(events) == 0 || events[0].Data != "" || events[0].Retry < 2000 {
		return fmt.Errorf("%w: no event without data and with retry >= 2000 first", errNoPriming)
	}
	if slices.ContainsFunc(s.aEvents, func(e sseframe.Event) bool { return e.ID == events[0].ID }) {
		return fmt.Errorf("%w: its id was delivered before", errNoPriming)
	}
	want := []sseframe.Event{}
	for _, e := range s.aEvents[pos+1:] {
		if e.Data != "" {
			want = append(want, sseframe.Event{ID: e.ID, Data: e.Data})
		}
	}
	if diff := cmp.Diff(want, events[1:]); diff != "" {
		return fmt.Errorf("%w (-want +got):\n%s", errReplay, diff)
	}
	return nil
}

// TestResumeFaults shows that each clause of FuzzLastEventID's invariant
// about a 200 can fail, on a made-up setup: A delivered a-1 (priming) and
// a-2, B delivered b-1 and b-2.
func TestResumeFaults(t *testing.T) {
	const note = `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`
	s := streamSetup{
		aEvents: []sseframe.Event{{ID: "gAAAA-1", Retry: 2000}, {ID: "gAAAA-2", Data: note}},
		bEvents: []sseframe.Event{{ID: "gBBBB-1", Retry: 2000}, {ID: "gBBBB-2", Data: note}},
	}
	const priming = "id: gAAAA-3\nretry: 2000\ndata:\n\n"
	tests := []struct {
		name   string
		cursor string
		body   string
		want   error
	}{
		{"T-36/a priming cursor replays the notification after it", "gAAAA-1", priming + "id: gAAAA-2\ndata: " + note + "\n\n", nil},
		{"T-36/the last notification as cursor replays nothing", "gAAAA-2", priming, nil},
		{"T-P11/a 200 for B's cursor", "gBBBB-2", priming, errUndeliveredCursor},
		{"T-P11/a 200 for a cursor never delivered", "gAAAA-9", priming, errUndeliveredCursor},
		{"T-P11/an event of B's stream", "gAAAA-2", priming + "id: gBBBB-2\ndata: " + note + "\n\n", errForeignEvent},
		{"S-15/no priming event", "gAAAA-1", "id: gAAAA-2\ndata: " + note + "\n\n", errNoPriming},
		{"S-15/a priming event without retry", "gAAAA-2", "id: gAAAA-3\ndata:\n\n", errNoPriming},
		{"S-15/a priming id delivered before", "gAAAA-2", "id: gAAAA-1\nretry: 2000\ndata:\n\n", errNoPriming},
		{"T-36/the cursor's own event replayed", "gAAAA-2", priming + "id: gAAAA-2\ndata: " + note + "\n\n", errReplay},
		{"T-36/a notification after the cursor left out", "gAAAA-1", priming, errReplay},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := resumeFault(s, tc.cursor, []byte(tc.body))
			if tc.want == nil && err != nil || !errors.Is(err, tc.want) {
				t.Fatalf("resumeFault = %v, want %v", err, tc.want)
			}
		})
	}
}

// streamOf returns an event id without its sequence number: the stream
// kind and the session's handle (state's event-id = kind handle "-" seq).
// The handle is base64url, which may itself hold '-', so the cut is at
// the last one.
func streamOf(id string) string {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return id
	}
	return id[:i]
}

func decodeStream(tb testing.TB, body []byte) []sseframe.Event {
	tb.Helper()
	events, err := sseframe.Decode(body, sseframe.DefaultLimits())
	if err != nil {
		tb.Fatalf("SSE body does not decode: %v", err)
	}
	return events
}

// cursorSeeds are the Last-Event-ID values a client, a confused client or
// an attacker sends: A's own ids, B's, a POST stream's, ids one step off
// in kind, handle or sequence, and values at and past the id and field
// limits.
func cursorSeeds(s streamSetup) []string {
	aPriming, aEvent := s.aEvents[0].ID, s.aEvents[1].ID
	bPriming, bEvent := s.bEvents[0].ID, s.bEvents[1].ID
	aStream, bStream := streamOf(aPriming), streamOf(bPriming)
	aSeq, _ := strconv.ParseUint(aEvent[len(aStream)+1:], 10, 64)
	return []string{
		aPriming,
		aEvent,
		" " + aEvent + "\t",
		bPriming,
		bEvent,
		s.aPostID,
		aStream + "-" + strconv.FormatUint(aSeq+1, 10),
		aStream + "-0",
		aStream + "-0" + strconv.FormatUint(aSeq, 10),
		"p" + aStream[1:] + "-" + strconv.FormatUint(aSeq, 10),
		bStream + "-" + strconv.FormatUint(aSeq, 10),
		aStream + "-18446744073709551615",
		aStream + "-18446744073709551616",
		strings.ToUpper(aEvent),
		aEvent + "x",
		aEvent[:len(aEvent)-1],
		s.aSession,
		s.bSession,
		"",
		"\x00",
		"é",
		strings.Repeat("a", sseframe.MaxIDLen),
		strings.Repeat("a", sseframe.MaxIDLen+1),
		strings.Repeat("a", httpparse.DefaultLimits().MaxValue),
		strings.Repeat("a", httpparse.DefaultLimits().MaxValue+1),
	}
}
