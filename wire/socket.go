package wire

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// socket is a connection's I/O beneath its rules (h1.Conn) and their
// driver (conn): the receive of a request's first bytes into a pooled
// request space it takes only once they come, the reads of the rest into
// the slice it is given, the writes, the deadlines, the idle mark
// Shutdown wakes, the request's clock, the close. It holds no request
// state. Its invariant:
//
//   - every read that can wait has its deadline armed first: the idle read
//     IdleTimeout after the last request began (at most idleGranularity
//     early), every other read of a request ReadTimeout after the
//     request's first byte; beyond that no read deadline is written, so a
//     request that arrives in the read that brought its first byte costs
//     none, and a busy connection moves its idle deadline only every
//     idleGranularity;
//   - the write deadline is zero except while a write the socket could not
//     take at once waits for the rest (an in-memory connection, which
//     always waits for its reader, arms it for every write);
//   - now is the request's start until it waited for the socket, a fresh
//     reading after.
//
// On a Unix system, a net.Conn that implements syscall.Conn (a TCP
// connection from Serve, or the fuzz target's socket pair) gets the
// receive and write of poller_unix.go; any other (the tests' in-memory
// ones, every connection elsewhere) receives a byte at first and writes
// plainly.
type socket struct {
	nc  net.Conn
	cfg *Config
	// fastIO reaches nc's socket, where there is one (poller_unix.go).
	fastIO

	// start is when the request in progress began, its first byte read:
	// the origin of its ReadTimeout, and its clock while it has not
	// waited for the socket (see now).
	start time.Time
	// readArmed says the request's read deadline is set.
	readArmed bool
	// waited says the request in progress waited for the socket: a
	// second read, or a write the socket could not take at once.
	waited bool
	// readDeadline is the read deadline armed last (armIdle, readMore).
	readDeadline time.Time
	// idle is set while the connection waits for a request's first byte,
	// the one wait Shutdown cuts short (wake).
	idle atomic.Bool
	// first is where receivePlain waits for a request's first byte.
	first [1]byte
}

// markIdle arms the idle deadline and marks the connection idle, so that
// Shutdown wakes it from here on.
func (s *socket) markIdle() {
	s.idle.Store(true)
	s.armIdle(s.now())
}

// markBusy ends the idle mark: a request's first bytes came.
func (s *socket) markBusy() {
	s.idle.Store(false)
}

// armIdle arms the idle deadline, IdleTimeout after from: the start of
// the request just answered, or a fresh reading if it waited. A busy
// connection would move its timer with every request, so the deadline
// stays where it is while it would move by less than idleGranularity: an
// idle connection is closed at most IdleTimeout after its last request
// began, and at most idleGranularity (plus that request's own time)
// sooner.
func (s *socket) armIdle(from time.Time) {
	deadline := from.Add(s.cfg.IdleTimeout)
	if moved := deadline.Sub(s.readDeadline); moved >= 0 && moved < idleGranularity {
		return
	}
	s.nc.SetReadDeadline(deadline)
	s.readDeadline = deadline
}

// idleGranularity is how far the idle deadline may be early (armIdle):
// far below IdleTimeout's margin over SSERetry.
const idleGranularity = 10 * time.Millisecond

// receivePlain is receive on a net.Conn that is not a socket, or where
// there is no fast path: a plain read can wait only with a buffer to read
// into, so it waits for one byte, into the socket's own first, and takes
// a request space only once that came. The rest of the request comes
// through readMore, within the request's deadline.
func (s *socket) receivePlain(spaces *sync.Pool) (*requestSpace, int, error) {
	if n, err := s.nc.Read(s.first[:]); n == 0 {
		return nil, 0, err
	}
	space := spaces.Get().(*requestSpace)
	space.buf[0] = s.first[0]
	return space, 1, nil
}

// begin starts the clock of a request whose first bytes are in the buffer.
func (s *socket) begin() {
	s.start = s.cfg.Now()
	s.readArmed, s.waited = false, false
}

// now is the clock of the request in progress: its start while it has not
// waited for the socket (microseconds ago), else a fresh reading.
func (s *socket) now() time.Time {
	if s.waited || s.start.IsZero() {
		return s.cfg.Now()
	}
	return s.start
}

// readMore reads more of the request in progress into buf. The request's
// read deadline covers the whole request from its first byte, so a client
// trickling a byte a second is cut; it is armed here, before the first
// read that could wait.
func (s *socket) readMore(buf []byte) (int, error) {
	if !s.readArmed {
		s.readDeadline = s.start.Add(s.cfg.ReadTimeout)
		s.nc.SetReadDeadline(s.readDeadline)
		s.readArmed = true
	}
	s.waited = true
	return s.nc.Read(buf)
}

// writePlain writes out whole through the net.Conn, within WriteTimeout:
// the write of a connection without the fast path, and of one whose fast
// write the socket could not take at once (the rest).
func (s *socket) writePlain(out []byte) error {
	s.waited = true // it may wait for its reader
	s.nc.SetWriteDeadline(s.cfg.Now().Add(s.cfg.WriteTimeout))
	_, err := s.nc.Write(out)
	return err
}

// wake makes a connection blocked in its idle read return at once
// (graceful shutdown); a connection inside a request is left to finish.
// It runs on Shutdown's goroutine: it writes only the deadline, which
// net.Conn allows concurrently, and leaves readDeadline to its owner.
func (s *socket) wake() {
	if s.idle.Load() {
		s.nc.SetReadDeadline(time.Unix(1, 0))
	}
}

// close closes the connection. Shutdown's last resort calls it from its
// own goroutine, under a request in progress: net.Conn allows a
// concurrent Close.
func (s *socket) close() {
	s.nc.Close()
}

// closeGracefully half-closes and drains a bounded amount, so the client
// reads the answer instead of a reset caused by unread bytes (RFC 9112
// §9.6); nothing it sent after is ever parsed as a request. The caller
// closes after.
func (s *socket) closeGracefully() {
	type closeWriter interface{ CloseWrite() error }
	if cw, ok := s.nc.(closeWriter); ok {
		cw.CloseWrite()
		s.nc.SetReadDeadline(s.cfg.Now().Add(drainTimeout))
		io.CopyN(io.Discard, s.nc, drainLimit)
	}
}

// The drain after an error is bounded in bytes and time, so a client
// cannot keep the connection by streaming garbage.
const (
	drainLimit   = 64 << 10
	drainTimeout = 500 * time.Millisecond
)
