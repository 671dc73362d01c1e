package probe_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// packaged is an MCP server written the way the popular packages write
// theirs: an SDK's Streamable HTTP handler behind a web router, with the
// router's defaults around it. Each field is one behaviour measured on
// real packages, so that a test can hold the probe's verdict to what such
// a server really does; the zero value is a stateless server that answers
// JSON, refuses nothing it need not, and serves a foreign Origin (as 13 of
// the 15 packages tried did).
type packaged struct {
	// sessions: initialize issues an Mcp-Session-Id and every later
	// request must carry a live one.
	sessions bool
	// unknownSession400: an unknown session id gets the SDK example's own
	// "400 Bad Request: No valid session ID provided", not 404.
	unknownSession400 bool
	// toolsList is the size in bytes of the tools/list result (0: one
	// small tool).
	toolsList int
	// router404: GET and DELETE reach no handler, and the router answers
	// them with its own 404 page.
	router404 bool
	// token, when set, is required; a request without it gets a bare 401
	// (no WWW-Authenticate, no metadata document) when bareAuth is set.
	token    string
	bareAuth bool
	// nosniff: every answer carries X-Content-Type-Options: nosniff.
	nosniff bool
	// inertPages: the router's HTML pages carry Content-Security-Policy:
	// default-src 'none', as Express's default error page does.
	inertPages bool
	// bodyLimit refuses bodies over it with the router's 413 page (0: no
	// limit of the server's own).
	bodyLimit int64
	// hosts, when set, are the only Host values served; any other gets
	// 403 (a DNS-rebinding allowlist of "localhost:PORT").
	hosts []string
	// delay is spent on every request before it is answered (a package
	// that starts a child process per request).
	delay time.Duration
	// versionBlind: MCP-Protocol-Version is never read; a request whose
	// params lack a field the handler wants gets 400 with -32602.
	versionBlind bool
	// sse: requests are answered as event streams, not JSON.
	sse bool
	// holdGET: a GET stream's head is held while the request is open, as
	// a proxy that buffers event streams holds it (nginx's default
	// proxy_buffering).
	holdGET bool

	mu   sync.Mutex
	live map[string]bool
}

// start serves p on 127.0.0.1 and returns the endpoint's URL.
func (p *packaged) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func (p *packaged) serve(w http.ResponseWriter, r *http.Request) {
	if p.delay > 0 {
		time.Sleep(p.delay)
	}
	if p.nosniff {
		w.Header().Set("X-Content-Type-Options", "nosniff")
	}
	if len(p.hosts) > 0 && !contains(p.hosts, r.Host) {
		http.Error(w, "Invalid Host header", http.StatusForbidden)
		return
	}
	if p.inertPages {
		w.Header().Set("Content-Security-Policy", "default-src 'none'")
	}
	if r.URL.Path != "/mcp" {
		routerNotFound(w, r)
		return
	}
	if p.token != "" && r.Header.Get("Authorization") != "Bearer "+p.token {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":"unauthorized"}`)
		return
	}
	switch r.Method {
	case http.MethodPost:
		p.post(w, r)
	case http.MethodGet, http.MethodDelete:
		if p.router404 {
			routerNotFound(w, r)
			return
		}
		if !p.sessions {
			w.Header().Set("Allow", "POST")
			rpcError(w, http.StatusMethodNotAllowed, nil, -32000, "Method not allowed.")
			return
		}
		id := r.Header.Get("Mcp-Session-Id")
		if !p.known(id) {
			p.sessionRefused(w, id)
			return
		}
		if r.Method == http.MethodGet && p.holdGET {
			<-r.Context().Done()
			return
		}
		if r.Method == http.MethodDelete {
			p.mu.Lock()
			delete(p.live, id)
			p.mu.Unlock()
			w.WriteHeader(http.StatusOK)
			return
		}
		w.Header().Set("Allow", "POST, DELETE")
		rpcError(w, http.StatusMethodNotAllowed, nil, -32000, "Method not allowed.")
	default:
		routerNotFound(w, r)
	}
}

// routerNotFound is a web router's page for a route it has no handler for.
func routerNotFound(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	io.WriteString(w, "<!DOCTYPE html>\n<html><body><pre>Cannot "+r.Method+" "+r.URL.Path+"</pre></body></html>\n")
}

