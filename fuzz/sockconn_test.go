package fuzz

import (
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
)

// sockConn is the server's end of a connected AF_UNIX stream socket pair:
// a *net.UnixConn, so it implements syscall.Conn and CloseWrite and the
// server runs on it exactly the socket code it runs on TCP (the idle read
// through RawConn into the pooled buffer, the non-blocking first write,
// the half-close and drain). The kernel buffers and coalesces what the
// client writes as it would on loopback.
//
// It watches the server's writes, through its own Write and the RawConn's
// Write alike, and records any that comes after CloseWrite or Close as
// "something answered after a close"; Close signals the end of the
// connection on done.
type sockConn struct {
	*net.UnixConn
	mu          sync.Mutex
	writeClosed bool
	closed      bool
	lateWrites  int
	done        chan struct{}
}

// socketPair returns the server's end, watched, and the client's end of
// a new socket pair; the test closes the client's end.
func socketPair(tb testing.TB) (*sockConn, *net.UnixConn) {
	tb.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		tb.Fatalf("socketpair: %v", err)
	}
	var ends [2]*net.UnixConn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "fuzz socket")
		nc, err := net.FileConn(f) // a dup of fd, in the runtime's poller
		f.Close()
		if err != nil {
			tb.Fatalf("FileConn: %v", err)
		}
		ends[i] = nc.(*net.UnixConn)
	}
	return &sockConn{UnixConn: ends[0], done: make(chan struct{})}, ends[1]
}

// SyscallConn hands the server the socket's RawConn, watched.
func (c *sockConn) SyscallConn() (syscall.RawConn, error) {
	raw, err := c.UnixConn.SyscallConn()
	if err != nil {
		return nil, err
	}
	return watchedRaw{raw, c}, nil
}

// watchedRaw is the socket's RawConn with its writes counted.
type watchedRaw struct {
	syscall.RawConn
	c *sockConn
}

func (r watchedRaw) Write(f func(fd uintptr) bool) error {
	r.c.noteWrite()
	return r.RawConn.Write(f)
}

func (c *sockConn) Write(p []byte) (int, error) {
	c.noteWrite()
	return c.UnixConn.Write(p)
}

func (c *sockConn) noteWrite() {
	c.mu.Lock()
	if c.closed || c.writeClosed {
		c.lateWrites++
	}
	c.mu.Unlock()
}

// CloseWrite is the half-close the server makes before draining.
func (c *sockConn) CloseWrite() error {
	c.mu.Lock()
	c.writeClosed = true
	c.mu.Unlock()
	return c.UnixConn.CloseWrite()
}

func (c *sockConn) Close() error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.done)
	}
	c.mu.Unlock()
	return c.UnixConn.Close()
}

// late returns how many writes came after a close.
func (c *sockConn) late() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lateWrites
}
