package wire_test

import (
	"net"
	"rawmcp/wire/client"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/mcp"
)

// Faults: clients that vanish or half-close at every point of an
// exchange, and byte streams that are too large or not HTTP at all. The
// server must leak no goroutine and serve the next client.

// faultCase is one way for a client to misbehave on a fresh connection;
// it returns what the client could check, or nil when it can check
// nothing because it left.
type faultCase struct {
	name string
	act  func(nc *net.TCPConn, srv benchServer, session string) *received
	// want is the statuses a client that stays to read must get.
	want []int
}

// reset closes with an RST, as a crashed client's kernel would.
func reset(nc *net.TCPConn) {
	nc.SetLinger(0)
	nc.Close()
}

func getStream(srv benchServer, session string) []byte {
	return client.Request{Method: "GET", Path: "/mcp", Header: [][2]string{
		{"Host", srv.addr},
		{"Accept", "text/event-stream"},
		{"Authorization", "Bearer " + srv.token},
		{"Mcp-Session-Id", session},
		{"MCP-Protocol-Version", mcp.ProtocolVersion},
	}}.Bytes()
}

var faultCases = []faultCase{
	{"H-33/closed in the middle of the head", func(nc *net.TCPConn, srv benchServer, session string) *received {
		raw := srv.ping(session)
		nc.Write(raw[:len(raw)/3])
		nc.Close()
		return nil
	}, nil},
	{"H-33/closed in the middle of the body", func(nc *net.TCPConn, srv benchServer, session string) *received {
		raw := srv.ping(session)
		nc.Write(raw[:len(requestHead(raw))+5])
		nc.Close()
		return nil
	}, nil},
	{"reset right after a whole request, the answer unread", func(nc *net.TCPConn, srv benchServer, session string) *received {
		nc.Write(srv.ping(session))
		reset(nc)
		return nil
	}, nil},
	{"reset in the middle of reading the answer", func(nc *net.TCPConn, srv benchServer, session string) *received {
		nc.Write(srv.ping(session))
		nc.Read(make([]byte, 10))
		reset(nc)
		return nil
	}, nil},
	{"reset in the middle of an SSE answer to POST", func(nc *net.TCPConn, srv benchServer, session string) *received {
		nc.Write(srv.resources(session))
		nc.Read(make([]byte, 20))
		reset(nc)
		return nil
	}, nil},
	{"reset in the middle of the GET stream", func(nc *net.TCPConn, srv benchServer, session string) *received {
		nc.Write(getStream(srv, session))
		nc.Read(make([]byte, 20))
		reset(nc)
		return nil
	}, nil},
	{"reset after two pipelined requests", func(nc *net.TCPConn, srv benchServer, session string) *received {
		raw := srv.ping(session)
		nc.Write(append(append([]byte{}, raw...), raw...))
		reset(nc)
		return nil
	}, nil},
	{"half-closed after a whole request: answered, then closed", func(nc *net.TCPConn, srv benchServer, session string) *received {
		nc.Write(srv.ping(session))
		nc.CloseWrite()
		got := readUntilClosed(nc, 5*time.Second)
		return &got
	}, []int{200}},
	{"half-closed after two pipelined requests: both answered, in order", func(nc *net.TCPConn, srv benchServer, session string) *received {
		nc.Write(append(srv.ping(session), srv.resources(session)...))
		nc.CloseWrite()
		got := readUntilClosed(nc, 5*time.Second)
		return &got
	}, []int{200, 200}},
	{"H-33/half-closed in the middle of the head: closed without an answer", func(nc *net.TCPConn, srv benchServer, session string) *received {
		raw := srv.ping(session)
		nc.Write(raw[:len(raw)/3])
		nc.CloseWrite()
		got := readUntilClosed(nc, 5*time.Second)
		return &got
	}, []int{}},
	{"H-33/half-closed in the middle of the body: closed without an answer", func(nc *net.TCPConn, srv benchServer, session string) *received {
		raw := srv.ping(session)
		nc.Write(raw[:len(requestHead(raw))+5])
		nc.CloseWrite()
		got := readUntilClosed(nc, 5*time.Second)
		return &got
	}, []int{}},
	{"half-closed before a byte: closed without an answer", func(nc *net.TCPConn, srv benchServer, session string) *received {
		nc.CloseWrite()
		got := readUntilClosed(nc, 5*time.Second)
		return &got
	}, []int{}},
}

