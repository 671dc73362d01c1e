package fuzz

import (
	"io"
	"net"
	"sync"
	"time"
)

// memConn is a net.Conn over a fixed input, for feeding the whole server
// raw bytes without sockets. Read hands out the input, at most chunk bytes
// per call (0: all at once), then io.EOF, so a request cut short costs no
// read-deadline wait: the server sees the peer close. Write appends to an
// output buffer. Deadlines are no-ops, since no Read or Write ever blocks.
// Close signals the end of the connection on Done.
//
// It implements CloseWrite like *net.TCPConn, so the server half-closes
// and drains after an error answer exactly as on a socket; any Write after
// CloseWrite or Close is recorded, as "something answered after a close".
type memConn struct {
	mu          sync.Mutex
	input       []byte
	chunk       int
	output      []byte
	writeClosed bool
	closed      bool
	lateWrites  int
	done        chan struct{}
}

func newMemConn(input []byte, chunk int) *memConn {
	return &memConn{input: input, chunk: chunk, done: make(chan struct{})}
}

func (c *memConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, net.ErrClosed
	}
	if len(c.input) == 0 {
		return 0, io.EOF
	}
	if c.chunk > 0 && len(p) > c.chunk {
		p = p[:c.chunk]
	}
	n := copy(p, c.input)
	c.input = c.input[n:]
	return n, nil
}

func (c *memConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.writeClosed {
		c.lateWrites++
		return 0, net.ErrClosed
	}
	c.output = append(c.output, p...)
	return len(p), nil
}

// CloseWrite is the half-close the server makes before draining.
func (c *memConn) CloseWrite() error {
	c.mu.Lock()
	c.writeClosed = true
	c.mu.Unlock()
	return nil
}

func (c *memConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		close(c.done)
	}
	return nil
}

// Done is closed when the server closes the connection.
func (c *memConn) Done() <-chan struct{} { return c.done }

// Output returns what the server wrote and how many writes came after a
// close.
func (c *memConn) Output() (out []byte, lateWrites int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.output, c.lateWrites
}

var (
	memServerAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	memClientAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
)

func (c *memConn) LocalAddr() net.Addr              { return memServerAddr }
func (c *memConn) RemoteAddr() net.Addr             { return memClientAddr }
func (c *memConn) SetDeadline(time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }
