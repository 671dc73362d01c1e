package wire_test

import (
	"bytes"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"

	"rawmcp/wire"
)

// TestWriteDeadline checks the write bound: a client that stops reading
// holds the connection at most WriteTimeout, and a write that had to wait
// and then finished leaves no deadline behind for the next answer. The
// answers are pipelined through 4 KiB socket buffers, so the server's
// writes wait for the socket.
func TestWriteDeadline(t *testing.T) {
	const writeTimeout = time.Second
	f := startFixture(t, func(c *wire.Config) { c.WriteTimeout = writeTimeout })
	metadata := []byte("GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: " + f.Addr + "\r\n\r\n")
	const pipelined = 200 // about 90 KB of answers
	t.Run("write bound/a client that stops reading is cut", func(t *testing.T) {
		t.Parallel()
		nc := smallBuffers(t, f.Server)
		// Only the server closing can end these writes before the client's
		// own deadline: while it waits to write it reads nothing.
		nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		var err error
		for err == nil {
			_, err = nc.Write(bytes.Repeat(metadata, pipelined))
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("the server kept the connection of a client that stopped reading: %v", err)
		}
	})
	t.Run("write bound/an answer after a write that waited is written", func(t *testing.T) {
		t.Parallel()
		nc := smallBuffers(t, f.Server)
		c := &benchConn{nc: nc}
		sent := make(chan error, 1)
		go func() {
			_, err := nc.Write(bytes.Repeat(metadata, pipelined))
			sent <- err
		}()
		time.Sleep(100 * time.Millisecond) // the server fills the socket and waits
		for i := range pipelined {
			r, err := c.read()
			if err != nil || r.status != 200 {
				t.Fatalf("answer %d: status %d, %v", i, r.status, err)
			}
		}
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
		// Past the deadline that last wait armed: it must not fail the next
		// answer.
		time.Sleep(writeTimeout + 200*time.Millisecond)
		if err := c.expect(metadata, 200); err != nil {
			t.Errorf("the answer after the wait: %v", err)
		}
	})
}

// TestIdleDeadlineMoves checks that the idle deadline follows the
// requests of a connection, though a busy one re-arms it only every few
// milliseconds: a client asking well inside IdleTimeout is never closed.
func TestIdleDeadlineMoves(t *testing.T) {
	// Ten waits of idle/5 outlast idle twice, and each leaves 4/5 of it as
	// a margin a loaded machine's slow wake-up cannot use up.
	const idle = 2 * time.Second
	f := startFixture(t, func(c *wire.Config) { c.SSERetry, c.IdleTimeout = 100*time.Millisecond, idle })
	metadata := []byte("GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: " + f.Addr + "\r\n\r\n")
	c := newBenchConn(t, f.Addr)
	for i := range 10 {
		if err := c.expect(metadata, 200); err != nil {
			t.Fatalf("request %d, %v after the first: %v", i, time.Duration(i)*idle/5, err)
		}
		time.Sleep(idle / 5)
	}
}

// smallBuffers connects a client to s through a socket pair of its own,
// with 4 KiB buffers on both sides of the answers: the server's send
// buffer and the client's receive buffer, set before the handshake so
// that the window is small too.
func smallBuffers(t *testing.T, s *wire.Server) net.Conn {
	t.Helper()
	ln, err := wire.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, rc syscall.RawConn) error {
		var err error
		rc.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		return err
	}}
	nc, err := d.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	served, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if err := served.(*net.TCPConn).SetWriteBuffer(4096); err != nil {
		t.Fatal(err)
	}
	s.ServeConn(served)
	return nc
}
