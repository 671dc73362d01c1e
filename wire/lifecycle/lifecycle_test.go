package lifecycle

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/rule"
)

func ev(k Kind, slot int) Event    { return Event{Kind: k, Slot: slot} }
func as(k Kind, p Principal) Event { return Event{Kind: k, P: p} }
func run(m *Model, events ...Event) []Answer {
	var out []Answer
	for _, e := range events {
		out = append(out, m.Step(e))
	}
	return out
}

// opened is the prefix that gives slot 0 an operating session of A.
var opened = []Event{as(Initialize, A), ev(Initialized, 0)}

// TestStep: each case is a path from the initial world with capacity 2;
// the last event's answer is the one checked, named after its rule.
func TestStep(t *testing.T) {
	stream := func(events ...string) Answer {
		return Answer{Status: 200, Rule: rule.GetStream, Body: Stream, Events: events}
	}
	created := Answer{Status: 200, Rule: rule.VersionCounterOffer, Body: ResultJSON, NewSession: true}
	cases := []struct {
		name string
		path []Event
		want Answer
	}{
		{"T-53 initialize opens slot 0", []Event{as(Initialize, A)}, created},
		{"T-53 the second initialize takes slot 1", []Event{as(Initialize, A), as(Initialize, B)}, Answer{Status: 200, Rule: rule.VersionCounterOffer, Body: ResultJSON, NewSession: true, Slot: 1}},
		{"T-P18 a third initialize fails closed", []Event{as(Initialize, A), as(Initialize, B), as(Initialize, A)}, full},
		{"T-P18 a freed slot is taken again", []Event{as(Initialize, A), as(Initialize, B), ev(Delete, 0), as(Initialize, B)}, created},
		{"T-P18 a slot freed by the TTL is taken again", []Event{as(Initialize, A), as(Initialize, B), {Kind: Advance}, as(Initialize, A)}, created},
		{"T-P18 a revoked holder's untouched session still holds its slot", []Event{as(Initialize, A), as(Initialize, A), as(Revoke, A), as(Initialize, B)}, full},
		{"T-11 initialized moves to operating", opened, Answer{Status: 202, Rule: rule.NotificationAccepted, Body: NoBody}},
		{"T-P06 initialized twice", append(opened, ev(Initialized, 0)), outOfOrder},
		{"T-P06 a request before initialized", []Event{as(Initialize, A), ev(List, 0)}, outOfOrder},
		{"T-59 ping before initialized", []Event{as(Initialize, A), ev(Ping, 0)}, Answer{Status: 200, Rule: rule.PingAnswered, Body: ResultJSON}},
		{"T-14 resources/list as SSE lists the owner's tenant", append(opened, ev(List, 0)), Answer{Status: 200, Rule: rule.RequestAnsweredSSE, Body: ResultSSE, Tenant: "acme"}},
		{"T-25 GET before initialized delivers list_changed", []Event{as(Initialize, A), ev(Get, 0)}, stream(ListChanged)},
		{"T-25 a second cursorless GET never replays", append(opened, ev(Get, 0), ev(Get, 0)), stream()},
		{"T-25 a notification reaches the next GET", append(opened, ev(Get, 0), ev(Notify, 0), ev(Get, 0)), stream("s0-note1")},
		{"T-25 a cursor from the first event replays everything later", append(opened, ev(Get, 0), ev(Notify, 0), ev(Get, 0), ev(Notify, 0), ev(GetFirst, 0)), stream(ListChanged, "s0-note1", "s0-note2")},
		{"T-25 the last event's cursor replays nothing, delivers the pending", append(opened, ev(Get, 0), ev(Notify, 0), ev(GetLast, 0)), stream("s0-note1")},
		{"T-25 the last replayed event resumes after itself", append(opened, ev(Get, 0), ev(Notify, 0), ev(Get, 0), ev(GetFirst, 0), ev(Notify, 0), ev(GetLast, 0)), stream("s0-note2")},
		{"T-25 a priming-only answer resumes from its own point", append(opened, ev(Get, 0), ev(Get, 0), ev(Notify, 0), ev(GetLast, 0)), stream("s0-note1")},
		{"T-P11 no GET yet: no cursor of this stream", append(opened, ev(GetLast, 0)), cursorUnknown},
		{"T-P11 a POST event id resumes nothing", append(opened, ev(List, 0), ev(GetPostCursor, 0)), cursorUnknown},
		{"T-P11 another session's event id resumes nothing", []Event{as(Initialize, A), as(Initialize, A), ev(Get, 1), ev(GetOtherCursor, 0)}, cursorUnknown},
		{"S-P01 a malformed cursor", append(opened, ev(GetMalformed, 0)), cursorSyntax},
		{"T-45 DELETE ends the session", append(opened, ev(Delete, 0)), Answer{Status: 204, Rule: rule.DeleteEndsSession, Body: NoBody}},
		{"T-43 every method after DELETE is 404", append(opened, ev(Delete, 0), ev(Get, 0)), notFound},
		{"T-43 DELETE twice", append(opened, ev(Delete, 0), ev(Delete, 0)), notFound},
		{"T-43 a never-issued id", []Event{ev(Ping, 0)}, notFound},
		{"T-43 ping on a never-issued id with a session elsewhere", []Event{as(Initialize, A), as(PingNeverIssued, A)}, notFound},
		{"T-43 after the TTL", append(opened, Event{Kind: Advance}, ev(Ping, 0)), notFound},
		{"T-P10 the other principal's token", append(opened, ev(PingAsOther, 0)), notFound},
		{"T-P10 a refused DELETE by the other principal leaves the session", append(opened, ev(DeleteAsOther, 0), ev(Ping, 0)), Answer{Status: 200, Rule: rule.PingAnswered, Body: ResultJSON}},
		{"T-42 no session id", []Event{as(ListNoSession, B)}, sessionRequired},
		{"T-P08 no version on a session", append(opened, ev(PingNoVersion, 0)), versionRequired},
		{"T-P08 the version comes before the session", []Event{ev(GetWrongVersion, 1)}, versionRequired},
		{"A-10 a revoked token", append(opened, as(Revoke, A), ev(Ping, 0)), unauthorized},
		{"A-10 a revision change", append(opened, as(ChangeRevision, A), ev(GetWrongVersion, 0)), unauthorized},
		{"A-10 a dead token is refused before initialize", []Event{as(Revoke, B), as(Initialize, B)}, unauthorized},
		{"T-43 the dead token ended its session: the new token's owner is gone too", append(opened, as(Initialize, B), as(Revoke, A), ev(Ping, 0), ev(PingAsOther, 0)), notFound},
		{"T-43 a revision change ended the session: the fresh token finds it gone", append(opened, as(ChangeRevision, A), as(Mint, A), ev(Ping, 0)), notFound},
		{"T-43 so does the old token, refused first", append(opened, as(ChangeRevision, A), ev(Ping, 0)), unauthorized},
		{"T-53 the fresh token works", append(opened, as(ChangeRevision, A), as(Mint, A), as(Initialize, A)), created},
		{"T-P18 a revision change frees its subject's slots at once", append(opened, as(Initialize, B), as(ChangeRevision, A), as(Mint, A), as(Initialize, A)), created},
		{"T-P18 every one of them", []Event{as(Initialize, A), as(Initialize, A), as(ChangeRevision, A), as(Mint, A), as(Initialize, A), as(Initialize, A)}, Answer{Status: 200, Rule: rule.VersionCounterOffer, Body: ResultJSON, NewSession: true, Slot: 1}},
		{"T-P18 and only its subject's", []Event{as(Initialize, A), as(Initialize, B), as(ChangeRevision, B), as(Initialize, A), as(Initialize, A)}, full},
		{"T-P10 the other subject's session lives on", []Event{as(Initialize, A), as(Initialize, B), as(ChangeRevision, B), ev(Ping, 0)}, Answer{Status: 200, Rule: rule.PingAnswered, Body: ResultJSON}},
		{"T-59 a token minted after a revocation, same revision, owns the session still", append(opened, as(Revoke, A), as(Mint, A), ev(Ping, 0)), Answer{Status: 200, Rule: rule.PingAnswered, Body: ResultJSON}},
		{"T-P10 a dead token does not end another's session", []Event{as(Initialize, B), as(Revoke, A), ev(PingAsOther, 0), ev(Ping, 0)}, Answer{Status: 200, Rule: rule.PingAnswered, Body: ResultJSON}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := New(2)
			got := run(&m, c.path...)
			if diff := cmp.Diff(c.want, got[len(got)-1]); diff != "" {
				t.Errorf("answer to %v (-want +got):\n%s", c.path[len(c.path)-1], diff)
			}
		})
	}
}

