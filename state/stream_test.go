package state

import (
	"errors"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// g is the id of the first session's GET-stream event number seq.
func g(seq int) string { return "g" + firstHandle + "-" + strconv.Itoa(seq) }

// ev is the delivered event number seq carrying msg.
func ev(seq int, msg string) Delivered { return Delivered{ID: g(seq), Data: []byte(msg)} }

// pollThrice delivers n1..n3 on a cursorless GET: priming 1, events 2-4.
func pollThrice(t *testing.T, tab *Table, id string) {
	t.Helper()
	for _, m := range []string{"n1", "n2", "n3"} {
		if err := tab.Enqueue(id, alice, []byte(m), t0); err != nil {
			t.Fatal(err)
		}
	}
	mustPoll(t, tab, id, alice, "")
}

// deliverAll queues and delivers n1..n16 (priming 1, events 2-17), then
// n17 (priming 18, event 19), pushing event 2 out of the 16 kept.
func deliverAll(t *testing.T, tab *Table, id string) {
	t.Helper()
	for i := 1; i <= 16; i++ {
		if err := tab.Enqueue(id, alice, []byte("n"+strconv.Itoa(i)), t0); err != nil {
			t.Fatal(err)
		}
	}
	mustPoll(t, tab, id, alice, "")
	if err := tab.Enqueue(id, alice, []byte("n17"), t0); err != nil {
		t.Fatal(err)
	}
	mustPoll(t, tab, id, alice, "")
}

type pollCase struct {
	name   string
	cfg    Config // DefaultConfig if zero
	queued []string
	// before runs on the session after Create, before the GET under test.
	before  func(t *testing.T, tab *Table, id string)
	cursor  string
	want    Batch
	wantErr error
	// then, if set, is what a cursorless GET right afterwards must answer.
	then *Batch
}

var pollCases = []pollCase{
	{
		name:   "T-P12/cursorless GET: priming id, then the queued notifications in order",
		queued: []string{"n1", "n2"},
		want:   Batch{PrimingID: g(1), Events: []Delivered{ev(2, "n1"), ev(3, "n2")}},
	},
	{
		name: "T-P12/cursorless GET with nothing queued: priming id only",
		want: Batch{PrimingID: g(1)},
	},
	{
		name:   "T-P11/second cursorless GET never repeats a delivered notification",
		queued: []string{"n1"},
		before: func(t *testing.T, tab *Table, id string) {
			mustPoll(t, tab, id, alice, "")
			if err := tab.Enqueue(id, alice, []byte("n2"), t0); err != nil {
				t.Fatal(err)
			}
		},
		want: Batch{PrimingID: g(3), Events: []Delivered{ev(4, "n2")}},
	},
	{
		name:   "T-36/cursor replays only the events after it",
		before: pollThrice,
		cursor: g(2),
		want:   Batch{PrimingID: g(5), Events: []Delivered{ev(3, "n2"), ev(4, "n3")}},
	},
	{
		name:   "T-36/cursor at the newest event replays nothing",
		before: pollThrice,
		cursor: g(4),
		want:   Batch{PrimingID: g(5)},
	},
	{
		name:   "T-36/priming id as cursor replays its whole batch",
		before: pollThrice,
		cursor: g(1),
		want:   Batch{PrimingID: g(5), Events: []Delivered{ev(2, "n1"), ev(3, "n2"), ev(4, "n3")}},
	},
	{
		name: "T-36/replayed events come before pending ones",
		before: func(t *testing.T, tab *Table, id string) {
			pollThrice(t, tab, id)
			if err := tab.Enqueue(id, alice, []byte("n4"), t0); err != nil {
				t.Fatal(err)
			}
		},
		cursor: g(3),
		want:   Batch{PrimingID: g(5), Events: []Delivered{ev(4, "n3"), ev(6, "n4")}},
		then:   &Batch{PrimingID: g(7)},
	},
	{
		name: "T-36/priming id of a resumed batch resumes where its cursor did",
		before: func(t *testing.T, tab *Table, id string) {
			pollThrice(t, tab, id)
			mustPoll(t, tab, id, alice, g(2)) // priming 5 replays 3 and 4
		},
		cursor: g(5),
		want:   Batch{PrimingID: g(6), Events: []Delivered{ev(3, "n2"), ev(4, "n3")}},
	},
	{
		name:   "T-P11/a POST stream's event id is no cursor",
		queued: []string{"n1"},
		before: func(t *testing.T, tab *Table, id string) {
			mustPoll(t, tab, id, alice, "")
			if post, err := tab.PostEventID(id, alice, t0); err != nil || post != "p"+firstHandle+"-3" {
				t.Fatalf("PostEventID = (%q, %v)", post, err)
			}
		},
		cursor:  "p" + firstHandle + "-3",
		wantErr: ErrCursor,
	},
	{
		name:   "T-37/a POST event's number spelled as a GET id is no cursor",
		queued: []string{"n1"},
		before: func(t *testing.T, tab *Table, id string) {
			mustPoll(t, tab, id, alice, "")
			if _, err := tab.PostEventID(id, alice, t0); err != nil {
				t.Fatal(err)
			}
		},
		cursor:  g(3),
		wantErr: ErrCursor,
	},
	{
		name:   "T-37/another session's event id is no cursor",
		queued: []string{"n1"},
		before: func(t *testing.T, tab *Table, id string) {
			other := mustCreate(t, tab, alice, []byte("other"))
			if b := mustPoll(t, tab, other, alice, ""); b.PrimingID != "g"+secondHandle+"-1" {
				t.Fatalf("other session's priming id = %q", b.PrimingID)
			}
		},
		cursor:  "g" + secondHandle + "-1",
		wantErr: ErrCursor,
		then:    &Batch{PrimingID: g(1), Events: []Delivered{ev(2, "n1")}},
	},
	{
		name:    "T-37/another handle with a number this session delivered",
		before:  pollThrice,
		cursor:  "g" + secondHandle + "-2",
		wantErr: ErrCursor,
	},
	{
		name:    "T-P11/the next number, not issued yet",
		before:  pollThrice,
		cursor:  g(5),
		wantErr: ErrCursor,
	},
	{
		name:    "T-P11/a number far in the future",
		before:  pollThrice,
		cursor:  "g" + firstHandle + "-18446744073709551615",
		wantErr: ErrCursor,
	},
	{
		name:    "T-P11/a cursor before anything was delivered",
		queued:  []string{"n1"},
		cursor:  g(1),
		wantErr: ErrCursor,
		then:    &Batch{PrimingID: g(1), Events: []Delivered{ev(2, "n1")}},
	},
	{
		name:    "T-P11/malformed: leading zero",
		before:  pollThrice,
		cursor:  "g" + firstHandle + "-02",
		wantErr: ErrCursor,
	},
	{
		name:    "T-P11/malformed: the session id",
		before:  pollThrice,
		cursor:  firstID,
		wantErr: ErrCursor,
	},
	{
		name:    "S-P01/malformed: control byte",
		before:  pollThrice,
		cursor:  "g" + firstHandle + "-2\x00",
		wantErr: ErrCursor,
	},
	{
		name:    "T-P11/an event pushed out of the 16 kept",
		before:  deliverAll,
		cursor:  g(2),
		wantErr: ErrCursor,
	},
	{
		name:   "T-P11/the oldest event still kept",
		before: deliverAll,
		cursor: g(3),
		want: Batch{PrimingID: g(20), Events: []Delivered{
			ev(4, "n3"), ev(5, "n4"), ev(6, "n5"), ev(7, "n6"), ev(8, "n7"), ev(9, "n8"), ev(10, "n9"),
			ev(11, "n10"), ev(12, "n11"), ev(13, "n12"), ev(14, "n13"), ev(15, "n14"), ev(16, "n15"),
			ev(17, "n16"), ev(19, "n17"),
		}},
	},
	{
		name:    "T-P11/a kept priming id whose batch was pushed out",
		before:  deliverAll,
		cursor:  g(1),
		wantErr: ErrCursor,
	},
	{
		name:   "T-P11/a kept priming id whose batch is still kept",
		before: deliverAll,
		cursor: g(18),
		want:   Batch{PrimingID: g(20), Events: []Delivered{ev(19, "n17")}},
	},
	{
		name: "T-P11/a priming id pushed out of the 16 kept",
		before: func(t *testing.T, tab *Table, id string) {
			for range 17 {
				mustPoll(t, tab, id, alice, "")
			}
		},
		cursor:  g(1),
		wantErr: ErrCursor,
	},
	{
		name: "T-P11/the oldest priming id still kept",
		before: func(t *testing.T, tab *Table, id string) {
			for range 17 {
				mustPoll(t, tab, id, alice, "")
			}
		},
		cursor: g(2),
		want:   Batch{PrimingID: g(18)},
	},
	{
		name:   "profile/16 queued: one GET carries all 16",
		cfg:    Config{MaxSessions: 8, TTL: DefaultConfig().TTL, MaxEventsPerSet: 16, KeepDelivered: 32, MaxQueued: 32},
		queued: numbered(1, 16),
		want:   Batch{PrimingID: g(1), Events: events(2, 1, 16)},
		then:   &Batch{PrimingID: g(18)},
	},
	{
		name:   "profile/17 queued: one GET carries 16, the next the 17th",
		cfg:    Config{MaxSessions: 8, TTL: DefaultConfig().TTL, MaxEventsPerSet: 16, KeepDelivered: 32, MaxQueued: 32},
		queued: numbered(1, 17),
		want:   Batch{PrimingID: g(1), Events: events(2, 1, 16)},
		then:   &Batch{PrimingID: g(18), Events: []Delivered{ev(19, "n17")}},
	},
	{
		name:   "profile/replay and pending share the 16 events of one answer",
		cfg:    Config{MaxSessions: 8, TTL: DefaultConfig().TTL, MaxEventsPerSet: 16, KeepDelivered: 32, MaxQueued: 32},
		queued: numbered(1, 10),
		before: func(t *testing.T, tab *Table, id string) {
			mustPoll(t, tab, id, alice, "") // priming 1, events 2-11
			for _, m := range numbered(11, 20) {
				if err := tab.Enqueue(id, alice, []byte(m), t0); err != nil {
					t.Fatal(err)
				}
			}
		},
		cursor: g(1),
		want:   Batch{PrimingID: g(12), Events: append(events(2, 1, 10), events(13, 11, 16)...)},
		then:   &Batch{PrimingID: g(19), Events: events(20, 17, 20)},
	},
	{
		name:   "profile/a replay longer than one answer is cut at 16",
		cfg:    Config{MaxSessions: 8, TTL: DefaultConfig().TTL, MaxEventsPerSet: 16, KeepDelivered: 32, MaxQueued: 32},
		queued: numbered(1, 20),
		before: func(t *testing.T, tab *Table, id string) {
			mustPoll(t, tab, id, alice, "") // priming 1, events 2-17
			mustPoll(t, tab, id, alice, "") // priming 18, events 19-22
		},
		cursor: g(1),
		want:   Batch{PrimingID: g(23), Events: events(2, 1, 16)},
	},
}

// numbered returns "n<from>" … "n<to>".
func numbered(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, "n"+strconv.Itoa(i))
	}
	return out
}

