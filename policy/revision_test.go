package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSetRevisionReportsAChange: SetRevision tells its caller
// whether the subject's current revision changed, so the caller ends the
// sessions of the others exactly when it did; setting the current
// revision again reports nothing. alice holds tokAlice under revision 7.
func TestSetRevisionReportsAChange(t *testing.T) {
	type set struct {
		subject  string
		revision uint64
	}
	for _, c := range []struct {
		name    string
		sets    []set
		changed []bool
		alice   uint64 // alice's revision afterwards
	}{
		{"A-11/to a newer revision", []set{{"alice", 8}}, []bool{true}, 8},
		{"A-11/to an older revision", []set{{"alice", 6}}, []bool{true}, 6},
		{"A-11/to the current revision changes nothing", []set{{"alice", 7}}, []bool{false}, 7},
		{"A-11/the same revision twice is one change", []set{{"alice", 8}, {"alice", 8}}, []bool{true, false}, 8},
		{"A-11/back and forth is two changes", []set{{"alice", 8}, {"alice", 7}}, []bool{true, true}, 7},
		{"A-11/a subject never seen is at revision 0 already", []set{{"bob", 0}}, []bool{false}, 7},
		{"A-11/another subject's change leaves alice's", []set{{"bob", 3}}, []bool{true}, 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newTestPolicy(t)
			if err := p.Add(tokAlice, aliceRecord()); err != nil {
				t.Fatal(err)
			}
			var changed []bool
			for _, s := range c.sets {
				changed = append(changed, p.SetRevision(s.subject, s.revision))
			}
			if diff := cmp.Diff(c.changed, changed); diff != "" {
				t.Errorf("changed (-want +got):\n%s", diff)
			}
			if got := p.Revision("alice"); got != c.alice {
				t.Errorf("Revision(alice) = %d, want %d", got, c.alice)
			}
		})
	}
}

// TestAddRaisesTheRevision: a token minted under a newer revision
// raises its subject's revision, retiring the older tokens; one under the
// current or an older revision, or a refused record, leaves it. alice
// holds tokAlice under revision 7.
func TestAddRaisesTheRevision(t *testing.T) {
	for _, c := range []struct {
		name     string
		token    string
		tokenID  string
		revision uint64
		refused  bool
		want     uint64
	}{
		{"A-11/a token minted under a newer revision raises it", tokBob, "tid-2", 9, false, 9},
		{"A-11/a token minted under the current revision changes nothing", tokBob, "tid-2", 7, false, 7},
		{"A-11/a token under an older revision changes nothing", tokBob, "tid-2", 6, false, 7},
		{"A-11/a refused duplicate changes nothing", tokAlice, "tid-2", 99, true, 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newTestPolicy(t)
			if err := p.Add(tokAlice, aliceRecord()); err != nil {
				t.Fatal(err)
			}
			rec := aliceRecord()
			rec.TokenID, rec.Revision = c.tokenID, c.revision
			if err := p.Add(c.token, rec); (err != nil) != c.refused {
				t.Fatalf("Add = %v, refused want %v", err, c.refused)
			}
			if got := p.Revision("alice"); got != c.want {
				t.Errorf("Revision(alice) = %d, want %d", got, c.want)
			}
		})
	}
}

// TestSetRevisionRetiresTheOldToken: once SetRevision returns, the
// token of the old revision is refused.
func TestSetRevisionRetiresTheOldToken(t *testing.T) {
	p := newTestPolicy(t)
	if err := p.Add(tokAlice, aliceRecord()); err != nil {
		t.Fatal(err)
	}
	p.SetRevision("alice", 8)
	_, denial := p.Authenticate([]byte("Bearer "+tokAlice), true, "ping", t0)
	if denial == nil || denial.Detail != DetailRevision {
		t.Errorf("the old token: denial %+v, want detail %q", denial, DetailRevision)
	}
}
