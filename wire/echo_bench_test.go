package wire_test

import (
	"net"
	"sync"
	"testing"

	"rawmcp/wire"
)

// echoServer is the floor of the end-to-end and memory benchmarks: a raw
// socket server with nothing in the way. A connection goroutine reads into
// a 1 KiB array and, for every reqLen bytes read, writes resp: a copy of
// rawmcp's answer to the same request, so the floor moves the same bytes
// through the same syscalls. It parses nothing, checks nothing and sets no
// deadline; what rawmcp spends above it is HTTP, MCP, policy and bounds.
type echoServer struct {
	reqLen int
	resp   []byte
}

// startEcho serves the floor on a fresh 127.0.0.1 port until the test
// ends and returns its address.
func startEcho(tb testing.TB, reqLen int, resp []byte) string {
	tb.Helper()
	ln, err := wire.Listen("127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	e := &echoServer{reqLen: reqLen, resp: resp}
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
				e.serve(nc)
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
