package wire_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/policy"
	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/mcp"
)

// referenceServer is the same /mcp contract written the obvious way on
// net/http and encoding/json: the yardstick of the end-to-end benchmarks.
// It makes the checks rawmcp makes on the paths the benchmarks take (Host,
// Origin, method, Accept, Content-Type, body size, bearer token, protocol
// version, session, scope) with the same policy.Policy and state.Table, so
// the benchmarks compare the HTTP and JSON machinery, not the work behind
// it. It is not strict where net/http and encoding/json are not (duplicate
// JSON keys, obs-fold, bare LF), which only makes it cheaper.
type referenceServer struct {
	policy   *policy.Policy
	sessions *state.Table
	retry    time.Duration
}

// refRequest is a JSON-RPC message as encoding/json sees it.
type refRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type refResult struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type refError struct {
	JSONRPC string `json:"jsonrpc"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type refInitializeResult struct {
	ProtocolVersion string `json:"protocolVersion"`
	Capabilities    struct {
		Resources struct {
			ListChanged bool `json:"listChanged"`
		} `json:"resources"`
	} `json:"capabilities"`
	ServerInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
}

type refResource struct {
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MIMEType string `json:"mimeType"`
}

type refListResult struct {
	Resources []refResource `json:"resources"`
}

const refMaxBody = 64 << 10

// startReference serves the reference on a fresh 127.0.0.1 port with a
// policy minted for that port; it returns the address and a token with
// both scopes. The server stops when the test ends.
func startReference(tb testing.TB, tableCfg state.Config) (addr, token string) {
	tb.Helper()
	return startReferenceWith(tb, tableCfg, 2*time.Second)
}

// startReferenceWith is startReference with the keep-alive idle timeout
// given.
func startReferenceWith(tb testing.TB, tableCfg state.Config, idle time.Duration) (addr, token string) {
	tb.Helper()
	ln, err := wire.Listen("127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr = ln.Addr().String()
	p, token := benchPolicy(tb, addr)
	rs := &referenceServer{policy: p, sessions: state.NewTable(tableCfg, rand.Reader), retry: 2 * time.Second}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", rs.serveMCP)
	srv := &http.Server{
		Handler:        mux,
		ReadTimeout:    2 * time.Second,
		WriteTimeout:   2 * time.Second,
		IdleTimeout:    idle,
		MaxHeaderBytes: 8 << 10,
	}
	go srv.Serve(ln)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return addr, token
}

// benchPolicy builds the policy both servers enforce for a server at
// addr, with one token for alice of tenant acme holding both scopes.
func benchPolicy(tb testing.TB, addr string) (*policy.Policy, string) {
	tb.Helper()
	canonical := "http://" + addr + "/mcp"
	p, err := policy.New(policy.Config{
		CanonicalURI:   canonical,
		Issuer:         "https://as.rawmcp.invalid",
		AllowedHosts:   []string{addr},
		AllowedOrigins: []string{"http://" + addr},
		AllowedTenants: []string{"acme"},
	})
	if err != nil {
		tb.Fatal(err)
	}
	var raw [32]byte
	rand.Read(raw[:])
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	err = p.Add(token, policy.TokenRecord{
		TokenID: "bench", Issuer: "https://as.rawmcp.invalid",
		Audience: canonical, Resource: canonical, AuthorizationResource: canonical, TokenResource: canonical,
		Subject: "alice", Tenant: "acme", Scopes: []string{policy.ScopeConnect, policy.ScopeResourcesRead},
		Revision: 1, Active: true, Expiry: time.Now().Add(time.Hour),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return p, token
}

func (rs *referenceServer) serveMCP(w http.ResponseWriter, r *http.Request) {
	if !rs.policy.HostAllowed([]byte(r.Host)) {
		refWriteError(w, http.StatusForbidden, -32000, "Forbidden")
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !rs.policy.OriginAllowed([]byte(origin)) {
		refWriteError(w, http.StatusForbidden, -32000, "Forbidden")
		return
	}
	switch r.Method {
	case http.MethodPost:
		rs.post(w, r)
	case http.MethodGet:
		rs.get(w, r)
	case http.MethodDelete:
		rs.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		refWriteError(w, http.StatusMethodNotAllowed, -32000, "Method Not Allowed")
	}
}

func (rs *referenceServer) post(w http.ResponseWriter, r *http.Request) {
	if !refAccepts(r, "application/json") || !refAccepts(r, "text/event-stream") {
		refWriteError(w, http.StatusNotAcceptable, -32000, "Not Acceptable")
		return
	}
	if mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" ||
		params["charset"] != "" && !strings.EqualFold(params["charset"], "utf-8") {
		refWriteError(w, http.StatusUnsupportedMediaType, -32000, "Unsupported Media Type")
		return
	}
	var msg refRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, refMaxBody)).Decode(&msg); err != nil {
		refWriteError(w, http.StatusBadRequest, -32700, "Parse error")
		return
	}
	if msg.JSONRPC != "2.0" || msg.Method == "" {
		refWriteError(w, http.StatusBadRequest, -32600, "Invalid Request")
		return
	}
	principal, ok := rs.authenticate(w, r, msg.Method)
	if !ok {
		return
	}
	owner := state.Owner{Subject: principal.Subject, Tenant: principal.Tenant, Revision: principal.Revision}
	version := r.Header.Get("MCP-Protocol-Version")
	sessionID := r.Header.Get("Mcp-Session-Id")
	if msg.Method == mcp.MethodInitialize {
		if version != "" && version != mcp.ProtocolVersion {
			refWriteError(w, http.StatusBadRequest, -32000, "Bad Request")
			return
		}
		if rs.authorize(w, principal, msg.Method) {
			rs.initialize(w, msg, owner)
		}
		return
	}
	if version != mcp.ProtocolVersion {
		refWriteError(w, http.StatusBadRequest, -32000, "Bad Request")
		return
	}
	if !rs.checkSession(w, sessionID, owner) || !rs.authorize(w, principal, msg.Method) {
		return
	}
	now := time.Now()
	switch msg.Method {
	case mcp.MethodInitialized:
		if _, _, err := rs.sessions.Step(sessionID, owner, state.InputInitialized, now); err != nil {
			refWriteStateError(w, err)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	case mcp.MethodPing:
		if _, _, err := rs.sessions.Step(sessionID, owner, state.InputPing, now); err != nil {
			refWriteStateError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(refResult{JSONRPC: "2.0", ID: msg.ID, Result: struct{}{}})
	case mcp.MethodListRes:
		rs.listResources(w, msg, sessionID, owner, now)
	default:
		refWriteError(w, http.StatusOK, -32601, "Method not found")
	}
}

func (rs *referenceServer) initialize(w http.ResponseWriter, msg refRequest, owner state.Owner) {
	listChanged, _ := json.Marshal(map[string]string{"jsonrpc": "2.0", "method": mcp.MethodListChanged})
	id, _, err := rs.sessions.Create(owner, time.Now(), listChanged)
	if err != nil {
		w.Header().Set("Retry-After", "1")
		refWriteError(w, http.StatusServiceUnavailable, -32000, "Service Unavailable")
		return
	}
	var result refInitializeResult
	result.ProtocolVersion = mcp.ProtocolVersion
	result.Capabilities.Resources.ListChanged = true
	result.ServerInfo.Name, result.ServerInfo.Version = wire.ServerName, wire.ServerVersion
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Mcp-Session-Id", id)
	json.NewEncoder(w).Encode(refResult{JSONRPC: "2.0", ID: msg.ID, Result: result})
}

// listResources answers with one SSE event, as rawmcp does.
func (rs *referenceServer) listResources(w http.ResponseWriter, msg refRequest, sessionID string, owner state.Owner, now time.Time) {
	if _, _, err := rs.sessions.Step(sessionID, owner, state.InputRequest, now); err != nil {
		refWriteStateError(w, err)
		return
	}
	eventID, _, err := rs.sessions.AppendPostEventID(nil, sessionID, owner, now)
	if err != nil {
		refWriteStateError(w, err)
		return
	}
	data, err := json.Marshal(refResult{JSONRPC: "2.0", ID: msg.ID, Result: refListResult{
		Resources: []refResource{{URI: "kb://tenant/" + url.PathEscape(owner.Tenant), Name: "knowledge base", MIMEType: "text/plain"}},
	}})
	if err != nil {
		refWriteError(w, http.StatusInternalServerError, -32000, "Internal Server Error")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "id: %s\ndata: %s\n\n", eventID, data)
}

// get answers the notification stream at once: a priming event with retry,
// then the queued notifications.
func (rs *referenceServer) get(w http.ResponseWriter, r *http.Request) {
	if !refAccepts(r, "text/event-stream") {
		refWriteError(w, http.StatusNotAcceptable, -32000, "Not Acceptable")
		return
	}
	id, owner, ok := rs.sessionRequest(w, r, "GET")
	if !ok {
		return
	}
	batch, _, err := rs.sessions.Poll(id, owner, r.Header.Get("Last-Event-ID"), time.Now())
	if err != nil {
		refWriteStateError(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "id: %s\nretry: %d\ndata: \n\n", batch.PrimingID, rs.retry.Milliseconds())
	for _, ev := range batch.Events {
		fmt.Fprintf(w, "id: %s\ndata: %s\n\n", ev.ID, ev.Data)
	}
}

func (rs *referenceServer) delete(w http.ResponseWriter, r *http.Request) {
	id, owner, ok := rs.sessionRequest(w, r, "DELETE")
	if !ok {
		return
	}
	if _, _, err := rs.sessions.Step(id, owner, state.InputDelete, time.Now()); err != nil {
		refWriteStateError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (rs *referenceServer) sessionRequest(w http.ResponseWriter, r *http.Request, op string) (string, state.Owner, bool) {
	principal, ok := rs.authenticate(w, r, op)
	if !ok {
		return "", state.Owner{}, false
	}
	if r.Header.Get("MCP-Protocol-Version") != mcp.ProtocolVersion {
		refWriteError(w, http.StatusBadRequest, -32000, "Bad Request")
		return "", state.Owner{}, false
	}
	owner := state.Owner{Subject: principal.Subject, Tenant: principal.Tenant, Revision: principal.Revision}
	id := r.Header.Get("Mcp-Session-Id")
	if !rs.checkSession(w, id, owner) || !rs.authorize(w, principal, op) {
		return "", state.Owner{}, false
	}
	return id, owner, true
}

func (rs *referenceServer) authenticate(w http.ResponseWriter, r *http.Request, op string) (policy.Principal, bool) {
	authz, present := r.Header["Authorization"]
	var value []byte
	if present {
		value = []byte(authz[0])
	}
	principal, denial := rs.policy.AuthenticateRemembered(nil, value, present, op, time.Now())
	if denial != nil {
		refWriteDenial(w, denial)
		return principal, false
	}
	return principal, true
}

func (rs *referenceServer) authorize(w http.ResponseWriter, principal policy.Principal, op string) bool {
	if denial := rs.policy.Authorize(principal, op); denial != nil {
		refWriteDenial(w, denial)
		return false
	}
	return true
}

func (rs *referenceServer) checkSession(w http.ResponseWriter, id string, owner state.Owner) bool {
	if id == "" || !state.ValidSessionID([]byte(id)) {
		refWriteError(w, http.StatusBadRequest, -32000, "Bad Request")
		return false
	}
	if _, _, err := rs.sessions.Check(id, owner, time.Now()); err != nil {
		refWriteError(w, http.StatusNotFound, -32001, "Session not found")
		return false
	}
	return true
}

// refAccepts is the usual Accept check of MCP servers: some element names
// the type, its type/*, or */*.
func refAccepts(r *http.Request, mediaType string) bool {
	wildcard := mediaType[:strings.IndexByte(mediaType, '/')] + "/*"
	for _, value := range r.Header.Values("Accept") {
		for element := range strings.SplitSeq(value, ",") {
			mt, _, _ := strings.Cut(element, ";")
			mt = strings.TrimSpace(mt)
			if strings.EqualFold(mt, mediaType) || strings.EqualFold(mt, wildcard) || mt == "*/*" {
				return true
			}
		}
	}
	return false
}

func refWriteDenial(w http.ResponseWriter, d *policy.Denial) {
	if d.Challenge != "" {
		w.Header().Set("WWW-Authenticate", d.Challenge)
	}
	refWriteError(w, d.Status, -32000, http.StatusText(d.Status))
}

func refWriteStateError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, state.ErrNotFound):
		refWriteError(w, http.StatusNotFound, -32001, "Session not found")
	case errors.Is(err, state.ErrLifecycle), errors.Is(err, state.ErrCursor):
		refWriteError(w, http.StatusBadRequest, -32600, "Invalid Request")
	default:
		refWriteError(w, http.StatusInternalServerError, -32000, "Internal Server Error")
	}
}

func refWriteError(w http.ResponseWriter, status, code int, message string) {
	var body refError
	body.JSONRPC = "2.0"
	body.Error.Code, body.Error.Message = code, message
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

// Both servers must answer the benchmarks' exchanges alike, or the
// comparison would be of different work.
func TestReferenceMatchesRawmcp(t *testing.T) {
	type answer struct {
		Status      int
		ContentType string
		Message     string // the JSON-RPC message: the body, or the SSE event's data
	}
	want := map[string]answer{
		"T-59/ping":              {200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		"T-14/resources/list":    {200, "text/event-stream", `{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"kb://tenant/acme","name":"knowledge base","mimeType":"text/plain"}]}}`},
		"T-45/DELETE":            {204, "", ""},
		"T-43/ping after DELETE": {404, "application/json", `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}}`},
	}
	for _, srv := range benchServers(t) {
		t.Run(srv.name, func(t *testing.T) {
			c := newBenchConn(t, srv.addr)
			session := benchInitialize(t, c, srv)
			got := map[string]answer{}
			for _, step := range []struct {
				name string
				raw  []byte
			}{
				{"T-59/ping", srv.ping(session)},
				{"T-14/resources/list", srv.resources(session)},
				{"T-45/DELETE", srv.delete(session)},
				{"T-43/ping after DELETE", srv.ping(session)},
			} {
				status, contentType, body, err := c.roundTrip(step.raw)
				if err != nil {
					t.Fatalf("%s: %v", step.name, err)
				}
				got[step.name] = answer{status, contentType, refMessage(contentType, body)}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
		})
	}
}

// refMessage is the message a body carries: the data of its one event
// for an SSE body, else the body without the newline encoding/json ends
// it with.
func refMessage(contentType string, body []byte) string {
	s := strings.TrimSuffix(string(body), "\n")
	if contentType != "text/event-stream" {
		return s
	}
	for line := range strings.SplitSeq(s, "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			return data
		}
	}
	return ""
}
