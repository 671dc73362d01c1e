package probe_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// modernRef is a reference MCP 2026-07-28 server for the V2 checks,
// written with net/http as a test may: what the probe must find correct.
// It validates in the order of the official suite's own mock server
// (missing version header, then _meta, then header against _meta, then
// the version, then the standard headers and the Mcp-Param headers of
// its route tool, then the method), serves one resource and one prompt
// (refusing an unknown resource with -32602), acknowledges a
// subscriptions/listen for tool list changes (and ends it), answers
// GET and DELETE with 405 and Allow, refuses a foreign Origin with 403
// and a foreign Host with 421, refuses a body that is not one JSON-RPC
// message in valid UTF-8 with its members spelled exactly, each once, and
// a request with a null id (400), refuses a POST that does not accept both
// media types with 406, a body over 1 MiB with 413, accepts notifications with 202, and with a token
// set is a resource server: 401 with resource_metadata (and
// error="invalid_token" only for a bearer token that failed; the scheme
// matched in any case), Protected Resource Metadata at the well-known
// path. With legacy it also speaks
// 2025-11-25, statelessly (a dual-era server): a request without a
// modern claim (no 2026-07-28 header, no _meta version) is served by the
// old rules, initialize included; without legacy, initialize gets 400
// with -32022 naming the version it speaks.
type modernRef struct {
	token  string // "" for none
	legacy bool
	// lowScope is a valid token too, but only for server/discover: any
	// other method gets 403 insufficient_scope ("" for none).
	lowScope string
}

// refTool is the tool the reference offers first; refRouteTool mirrors
// its region argument into Mcp-Param-Region (x-mcp-header).
const (
	refTool      = "echo"
	refRouteTool = "route"
	refResource  = "ref://doc"
	refPrompt    = "greet"
)

const refVersion = "2026-07-28"

// refMaxBody is the largest body the reference reads: a longer one is
// refused with 413 by its Content-Length, before a byte of it is read.
const refMaxBody = 1 << 20

// startModernRef starts the reference on a loopback port and returns its
// authority.
func startModernRef(t *testing.T, cfg modernRef) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: &refHandler{cfg: cfg, authority: ln.Addr().String()}, ReadHeaderTimeout: refHeadTimeout}
	go srv.Serve(newStrictFront(ln))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

type refHandler struct {
	cfg       modernRef
	authority string
}

const prmPath = "/.well-known/oauth-protected-resource/mcp"

