package policy

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// change is one report to the revision observer.
type change struct {
	Subject  string
	Revision uint64
}

// TestOnRevisionReportsEveryChange: the observer hears of each
// change of a subject's current revision once, with the new revision, and
// of nothing that leaves the revision as it was. alice holds tokAlice
// under revision 7 before the observer is set.
func TestOnRevisionReportsEveryChange(t *testing.T) {
	withRevision := func(token, id, subject string, revision uint64) func(*testing.T, *Policy) {
		return func(t *testing.T, p *Policy) {
			rec := aliceRecord()
			rec.TokenID, rec.Subject, rec.Revision = id, subject, revision
			if err := p.Add(token, rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	set := func(subject string, revisions ...uint64) func(*testing.T, *Policy) {
		return func(_ *testing.T, p *Policy) {
			for _, r := range revisions {
				p.SetRevision(subject, r)
			}
		}
	}
	for _, c := range []struct {
		name string
		act  func(*testing.T, *Policy)
		want []change
	}{
		{"A-11/SetRevision to a newer revision", set("alice", 8), []change{{"alice", 8}}},
		{"A-11/SetRevision to an older revision", set("alice", 6), []change{{"alice", 6}}},
		{"A-11/SetRevision to the current revision changes nothing", set("alice", 7), nil},
		{"A-11/the same SetRevision twice is one change", set("alice", 8, 8), []change{{"alice", 8}}},
		{"A-11/back and forth is two changes", set("alice", 8, 7), []change{{"alice", 8}, {"alice", 7}}},
		{"A-11/a subject never seen is at revision 0 already", set("bob", 0), nil},
		{"A-11/another subject's change names that subject", set("bob", 3), []change{{"bob", 3}}},
		{"A-11/a token minted under a newer revision raises it", withRevision(tokBob, "tid-2", "alice", 9), []change{{"alice", 9}}},
		{"A-11/a token minted under the current revision changes nothing", withRevision(tokBob, "tid-2", "alice", 7), nil},
		{"A-11/a token under an older revision changes nothing", withRevision(tokBob, "tid-2", "alice", 6), nil},
		{"A-11/a refused duplicate changes nothing", func(t *testing.T, p *Policy) {
			rec := aliceRecord()
			rec.Revision = 99
			if p.Add(tokAlice, rec) == nil {
				t.Fatal("a duplicate was accepted")
			}
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newTestPolicy(t)
			if err := p.Add(tokAlice, aliceRecord()); err != nil {
				t.Fatal(err)
			}
			var got []change
			p.OnRevision(func(subject string, revision uint64) { got = append(got, change{subject, revision}) })
			c.act(t, p)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("reported changes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOnRevisionRunsAfterTheChange: the observer runs with the
// change applied and the token table unlocked, so it may authenticate (a
// held lock would deadlock here) and finds the old token already refused.
func TestOnRevisionRunsAfterTheChange(t *testing.T) {
	p := newTestPolicy(t)
	if err := p.Add(tokAlice, aliceRecord()); err != nil {
		t.Fatal(err)
	}
	var details []string
	p.OnRevision(func(string, uint64) {
		_, denial := p.Authenticate([]byte("Bearer "+tokAlice), true, "ping", t0)
		if denial == nil {
			details = append(details, "accepted")
			return
		}
		details = append(details, denial.Detail)
	})
	p.SetRevision("alice", 8)
	if diff := cmp.Diff([]string{DetailRevision}, details); diff != "" {
		t.Errorf("the old token, authenticated by the observer (-want +got):\n%s", diff)
	}
}

// TestOnRevisionReportsInOrder: changes racing from several
// goroutines reach the observer one at a time (the observer's unguarded
// append is a race -race reports otherwise) and in the order they were
// applied: no report repeats the one before it, and the last is the
// revision that stands.
func TestOnRevisionReportsInOrder(t *testing.T) {
	p := newTestPolicy(t)
	var got []uint64
	p.OnRevision(func(_ string, revision uint64) { got = append(got, revision) })
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for r := range 200 {
				p.SetRevision("alice", uint64((w+r)%3+1))
			}
		})
	}
	wg.Wait()
	if len(got) == 0 {
		t.Fatal("no change reported")
	}
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			t.Fatalf("report %d repeats revision %d: reported out of order", i, got[i])
		}
	}
	if last, current := got[len(got)-1], p.revisions["alice"]; last != current {
		t.Errorf("last report %d, current revision %d", last, current)
	}
}