// events returns the events numbered seq, seq+1, … carrying n<from> … n<to>.
func events(seq, from, to int) []Delivered {
	var out []Delivered
	for i := from; i <= to; i++ {
		out = append(out, ev(seq+i-from, "n"+strconv.Itoa(i)))
	}
	return out
}

func TestPoll(t *testing.T) {
	for _, tc := range pollCases {
		t.Run(tc.name, func(t *testing.T) {
			tab := newTestTable(tc.cfg)
			var queued [][]byte
			for _, m := range tc.queued {
				queued = append(queued, []byte(m))
			}
			id := mustCreate(t, tab, alice, queued...)
			if tc.before != nil {
				tc.before(t, tab, id)
			}
			got, err := tab.Poll(id, alice, tc.cursor, t0)
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("Poll err = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Poll (-want +got):\n%s", diff)
			}
			if tc.then != nil {
				if diff := cmp.Diff(*tc.then, mustPoll(t, tab, id, alice, "")); diff != "" {
					t.Errorf("cursorless GET afterwards (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestPollBeforeInitialized checks that GET is served while the session
// waits for notifications/initialized, and leaves the phase alone.
func TestPollBeforeInitialized(t *testing.T) {
	tab := newTestTable(Config{})
	id := mustCreate(t, tab, alice, []byte("n1"))
	want := Batch{PrimingID: g(1), Events: []Delivered{ev(2, "n1")}}
	if diff := cmp.Diff(want, mustPoll(t, tab, id, alice, "")); diff != "" {
		t.Errorf("T-55/Poll (-want +got):\n%s", diff)
	}
	if phase, err := tab.Step(id, alice, InputInitialized, t0); phase != PhaseOperating || err != nil {
		t.Errorf("initialized after GET = (%v, %v), want (operating, nil)", phase, err)
	}
}

// TestEventIDsUniqueAcrossStreams interleaves POST and GET event ids and
// checks that no id repeats and the sequence numbers are one counter.
func TestEventIDsUniqueAcrossStreams(t *testing.T) {
	tab := newTestTable(Config{})
	id := mustCreate(t, tab, alice)
	var got []string
	for i := range 4 {
		post, err := tab.PostEventID(id, alice, t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.Enqueue(id, alice, []byte{byte(i)}, t0); err != nil {
			t.Fatal(err)
		}
		b := mustPoll(t, tab, id, alice, "")
		got = append(got, post, b.PrimingID, b.Events[0].ID)
	}
	var want []string
	for seq := 1; seq <= 12; seq++ {
		kind := "g"
		if seq%3 == 1 {
			kind = "p"
		}
		want = append(want, kind+firstHandle+"-"+strconv.Itoa(seq))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("T-33/event ids (-want +got):\n%s", diff)
	}
}

// TestDeliveredDataIsNotCopied pins down the memory contract: the table
// hands back the caller's bytes, not a copy.
func TestDeliveredDataIsNotCopied(t *testing.T) {
	tab := newTestTable(Config{})
	msg := []byte("n1")
	id := mustCreate(t, tab, alice, msg)
	b := mustPoll(t, tab, id, alice, "")
	if len(b.Events) != 1 || &b.Events[0].Data[0] != &msg[0] {
		t.Error("delivered data is not the enqueued slice")
	}
}