// TestResilienceDisconnects runs every fault case 10 times at once, then
// checks that no server goroutine is left behind and that the next client
// is served.
func TestResilienceDisconnects(t *testing.T) {
	const repeat = 10
	srv, _ := startBenchRawmcp(t, benchTableConfig(), func(cfg *wire.Config) {
		cfg.ReadTimeout = 500 * time.Millisecond
	})
	setup := newBenchConn(t, srv.addr)
	session := benchInitialize(t, setup, srv)
	setup.close()
	base := takeBaseline()
	for _, tc := range faultCases {
		t.Run(tc.name, func(t *testing.T) {
			got := make([]*received, repeat)
			var wg sync.WaitGroup
			for i := range got {
				nc := dialRaw(t, srv.addr)
				wg.Go(func() { got[i] = tc.act(nc, srv, session) })
			}
			wg.Wait()
			for i, r := range got {
				if r == nil {
					continue
				}
				if diff := cmp.Diff(tc.want, statusesOf(r.responses)); diff != "" || len(r.rest) != 0 || !r.closed {
					t.Errorf("client %d: statuses (-want +got):\n%s\n%d stray bytes, closed by the server: %v", i, diff, len(r.rest), r.closed)
				}
			}
		})
	}
	base.check(t, takeMemorySnapshot())
	if resp := pingOnce(t, srv, session); !answersPing(resp) {
		t.Errorf("after the faults a ping got %d", resp.Status)
	}
}

// TestResilienceBadStreams sends input that is too large or not HTTP: the
// server answers with the parser's status, closes the connection, and is
// unaffected.
func TestResilienceBadStreams(t *testing.T) {
	srv, _ := startBenchRawmcp(t, state.DefaultConfig(), nil)
	base := takeBaseline()
	pad := strings.Repeat("a", 2000)
	for _, tc := range []struct {
		name string
		raw  string
		want int
	}{
		{"H-P07/a header section past 12 KiB is 431", "GET /mcp HTTP/1.1\r\nHost: " + srv.addr + "\r\n" +
			strings.Repeat("X-Pad: "+pad+"\r\n", 7) + "\r\n", 431},
		{"H-P07/a field value past 2 KiB is 431", "GET /mcp HTTP/1.1\r\nHost: " + srv.addr + "\r\nX-Pad: " + pad + pad + "\r\n\r\n", 431},
		{"H-P07/a Content-Length past 16 KiB is 413 before the body", "POST /mcp HTTP/1.1\r\nHost: " + srv.addr +
			"\r\nContent-Type: application/json\r\nContent-Length: 16385\r\n\r\n", 413},
		{"H-P07/a request-target past 2 KiB is 414", "GET /" + strings.Repeat("a", 3000) + " HTTP/1.1\r\nHost: " + srv.addr + "\r\n\r\n", 414},
		{"H-09/a method past 16 bytes is 501", strings.Repeat("A", 100), 501},
		{"H-P01/bare LF line ends are 400", "GET /mcp HTTP/1.1\nHost: " + srv.addr + "\n\n", 400},
		{"H-08/binary noise is 400", "\x00\x01\x02\x03\xff\xfe noise\r\n\r\n", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc := dialRaw(t, srv.addr)
			nc.Write([]byte(tc.raw))
			nc.CloseWrite()
			got := readUntilClosed(nc, 5*time.Second)
			if diff := cmp.Diff([]int{tc.want}, statusesOf(got.responses)); diff != "" || len(got.rest) != 0 || !got.closed {
				t.Errorf("statuses (-want +got):\n%s\n%d stray bytes, closed by the server: %v", diff, len(got.rest), got.closed)
			} else if !got.responses[0].Close {
				t.Errorf("the %d answer lacks Connection: close", tc.want)
			}
		})
	}
	t.Run("H-P07/an endless stream is answered and cut: the drain after an answer is bounded", func(t *testing.T) {
		nc := dialRaw(t, srv.addr)
		chunk := []byte(strings.Repeat("garbage ", 8<<10))
		start := time.Now()
		sent := 0
		nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		for sent < 64<<20 {
			n, err := nc.Write(chunk)
			sent += n
			if err != nil {
				break
			}
		}
		// 64 KiB drained plus what socket buffers hold; far below the 64
		// MiB the client had to send.
		if sent >= 64<<20 {
			t.Errorf("the server read %d MiB of garbage without closing", sent>>20)
		}
		t.Logf("cut after %d KiB in %v", sent>>10, time.Since(start))
	})
	base.check(t, takeMemorySnapshot())
	if resp := pingOnce(t, srv, ""); !answersPing(resp) {
		t.Errorf("after the bad streams a ping got %d", resp.Status)
	}
}
