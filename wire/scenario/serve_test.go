package scenario

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"rawmcp/wire/client"
	"rawmcp/wire/rule"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"rawmcp/httpparse"
	"rawmcp/policy"
	"rawmcp/wire"
	"rawmcp/wire/mcp"

	"github.com/google/go-cmp/cmp"
)

// serving runs Serve on its own goroutine and returns the Endpoint, a
// stop function that ends it, and Serve's result.
func serving(t *testing.T, opts ServeOptions) (Endpoint, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan Endpoint, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, opts, func(e Endpoint) error { ready <- e; return nil })
	}()
	select {
	case e := <-ready:
		return e, func() error { cancel(); return <-done }
	case err := <-done:
		cancel()
		t.Fatalf("Serve: %v", err)
	case <-time.After(5 * time.Second):
		cancel()
		t.Fatal("Serve never became ready")
	}
	return Endpoint{}, nil
}

// initializeAt sends a 2025-11-25 initialize with token and the extra
// header fields to the endpoint.
func initializeAt(t *testing.T, e Endpoint, token string, extra ...[2]string) *httpparse.Response {
	t.Helper()
	addr := strings.TrimSuffix(strings.TrimPrefix(e.URL, "http://"), "/mcp")
	c := client.New(addr)
	defer c.Close()
	req := client.Request{Method: "POST", Path: "/mcp", Header: append([][2]string{
		{"Host", addr}, {"Accept", acceptBoth}, {"Content-Type", contentJSON}, {"Authorization", "Bearer " + token},
	}, extra...), Body: []byte(initializeBody(1, mcp.ProtocolVersion))}
	resp, err := c.Do(req.Bytes(), false)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return resp
}

var endpointURL = regexp.MustCompile(`^http://127\.0\.0\.1:[1-9][0-9]*/mcp$`)

func TestServeWithDemoToken(t *testing.T) {
	var logs bytes.Buffer
	opts := DefaultServeOptions()
	opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	e, stop := serving(t, opts)
	if !endpointURL.MatchString(e.URL) || e.MetadataURL != strings.Replace(e.URL, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1) {
		t.Errorf("endpoint %+v: want http://127.0.0.1:<port>/mcp and its path-suffixed metadata URL", e)
	}
	resp := initializeAt(t, e, e.Token)
	if err := check(resp, nil, jsonAnswer(200, initializeResult(1), "Mcp-Session-Id", anySessionID)); err != nil {
		t.Errorf("T-53/initialize with the demo token: %v", err)
	}
	sessionID, _ := resp.Get("Mcp-Session-Id")
	if refused := initializeAt(t, e, "bm90LXRoZS1kZW1vLXRva2Vu"); refused.Status != 401 {
		t.Errorf("A-10/initialize with another token: %s, want 401", statusLine(refused))
	}
	if err := stop(); err != nil {
		t.Errorf("Serve after cancel = %v, want nil (graceful shutdown)", err)
	}
	t.Run("A-P07/the log carries neither the token nor the session id", func(t *testing.T) {
		log := logs.String()
		if !strings.Contains(log, "msg=serving") || !strings.Contains(log, "status=401") {
			t.Errorf("the log lacks the serving line or the refusal:\n%s", log)
		}
		if strings.Contains(log, e.Token) || strings.Contains(log, sessionID) {
			t.Errorf("the log carries a secret:\n%s", log)
		}
	})
}

func TestServeWithTokenFile(t *testing.T) {
	file := `[{"token": "dG9rZW4tZnJvbS1hLWZpbGU", "token_id": "file-1", "issuer": "https://as.rawmcp.invalid",
	  "audience": "self", "resource": "self", "authorization_resource": "self", "token_resource": "self",
	  "subject": "dana", "tenant": "initech", "scopes": ["mcp:connect", "resources:read"], "revision": 1,
	  "active": true, "expiry": "2099-01-01T00:00:00Z"},
	 {"token": "dG9rZW4tZm9yLWVsc2V3aGVyZQ", "token_id": "file-2", "issuer": "https://as.rawmcp.invalid",
	  "audience": "http://127.0.0.1:1/mcp", "resource": "self", "authorization_resource": "self", "token_resource": "self",
	  "subject": "dana", "tenant": "initech", "scopes": ["mcp:connect"], "revision": 1,
	  "active": true, "expiry": "2099-01-01T00:00:00Z"}]`
	opts := DefaultServeOptions()
	opts.TokenFile = []byte(file)
	e, stop := serving(t, opts)
	defer stop()
	tests := []struct {
		name  string
		token string
		want  int
	}{
		{"A-P04/self stands for the canonical URI", "dG9rZW4tZnJvbS1hLWZpbGU", 200},
		{"A-12/any other audience is taken literally", "dG9rZW4tZm9yLWVsc2V3aGVyZQ", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if resp := initializeAt(t, e, tt.token); resp.Status != tt.want {
				t.Errorf("initialize: %s, want %d", statusLine(resp), tt.want)
			}
		})
	}
	if e.Token != "" {
		t.Error("with a token file the endpoint names no token")
	}
}

