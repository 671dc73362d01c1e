package wire_test

import (
	"bytes"
	"errors"
	"net"
	"strconv"
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
		nc, _ := smallBuffers(t, f.Server)
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
		// A client that a loaded machine keeps from reading for
		// WriteTimeout lets the server cut a write that waited that long,
		// as the bound says it should: that attempt is no longer this
		// case, and the client starts over on a new connection.
		for attempt := 0; !waitedWritesLeaveNoDeadline(t, f.Server, metadata, pipelined, writeTimeout); attempt++ {
			if attempt == 4 {
				t.Fatalf("five times the client could not read within WriteTimeout %v: the machine is too slow to tell", writeTimeout)
			}
			t.Logf("attempt %d: a write waited WriteTimeout for the client; starting over", attempt+1)
		}
	})
}

// waitedWritesLeaveNoDeadline runs, on a connection of its own, two rounds
// of pipelined requests whose answers fill the client's window, so the
// server's writes wait; after each round it waits until every deadline
// those writes armed has passed, and then asks once more: a deadline left
// armed would cut the second round's first wait, or the last answer, at
// once. It returns false if a round was cut once WriteTimeout had passed
// since it began (a write may have waited that long: the bound, not this
// case), and fails the test on a cut any sooner.
func waitedWritesLeaveNoDeadline(t *testing.T, s *wire.Server, metadata []byte, pipelined int, writeTimeout time.Duration) bool {
	t.Helper()
	nc, served := smallBuffers(t, s)
	defer nc.Close()
	c := &benchConn{nc: nc}
	for round := range 2 {
		began := time.Now()
		// Every write of the round starts after began, so the write bound
		// cuts none of them sooner than WriteTimeout after it: a cut
		// sooner is a deadline left armed.
		failIfTooSoon := func(what string, err error) {
			if time.Since(began) < writeTimeout {
				t.Fatalf("round %d: %s, %v after the round began (WriteTimeout %v): %v", round, what, time.Since(began), writeTimeout, err)
			}
		}
		sent := make(chan error, 1)
		go func() {
			_, err := nc.Write(bytes.Repeat(metadata, pipelined))
			sent <- err
		}()
		var queueErr error
		waitFor(t, "the server's answers queue on the full socket", func() bool {
			n, err := sendQueued(served)
			queueErr = err
			return n > 0 || err != nil
		})
		if queueErr != nil {
			failIfTooSoon("the server's socket", queueErr)
			return false
		}
		for i := range pipelined {
			r, err := c.read()
			if err == nil && r.status != 200 {
				t.Fatalf("round %d, answer %d: status %d", round, i, r.status)
			}
			if err != nil {
				failIfTooSoon("answer "+strconv.Itoa(i), err)
				return false
			}
		}
		drained := time.Now()
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
		// Every deadline a write armed is at most WriteTimeout after its
		// start, and every write started before the client read its last
		// answer: past this point each has passed. This wait is the case
		// itself, not a guess at the server: a longer one only makes it
		// surer.
		time.Sleep(time.Until(drained.Add(writeTimeout)))
	}
	if err := c.expect(metadata, 200); err != nil {
		t.Errorf("the answer after the waits: %v", err)
	}
	return true
}

// TestIdleDeadlineMoves checks that the idle deadline follows the
// requests of a connection, though a busy one re-arms it only every few
// milliseconds: a client asking well inside IdleTimeout is never closed.
// The client's pauses are the case itself: it asks every idle/5 until
// twice IdleTimeout has passed, so only a deadline that moves keeps it.
// A pause a loaded machine stretches to IdleTimeout is no longer this
// case, and the client starts over on a new connection.
func TestIdleDeadlineMoves(t *testing.T) {
	const idle = 2 * time.Second
	f := startFixture(t, func(c *wire.Config) { c.SSERetry, c.IdleTimeout = 100*time.Millisecond, idle })
	metadata := []byte("GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: " + f.Addr + "\r\n\r\n")
	for attempt := 0; ; attempt++ {
		c := newBenchConn(t, f.Addr)
		start, last := time.Now(), time.Time{}
		stretched := false
		for i := 0; time.Since(start) < 2*idle; i++ {
			if !last.IsZero() {
				time.Sleep(idle / 5)
				if time.Since(last) >= idle {
					stretched = true
					break
				}
			}
			if err := c.expect(metadata, 200); err != nil {
				t.Fatalf("request %d, %v after the first: %v", i, time.Since(start), err)
			}
			last = time.Now()
		}
		c.nc.Close()
		if !stretched {
			return
		}
		if attempt == 4 {
			t.Fatalf("five times a pause of idle/5 outlasted IdleTimeout %v: the machine is too slow to tell", idle)
		}
	}
}

// smallBuffers connects a client to s through a socket pair of its own,
// with 4 KiB buffers on both sides of the answers: the server's send
// buffer and the client's receive buffer, set before the handshake so
// that the window is small too.
func smallBuffers(t *testing.T, s *wire.Server) (client net.Conn, served *net.TCPConn) {
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
	accepted, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	served = accepted.(*net.TCPConn)
	if err := served.SetWriteBuffer(4096); err != nil {
		t.Fatal(err)
	}
	s.ServeConn(served)
	return nc, served
}