func (h *refHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+h.authority {
		writeJSON(w, http.StatusForbidden, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Origin not allowed"}}`)
		return
	}
	if r.Host != h.authority {
		http.Error(w, "misdirected", http.StatusMisdirectedRequest)
		return
	}
	if r.URL.Path == prmPath && h.cfg.token != "" {
		writeJSON(w, http.StatusOK, `{"resource":"http://`+h.authority+`/mcp","authorization_servers":["https://as.rawmcp.invalid"],"scopes_supported":["mcp:tools"]}`)
		return
	}
	if r.URL.Path != "/mcp" {
		http.NotFound(w, r)
		return
	}
	scheme, credential, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	bearer := strings.EqualFold(scheme, "Bearer")
	if h.cfg.token != "" && (!bearer || credential != h.cfg.token && (h.cfg.lowScope == "" || credential != h.cfg.lowScope)) {
		challenge := `Bearer resource_metadata="http://` + h.authority + prmPath + `", scope="mcp:tools"`
		// A token that was sent and failed gets the error code; no
		// bearer token at all (none, or Basic) gets the bare challenge.
		if bearer {
			challenge += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		writeJSON(w, http.StatusUnauthorized, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"token required"}}`)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeJSON(w, http.StatusMethodNotAllowed, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"POST only"}}`)
		return
	}
	if accept := r.Header.Get("Accept"); !strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") {
		writeJSON(w, http.StatusNotAcceptable, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Accept both application/json and text/event-stream"}}`)
		return
	}
	if mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); strings.TrimSpace(mt) != "application/json" {
		writeJSON(w, http.StatusUnsupportedMediaType, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"application/json only"}}`)
		return
	}
	if r.ContentLength > refMaxBody {
		writeJSON(w, http.StatusRequestEntityTooLarge, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"body too large"}}`)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, refMaxBody))
	if err != nil {
		return
	}
	var msg refMessage
	if !utf8.Valid(body) || !exactMembers(body) || json.Unmarshal(body, &msg) != nil || string(msg.ID) == "null" {
		// No id: MCP leaves it out when it cannot be read (Basic §Error
		// responses), where JSON-RPC 2.0 would write null.
		writeJSON(w, http.StatusBadRequest, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"one JSON-RPC message per POST"}}`)
		return
	}
	if h.cfg.lowScope != "" && credential == h.cfg.lowScope && msg.Method != "server/discover" {
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="mcp:tools", resource_metadata="http://`+h.authority+prmPath+`"`)
		writeJSON(w, http.StatusForbidden, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"insufficient scope"}}`)
		return
	}
	header := r.Header.Get("MCP-Protocol-Version")
	claim, claimed := msg.meta()[refMetaVersion]
	if header != refVersion && !claimed {
		if h.cfg.legacy {
			h.serveLegacy(w, msg)
			return
		}
		if msg.Method == "initialize" {
			// A 2025-11-25 client learns what to upgrade to (Versioning
			// §Backward Compatibility: SHOULD).
			var p struct {
				ProtocolVersion json.RawMessage `json:"protocolVersion"`
			}
			json.Unmarshal(msg.Params, &p)
			if p.ProtocolVersion == nil {
				p.ProtocolVersion = json.RawMessage(`null`)
			}
			writeJSON(w, 400, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"error":{"code":-32022,"message":"unsupported protocol version","data":{"supported":["`+refVersion+`"],"requested":`+string(p.ProtocolVersion)+`}}}`)
			return
		}
	}
	if msg.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	fail := func(status, code int, message, data string) {
		e := `{"code":` + itoa(code) + `,"message":"` + message + `"`
		if data != "" {
			e += `,"data":` + data
		}
		writeJSON(w, status, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"error":`+e+`}}`)
	}
	var version string
	json.Unmarshal(claim, &version)
	_, caps := msg.meta()[refMetaCapabilities]
	switch {
	case header == "":
		fail(400, -32020, "MCP-Protocol-Version missing", "")
	case !claimed || !caps:
		fail(400, -32602, "_meta needs protocolVersion and clientCapabilities", "")
	case header != version:
		fail(400, -32020, "MCP-Protocol-Version does not match _meta", "")
	case version != refVersion:
		fail(400, -32022, "unsupported protocol version", `{"supported":["`+refVersion+`"],"requested":`+string(claim)+`}`)
	case r.Header.Get("Mcp-Method") != msg.Method:
		fail(400, -32020, "Mcp-Method does not match the body", "")
	case needsName(msg.Method) && decodeName(r.Header.Get("Mcp-Name")) != msg.name():
		fail(400, -32020, "Mcp-Name does not match the body", "")
	case !paramHeadersMatch(r.Header, msg):
		fail(400, -32020, "Mcp-Param-Region does not match the body", "")
	default:
		h.serveModern(w, msg, fail)
	}
}

func (h *refHandler) serveModern(w http.ResponseWriter, msg refMessage, fail func(status, code int, message, data string)) {
	complete := `"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modernref","version":"1"}}`
	cacheable := complete + `,"ttlMs":60000,"cacheScope":"public"`
	switch msg.Method {
	case "server/discover":
		versions := `["` + refVersion + `"]`
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"supportedVersions":`+versions+`,"capabilities":{"tools":{"listChanged":true},"resources":{},"prompts":{}},`+cacheable+`}}`)
	case "tools/list":
		route := `{"name":"` + refRouteTool + `","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}},"required":["region","query"]}}`
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"tools":[{"name":"`+refTool+`","inputSchema":{"type":"object"}},`+route+`],`+cacheable+`}}`)
	case "resources/list":
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"resources":[{"uri":"`+refResource+`","name":"doc"}],`+cacheable+`}}`)
	case "resources/templates/list":
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"resourceTemplates":[],`+cacheable+`}}`)
	case "resources/read":
		if msg.name() != refResource {
			fail(400, -32602, "resource not found", `{"uri":`+strconv.Quote(msg.name())+`}`)
			return
		}
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"contents":[{"uri":"`+refResource+`","text":"hello"}],`+cacheable+`}}`)
	case "prompts/list":
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"prompts":[{"name":"`+refPrompt+`"}],`+cacheable+`}}`)
	case "prompts/get":
		if msg.name() != refPrompt {
			fail(400, -32602, "no such prompt", "")
			return
		}
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"messages":[{"role":"user","content":{"type":"text","text":"hello"}}],`+complete+`}}`)
	case "tools/call":
		if msg.name() == refRouteTool {
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"content":[{"type":"text","text":"routed"}],`+complete+`}}`)
			return
		}
		if msg.name() != refTool {
			fail(400, -32602, "no such tool", "")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Accel-Buffering", "no")
		w.WriteHeader(200)
		io.WriteString(w, `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}}`+"\n\n")
		io.WriteString(w, `data: {"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"content":[{"type":"text","text":"echo"}],`+complete+`}}`+"\n\n")
	case "subscriptions/listen":
		// Acknowledged, then ended at once with the completion result a
		// server sends when it closes a subscription itself: nothing
		// changes in the reference, so the stream has nothing more.
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Accel-Buffering", "no")
		w.WriteHeader(200)
		io.WriteString(w, `data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":`+string(msg.ID)+`},"notifications":{"toolsListChanged":true}}}`+"\n\n")
		io.WriteString(w, `data: {"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":`+string(msg.ID)+`}}}`+"\n\n")
	default:
		fail(404, -32601, "method not found", "")
	}
}

