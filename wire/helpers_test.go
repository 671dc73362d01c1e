package wire_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"rawmcp/wire/client"
	"sort"
	"strings"
	"sync"
	"testing"

	"rawmcp/httpparse"
	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/scenario"
)

// Request bodies of the happy path, as a 2025-11-25 client sends them.
const (
	initializeBody  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"rawmcp-test","version":"1"}}}`
	initializedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	pingBody        = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	listBody        = `{"jsonrpc":"2.0","id":3,"method":"resources/list"}`
)

// startFixture starts a scenario server with room for many sessions, so
// table cases do not share capacity, and stops it when the test ends.
func startFixture(t testing.TB, configure func(*wire.Config)) *scenario.Fixture {
	t.Helper()
	tc := state.DefaultConfig()
	tc.MaxSessions = 4096
	f, err := scenario.Start(scenario.Options{Configure: configure, TableConfig: &tc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return f
}

// post builds a POST /mcp with the headers a well-behaved client sends.
// Extra fields are appended; a field given with value "-" removes the
// default of that name.
func post(f *scenario.Fixture, token, body string, extra ...[2]string) client.Request {
	h := [][2]string{
		{"Host", f.Addr},
		{"Accept", "application/json, text/event-stream"},
		{"Content-Type", "application/json"},
	}
	if token != "" {
		h = append(h, [2]string{"Authorization", "Bearer " + token})
	}
	return client.Request{Method: "POST", Path: "/mcp", Header: withFields(h, extra), Body: []byte(body)}
}

// sessionRequest builds a GET or DELETE on a session.
func sessionRequest(f *scenario.Fixture, method, token, sid string, extra ...[2]string) client.Request {
	h := [][2]string{{"Host", f.Addr}}
	if method == "GET" {
		h = append(h, [2]string{"Accept", "text/event-stream"})
	}
	if token != "" {
		h = append(h, [2]string{"Authorization", "Bearer " + token})
	}
	h = append(h, [2]string{"MCP-Protocol-Version", "2025-11-25"})
	if sid != "" {
		h = append(h, [2]string{"Mcp-Session-Id", sid})
	}
	return client.Request{Method: method, Path: "/mcp", Header: withFields(h, extra)}
}

func withFields(h [][2]string, extra [][2]string) [][2]string {
	for _, e := range extra {
		h = removeField(h, e[0])
		if e[1] != "-" {
			h = append(h, e)
		}
	}
	return h
}

func removeField(h [][2]string, name string) [][2]string {
	out := h[:0:0]
	for _, f := range h {
		if !strings.EqualFold(f[0], name) {
			out = append(out, f)
		}
	}
	return out
}

// inSession adds the two headers every request after initialize carries.
func inSession(sid string) [][2]string {
	return [][2]string{{"Mcp-Session-Id", sid}, {"MCP-Protocol-Version", "2025-11-25"}}
}

// do sends raw bytes on a fresh connection and returns the one response.
func do(t testing.TB, f *scenario.Fixture, raw []byte) *httpparse.Response {
	t.Helper()
	c := client.New(f.Addr)
	defer c.Close()
	resp, err := c.Do(raw, strings.HasPrefix(string(raw), "HEAD "))
	if err != nil {
		t.Fatalf("round trip: %v", err)
	}
	return resp
}

// openSession initializes a session for the named fixture token and sends
// notifications/initialized, so it is operating.
func openSession(t testing.TB, f *scenario.Fixture, tokenName string) string {
	t.Helper()
	token := f.Tokens[tokenName]
	resp := do(t, f, post(f, token, initializeBody).Bytes())
	sid, ok := resp.Get("Mcp-Session-Id")
	if resp.Status != 200 || !ok {
		t.Fatalf("initialize for %s: status %d", tokenName, resp.Status)
	}
	resp = do(t, f, post(f, token, initializedBody, inSession(sid)...).Bytes())
	if resp.Status != 202 {
		t.Fatalf("initialized for %s: status %d", tokenName, resp.Status)
	}
	return sid
}

// syncBuffer collects log output from the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// logTo makes the fixture's server log at debug level into buf.
func logTo(buf *syncBuffer) func(*wire.Config) {
	return func(c *wire.Config) {
		c.Logger = slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
}

// leaked returns the names of the secrets text contains.
func leaked(text string, secrets map[string]string) []string {
	var found []string
	for name, secret := range secrets {
		if secret != "" && strings.Contains(text, secret) {
			found = append(found, name)
		}
	}
	sort.Strings(found)
	return found
}

// responseText is everything a response carries except the one echo the
// protocol asks for: the Mcp-Session-Id header of a successful initialize.
func responseText(resp *httpparse.Response) string {
	var b strings.Builder
	b.WriteString(resp.Reason)
	for _, h := range resp.Header {
		if strings.EqualFold(h.Name, "Mcp-Session-Id") && resp.Status == 200 {
			continue
		}
		b.WriteString("\n" + h.Name + ": " + h.Value)
	}
	b.WriteString("\n")
	b.Write(resp.Body)
	return b.String()
}

// secretsOf names every fixture token and the given session ids.
func secretsOf(f *scenario.Fixture, sessionIDs ...string) map[string]string {
	s := map[string]string{}
	for name, token := range f.Tokens {
		s["token "+name] = token
	}
	for i, sid := range sessionIDs {
		s[fmt.Sprintf("session %d", i)] = sid
	}
	return s
}
