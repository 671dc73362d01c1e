//go:build unix

package wire

import (
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// The fast path of a Unix socket: the receive waits in the poller with no
// buffer and takes one from the pool only once the socket has bytes to
// read into it, and the write goes out without arming a deadline when the
// socket takes the whole answer at once.

// fastIO reaches a socket's file descriptor through the runtime's poller.
type fastIO struct {
	// raw is nil when nc is not a socket.
	raw syscall.RawConn
	// rawRead and rawWrite are what raw's Read and Write run, made once:
	// a closure per call would be an allocation per request. rawRead
	// reads into a space from rawSpaces and leaves it, with the count, in
	// rawSpace and rawN; rawWrite writes rawOut and leaves its count in
	// rawN. Either leaves a failure in rawErr.
	rawRead   func(fd uintptr) bool
	rawWrite  func(fd uintptr) bool
	rawSpaces *sync.Pool
	rawSpace  *requestSpace
	rawOut    []byte
	rawN      int
	rawErr    error
}

func (s *socket) init(nc net.Conn, cfg *Config) {
	s.nc, s.cfg = nc, cfg
	if sc, ok := nc.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			s.raw, s.rawRead, s.rawWrite = raw, s.readSocket, s.writeSocket
		}
	}
}

// receive waits for the next request's first bytes, within the idle
// deadline markIdle armed, and returns them at the start of a request
// space taken from spaces (nil with n == 0: the deadline passed, or the
// peer closed, or the socket failed, as err says). A socket waits in the
// poller holding no space and takes one only when it is readable, for
// one read(2). It reads before it waits, every time: RawConn.Read forgets
// on entry that the socket became readable, so bytes that came before it
// raise no event it could wait for. Any other net.Conn reads plainly
// (receivePlain).
func (s *socket) receive(spaces *sync.Pool) (space *requestSpace, n int, err error) {
	if s.raw == nil {
		return s.receivePlain(spaces)
	}
	s.rawSpaces = spaces
	if err := s.raw.Read(s.rawRead); err != nil {
		s.rawSpaces = nil
		return nil, 0, err // the wait's: the deadline, or a close
	}
	space, n, err = s.rawSpace, s.rawN, s.rawErr
	s.rawSpaces, s.rawSpace = nil, nil
	return space, n, err
}

// readSocket is receive's one read, which RawConn.Read runs at once and
// then each time the socket becomes readable: false to wait for that,
// true when bytes came (rawSpace, rawN) or the stream ended (rawErr).
func (s *socket) readSocket(fd uintptr) bool {
	space := s.rawSpaces.Get().(*requestSpace)
	for {
		n, err := syscall.Read(int(fd), space.buf)
		switch {
		case err == syscall.EINTR:
			continue
		case n > 0:
			s.rawSpace, s.rawN, s.rawErr = space, n, nil
			return true
		}
		s.rawSpaces.Put(space)
		if err == syscall.EAGAIN {
			return false
		}
		if err == nil {
			err = io.EOF
		}
		s.rawN, s.rawErr = 0, err
		return true
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
