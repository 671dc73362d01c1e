package fuzz

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"rawmcp/wire/assemble"
	"rawmcp/wire/client"
	"strconv"
	"testing"
	"time"

	"rawmcp/httpparse"
	"rawmcp/policy"
	"rawmcp/wire"
	"rawmcp/wire/mcp"
)

// The fuzz server is assembled by assemble like every other, without a
// listener: its canonical URI and Host name a port nothing listens on,
// because every connection is one end of a socket pair handed to
// ServeConn.
const (
	fuzzHost      = "127.0.0.1:8080"
	fuzzCanonical = "http://" + fuzzHost + "/mcp"
	fuzzIssuer    = "https://as.rawmcp.invalid"
	fuzzTenant    = "acme"

	// Fixed tokens (b64token, RFC 6750 §2.1) for two subjects, so seeds can
	// carry a valid Authorization and reach every branch. They are test
	// secrets: the invariants check that no response ever carries them.
	tokenAlice = "fuzz-alice-7Qm2Xr9Lp4Vt8Ks1Nd6Hb3Zc"
	tokenBob   = "fuzz-bob-4Wk8Tn2Rf6Jy1Pd9Lx5Gs7Qv"
)

// fuzzNow is the server's only clock reading: Date headers, token validity
// and session lifetimes never depend on when the fuzzer runs. It is also
// the origin of the socket deadlines, and it lies in the future, so they
// never fire: the client writes everything at once and half-closes, so
// no read or write waits on it, and a deadline firing here would only
// make a loaded machine's answers differ (the wire tests cover timeouts).
var fuzzNow = time.Date(2099, 11, 25, 12, 0, 0, 0, time.UTC)

// hangTimeout bounds one served input. The client never makes the server
// wait, so anything near it is a hang, not a slow machine.
const hangTimeout = 10 * time.Second

// fuzzTokens are the two subjects' records, valid at fuzzNow.
func fuzzTokens(canonical string) ([]policy.TokenFileEntry, error) {
	var entries []policy.TokenFileEntry
	for i, subject := range []string{"alice", "bob"} {
		entries = append(entries, policy.TokenFileEntry{Token: []string{tokenAlice, tokenBob}[i], Record: policy.TokenRecord{
			TokenID:               "fuzz-" + subject,
			Issuer:                fuzzIssuer,
			Audience:              canonical,
			Resource:              canonical,
			AuthorizationResource: canonical,
			TokenResource:         canonical,
			Subject:               subject,
			Tenant:                fuzzTenant,
			Scopes:                []string{policy.ScopeConnect, policy.ScopeResourcesRead},
			Revision:              1,
			Active:                true,
			Expiry:                fuzzNow.Add(time.Hour),
		}})
	}
	return entries, nil
}

// newFuzzServer returns a server with a fresh session table whose random
// source is a fixed ChaCha8 stream: every input starts from no sessions,
// and the n-th session it creates always gets the same id and event
// handle, so seeds can name them. Each input gets its own server; that is
// cheap, since NewServer only checks the config and request buffers are
// taken when a request begins.
func newFuzzServer(tb testing.TB) *wire.Server {
	tb.Helper()
	s, err := assemble.Assemble(fuzzHost, assemble.Config{
		Issuer:    fuzzIssuer,
		Tokens:    fuzzTokens,
		Random:    rand.NewChaCha8([32]byte{'r', 'a', 'w', 'm', 'c', 'p'}),
		Configure: func(c *wire.Config) { c.Now = func() time.Time { return fuzzNow } },
	})
	if err != nil {
		tb.Fatalf("assemble.Assemble: %v", err)
	}
	return s.Server
}

