package wire_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"net"
	"os"
	"rawmcp/wire/client"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/scenario"
)

// ownConfig is the default Config of a server with a policy and a
// session table of its own.
func ownConfig(t *testing.T) wire.Config {
	p, _ := benchPolicy(t, "127.0.0.1:9")
	return wire.NewConfig(p, state.NewTable(state.DefaultConfig(), rand.Reader))
}

// scriptedListener returns errs from Accept, in order, then blocks until
// it is closed.
type scriptedListener struct {
	errs    []error
	accepts atomic.Int32
	closed  chan struct{}
	once    sync.Once
}

func (l *scriptedListener) Accept() (net.Conn, error) {
	if n := int(l.accepts.Add(1)); n <= len(l.errs) {
		return nil, l.errs[n-1]
	}
	<-l.closed
	return nil, net.ErrClosed
}

func (l *scriptedListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *scriptedListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

func acceptError(errno syscall.Errno) error {
	return &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", errno)}
}

// TestServeOutlivesAcceptErrors: running out of file descriptors is
// temporary (connections wait in the kernel's backlog until some close),
// so Serve keeps accepting, as net/http does; any other accept error ends
// Serve with that error.
func TestServeOutlivesAcceptErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		errs []error
		want error // what Serve returns; nil: it keeps accepting until Shutdown
	}{
		{"accept/EMFILE (process out of descriptors) is retried", []error{acceptError(syscall.EMFILE), acceptError(syscall.EMFILE)}, nil},
		{"accept/ENFILE (system out of descriptors) is retried", []error{acceptError(syscall.ENFILE)}, nil},
		{"accept/any other accept error ends Serve", []error{boom}, boom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := wire.NewServer(ownConfig(t))
			if err != nil {
				t.Fatal(err)
			}
			ln := &scriptedListener{errs: tc.errs, closed: make(chan struct{})}
			served := make(chan error, 1)
			go func() { served <- srv.Serve(ln) }()
			if tc.want != nil {
				if err := <-served; !errors.Is(err, tc.want) {
					t.Errorf("Serve = %v, want %v", err, tc.want)
				}
				return
			}
			for deadline := time.Now().Add(5 * time.Second); int(ln.accepts.Load()) <= len(tc.errs); {
				select {
				case err := <-served:
					t.Fatalf("Serve returned %v after %d accepts, want it to keep accepting", err, ln.accepts.Load())
				case <-time.After(time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("Serve stopped calling Accept after %d calls", ln.accepts.Load())
				}
			}
			if err := srv.Shutdown(context.Background()); err != nil {
				t.Errorf("Shutdown = %v", err)
			}
			if err := <-served; err != nil {
				t.Errorf("Serve = %v after Shutdown, want nil", err)
			}
		})
	}
}

// TestServeAfterShutdown: Serve on a server already shut down returns nil
// at once and closes the listener, so no connection waits in its backlog.
func TestServeAfterShutdown(t *testing.T) {
	srv, err := wire.NewServer(ownConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
	ln := &scriptedListener{closed: make(chan struct{})}
	if err := srv.Serve(ln); err != nil {
		t.Errorf("Serve = %v, want nil", err)
	}
	select {
	case <-ln.closed:
	default:
		t.Error("the listener was left open")
	}
}

// TestShutdownAnswersWithClose: a request in processing when Shutdown
// starts is answered whole, and the answer says Connection: close, since
// the server keeps no connection from then on (H-40, H-38).
func TestShutdownAnswersWithClose(t *testing.T) {
	f := startFixture(t, nil)
	sid := openSession(t, f, "alice")
	req := post(f, f.Tokens["alice"], pingBody, append(inSession(sid), [2]string{"Expect", "100-continue"})...).Bytes()
	head := requestHead(req)
	nc := dial(t, f.Addr)
	nc.Write(head)
	const interim = "HTTP/1.1 100 Continue\r\n\r\n"
	got := make([]byte, len(interim))
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := nc.Read(got); err != nil || string(got[:n]) != interim {
		t.Fatalf("interim answer = %q, %v", got[:n], err)
	}
	shutdown := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shutdown <- f.Server.Shutdown(ctx)
	}()
	for deadline := time.Now().Add(5 * time.Second); ; {
		probe, err := net.DialTimeout("tcp", f.Addr, time.Second)
		if err != nil {
			break
		}
		probe.Close()
		if time.Now().After(deadline) {
			t.Fatal("the listener still accepts 5 s into the shutdown")
		}
	}
	nc.Write(req[len(head):])
	answers, _ := readAll(t, nc)
	nc.Close() // ends the server's drain at once
	if diff := cmp.Diff([]int{200}, statuses(answers)); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s", diff)
	}
	if v, _ := answers[0].Get("Connection"); v != "close" {
		t.Errorf("Connection = %q, want close: the server closes after this answer", v)
	}
	if err := <-shutdown; err != nil {
		t.Errorf("Shutdown = %v", err)
	}
}

