package wire_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire"
)

// Graceful shutdown with requests in flight, connections idle and
// clients still sending: every request is either answered whole or
// refused by a close before any byte of an answer; none is cut in the
// middle of a response.

// busyClient pings on one keep-alive connection until the server closes
// it, and remembers how that went.
type busyClient struct {
	answered int
	wrong    int  // answers that were not a correct ping answer
	cut      bool // the connection closed with part of a response read
}

func (b *busyClient) run(c *benchConn, raw []byte, stop <-chan struct{}, firstAnswer func()) {
	defer func() {
		if b.answered == 0 {
			firstAnswer()
		}
	}()
	for {
		select {
		case <-stop:
			return
		default:
		}
		if c.send(raw) != nil {
			return
		}
		r, err := c.read()
		if err != nil {
			b.cut = c.partial()
			return
		}
		b.answered++
		if b.answered == 1 {
			firstAnswer()
		}
		if benchMethods[0].check(r) != nil {
			b.wrong++
		}
		if r.close {
			return
		}
	}
}

func TestResilienceGracefulShutdown(t *testing.T) {
	const held, idle, busy = 16, 16, 8
	srv, fx := startBenchRawmcp(t, benchTableConfig(), func(cfg *wire.Config) {
		// The held requests wait for the test, not for a deadline.
		cfg.ReadTimeout = 10 * time.Second
	})
	raw := srv.ping("")
	// Requests in processing: whole heads, bodies withheld.
	heldConns := make([]*net.TCPConn, held)
	bodies := make([][]byte, held)
	for i := range heldConns {
		heldConns[i], bodies[i] = holdInProcessing(t, srv)
	}
	// Idle keep-alive connections, each after one answered ping.
	idleConns := make([]*benchConn, idle)
	for i := range idleConns {
		idleConns[i] = newBenchConn(t, srv.addr)
		if err := benchRoundTrip(idleConns[i], raw, benchMethods[0]); err != nil {
			t.Fatal(err)
		}
	}
	// Clients pinging as fast as they can through the shutdown.
	busyClients := make([]busyClient, busy)
	stop := make(chan struct{})
	var wg, running sync.WaitGroup
	running.Add(busy)
	for i := range busyClients {
		c := newBenchConn(t, srv.addr)
		wg.Go(func() { busyClients[i].run(c, raw, stop, running.Done) })
	}
	running.Wait()

	shutdown := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shutdown <- fx.Server.Shutdown(ctx)
	}()
	// The listener closes first: new connections are refused.
	for deadline := time.Now().Add(5 * time.Second); ; {
		nc, err := net.DialTimeout("tcp", srv.addr, time.Second)
		if err != nil {
			break
		}
		nc.Close()
		if time.Now().After(deadline) {
			t.Fatal("the listener still accepts 5 s into the shutdown")
		}
	}
	select {
	case err := <-shutdown:
		t.Fatalf("Shutdown returned %v with %d requests still in processing", err, held)
	default:
	}

	// The requests in processing complete, each with a whole answer, and
	// their connections then close.
	for i, nc := range heldConns {
		nc.Write(bodies[i])
		got := readUntilClosed(nc, 5*time.Second)
		if len(got.responses) != 1 || !answersPing(got.responses[0]) || len(got.rest) != 0 || !got.closed {
			t.Errorf("held request %d: statuses %v, %d stray bytes, closed %v; want one correct answer, then close",
				i, statusesOf(got.responses), len(got.rest), got.closed)
		}
	}
	if err := <-shutdown; err != nil {
		t.Errorf("Shutdown = %v, want nil: every request finished in time", err)
	}
	close(stop)
	wg.Wait()
	// Idle connections were closed without a byte: the client retries.
	for i, c := range idleConns {
		rest, closed := readRaw(c.nc, 5*time.Second)
		if len(rest) != 0 || !closed {
			t.Errorf("idle connection %d: %d bytes, closed %v; want a close without an answer", i, len(rest), closed)
		}
	}
	for i, b := range busyClients {
		if b.cut || b.wrong != 0 || b.answered == 0 {
			t.Errorf("busy client %d: %d answered, %d wrong, cut mid-response %v", i, b.answered, b.wrong, b.cut)
		}
	}
}

// TestResilienceShutdownDeadline: a request that never completes does not
// hold Shutdown past its context; its connection is closed without a byte
// of an answer.
func TestResilienceShutdownDeadline(t *testing.T) {
	srv, fx := startBenchRawmcp(t, benchTableConfig(), func(cfg *wire.Config) {
		cfg.ReadTimeout = 10 * time.Second
	})
	nc, _ := holdInProcessing(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := fx.Server.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown = %v, want context.DeadlineExceeded", err)
	}
	got := readUntilClosed(nc, 5*time.Second)
	if diff := cmp.Diff([]int{}, statusesOf(got.responses)); diff != "" || len(got.rest) != 0 || !got.closed {
		t.Errorf("statuses (-want +got):\n%s\n%d stray bytes, closed %v", diff, len(got.rest), got.closed)
	}
}
