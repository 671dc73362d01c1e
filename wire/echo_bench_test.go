package wire_test

import (
	"net"
	"sync"
	"syscall"
	"testing"

	"rawmcp/wire"
)

// echoServer is the floor of the end-to-end and memory benchmarks: a raw
// socket server with nothing in the way. A connection goroutine reads into
// a 1 KiB array and, for every reqLen bytes read, writes resp: a copy of
// rawmcp's answer to the same request, so the floor moves the same bytes.
// It parses nothing, checks nothing and sets no deadline.
//
// It comes in two forms. The plain one (serve) reads as net.Conn does,
// and as rawmcp does on a socket: until a read finds nothing, then waits,
// three system calls per keep-alive request, so what rawmcp spends above
// it is HTTP, MCP, policy and bounds. The receiving one (serveReceiving)
// is the least a server on the runtime's poller can spend: it answers
// inside one RawConn.Read that never returns, whose one recvmmsg also
// finds the socket empty, so it waits without that last read, two system
// calls per request. A server that returns from RawConn.Read between
// requests, as rawmcp does, cannot skip that read: RawConn.Read forgets
// on entry that the socket became readable.
type echoServer struct {
	reqLen    int
	resp      []byte
	receiving bool
}

// startEcho serves the floor on a fresh 127.0.0.1 port until the test
// ends and returns its address; receiving chooses the receiving form.
func startEcho(tb testing.TB, reqLen int, resp []byte, receiving bool) string {
	tb.Helper()
	ln, err := wire.Listen("127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	e := &echoServer{reqLen: reqLen, resp: resp, receiving: receiving}
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := map[net.Conn]struct{}{}
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open[nc] = struct{}{}
			mu.Unlock()
			wg.Go(func() {
				if e.receiving {
					e.serveReceiving(nc)
				} else {
					e.serve(nc)
				}
				mu.Lock()
				delete(open, nc)
				mu.Unlock()
			})
		}
	})
	tb.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for nc := range open {
			nc.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

func (e *echoServer) serve(nc net.Conn) {
	defer nc.Close()
	var buf [1 << 10]byte
	pending := 0
	for {
		n, err := nc.Read(buf[:])
		for pending += n; pending >= e.reqLen; pending -= e.reqLen {
			if _, err := nc.Write(e.resp); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (e *echoServer) serveReceiving(nc net.Conn) {
	defer nc.Close()
	raw, err := nc.(syscall.Conn).SyscallConn()
	if err != nil {
		return
	}
	var buf [1 << 10]byte
	var scratch receiveScratch
	pending, drained := 0, false
	raw.Read(func(fd uintptr) bool {
		for {
			if drained {
				drained = false
				return false // the next byte raises the event the wait returns on
			}
			n, left, err := receiveDrained(int(fd), buf[:], &scratch)
			switch {
			case err == syscall.EAGAIN:
				return false
			case err != nil || n == 0:
				return true
			}
			drained = left
			for pending += n; pending >= e.reqLen; pending -= e.reqLen {
				if _, err := nc.Write(e.resp); err != nil {
					return true
				}
			}
		}
	})
}