// TestServePublicURL: behind a proxy, "self" in a token file is the public
// URL, the endpoint line names it and its metadata URL beside the local
// URL, and a request carrying the public Host and Origin is served.
func TestServePublicURL(t *testing.T) {
	const public = "https://mcp.example.test:8443/mcp"
	record := func(token, audience string) string {
		return `{"token": "` + token + `", "token_id": "` + token[:6] + `", "issuer": "https://as.rawmcp.invalid",
		  "audience": "` + audience + `", "resource": "self", "authorization_resource": "self", "token_resource": "self",
		  "subject": "dana", "tenant": "initech", "scopes": ["mcp:connect"], "revision": 1,
		  "active": true, "expiry": "2099-01-01T00:00:00Z"}`
	}
	opts := DefaultServeOptions()
	opts.PublicURL = public
	e, stop := serving(t, opts)
	addr := strings.TrimSuffix(strings.TrimPrefix(e.LocalURL, "http://"), "/mcp")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	opts.Addr = addr // the same port again, so a token can name the local URL
	opts.TokenFile = []byte(`[` + record("cHVibGljLXRva2Vu", "self") + `, ` + record("bG9jYWwtdG9rZW4", "http://"+addr+"/mcp") + `]`)
	e, stop = serving(t, opts)
	defer stop()
	want := Endpoint{LocalURL: "http://" + addr + "/mcp", MetadataURL: "https://mcp.example.test:8443/.well-known/oauth-protected-resource/mcp", URL: public}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("endpoint (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		name  string
		token string
		want  int
	}{
		{"A-P04/self stands for the public URL", "cHVibGljLXRva2Vu", 200},
		{"A-12/a token for the local URL is for another resource", "bG9jYWwtdG9rZW4", 401},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := client.New(addr)
			defer c.Close()
			req := client.Request{Method: "POST", Path: "/mcp", Header: [][2]string{
				{"Host", "mcp.example.test:8443"}, {"Origin", "https://mcp.example.test:8443"}, {"Accept", acceptBoth},
				{"Content-Type", contentJSON}, {"Authorization", "Bearer " + tt.token},
			}, Body: []byte(initializeBody(1, mcp.ProtocolVersion))}
			resp, err := c.Do(req.Bytes(), false)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != tt.want {
				t.Errorf("initialize: %s, want %d", statusLine(resp), tt.want)
			}
		})
	}
}

func TestServeOrigins(t *testing.T) {
	opts := DefaultServeOptions()
	opts.Origins = []string{"https://app.example"}
	e, stop := serving(t, opts)
	defer stop()
	own := strings.TrimSuffix(e.URL, "/mcp")
	port := own[strings.LastIndexByte(own, ':')+1:]
	ok := jsonAnswer(200, initializeResult(1), "Mcp-Session-Id", anySessionID)
	refused := refusal(403, codeHTTPError)
	tests := []struct {
		name   string
		origin string
		want   expectation
	}{
		{"T-P16/the server's own origin is always allowed", own, ok},
		{"T-P16/the origin of the localhost Host is always allowed", "http://localhost:" + port, ok},
		{"T-P16/an origin added with -origin is allowed", "https://app.example", ok},
		{"T-04/a foreign origin gets 403", "https://evil.example", refused},
		{"T-04/the server's address on another port gets 403", "http://127.0.0.1:1", refused},
		{"T-P16/the server's authority over https gets 403", "https://127.0.0.1:" + port, refused},
		{"T-P16/Origin: null gets 403", "null", refused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := initializeAt(t, e, e.Token, [2]string{"Origin", tt.origin})
			if err := check(resp, nil, tt.want); err != nil {
				t.Errorf("initialize with Origin: %s: %v", tt.origin, err)
			}
		})
	}
}

