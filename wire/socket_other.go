//go:build !unix

package wire

import "net"

// Without the Unix poller's callback every connection reads and writes
// plainly through its net.Conn.

// fastIO is empty: there is no fast path here.
type fastIO struct{}

// receiveScratch is empty: there is no fast receive here.
type receiveScratch struct{}

func (s *socket) init(nc net.Conn, cfg *Config) {
	s.nc, s.cfg = nc, cfg
}

// awaitNext waits for the next request's first bytes in a plain read.
func (c *conn) awaitNext() bool {
	return c.await()
}

func (s *socket) write(out []byte) error {
	return s.writePlain(out)
}