// TestStateEffects checks what a path leaves behind, beside the answers.
func TestStateEffects(t *testing.T) {
	cases := []struct {
		name    string
		path    []Event
		live    int
		phases  [2]Phase
		queued  bool // the last event, a Notify, was taken
		pending int  // slot 0
	}{
		{"revocation ends the session on its next use only", append(opened, as(Revoke, A)), 1, [2]Phase{Operating, Never}, false, 1},
		{"and then it is gone", append(opened, as(Revoke, A), ev(Ping, 0)), 0, [2]Phase{Ended, Never}, false, 0},
		{"a revision change ends the session at once", append(opened, as(ChangeRevision, A)), 0, [2]Phase{Ended, Never}, false, 0},
		{"a revision change ends only its subject's sessions", []Event{as(Initialize, A), as(Initialize, B), as(ChangeRevision, B)}, 1, [2]Phase{Initializing, Ended}, false, 1},
		{"the TTL ends both", []Event{as(Initialize, A), as(Initialize, B), {Kind: Advance}}, 0, [2]Phase{Ended, Ended}, false, 0},
		{"notify on a live session queues", append(opened, ev(Notify, 0)), 1, [2]Phase{Operating, Never}, true, 2},
		{"notify on an ended session is refused", append(opened, ev(Delete, 0), ev(Notify, 0)), 0, [2]Phase{Ended, Never}, false, 0},
		{"notify on a never-issued slot is refused", []Event{ev(Notify, 1)}, 0, [2]Phase{Never, Never}, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := New(2)
			got := run(&m, c.path...)
			if n := m.Live(); n != c.live {
				t.Errorf("Live = %d, want %d", n, c.live)
			}
			if p := [2]Phase{m.Sessions[0].Phase, m.Sessions[1].Phase}; p != c.phases {
				t.Errorf("phases = %v, want %v", p, c.phases)
			}
			if q := got[len(got)-1].Queued; q != c.queued {
				t.Errorf("Queued = %v, want %v", q, c.queued)
			}
			if n := len(m.Sessions[0].Pending); n != c.pending {
				t.Errorf("slot 0 pending = %d, want %d", n, c.pending)
			}
		})
	}
}