func TestServeRefuses(t *testing.T) {
	tests := []struct {
		name   string
		change func(*ServeOptions)
		want   error
	}{
		{"T-06/an address other than 127.0.0.1", func(o *ServeOptions) { o.Addr = "0.0.0.0:0" }, wire.ErrNotLoopback},
		{"T-06/a host name", func(o *ServeOptions) { o.Addr = "localhost:0" }, wire.ErrNotLoopback},
		{"H-P07/no session capacity", func(o *ServeOptions) { o.MaxSessions = 0 }, ErrServeOptions},
		{"H-P07/no session lifetime", func(o *ServeOptions) { o.SessionTTL = 0 }, ErrServeOptions},
		{"H-P07/no requests in processing", func(o *ServeOptions) { o.MaxInFlight = 0 }, ErrServeOptions},
		{"A-P07/a malformed token file", func(o *ServeOptions) { o.TokenFile = []byte(`{}`) }, policy.ErrMalformedTokenFile},
		{"A-28/a public URL with a query", func(o *ServeOptions) { o.PublicURL = "https://mcp.example.test/mcp?x" }, policy.ErrInvalidConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := DefaultServeOptions()
			tt.change(&opts)
			err := Serve(context.Background(), opts, func(Endpoint) error {
				t.Error("ready was called")
				return nil
			})
			if !errors.Is(err, tt.want) {
				t.Errorf("Serve = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestServeTrace: `serve -trace` shows each exchange on every connection
// as demo -trace does, prefixed with its connection, with the token and
// the session id only as correlation ids; the summary at stop counts what
// was refused, by rule.
func TestServeTrace(t *testing.T) {
	var trace, summary syncWriter
	opts := DefaultServeOptions()
	opts.Trace, opts.Summary = &trace, &summary
	e, stop := serving(t, opts)
	addr := strings.TrimSuffix(strings.TrimPrefix(e.URL, "http://"), "/mcp")
	resp := initializeAt(t, e, e.Token)
	sid, _ := resp.Get("Mcp-Session-Id")
	send := func(req client.Request) {
		c := client.New(addr)
		defer c.Close()
		if _, err := c.Do(req.Bytes(), false); err != nil {
			t.Fatal(err)
		}
	}
	// mcp-go's DELETE, without Authorization; then a POST without Accept.
	send(client.Request{Method: "DELETE", Path: "/mcp", Header: [][2]string{{"Host", addr}, {"Mcp-Session-Id", sid}, {"MCP-Protocol-Version", mcp.ProtocolVersion}}})
	send(client.Request{Method: "POST", Path: "/mcp", Header: [][2]string{{"Host", addr}, {"Content-Type", contentJSON}, {"Authorization", "Bearer " + e.Token}}, Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)})
	send(client.Request{Method: "POST", Path: "/mcp", Header: [][2]string{{"Host", addr}, {"Content-Type", contentJSON}}, Body: []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	text := trace.String()
	for _, want := range []string{
		"[c2] * connection 2\n[c2] > DELETE /mcp HTTP/1.1\n",
		"[c2] > Mcp-Session-Id: " + client.SessionLabel(sid) + "\n",
		"[c2] < HTTP/1.1 401 Unauthorized\n",
		"[c2] = A-08: " + rule.NoCredentials.Text() + "\n",
		"[c3] > Authorization: Bearer " + client.TokenLabel(e.Token) + "\n",
		"[c3] < HTTP/1.1 406 Not Acceptable\n",
		"[c3] = T-P02: " + rule.AcceptBothTypes.Text() + "\n",
		"[c1] < Mcp-Session-Id: " + client.SessionLabel(sid) + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("trace lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, e.Token) || strings.Contains(text, sid) {
		t.Error("the trace carries the token or the session id")
	}
	want := "serve: refused 3 requests, by rule:\n" +
		"  406 T-P02 ×2  " + rule.AcceptBothTypes.Text() + "\n" +
		"  401 A-08 ×1  " + rule.NoCredentials.Text() + "\n"
	if diff := cmp.Diff(want, summary.String()); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

// TestServeTraceShortensLongBodies: a 16 KiB body is shown shortened, so
// one exchange stays a screenful.
func TestServeTraceShortensLongBodies(t *testing.T) {
	var trace syncWriter
	opts := DefaultServeOptions()
	opts.Trace = &trace
	e, stop := serving(t, opts)
	addr := strings.TrimSuffix(strings.TrimPrefix(e.URL, "http://"), "/mcp")
	body := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 16<<10-64) + `"}}`
	c := client.New(addr)
	req := client.Request{Method: "POST", Path: "/mcp", Header: [][2]string{{"Host", addr}, {"Accept", acceptBoth}, {"Content-Type", contentJSON}, {"Authorization", "Bearer " + e.Token}}, Body: []byte(body)}
	if _, err := c.Do(req.Bytes(), false); err != nil {
		t.Fatal(err)
	}
	c.Close()
	stop()
	if n := len(trace.String()); n > 4<<10 {
		t.Errorf("one exchange traced in %d bytes", n)
	}
	if !strings.Contains(trace.String(), "… (16") {
		t.Errorf("the body is not marked as shortened:\n%s", trace.String())
	}
}

// syncWriter collects what the server's goroutines write.
type syncWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
