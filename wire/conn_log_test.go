package wire_test

import (
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire"
	"rawmcp/wire/scenario"
)

// closedLines returns the "connection closed" lines of a log, from the
// level on, without the time.
func closedLines(log string) []string {
	line := regexp.MustCompile(`level=\S+ msg="connection closed".*`)
	return line.FindAllString(log, -1)
}

// TestConnectionEndLogged: the server logs how every connection ended,
// with the rule that closed it when one did: at Info for a rule's close,
// at Debug when the peer left between requests, the idle wait ended or
// the server shut down.
func TestConnectionEndLogged(t *testing.T) {
	metadata := func(f *scenario.Fixture, extra string) string {
		return "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: " + f.Addr + "\r\n" + extra + "\r\n"
	}
	// send writes raw on a new connection and reads until the server
	// closes it.
	send := func(t *testing.T, f *scenario.Fixture, raw string) {
		nc := dial(t, f.Addr)
		nc.Write([]byte(raw))
		readAll(t, nc)
	}
	// keep sends one request that keeps the connection, reads its
	// answer, and returns the connection, still open.
	keep := func(t *testing.T, f *scenario.Fixture) net.Conn {
		nc := dial(t, f.Addr)
		nc.Write([]byte(metadata(f, "")))
		if status := readOne(t, nc).Status; status != 200 {
			t.Fatalf("metadata: %d", status)
		}
		return nc
	}
	for _, tc := range []struct {
		name      string
		configure func(*wire.Config)
		run       func(t *testing.T, f *scenario.Fixture)
		want      []string
	}{
		{"H-39 an HTTP/1.0 request is answered and closed", nil,
			func(t *testing.T, f *scenario.Fixture) {
				send(t, f, strings.Replace(metadata(f, ""), "HTTP/1.1", "HTTP/1.0", 1))
			},
			[]string{`level=INFO msg="connection closed" conn=1 by=answer rule=H-39`}},
		{"H-37 Connection: close is honoured", nil,
			func(t *testing.T, f *scenario.Fixture) { send(t, f, metadata(f, "Connection: close\r\n")) },
			[]string{`level=INFO msg="connection closed" conn=1 by=answer rule=H-37`}},
		{"T-P14 an error answer closes", nil,
			func(t *testing.T, f *scenario.Fixture) {
				send(t, f, strings.Replace(metadata(f, ""), "/.well-known", "/elsewhere", 1))
			},
			[]string{`level=INFO msg="connection closed" conn=1 by=answer rule=T-P14`}},
		{"H-P09 a parse error closes", nil,
			func(t *testing.T, f *scenario.Fixture) { send(t, f, metadata(f, "Bad Name: x\r\n")) },
			[]string{`level=INFO msg="connection closed" conn=1 by=answer rule=H-P09`}},
		{"H-P08 a request late is 408 and closes",
			func(c *wire.Config) { c.ReadTimeout = 100 * time.Millisecond },
			func(t *testing.T, f *scenario.Fixture) { send(t, f, "GET /mcp HT") },
			[]string{`level=INFO msg="connection closed" conn=1 by=answer rule=H-P08`}},
		{"H-P15 a connection over the cap is refused and closed",
			func(c *wire.Config) { c.MaxConns = 1 },
			func(t *testing.T, f *scenario.Fixture) {
				keep(t, f)
				send(t, f, metadata(f, ""))
			},
			[]string{`level=INFO msg="connection closed" conn=2 by=answer rule=H-P15`}},
		{"H-33 a request cut short by the peer closes", nil,
			func(t *testing.T, f *scenario.Fixture) {
				nc := dial(t, f.Addr)
				nc.Write([]byte("GET /mcp HT"))
				nc.(*net.TCPConn).CloseWrite()
				readAll(t, nc)
			},
			[]string{`level=INFO msg="connection closed" conn=1 by="peer left" rule=H-33`}},
		{"the peer leaves between requests", nil,
			func(t *testing.T, f *scenario.Fixture) { keep(t, f).Close() },
			[]string{`level=DEBUG msg="connection closed" conn=1 by="peer left"`}},
		{"the idle wait ends",
			func(c *wire.Config) { c.SSERetry, c.IdleTimeout = time.Millisecond, 50*time.Millisecond },
			func(t *testing.T, f *scenario.Fixture) { readAll(t, keep(t, f)) },
			[]string{`level=DEBUG msg="connection closed" conn=1 by="idle timeout"`}},
		{"the server shuts down while the connection waits", nil,
			func(t *testing.T, f *scenario.Fixture) {
				keep(t, f)
				f.Close()
			},
			[]string{`level=DEBUG msg="connection closed" conn=1 by=shutdown`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs syncBuffer
			f := startFixture(t, func(c *wire.Config) {
				logTo(&logs)(c)
				if tc.configure != nil {
					tc.configure(c)
				}
			})
			tc.run(t, f)
			waitFor(t, "the connection's end is logged", func() bool { return len(closedLines(logs.String())) >= len(tc.want) })
			if diff := cmp.Diff(tc.want, closedLines(logs.String())); diff != "" {
				t.Errorf("connection closed lines (-want +got):\n%s", diff)
			}
		})
	}
}