// serve feeds input to srv on one socket pair, written chunk bytes per
// write (0: all at once) and then half-closed, so a request cut short
// costs no read-deadline wait: the server sees the peer close. It returns
// what the server wrote. A connection still open after hangTimeout or a
// write after close fails the test.
func serve(tb testing.TB, srv *wire.Server, input []byte, chunk int) []byte {
	tb.Helper()
	c, client := socketPair(tb)
	defer client.Close()
	srv.ServeConn(c)
	written := make(chan struct{})
	go func() {
		defer close(written)
		for rest := input; len(rest) > 0; {
			n := len(rest)
			if chunk > 0 && n > chunk {
				n = chunk
			}
			if _, err := client.Write(rest[:n]); err != nil {
				break // the server closed: what it did not read is never parsed
			}
			rest = rest[n:]
		}
		client.CloseWrite()
	}()
	// The answers are read while the input is written, as a client does:
	// a server blocked on a full socket would otherwise stop reading.
	client.SetReadDeadline(time.Now().Add(hangTimeout))
	out, err := io.ReadAll(client)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		tb.Fatalf("the server kept the connection open %v after the input ended: a hang", hangTimeout)
	}
	// Any other error is a reset: the server closed with input unread,
	// after the client had read everything it wrote.
	<-written
	timer := time.NewTimer(hangTimeout)
	defer timer.Stop()
	select {
	case <-c.done:
	case <-timer.C:
		tb.Fatalf("the server half-closed but kept the connection %v: a hang", hangTimeout)
	}
	// The goroutine's last cleanup is shutdown's to wait for.
	if late := c.late(); late > 0 {
		tb.Fatalf("%d writes after the server closed the connection", late)
	}
	return out
}

// A 2025-11-25 client's requests, as scenario's peer writes them: Host,
// Accept, Content-Type, Authorization, and once a session exists
// Mcp-Session-Id and MCP-Protocol-Version (MCP 2025-11-25 Transports §2.1,
// §2.2, §2.5, §2.7).

func clientFields(token, session, accept string, jsonBody bool) [][2]string {
	h := [][2]string{{"Host", fuzzHost}}
	if accept != "" {
		h = append(h, [2]string{"Accept", accept})
	}
	if jsonBody {
		h = append(h, [2]string{"Content-Type", "application/json"})
	}
	if token != "" {
		h = append(h, [2]string{"Authorization", "Bearer " + token})
	}
	if session != "" {
		h = append(h, [2]string{"Mcp-Session-Id", session}, [2]string{"MCP-Protocol-Version", mcp.ProtocolVersion})
	}
	return h
}

func postRequest(token, session, body string) []byte {
	return client.Request{Method: "POST", Path: "/mcp", Header: clientFields(token, session, "application/json, text/event-stream", true), Body: []byte(body)}.Bytes()
}

func initializeBody(id int) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"initialize","params":{"protocolVersion":"` + mcp.ProtocolVersion +
		`","capabilities":{},"clientInfo":{"name":"rawmcp-fuzz","version":"0.1.0"}}}`
}

const (
	initializedBody   = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	pingBody          = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	listResourcesBody = `{"jsonrpc":"2.0","id":3,"method":"resources/list"}`
)

// getRequest opens the session's notification stream; a non-empty cursor
// is sent as Last-Event-ID, the head's last line.
func getRequest(token, session, cursor string) []byte {
	h := clientFields(token, session, "text/event-stream", false)
	if cursor != "" {
		h = append(h, [2]string{"Last-Event-ID", cursor})
	}
	return client.Request{Method: "GET", Path: "/mcp", Header: h}.Bytes()
}

func deleteRequest(token, session string) []byte {
	return client.Request{Method: "DELETE", Path: "/mcp", Header: clientFields(token, session, "", false)}.Bytes()
}

// parseAll splits out into responses (atEOF: the server closed). A
// response without the body its Content-Length announces is retried as
// the answer to HEAD, which has none (RFC 9110 §9.3.2); the caller
// decides whether that reading is allowed.
func parseAll(out []byte) (resps []httpparse.Response, raws [][]byte, headReads []bool, err error) {
	lim := httpparse.DefaultResponseLimits()
	for len(out) > 0 {
		resp, n, err := httpparse.ParseResponse(out, false, true, lim)
		headRead := false
		if err != nil {
			var herr error
			resp, n, herr = httpparse.ParseResponse(out, true, true, lim)
			if herr != nil {
				return resps, raws, headReads, err
			}
			headRead = true
		}
		resps, raws, headReads = append(resps, resp), append(raws, out[:n]), append(headReads, headRead)
		out = out[n:]
	}
	return resps, raws, headReads, nil
}

// concat joins requests into one pipelined input.
func concat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}
