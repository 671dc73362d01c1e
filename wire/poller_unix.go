//go:build unix

package wire

import (
	"net"
	"syscall"
	"time"

	"rawmcp/wire/h1"
)

// The fast path of a Unix socket: the connection waits for its next
// request inside the poller's callback, receiving with receiveDrained
// (receive_*.go), and writes without arming a deadline when the socket
// takes the whole answer at once.

// fastIO reaches a socket's file descriptor through the runtime's poller.
type fastIO struct {
	// raw is nil when nc is not a socket.
	raw syscall.RawConn
	// rawWrite is what raw's Write runs, made once: a closure per call
	// would be an allocation per write. It writes rawOut and leaves its
	// count in rawN.
	rawWrite func(fd uintptr) bool
	rawOut   []byte
	rawN     int
	rawErr   error
}

func (s *socket) init(nc net.Conn, cfg *Config) {
	s.nc, s.cfg = nc, cfg
	if sc, ok := nc.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			s.raw, s.rawWrite = raw, s.writeSocket
		}
	}
}

// awaitNext waits for the next request's first bytes. This is the one
// choice of receive: a socket waits inside the poller's callback
// (readable), which serves there every request that arrives whole. Per
// keep-alive request that is one recvmmsg(2) and one write instead of two
// reads and one write, and 1.24× → 1.10× the echo floor's CPU at 8
// connections (measured on 2026-12-02: wire/README, Performance). Any
// other net.Conn waits in a plain read (conn.await), the path the
// README's walk follows.
func (c *conn) awaitNext() bool {
	if c.sock.fast() {
		return c.awaitInPoller()
	}
	return c.await()
}

// awaitInPoller waits for the next request inside one RawConn.Read, whose
// callback (readable) serves the requests that arrive whole and leaves
// when the rules ask for a read that may wait, or for the end.
func (c *conn) awaitInPoller() bool {
	if !c.goIdle() {
		return false
	}
	if c.onReadable == nil {
		c.onReadable = c.readable
	}
	c.drained = false
	if err := c.sock.awaitReadable(c.onReadable); err != nil {
		// Only a wait fails, and readable waits only for a request's
		// first bytes: the idle deadline (or Shutdown's wake), or a close
		// while idle.
		c.received(0, err)
	}
	return true
}

// readable is awaitInPoller's callback, which RawConn.Read runs at once
// and then each time the socket becomes readable: it returns false to
// wait for that, true to leave. It reads only through the receive below,
// never through the net.Conn, whose read lock RawConn.Read holds: a
// request needing a read that may wait leaves (h1.Read), and so does the
// end. Inside one RawConn.Read the socket's readiness is never reset
// (epoll is edge-triggered), so after a receive that found the socket
// empty behind its bytes the connection waits without first making the
// read that would find nothing.
func (c *conn) readable(fd uintptr) bool {
	for {
		switch a := c.next(); a {
		case h1.Wait:
			if c.drained {
				c.drained = false
				return c.waitReadable()
			}
			c.take()
			n, drained, again := c.sock.receive(fd, c.space.buf, &c.space.recv)
			if again {
				return c.waitReadable()
			}
			c.sock.markBusy()
			c.drained = drained
			c.received(n, nil)
		case h1.Read, h1.Drain, h1.Close:
			return true
		default:
			if !c.decide(a) {
				c.rules.Gone()
				return true
			}
		}
	}
}

// waitReadable readies the connection to wait inside the poller for its
// next request (goIdle). It returns true, to leave, when the server is
// shutting down.
func (c *conn) waitReadable() bool {
	if c.goIdle() {
		return false
	}
	c.rules.Gone()
	return true
}

// fast says the connection is a socket, with the fast receive and write.
func (s *socket) fast() bool {
	return s.raw != nil
}

// awaitReadable runs step at once and then each time the socket becomes
// readable, until it returns true; an error is the read deadline or a
// close while it waited.
func (s *socket) awaitReadable(step func(fd uintptr) bool) error {
	return s.raw.Read(step)
}

// receive is one try of a socket's read of the next request's first
// bytes into buf, from inside RawConn.Read: again while the socket has
// nothing (wait until it is readable); else the bytes (none: the peer
// closed or the socket failed), and drained when the socket was found
// empty after them, in the same system call.
func (s *socket) receive(fd uintptr, buf []byte, scratch *receiveScratch) (n int, drained, again bool) {
	for {
		n, drained, err := receiveDrained(int(fd), buf, scratch)
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return 0, false, true
		}
		return n, drained, false
	}
}

// write writes out whole; WriteTimeout bounds the time the socket keeps it
// waiting. On a socket the first attempt is one non-blocking write with no
// deadline: an answer to a client that reads fits the send buffer, and
// arming a deadline for every answer costs a timer update each. Only when
// the socket cannot take everything at once is the deadline armed, for
// the rest, and cleared after, so that the next answer does not meet an
// expired one.
func (s *socket) write(out []byte) error {
	if s.raw == nil {
		return s.writePlain(out)
	}
	n, err := s.writeNow(out)
	if err != nil || n == len(out) {
		return err
	}
	err = s.writePlain(out[n:])
	s.nc.SetWriteDeadline(time.Time{})
	return err
}

// writeNow writes what the socket takes of out without waiting.
func (s *socket) writeNow(out []byte) (int, error) {
	s.rawOut, s.rawN, s.rawErr = out, 0, nil
	err := s.raw.Write(s.rawWrite)
	s.rawOut = nil
	if err == nil {
		err = s.rawErr
	}
	return s.rawN, err
}

// writeSocket is writeNow's one write; a full socket is no error, the
// caller waits for it.
func (s *socket) writeSocket(fd uintptr) bool {
	for {
		n, err := syscall.Write(int(fd), s.rawOut)
		if err == syscall.EINTR {
			continue
		}
		if err != syscall.EAGAIN {
			s.rawErr = err
		}
		s.rawN = max(n, 0)
		return true
	}
}