// TestNotifyQueueBound: MaxQueued notifications queue (initialize's
// list_changed among them), one more is refused.
func TestNotifyQueueBound(t *testing.T) {
	m := New(2)
	m.Step(as(Initialize, A))
	for i := 1; i < MaxQueued; i++ {
		if !m.Step(ev(Notify, 0)).Queued {
			t.Fatalf("notify %d refused, want queued up to %d", i, MaxQueued)
		}
	}
	if m.Step(ev(Notify, 0)).Queued {
		t.Errorf("notify past MaxQueued queued, want refused")
	}
}

// TestKeyIgnoresLabelsAndClock: the equivalence the explorer relies on.
// Worlds that differ in labels or the clock's absolute value share a key;
// one delivered notification more does not.
func TestKeyIgnoresLabelsAndClock(t *testing.T) {
	a, b := New(2), New(2)
	run(&a, as(Initialize, A), ev(Notify, 0))
	run(&b, as(Initialize, B), Event{Kind: Advance}, ev(Delete, 0), as(Initialize, A), ev(Notify, 1), ev(Notify, 0))
	// b's slot 0 is A's with list_changed and note3; a's has note1.
	b.Sessions[1] = Session{}
	if a.Key() != b.Key() {
		t.Errorf("keys differ:\n%s\n%s", a.Key(), b.Key())
	}
	run(&b, ev(Get, 0))
	if a.Key() == b.Key() {
		t.Errorf("keys equal after a GET delivered two notifications: %s", a.Key())
	}
}

// TestKeyMergesHowATokenDied: a revoked token and one of an older
// revision are both dead, and with no session left they share a key; a
// session tells them apart, since only the revision change ended it.
func TestKeyMergesHowATokenDied(t *testing.T) {
	revoked, changed := New(2), New(2)
	run(&revoked, as(Revoke, A))
	run(&changed, as(ChangeRevision, A))
	if revoked.Key() != changed.Key() {
		t.Errorf("keys differ with no session:\n%s\n%s", revoked.Key(), changed.Key())
	}
	if fresh := New(2); fresh.Key() == revoked.Key() {
		t.Errorf("a dead token's key is the fresh world's: %q", fresh.Key())
	}
	run(&revoked, as(Initialize, B), as(Mint, A), as(Initialize, A), as(Revoke, A))
	run(&changed, as(Initialize, B), as(Mint, A), as(Initialize, A), as(ChangeRevision, A))
	if revoked.Key() == changed.Key() {
		t.Errorf("equal keys %q, yet only the revision change ended A's session", revoked.Key())
	}
}

// TestAlphabet: every kind appears, each per-slot kind for both slots and
// each per-principal kind for both principals, and names are unique.
func TestAlphabet(t *testing.T) {
	seen := map[string]bool{}
	kinds := map[Kind]int{}
	for _, e := range Alphabet() {
		if seen[e.String()] {
			t.Errorf("%v twice", e)
		}
		seen[e.String()] = true
		kinds[e.Kind]++
	}
	for k := Initialize; k <= Notify; k++ {
		want := 2
		if k == Advance {
			want = 1
		}
		if kinds[k] != want {
			t.Errorf("%v appears %d times, want %d", k, kinds[k], want)
		}
	}
	if !strings.Contains(Event{Kind: GetFirst, Slot: 1}.String(), "s1") {
		t.Errorf("a slot event does not name its slot: %v", Event{Kind: GetFirst, Slot: 1})
	}
}
