package wire

import (
	"crypto/rand"
	"io"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"rawmcp/policy"
	"rawmcp/state"
)

// scriptedConn is a client that sent input and then waits: reads return
// input, then EOF. It records the half-close and calls onDrain at the
// first read after it.
type scriptedConn struct {
	input      []byte
	written    []byte
	halfClosed bool
	onDrain    func()
}

func (c *scriptedConn) Read(p []byte) (int, error) {
	if c.halfClosed && c.onDrain != nil {
		c.onDrain()
		c.onDrain = nil
	}
	if len(c.input) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.input)
	c.input = c.input[n:]
	return n, nil
}

func (c *scriptedConn) Write(p []byte) (int, error) {
	c.written = append(c.written, p...)
	return len(p), nil
}

func (c *scriptedConn) CloseWrite() error                { c.halfClosed = true; return nil }
func (c *scriptedConn) Close() error                     { return nil }
func (c *scriptedConn) LocalAddr() net.Addr              { return nil }
func (c *scriptedConn) RemoteAddr() net.Addr             { return nil }
func (c *scriptedConn) SetDeadline(time.Time) error      { return nil }
func (c *scriptedConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptedConn) SetWriteDeadline(time.Time) error { return nil }

func newTestServer(t *testing.T) *Server {
	t.Helper()
	p, err := policy.New(policy.Config{
		CanonicalURI: "http://127.0.0.1:8080/mcp",
		Issuer:       "https://as.example",
		AllowedHosts: []string{"127.0.0.1:8080"},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(NewConfig(p, state.NewTable(state.DefaultConfig(), rand.Reader)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDrainHoldsNoRequestBuffer: after an error answer the connection
// drains what the client still sends for up to 500 ms. It does so without
// its request buffer, so connections refused over MaxConns, which that cap
// does not count, cannot pile buffers up while they drain.
func TestDrainHoldsNoRequestBuffer(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(c *conn)
	}{
		{"H-P09/a refused request drains without its buffer", (*conn).serve},
		{"H-P15/a connection over the cap drains without a buffer", (*conn).refuseOverCapacity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc := &scriptedConn{input: []byte("GET /mcp HTTP/1.1\nHost: 127.0.0.1:8080\n\n")}
			c := newConn(newTestServer(t), nc)
			held := false
			nc.onDrain = func() { held = c.space != nil }
			tc.run(c)
			if !nc.halfClosed || nc.onDrain != nil {
				t.Fatalf("half-closed %v, drained %v: the answer was not followed by a drain", nc.halfClosed, nc.onDrain == nil)
			}
			if held {
				t.Error("the connection held its request buffer while draining")
			}
		})
	}
}

// TestIdleHoldsNoRequestBuffer: a keep-alive connection waiting for its
// next request holds no request space, whether it waits in the poller (a
// socket) or in a plain read (any other net.Conn), so idle connections
// cost no ~20 KiB buffer each. It looks once the connection is marked
// idle after its answer: the space was given back before the mark.
func TestIdleHoldsNoRequestBuffer(t *testing.T) {
	const metadata = "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"
	for _, tc := range []struct {
		name string
		pair func(testing.TB) (net.Conn, net.Conn)
	}{
		{"on a socket, the wait in the poller", streamPair},
		{"in memory, a plain read", func(testing.TB) (net.Conn, net.Conn) { return net.Pipe() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server, client := tc.pair(t)
			c := newConn(newTestServer(t), server)
			var served sync.WaitGroup
			served.Go(c.serve)
			defer served.Wait()
			defer client.Close()
			client.Write([]byte(metadata))
			if line := readStatusLine(t, client); line != "HTTP/1.1 200 OK" {
				t.Fatalf("answer %q", line)
			}
			for !c.sock.idle.Load() {
				runtime.Gosched()
			}
			if c.space != nil {
				t.Error("the idle connection holds a request space")
			}
		})
	}
}
