//go:build !unix

package wire

import (
	"net"
	"sync"
)

// Without the Unix poller every connection reads and writes plainly
// through its net.Conn.

// fastIO is empty: there is no fast path here.
type fastIO struct{}

func (s *socket) init(nc net.Conn, cfg *Config) {
	s.nc, s.cfg = nc, cfg
}

// receive waits for the next request's first bytes (receivePlain).
func (s *socket) receive(spaces *sync.Pool) (*requestSpace, int, error) {
	return s.receivePlain(spaces)
}

func (s *socket) write(out []byte) error {
	return s.writePlain(out)
}
