package wire

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// socket is a connection's I/O beneath the request loop: the idle read,
// the reads within a request into the pooled request buffer, the writes,
// the deadlines and the request's clock. Its invariant:
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
//   - the request buffer is held only while a request is in progress or
//     input waits in it: a waiting connection holds none;
//   - now is the request's start until it waited for the socket, a fresh
//     reading after.
//
// A net.Conn that implements syscall.Conn gets the fast path (a TCP
// connection from Serve, or the fuzz target's socket pair): conn.serveWhole
// serves the requests that arrive whole inside one RawConn.Read, whose
// receive takes a buffer only once bytes are there, lands them where they
// are parsed, and learns in the same system call whether the socket was
// left empty, so that the connection then waits without a read that finds
// nothing; a write the socket takes at once arms no deadline. Any other
// net.Conn (the tests' in-memory ones) does both the plain way.
type socket struct {
	nc     net.Conn
	cfg    *Config
	spaces *sync.Pool // of *requestSpace
	// raw reaches nc's socket; nil when nc is not one.
	raw syscall.RawConn
	// rawWrite is what raw's Write runs, made once: a closure per call
	// would be an allocation per write. It writes rawOut and leaves its
	// count in rawN.
	rawWrite func(fd uintptr) bool
	rawOut   []byte
	rawN     int
	rawErr   error

	space *requestSpace
	// filled is how many bytes of space.buf hold unparsed input.
	filled int
	// start is when the request in progress began, its first byte read:
	// the origin of its ReadTimeout, and its clock while it has not
	// waited for the socket (see now).
	start time.Time
	// readArmed says the request's read deadline is set.
	readArmed bool
	// waited says the request in progress waited for the socket: a
	// second read, or a write the socket could not take at once.
	waited bool
	// readDeadline is the read deadline armed last (armIdle, fill).
	readDeadline time.Time
	// drained says the last receive found the socket empty after the
	// bytes it brought, in the same system call (conn.serveWhole).
	drained bool
	// lingering says an answer that closes the connection was written
	// (an error answer, Connection: close, HTTP/1.0): end half-closes and
	// drains before it closes.
	lingering bool
	// idle is set while the connection waits for a request's first byte,
	// the one wait Shutdown cuts short (wake).
	idle atomic.Bool
}

func (s *socket) init(nc net.Conn, cfg *Config, spaces *sync.Pool) {
	s.nc, s.cfg, s.spaces = nc, cfg, spaces
	if sc, ok := nc.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			s.raw, s.rawWrite = raw, s.writeSocket
		}
	}
}

// markIdle arms the idle deadline and marks the connection idle, so that
// Shutdown wakes it from here on.
func (s *socket) markIdle() {
	s.idle.Store(true)
	s.armIdle(s.now())
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

// readIdle reads the next request's first bytes into a request buffer and
// reports whether any came; a read that brings no byte, whatever its
// error, ends the connection. Sockets do this in conn.serveWhole instead,
// through receive.
func (s *socket) readIdle() bool {
	s.takeSpace()
	s.filled, _ = s.nc.Read(s.space.buf)
	s.idle.Store(false)
	return s.filled > 0
}

// receive is one try of a socket's read of the next request's first
// bytes, from inside RawConn.Read: false, with the buffer back in the
// pool, while the socket has nothing; else true with the bytes in the
// buffer (none: the peer closed or the socket failed), and drained set
// when the socket was found empty after them. The buffer is taken only
// for the read itself, so a waiting connection holds none, and the bytes
// land where they are parsed: no copy, and no second read for a request
// that came whole.
func (s *socket) receive(fd uintptr) bool {
	s.takeSpace()
	for {
		n, drained, err := receiveDrained(int(fd), s.space)
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			s.releaseSpace()
			return false // wait until the socket is readable
		}
		s.filled, s.drained = n, drained
		return true
	}
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

// fill reads once more into the free part of the buffer. The request's
// read deadline covers the whole request from its first byte, so a client
// trickling a byte a second is cut; it is armed here, before the first
// read that could wait.
func (s *socket) fill() error {
	if !s.readArmed {
		s.readDeadline = s.start.Add(s.cfg.ReadTimeout)
		s.nc.SetReadDeadline(s.readDeadline)
		s.readArmed = true
	}
	s.waited = true
	n, err := s.nc.Read(s.space.buf[s.filled:])
	s.filled += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// consume drops the first n bytes of input, keeping what a pipelining
// client sent after them for the next request.
func (s *socket) consume(n int) {
	copy(s.space.buf, s.space.buf[n:s.filled])
	s.filled -= n
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
		s.waited = true // an in-memory write waits for its reader
		s.nc.SetWriteDeadline(s.cfg.Now().Add(s.cfg.WriteTimeout))
		_, err := s.nc.Write(out)
		return err
	}
	n, err := s.writeNow(out)
	if err != nil || n == len(out) {
		return err
	}
	s.waited = true
	s.nc.SetWriteDeadline(s.cfg.Now().Add(s.cfg.WriteTimeout))
	_, err = s.nc.Write(out[n:])
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

// wake makes a connection blocked in its idle read return at once
// (graceful shutdown); a connection inside a request is left to finish.
// It runs on Shutdown's goroutine: it writes only the deadline, which
// net.Conn allows concurrently, and leaves readDeadline to its owner.
func (s *socket) wake() {
	if s.idle.Load() {
		s.nc.SetReadDeadline(time.Unix(1, 0))
	}
}

func (s *socket) takeSpace() {
	if s.space == nil {
		s.space = s.spaces.Get().(*requestSpace)
	}
}

// releaseSpace returns the space to the pool once no input is waiting in
// it. Nothing is cleared: Parse resets the request, finish overwrites out,
// and neither refers to anything outside the space.
func (s *socket) releaseSpace() {
	if s.space != nil && s.filled == 0 {
		s.spaces.Put(s.space)
		s.space = nil
	}
}

// release drops any input and returns the space.
func (s *socket) release() {
	s.filled = 0
	s.releaseSpace()
}

// end ends the connection: after an answer that closed it, half-closed and
// drained first (closeGracefully); the space back in the pool; closed.
func (s *socket) end() {
	if s.lingering {
		s.closeGracefully()
	}
	s.release()
	s.nc.Close()
}

// closeGracefully half-closes and drains a bounded amount, so the client
// reads the answer instead of a reset caused by unread bytes (RFC 9112
// §9.6), and nothing it sent after is ever parsed as a request.
func (s *socket) closeGracefully() {
	// Nothing read from here on is parsed, so the buffer goes back first: a
	// draining connection, even one refused over MaxConns, costs no more
	// than an idle one.
	s.release()
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
