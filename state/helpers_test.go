package state

import (
	"errors"
	"testing"
	"time"
)

// countingReader is a predictable random source: it yields 0, 1, 2, … 255,
// 0, …, so the first session drawn from it has the id and handle below.
type countingReader struct{ next byte }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.next
		r.next++
	}
	return len(p), nil
}

// The identities a countingReader yields, in order: bytes 0–23 and 24–35,
// then 36–59 and 60–71, in base64url.
const (
	firstID      = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX"
	firstHandle  = "GBkaGxwdHh8gISIj"
	secondID     = "JCUmJygpKissLS4vMDEyMzQ1Njc4OTo7"
	secondHandle = "PD0-P0BBQkNERUZH" // contains "-", the event-id separator
)

// failingReader fails every read, like a broken entropy source.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("entropy source gone") }

var (
	t0    = time.Date(2025, 11, 25, 12, 0, 0, 0, time.UTC)
	alice = Owner{Subject: "alice", Tenant: "acme", Revision: 3}
	bob   = Owner{Subject: "bob", Tenant: "acme", Revision: 3}
)

// newTestTable returns a table with cfg (DefaultConfig if zero) and a
// countingReader.
func newTestTable(cfg Config) *Table {
	if cfg == (Config{}) {
		cfg = DefaultConfig()
	}
	return NewTable(cfg, &countingReader{})
}

// mustCreate creates a session for owner at t0 and fails the test on error.
func mustCreate(t *testing.T, tab *Table, owner Owner, queued ...[]byte) string {
	t.Helper()
	id, _, err := tab.Create(owner, t0, queued...)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return id
}

// mustStep applies in and fails the test on error.
func mustStep(t *testing.T, tab *Table, id string, owner Owner, in Input) {
	t.Helper()
	if _, _, err := tab.Step(id, owner, in, t0); err != nil {
		t.Fatalf("Step(%v): %v", in, err)
	}
}

// mustPoll polls and fails the test on error.
func mustPoll(t *testing.T, tab *Table, id string, owner Owner, cursor string) Batch {
	t.Helper()
	b, _, err := tab.Poll(id, owner, cursor, t0)
	if err != nil {
		t.Fatalf("Poll(%q): %v", cursor, err)
	}
	return b
}

// postEventID is AppendPostEventID into a fresh buffer, as a string.
func postEventID(tab *Table, id string, owner Owner, now time.Time) (string, error) {
	b, _, err := tab.AppendPostEventID(nil, id, owner, now)
	return string(b), err
}

// msgs returns the messages named by s as byte slices.
func msgs(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, m := range s {
		out[i] = []byte(m)
	}
	return out
}
