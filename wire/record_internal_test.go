package wire

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/rule"
)

// TestRecordTakesInOrder: Take returns what was added since the last
// Take, in order, and forgets it; Added holds one signal however many
// answers came, so a follower wakes once and takes them all.
func TestRecordTakesInOrder(t *testing.T) {
	r := NewRecord(false)
	select {
	case <-r.Added():
		t.Fatal("Added signals before anything was added")
	default:
	}
	first := Exchange{Conn: 1, Decision: Decision{Status: 200, Rule: rule.PingAnswered}}
	second := Exchange{Conn: 2, Decision: Decision{Status: 400, Rule: rule.BareLF, Closed: rule.ParseErrorCloses}}
	r.add(first)
	r.add(second)
	<-r.Added()
	select {
	case <-r.Added():
		t.Error("Added signals twice for answers taken in one Take")
	default:
	}
	if diff := cmp.Diff([]Exchange{first, second}, r.Take()); diff != "" {
		t.Errorf("Take (-want +got):\n%s", diff)
	}
	if got := r.Take(); got != nil {
		t.Errorf("a second Take = %v, want nothing", got)
	}
}
