package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRevisionChanges: a subject's current revision is what
// SetRevision set last, or the newest revision a token was minted under;
// nothing else moves it. alice holds tokAlice under revision 7 first.
func TestRevisionChanges(t *testing.T) {
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
	type current struct{ Alice, Bob uint64 }
	for _, c := range []struct {
		name string
		act  func(*testing.T, *Policy)
		want current
	}{
		{"A-11/SetRevision to a newer revision", set("alice", 8), current{8, 0}},
		{"A-11/SetRevision to an older revision", set("alice", 6), current{6, 0}},
		{"A-11/back and forth ends at the last", set("alice", 8, 7), current{7, 0}},
		{"A-11/another subject's change moves only that subject", set("bob", 3), current{7, 3}},
		{"A-11/a token minted under a newer revision raises it", withRevision(tokBob, "tid-2", "alice", 9), current{9, 0}},
		{"A-11/a token under an older revision leaves it", withRevision(tokBob, "tid-2", "alice", 6), current{7, 0}},
		{"A-11/a refused duplicate leaves it", func(t *testing.T, p *Policy) {
			rec := aliceRecord()
			rec.Revision = 99
			if p.Add(tokAlice, rec) == nil {
				t.Fatal("a duplicate was accepted")
			}
		}, current{7, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newTestPolicy(t)
			if err := p.Add(tokAlice, aliceRecord()); err != nil {
				t.Fatal(err)
			}
			c.act(t, p)
			got := current{p.Revision("alice"), p.Revision("bob")}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("current revisions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRevisionChangeRefusesOldTokens: once the revision changed,
// a token minted under the old one is refused at its next use.
func TestRevisionChangeRefusesOldTokens(t *testing.T) {
	p := newTestPolicy(t)
	if err := p.Add(tokAlice, aliceRecord()); err != nil {
		t.Fatal(err)
	}
	p.SetRevision("alice", 8)
	if _, denial := p.AuthenticateRemembered(nil, []byte("Bearer "+tokAlice), true, "ping", t0); denial == nil || denial.Detail != DetailRevision {
		t.Errorf("the old token: denial %+v, want detail %q", denial, DetailRevision)
	}
}
