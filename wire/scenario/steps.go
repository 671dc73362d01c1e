package scenario

import (
	"errors"
	"rawmcp/wire/client"
	"strconv"
	"strings"

	"rawmcp/httpparse"
	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/mcp"
)

// Header values as a 2025-11-25 client sends them (MCP 2025-11-25
// Transports §2.1 item 2, §2.2 item 2, §2.5 item 2, §2.7).
const (
	acceptBoth  = "application/json, text/event-stream"
	acceptSSE   = "text/event-stream"
	contentJSON = "application/json"
)

// DraftVersion is the 2026 release candidate the demo proposes in its
// initialize body: the server must answer with 2025-11-25, as a result and
// not an error (Lifecycle §1.1.1, T-53), and never take the Draft on.
const DraftVersion = "2026-07-28"

// peer is one MCP client as a 2025-11-25 client library would be: a
// connection, a token and at most one session. Its requests are written
// out by hand, header by header, so a step changes exactly one thing.
type peer struct {
	b       *bench
	c       *client.Client
	token   string
	session string
}

// The requests of the happy path, as a 2025-11-25 client sends them: Host,
// Accept, Content-Type, Authorization, and once a session exists
// Mcp-Session-Id and MCP-Protocol-Version. initialize carries no
// MCP-Protocol-Version: the version is negotiated in its body, and no
// client sends the header there.

func (p *peer) fields(accept string, jsonBody bool) [][2]string {
	h := [][2]string{{"Host", p.b.fx.Addr}}
	if accept != "" {
		h = append(h, [2]string{"Accept", accept})
	}
	if jsonBody {
		h = append(h, [2]string{"Content-Type", contentJSON})
	}
	if p.token != "" {
		h = append(h, [2]string{"Authorization", "Bearer " + p.token})
	}
	if p.session != "" {
		h = append(h, [2]string{"Mcp-Session-Id", p.session}, [2]string{"MCP-Protocol-Version", mcp.ProtocolVersion})
	}
	return h
}

func (p *peer) postRequest(body string) client.Request {
	return client.Request{Method: "POST", Path: "/mcp", Header: p.fields(acceptBoth, true), Body: []byte(body)}
}

func initializeBody(id int, proposed string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"initialize","params":{"protocolVersion":"` + proposed +
		`","capabilities":{},"clientInfo":{"name":"rawmcp-scenario","version":"` + wire.ServerVersion + `"}}}`
}

func (p *peer) initializeRequest(id int, proposed string) client.Request {
	return p.postRequest(initializeBody(id, proposed))
}

func (p *peer) initializedRequest() client.Request {
	return p.postRequest(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func (p *peer) pingRequest(id int) client.Request {
	return p.postRequest(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"ping"}`)
}

func (p *peer) listResourcesRequest(id int) client.Request {
	return p.postRequest(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"resources/list"}`)
}

// getRequest opens the session's notification stream; a cursor resumes
// it (Transports §2.4 item 2).
func (p *peer) getRequest(cursor string) client.Request {
	h := p.fields(acceptSSE, false)
	if cursor != "" {
		h = append(h, [2]string{"Last-Event-ID", cursor})
	}
	return client.Request{Method: "GET", Path: "/mcp", Header: h}
}

func (p *peer) deleteRequest() client.Request {
	return client.Request{Method: "DELETE", Path: "/mcp", Header: p.fields("", false)}
}

// metadataRequest fetches the Protected Resource Metadata, with no
// Authorization: discovery is public (A-P06).
func metadataRequest(host string) client.Request {
	return client.Request{Method: "GET", Path: "/.well-known/oauth-protected-resource/mcp",
		Header: [][2]string{{"Host", host}, {"Accept", contentJSON}}}
}

// send is every step's last move.
func (p *peer) send(step string, req client.Request) (*httpparse.Response, error) {
	return p.b.send(p.c, step, req.Bytes())
}

// The named steps. Each sends its request and returns the response
// unjudged, except initialize, which keeps the session id a 200 issues.

func (p *peer) initialize(proposed string) (*httpparse.Response, error) {
	resp, err := p.send("initialize, proposing "+proposed, p.initializeRequest(1, proposed))
	if err == nil && resp.Status == 200 {
		p.session, _ = resp.Get("Mcp-Session-Id")
	}
	return resp, err
}

func (p *peer) initialized() (*httpparse.Response, error) {
	return p.send("notifications/initialized", p.initializedRequest())
}

func (p *peer) ping() (*httpparse.Response, error) {
	return p.send("ping", p.pingRequest(2))
}

func (p *peer) listResources() (*httpparse.Response, error) {
	return p.send("resources/list", p.listResourcesRequest(3))
}

func (p *peer) get() (*httpparse.Response, error) {
	return p.send("GET", p.getRequest(""))
}

func (p *peer) getWithCursor(cursor string) (*httpparse.Response, error) {
	return p.send("GET with Last-Event-ID", p.getRequest(cursor))
}

// errSetup marks a failure before the step under test: the attack or
// experiment could not even be set up, which is no block.
var errSetup = errors.New("setup failed")

// open runs the handshake, initialize and notifications/initialized, and
// leaves the peer holding an operating session.
func (p *peer) open() error {
	resp, err := p.initialize(mcp.ProtocolVersion)
	if err := wantStatus(resp, err, 200); err != nil {
		return errors.Join(errSetup, err)
	}
	if !state.ValidSessionID([]byte(p.session)) {
		return errors.Join(errSetup, errors.New("initialize issued no valid Mcp-Session-Id"))
	}
	resp, err = p.initialized()
	if err := wantStatus(resp, err, 202); err != nil {
		return errors.Join(errSetup, err)
	}
	return nil
}

// withHeader returns r with the named field set to value: the first field
// of that name (case-insensitive) is replaced, or the field is appended.
func withHeader(r client.Request, name, value string) client.Request {
	h := make([][2]string, 0, len(r.Header)+1)
	replaced := false
	for _, f := range r.Header {
		if !replaced && strings.EqualFold(f[0], name) {
			f[1], replaced = value, true
		}
		h = append(h, f)
	}
	if !replaced {
		h = append(h, [2]string{name, value})
	}
	r.Header = h
	return r
}

// withoutHeader returns r without any field of that name.
func withoutHeader(r client.Request, name string) client.Request {
	h := make([][2]string, 0, len(r.Header))
	for _, f := range r.Header {
		if !strings.EqualFold(f[0], name) {
			h = append(h, f)
		}
	}
	r.Header = h
	return r
}
