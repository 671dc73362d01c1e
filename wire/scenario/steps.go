package scenario

import (
	"errors"
	"strconv"

	"rawmcp/httpparse"
	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/client"
	"rawmcp/wire/mcp"
)

// Header values as a 2025-11-25 client sends them (MCP 2025-11-25
// Transports §2.1 item 2, §2.2 item 2), for the checks of the answers and
// the tests' hand-written requests.
const (
	acceptBoth  = client.AcceptBoth
	acceptSSE   = client.AcceptSSE
	contentJSON = client.ContentJSON
)

// DraftVersion is the 2026 release candidate the demo proposes in its
// initialize body: the server must answer with 2025-11-25, as a result and
// not an error (Lifecycle §1.1.1, T-53), and never take the Draft on.
const DraftVersion = "2026-07-28"

// peer is one MCP client as a 2025-11-25 client library would be: a
// connection, a token and at most one session. Its requests come from
// client.MCP; a step that tests one field changes exactly that one with
// Set or Drop.
type peer struct {
	b       *bench
	c       *client.Client
	token   string
	session string
}

// The requests of the happy path, as a 2025-11-25 client sends them
// (client.MCP): Host, Accept, Content-Type, Authorization, and once a
// session exists Mcp-Session-Id and MCP-Protocol-Version. initialize
// carries no MCP-Protocol-Version: the version is negotiated in its body,
// and no client sends the header there.

func (p *peer) mcp() client.MCP {
	m := client.MCP{Host: p.b.fx.Addr, Path: "/mcp"}
	if p.token != "" {
		m.Authorization = "Bearer " + p.token
	}
	if p.session != "" {
		m.Session, m.Version = p.session, mcp.ProtocolVersion
	}
	return m
}

func (p *peer) postRequest(body string) client.Request {
	return p.mcp().Post([]byte(body))
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
	r := p.mcp().Get()
	if cursor != "" {
		r = r.Set("Last-Event-ID", cursor)
	}
	return r
}

func (p *peer) deleteRequest() client.Request { return p.mcp().Delete() }

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
