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

// Notifications are queued only by Create, as the server does; a smaller
// MaxEventsPerSet leaves some pending after a GET.

// three is what pollOnce delivers when Create queued it: priming 1, events
// 2-4.
var three = []string{"n1", "n2", "n3"}

// pollOnce makes one cursorless GET.
func pollOnce(t *testing.T, tab *Table, id string) {
	t.Helper()
	mustPoll(t, tab, id, alice, "")
}

// seventeen, queued at Create under seventeenCfg (16 kept, 17 queued), is
// what deliverAll delivers.
var (
	seventeen    = numbered(1, 17)
	seventeenCfg = Config{MaxSessions: 8, TTL: DefaultConfig().TTL, MaxEventsPerSet: 16, KeepDelivered: 16, MaxQueued: 17}
)

// deliverAll delivers n1..n16 (priming 1, events 2-17), then n17 (priming
// 18, event 19), pushing event 2 out of the 16 kept.
func deliverAll(t *testing.T, tab *Table, id string) {
	t.Helper()
	mustPoll(t, tab, id, alice, "")
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
		cfg:    Config{MaxSessions: 8, TTL: DefaultConfig().TTL, MaxEventsPerSet: 1, KeepDelivered: 16, MaxQueued: 16},
		queued: []string{"n1", "n2"},
		before: pollOnce, // priming 1, event 2 (n1)
		want:   Batch{PrimingID: g(3), Events: []Delivered{ev(4, "n2")}},
	},
	{
		name:   "T-36/cursor replays only the events after it",
		queued: three,
		before: pollOnce,
		cursor: g(2),
		want:   Batch{PrimingID: g(5), Events: []Delivered{ev(3, "n2"), ev(4, "n3")}},
	},
	{
		name:   "T-36/cursor at the newest event replays nothing",
		queued: three,
		before: pollOnce,
		cursor: g(4),
		want:   Batch{PrimingID: g(5)},
	},
	{
		name:   "T-36/priming id as cursor replays its whole batch",
		queued: three,
		before: pollOnce,
		cursor: g(1),
		want:   Batch{PrimingID: g(5), Events: []Delivered{ev(2, "n1"), ev(3, "n2"), ev(4, "n3")}},
	},
	{
		name:   "T-36/replayed events come before pending ones",
		cfg:    Config{MaxSessions: 8, TTL: DefaultConfig().TTL, MaxEventsPerSet: 3, KeepDelivered: 16, MaxQueued: 16},
		queued: []string{"n1", "n2", "n3", "n4"},
		before: pollOnce, // priming 1, events 2-4; n4 stays pending
		cursor: g(3),
		want:   Batch{PrimingID: g(5), Events: []Delivered{ev(4, "n3"), ev(6, "n4")}},
		then:   &Batch{PrimingID: g(7)},
	},
	{
		name:   "T-36/priming id of a resumed batch resumes where its cursor did",
		queued: three,
		before: func(t *testing.T, tab *Table, id string) {
			pollOnce(t, tab, id)
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
			if post, err := postEventID(tab, id, alice, t0); err != nil || post != "p"+firstHandle+"-3" {
				t.Fatalf("PostEventID = (%q, %v)", post, err)
			}
		},
		cursor:  "p" + firstHandle + "-3",
		wantErr: ErrCursor,
	},
	{
		name:   "T-P11/a POST event's number spelled as a GET id is no cursor",
		queued: []string{"n1"},
		before: func(t *testing.T, tab *Table, id string) {
			mustPoll(t, tab, id, alice, "")
			if _, err := postEventID(tab, id, alice, t0); err != nil {
				t.Fatal(err)
			}
		},
		cursor:  g(3),
		wantErr: ErrCursor,
	},
	{
		name:   "T-P11/another session's event id is no cursor",
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
		name:    "T-P11/another handle with a number this session delivered",
		queued:  three,
		before:  pollOnce,
		cursor:  "g" + secondHandle + "-2",
		wantErr: ErrCursor,
	},
	{
		name:    "T-P11/the next number, not issued yet",
		queued:  three,
		before:  pollOnce,
		cursor:  g(5),
		wantErr: ErrCursor,
	},
	{
		name:    "T-P11/a number far in the future",
		queued:  three,
		before:  pollOnce,
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
		queued:  three,
		before:  pollOnce,
		cursor:  "g" + firstHandle + "-02",
		wantErr: ErrCursor,
	},
	{
		name:    "T-P11/malformed: the session id",
		queued:  three,
		before:  pollOnce,
		cursor:  firstID,
		wantErr: ErrCursor,
	},
	{
		name:    "S-P01/malformed: control byte",
		queued:  three,
		before:  pollOnce,
		cursor:  "g" + firstHandle + "-2\x00",
		wantErr: ErrCursor,
	},
	{
		name:    "T-P11/an event pushed out of the 16 kept",
		cfg:     seventeenCfg,
		queued:  seventeen,
		before:  deliverAll,
		cursor:  g(2),
		wantErr: ErrCursor,
	},
	{
		name:   "T-P11/the oldest event still kept",
		cfg:    seventeenCfg,
		queued: seventeen,
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
		cfg:     seventeenCfg,
		queued:  seventeen,
		before:  deliverAll,
		cursor:  g(1),
		wantErr: ErrCursor,
	},
	{
		name:   "T-P11/a kept priming id whose batch is still kept",
		cfg:    seventeenCfg,
		queued: seventeen,
		before: deliverAll,
		cursor: g(18),
		want:   Batch{PrimingID: g(20), Events: []Delivered{ev(19, "n17")}},
	},
	{
		// Two kept: the resumed GET pushes event 2 out, and its own priming
		// id 4 resumes right after event 2, from where nothing is lost.
		name:   "T-P11/a priming id resuming right after the newest pushed-out event",
		cfg:    Config{MaxSessions: 8, TTL: DefaultConfig().TTL, MaxEventsPerSet: 2, KeepDelivered: 2, MaxQueued: 16},
		queued: three,
		before: func(t *testing.T, tab *Table, id string) {
			mustPoll(t, tab, id, alice, "")   // priming 1, events 2-3
			mustPoll(t, tab, id, alice, g(2)) // priming 4, replays 3, then n3 as 5
		},
		cursor: g(4),
		want:   Batch{PrimingID: g(6), Events: []Delivered{ev(3, "n2"), ev(5, "n3")}},
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
		queued: numbered(1, 30),
		before: pollOnce, // priming 1, events 2-17 (n1-n16); n17-n30 stay pending
		cursor: g(11),    // n10: replays n11-n16, then takes 10 pending
		want:   Batch{PrimingID: g(18), Events: append(events(12, 11, 16), events(19, 17, 26)...)},
		then:   &Batch{PrimingID: g(29), Events: events(30, 27, 30)},
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
			got, _, err := tab.Poll(id, alice, tc.cursor, t0)
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
	if phase, _, err := tab.Step(id, alice, InputInitialized, t0); phase != PhaseOperating || err != nil {
		t.Errorf("initialized after GET = (%v, %v), want (operating, nil)", phase, err)
	}
}

// TestEventIDsUniqueAcrossStreams interleaves POST and GET event ids and
// checks that no id repeats and the sequence numbers are one counter.
func TestEventIDsUniqueAcrossStreams(t *testing.T) {
	tab := newTestTable(Config{MaxSessions: 8, TTL: DefaultConfig().TTL, MaxEventsPerSet: 1, KeepDelivered: 16, MaxQueued: 16})
	id := mustCreate(t, tab, alice, msgs("0", "1", "2", "3")...)
	var got []string
	for range 4 {
		post, err := postEventID(tab, id, alice, t0)
		if err != nil {
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