// serveLegacy serves a 2025-11-25 request statelessly: initialize, the
// tool list, ping; notifications are accepted.
func (h *refHandler) serveLegacy(w http.ResponseWriter, msg refMessage) {
	if msg.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	id := string(msg.ID)
	switch msg.Method {
	case "initialize":
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"modernref","version":"1"}}}`)
	case "tools/list":
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":{"tools":[{"name":"`+refTool+`","inputSchema":{"type":"object"}}]}}`)
	case "ping":
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
	default:
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32601,"message":"method not found"}}`)
	}
}

const (
	refMetaVersion      = "io.modelcontextprotocol/protocolVersion"
	refMetaCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

type refMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (m refMessage) meta() map[string]json.RawMessage {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(m.Params, &p)
	return p.Meta
}

// name is params.name or params.uri, what Mcp-Name mirrors.
func (m refMessage) name() string {
	var p struct {
		Name *string `json:"name"`
		URI  *string `json:"uri"`
	}
	json.Unmarshal(m.Params, &p)
	switch {
	case p.Name != nil:
		return *p.Name
	case p.URI != nil:
		return *p.URI
	}
	return ""
}

// paramHeadersMatch holds the route tool's Mcp-Param-Region to its
// region argument (Transports §Server Behavior for Custom Headers): the
// header, Base64-decoded when it is a sentinel, equals the argument;
// present exactly when the argument is; an invalid Base64 never matches.
func paramHeadersMatch(h http.Header, msg refMessage) bool {
	if msg.Method != "tools/call" || msg.name() != refRouteTool {
		return true
	}
	var p struct {
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	json.Unmarshal(msg.Params, &p)
	values, sent := h["Mcp-Param-Region"]
	raw, given := p.Arguments["region"]
	if !given || string(raw) == "null" {
		return !sent
	}
	var region string
	if !sent || json.Unmarshal(raw, &region) != nil {
		return false
	}
	return decodeName(strings.TrimSpace(values[0])) == region
}

func needsName(method string) bool {
	return slices.Contains([]string{"tools/call", "resources/read", "prompts/get"}, method)
}

// decodeName reads a Base64-sentinel value (=?base64?…?=); net/http has
// already taken the surrounding whitespace off.
func decodeName(v string) string {
	if inner, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if inner, ok := strings.CutSuffix(inner, "?="); ok {
			if b, err := base64.StdEncoding.DecodeString(inner); err == nil {
				return string(b)
			}
			return "\x00invalid"
		}
	}
	return v
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// exactMembers reports a JSON object whose member names are JSON-RPC's,
// spelled exactly and each once: encoding/json would match "Method" to
// method and let the last of two win.
func exactMembers(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		name, ok := tok.(string)
		var value json.RawMessage
		if err != nil || !ok || seen[name] || !slices.Contains([]string{"jsonrpc", "id", "method", "params", "result", "error"}, name) || dec.Decode(&value) != nil {
			return false
		}
		seen[name] = true
	}
	return true
}

// refHeadTimeout is how long the reference waits for a request head, as
// the recommended proxy configurations do.
const refHeadTimeout = 5 * time.Second

// strictFront hands net/http a connection only once its first request
// head has passed the framing rules net/http is lenient about, as a
// strict front in a deployment does: a folded line or a bare LF gets 400,
// 100 fields or 16 KiB of head 431, Content-Length beside
// Transfer-Encoding or twice with different values 400, a head not done
// within refHeadTimeout a close; each refusal closes the connection.
// The probe sends each of those on a connection of its own. Heads are
// read concurrently, so a slow one holds up no other connection.
type strictFront struct {
	net.Listener
	ready chan net.Conn
	done  chan struct{}
}

func newStrictFront(ln net.Listener) *strictFront {
	f := &strictFront{Listener: ln, ready: make(chan net.Conn), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				if c := admit(nc); c != nil {
					select {
					case f.ready <- c:
					case <-f.done:
						c.Close()
					}
				}
			}()
		}
	}()
	return f
}

func (f *strictFront) Accept() (net.Conn, error) {
	select {
	case c := <-f.ready:
		return c, nil
	case <-f.done:
		return nil, net.ErrClosed
	}
}

// admitted is a connection whose first head was read and passed: it is
// read again from the start.
type admitted struct {
	net.Conn
	r io.Reader
}

func (c admitted) Read(b []byte) (int, error) { return c.r.Read(b) }

// admit reads nc's first head and answers a refusal itself (nil), or
// returns the connection to be served.
func admit(nc net.Conn) net.Conn {
	nc.SetReadDeadline(time.Now().Add(refHeadTimeout))
	br := bufio.NewReader(nc)
	var head []byte
	for !bytes.HasSuffix(head, []byte("\r\n\r\n")) && !bytes.HasSuffix(head, []byte("\n\n")) {
		b, err := br.ReadByte()
		if err != nil {
			nc.Close()
			return nil
		}
		if head = append(head, b); len(head) > 16<<10 {
			return refuse(nc, "431 Request Header Fields Too Large")
		}
	}
	nc.SetReadDeadline(time.Time{})
	if status := framingFault(head); status != "" {
		return refuse(nc, status)
	}
	return admitted{nc, io.MultiReader(bytes.NewReader(head), br)}
}

// framingFault is the refusal a head earns, "" for none.
func framingFault(head []byte) string {
	if bytes.Contains(bytes.ReplaceAll(head, []byte("\r\n"), nil), []byte("\n")) || bytes.Contains(head, []byte("\n ")) || bytes.Contains(head, []byte("\n\t")) {
		return "400 Bad Request"
	}
	lines := bytes.Split(bytes.TrimSuffix(head, []byte("\r\n\r\n")), []byte("\r\n"))[1:]
	if len(lines) >= 100 {
		return "431 Request Header Fields Too Large"
	}
	var lengths []string
	chunked := false
	for _, l := range lines {
		name, value, _ := bytes.Cut(l, []byte(":"))
		switch strings.ToLower(string(name)) {
		case "content-length":
			lengths = append(lengths, strings.TrimSpace(string(value)))
		case "transfer-encoding":
			chunked = true
		}
	}
	if len(lengths) > 0 && chunked || len(lengths) > 1 && slices.ContainsFunc(lengths, func(v string) bool { return v != lengths[0] }) {
		return "400 Bad Request"
	}
	return ""
}

// refuse answers status with a JSON-RPC error and closes nc.
func refuse(nc net.Conn, status string) net.Conn {
	body := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"bad request framing"}}`
	io.WriteString(nc, "HTTP/1.1 "+status+"\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
	nc.Close()
	return nil
}