// TestMaxConns checks the open-connection cap at the limit and one past
// it: the connection that reaches MaxConns is served, the next one gets
// 503 with Retry-After at once and is closed.
func TestMaxConns(t *testing.T) {
	const limit = 3
	f := startFixture(t, func(c *wire.Config) { c.MaxConns = limit })
	ping := post(f, f.Tokens["alice"], pingBody).Bytes()
	// Keep-alive connections stay open after their answer, so each one
	// answered here holds a place until the whole test ends.
	outer := t
	open := func(t *testing.T) {
		t.Helper()
		c := client.New(f.Addr)
		outer.Cleanup(c.Close)
		resp, err := c.Do(ping, false)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != 200 || c.Closed() {
			t.Fatalf("status %d, closed %v; want 200 on a connection kept open", resp.Status, c.Closed())
		}
	}
	for range limit - 1 {
		open(t)
	}
	t.Run("H-P15/the connection that reaches MaxConns is served", func(t *testing.T) {
		open(t)
	})
	t.Run("H-P15/one connection past MaxConns gets 503 with Retry-After, then close", func(t *testing.T) {
		resp := do(t, f, ping)
		if resp.Status != 503 {
			t.Fatalf("status = %d, want 503", resp.Status)
		}
		if v, _ := resp.Get("Retry-After"); v != "1" || !resp.Close {
			t.Errorf("Retry-After %q, Connection: close %v; want 1, true", v, resp.Close)
		}
	})
}

// TestMaxResponse checks the response cap at the limit and one byte past
// it: an answer of exactly MaxResponse bytes is written; one byte more is
// replaced by the constant 500, which closes. The default is the
// profile's 64 KiB.
func TestMaxResponse(t *testing.T) {
	f := startFixture(t, nil)
	if got := ownConfig(t).MaxResponse; got != 64<<10 {
		t.Errorf("default MaxResponse = %d, want 64 KiB", got)
	}
	// The answer to a ping that closes the connection has the same size on
	// every server: nothing in it depends on the port, the token or the
	// clock (Date has a fixed width).
	ping := func(f *scenario.Fixture) ([]*httpparse.Response, []byte) {
		nc := dial(t, f.Addr)
		defer nc.Close() // ends the server's drain at once
		nc.Write(post(f, f.Tokens["alice"], pingBody, [2]string{"Connection", "close"}).Bytes())
		return readAll(t, nc)
	}
	_, answer := ping(f)
	for _, tc := range []struct {
		name   string
		limit  int
		status int
	}{
		{"profile/an answer of exactly MaxResponse bytes is written", len(answer), 200},
		{"profile/an answer one byte past MaxResponse is a 500", len(answer) - 1, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := startFixture(t, func(c *wire.Config) { c.MaxResponse = tc.limit })
			resps, raw := ping(f)
			if diff := cmp.Diff([]int{tc.status}, statuses(resps)); diff != "" {
				t.Fatalf("statuses (-want +got):\n%s", diff)
			}
			switch tc.status {
			case 200:
				if !bytes.Equal(raw, answer) {
					t.Errorf("answer %q, want %q", raw, answer)
				}
			case 500:
				if diff := cmp.Diff(httpError("Internal Server Error"), string(resps[0].Body)); diff != "" || !resps[0].Close {
					t.Errorf("body (-want +got):\n%s\nConnection: close %v", diff, resps[0].Close)
				}
			}
		})
	}
}