func (p *packaged) post(w http.ResponseWriter, r *http.Request) {
	accept := r.Header.Get("Accept")
	if !strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") {
		rpcError(w, http.StatusNotAcceptable, nil, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream")
		return
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		rpcError(w, http.StatusUnsupportedMediaType, nil, -32000, "Unsupported Media Type: Content-Type must be application/json")
		return
	}
	limit := p.bodyLimit
	if limit <= 0 {
		limit = 1 << 40
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return
	}
	if int64(len(body)) > limit {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		io.WriteString(w, "<!DOCTYPE html>\n<html><body><pre>PayloadTooLargeError: request entity too large</pre></body></html>\n")
		return
	}
	var raw json.RawMessage
	if json.Unmarshal(body, &raw) != nil {
		rpcError(w, http.StatusBadRequest, nil, -32700, "Parse error")
		return
	}
	var batch []json.RawMessage
	if json.Unmarshal(raw, &batch) != nil {
		batch = []json.RawMessage{raw}
	}
	var msgs []packagedMessage
	for _, m := range batch {
		var msg packagedMessage
		if json.Unmarshal(m, &msg) != nil || msg.Method == "" {
			rpcError(w, http.StatusBadRequest, nil, -32600, "Invalid Request")
			return
		}
		msgs = append(msgs, msg)
	}
	initializing := len(msgs) == 1 && msgs[0].Method == "initialize"
	if p.sessions && !initializing {
		if id := r.Header.Get("Mcp-Session-Id"); !p.known(id) {
			p.sessionRefused(w, id)
			return
		}
	}
	if !p.versionBlind && !initializing {
		if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(packagedVersions, v) {
			rpcError(w, http.StatusBadRequest, nil, -32000, "Bad Request: Unsupported protocol version: "+v)
			return
		}
	}
	var answers []string
	for _, msg := range msgs {
		if msg.ID == nil {
			continue // a notification
		}
		if p.versionBlind && msg.Method == "ping" && msg.Params == nil {
			rpcError(w, http.StatusBadRequest, msg.ID, -32602, "Invalid params: missing field params")
			return
		}
		answers = append(answers, p.answer(msg))
	}
	if initializing && p.sessions {
		id := newSessionID()
		p.mu.Lock()
		if p.live == nil {
			p.live = map[string]bool{}
		}
		p.live[id] = true
		p.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", id)
	}
	if len(answers) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	out := answers[0]
	if len(batch) > 1 || (len(raw) > 0 && raw[0] == '[') {
		out = "[" + strings.Join(answers, ",") + "]"
	}
	if p.sse {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\ndata: "+out+"\n\n")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, out)
}

type packagedMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// packagedVersions are the versions a packaged server speaks.
var packagedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// answer is the JSON-RPC answer to one request.
func (p *packaged) answer(msg packagedMessage) string {
	result := `{}`
	switch msg.Method {
	case "initialize":
		// As the TypeScript SDK's server: the proposal when it is one
		// of its versions, the latest otherwise.
		var params struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(msg.Params, &params)
		version := "2025-11-25"
		if slices.Contains(packagedVersions, params.ProtocolVersion) {
			version = params.ProtocolVersion
		}
		result = `{"protocolVersion":"` + version + `","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"packaged","version":"1.0.0"}}`
	case "ping":
	case "tools/list":
		result = `{"tools":[` + p.tools() + `]}`
	default:
		return `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`
	}
	return `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":` + result + `}`
}

// tools is the tools/list array: one tool, its description padded so
// the whole result is about toolsList bytes.
func (p *packaged) tools() string {
	tool := `{"name":"echo","description":"%s","inputSchema":{"type":"object"}}`
	pad := max(p.toolsList-len(tool), 0)
	return strings.Replace(tool, "%s", strings.Repeat("x", pad), 1)
}

func (p *packaged) known(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return id != "" && p.live[id]
}

// sessionRefused answers a request whose session id is missing or not
// live, as the SDK's transport does, or as its example server does.
func (p *packaged) sessionRefused(w http.ResponseWriter, id string) {
	switch {
	case id == "" || p.unknownSession400:
		rpcError(w, http.StatusBadRequest, nil, -32000, "Bad Request: No valid session ID provided")
	default:
		rpcError(w, http.StatusNotFound, nil, -32001, "Session not found")
	}
}

func rpcError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":`+strconv.Itoa(code)+`,"message":`+strconv.Quote(message)+`}}`)
}

func newSessionID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
