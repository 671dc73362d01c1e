package wire

import (
	"sync"

	"rawmcp/wire/rule"
)

// Record is what a server tells its caller about the answers it makes:
// the server adds each answer to it, and the caller takes them (Take), so
// nothing of the caller's runs on a connection. Set Config.Record to one
// made by NewRecord. It is safe for concurrent use.
//
// An answer is added before it is written, so a client that has read an
// answer finds it in the Record; answers of one connection are added in
// order. What is not taken is kept: a caller that records must take.
type Record struct {
	bytes bool
	mu    sync.Mutex
	taken []Exchange
	added chan struct{}
}

// NewRecord returns an empty Record. withBytes makes each Exchange carry
// copies of its request's and its answer's bytes, for a trace; without,
// an Exchange holds only its connection and Decision.
func NewRecord(withBytes bool) *Record {
	return &Record{bytes: withBytes, added: make(chan struct{}, 1)}
}

// Exchange is one answered request as it crossed the wire.
type Exchange struct {
	Conn     uint64
	Request  []byte // what was read of the request: its head and as much body as arrived (with bytes only)
	Response []byte // the answer as written (with bytes only)
	Decision Decision
}

// Decision reports one answered request: its status and the rule behind
// it, and the rule that closes the connection after it, if one does.
type Decision struct {
	Status int
	Rule   rule.ID
	Closed rule.ID
}

// Take returns the answers added since the last Take, in the order they
// were added, and forgets them.
func (r *Record) Take() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	x := r.taken
	r.taken = nil
	return x
}

// Added has a value whenever answers were added since it was last
// received: a caller that follows the Record as it grows waits on it,
// then takes.
func (r *Record) Added() <-chan struct{} {
	return r.added
}

// add keeps x.
func (r *Record) add(x Exchange) {
	r.mu.Lock()
	r.taken = append(r.taken, x)
	r.mu.Unlock()
	select {
	case r.added <- struct{}{}:
	default: // a signal is already waiting
	}
}
