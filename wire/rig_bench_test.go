package wire_test

import (
	"bytes"
	"errors"
	"net"
	"rawmcp/wire/client"
	"testing"
	"time"

	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/mcp"
	"rawmcp/wire/scenario"
)

// The rig the end-to-end benchmarks, the memory figures and the resilience
// tests share: both servers of the same contract on loopback, the requests
// of the benchmarks, and a lean client whose own cost per round trip is
// zero allocations, so what -benchmem reports is the server's.

// benchServer is one server under test and what a client needs to talk
// to it.
type benchServer struct {
	name  string // "rawmcp" or "nethttp": the /server= column of benchstat
	addr  string
	token string
}

// benchTableConfig lets every benchmark run hold its own session without
// running into the profile's cap of 8; each run ends its session too.
func benchTableConfig() state.Config {
	cfg := state.DefaultConfig()
	cfg.MaxSessions = 1024
	return cfg
}

// startBenchRawmcp starts rawmcp with decisions unrecorded (a benchmark would
// grow the fixture's record without bound) and the given changes.
func startBenchRawmcp(tb testing.TB, tableCfg state.Config, configure func(*wire.Config)) (benchServer, *scenario.Fixture) {
	tb.Helper()
	fx, err := scenario.Start(scenario.Options{
		TableConfig: &tableCfg,
		Configure: func(cfg *wire.Config) {
			cfg.Record = nil
			if configure != nil {
				configure(cfg)
			}
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { fx.Close() })
	return benchServer{name: "rawmcp", addr: fx.Addr, token: fx.Tokens["alice"]}, fx
}

// benchServers starts rawmcp and the net/http reference side by side.
func benchServers(tb testing.TB) []benchServer {
	tb.Helper()
	raw, _ := startBenchRawmcp(tb, benchTableConfig(), nil)
	addr, token := startReference(tb, benchTableConfig())
	return []benchServer{raw, {name: "nethttp", addr: addr, token: token}}
}

// post renders a POST /mcp as a 2025-11-25 client sends it; session ""
// leaves out Mcp-Session-Id and MCP-Protocol-Version (initialize).
func (s benchServer) post(session, body string, extra ...[2]string) []byte {
	h := [][2]string{
		{"Host", s.addr},
		{"Accept", "application/json, text/event-stream"},
		{"Content-Type", "application/json"},
		{"Authorization", "Bearer " + s.token},
	}
	if session != "" {
		h = append(h, [2]string{"Mcp-Session-Id", session}, [2]string{"MCP-Protocol-Version", mcp.ProtocolVersion})
	}
	return client.Request{Method: "POST", Path: "/mcp", Header: append(h, extra...), Body: []byte(body)}.Bytes()
}

func (s benchServer) initialize() []byte {
	return s.post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+mcp.ProtocolVersion+
		`","capabilities":{},"clientInfo":{"name":"rawmcp-bench","version":"`+wire.ServerVersion+`"}}}`)
}

func (s benchServer) initialized(session string) []byte {
	return s.post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

const (
	benchPingBody      = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	benchResourcesBody = `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`
)

func (s benchServer) ping(session string) []byte { return s.post(session, benchPingBody) }

func (s benchServer) resources(session string) []byte { return s.post(session, benchResourcesBody) }

func (s benchServer) delete(session string) []byte {
	return client.Request{Method: "DELETE", Path: "/mcp", Header: [][2]string{
		{"Host", s.addr},
		{"Authorization", "Bearer " + s.token},
		{"Mcp-Session-Id", session},
		{"MCP-Protocol-Version", mcp.ProtocolVersion},
	}}.Bytes()
}

// benchInitialize runs the handshake on c and returns the session id.
func benchInitialize(tb testing.TB, c *benchConn, s benchServer) string {
	tb.Helper()
	if err := c.send(s.initialize()); err != nil {
		tb.Fatal(err)
	}
	resp, err := c.read()
	if err != nil || resp.status != 200 || len(resp.session) == 0 {
		tb.Fatalf("%s: initialize: status %d, %v", s.name, resp.status, err)
	}
	session := string(resp.session)
	if err := c.expect(s.initialized(session), 202); err != nil {
		tb.Fatalf("%s: notifications/initialized: %v", s.name, err)
	}
	return session
}

// benchEndSession deletes the session on a connection of its own (the
// one that opened it may have idled past the read deadline), so Go's
// re-runs of a benchmark never pile sessions up.
func benchEndSession(tb testing.TB, s benchServer, session string) {
	tb.Helper()
	c := newBenchConn(tb, s.addr)
	defer c.close()
	if err := c.expect(s.delete(session), 204); err != nil {
		tb.Fatalf("%s: DELETE: %v", s.name, err)
	}
}

// benchConn is a keep-alive client connection that reads Content-Length
// framed responses (both servers frame every answer so) into one fixed
// buffer: a round trip costs it no allocation.
type benchConn struct {
	nc  net.Conn
	buf [8 << 10]byte
	// filled bytes of buf hold input; the first consumed of them belong
	// to the response read last.
	filled, consumed int
}

// benchResponse views one response; its slices alias the connection's
// buffer until the next read.
type benchResponse struct {
	raw         []byte // the whole response, head and body
	status      int
	contentType []byte
	session     []byte
	body        []byte
	close       bool
}

// Errors of the lean client: constants, so reporting one allocates
// nothing and carries no response bytes.
var (
	errBenchAnswer   = errors.New("bench: unexpected answer")
	errBenchFraming  = errors.New("bench: response not framed by Content-Length")
	errBenchTooLarge = errors.New("bench: response larger than the client buffer")
	// errBenchNeedBody is internal: the head is in, the body not yet.
	errBenchNeedBody = errors.New("bench: body incomplete")
)

func newBenchConn(tb testing.TB, addr string) *benchConn {
	tb.Helper()
	c, err := dialBench(addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.close)
	return c
}

func dialBench(addr string) (*benchConn, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &benchConn{nc: nc}, nil
}

func (c *benchConn) close() { c.nc.Close() }

func (c *benchConn) send(raw []byte) error {
	_, err := c.nc.Write(raw)
	return err
}

// expect makes one round trip and checks its status.
func (c *benchConn) expect(raw []byte, status int) error {
	if err := c.send(raw); err != nil {
		return err
	}
	r, err := c.read()
	if err != nil {
		return err
	}
	if r.status != status {
		return errBenchAnswer
	}
	return nil
}

// roundTrip sends raw and returns the status, Content-Type and a copy of
// the body: for tests, which keep what they read.
func (c *benchConn) roundTrip(raw []byte) (status int, contentType string, body []byte, err error) {
	if err := c.send(raw); err != nil {
		return 0, "", nil, err
	}
	r, err := c.read()
	return r.status, string(r.contentType), bytes.Clone(r.body), err
}

// partial reports whether bytes of an incomplete response were read: after
// a failed read, the connection closed in the middle of a response.
func (c *benchConn) partial() bool { return c.filled > c.consumed }

// read reads one response.
func (c *benchConn) read() (benchResponse, error) {
	c.filled = copy(c.buf[:], c.buf[c.consumed:c.filled])
	c.consumed = 0
	for {
		if headEnd := bytes.Index(c.buf[:c.filled], []byte("\r\n\r\n")); headEnd >= 0 {
			r, end, err := parseBenchResponse(c.buf[:c.filled], headEnd+4)
			if err == nil {
				c.consumed = end
			}
			if err != errBenchNeedBody {
				return r, err
			}
		}
		if c.filled == len(c.buf) {
			return benchResponse{}, errBenchTooLarge
		}
		n, err := c.nc.Read(c.buf[c.filled:])
		c.filled += n
		if n == 0 && err != nil {
			return benchResponse{}, err
		}
	}
}

// parseBenchResponse reads the head ending at bodyStart and, once the
// whole body is in buf, returns the response and where it ends.
func parseBenchResponse(buf []byte, bodyStart int) (benchResponse, int, error) {
	var r benchResponse
	head := buf[:bodyStart-2]
	if len(head) < 12 || !bytes.HasPrefix(head, []byte("HTTP/1.1 ")) {
		return r, 0, errBenchFraming
	}
	r.status = int(head[9]-'0')*100 + int(head[10]-'0')*10 + int(head[11]-'0')
	length := -1
	rest := head[bytes.IndexByte(head, '\n')+1:]
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 1 || rest[i-1] != '\r' {
			return r, 0, errBenchFraming
		}
		line := rest[:i-1]
		rest = rest[i+1:]
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			return r, 0, errBenchFraming
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			length = benchDigits(value)
		case bytes.EqualFold(name, []byte("Content-Type")):
			r.contentType = value
		case bytes.EqualFold(name, []byte("Mcp-Session-Id")):
			r.session = value
		case bytes.EqualFold(name, []byte("Connection")):
			r.close = bytes.EqualFold(value, []byte("close"))
		}
	}
	if length < 0 && r.status == 204 {
		length = 0
	}
	if length < 0 {
		return r, 0, errBenchFraming
	}
	end := bodyStart + length
	if len(buf) < end {
		return r, 0, errBenchNeedBody
	}
	r.body = buf[bodyStart:end]
	r.raw = buf[:end]
	return r, end, nil
}

// benchDigits parses a Content-Length value; -1 if it is not one.
func benchDigits(v []byte) int {
	if len(v) == 0 || len(v) > 9 {
		return -1
	}
	n := 0
	for _, d := range v {
		if d < '0' || d > '9' {
			return -1
		}
		n = n*10 + int(d-'0')
	}
	return n
}
