package client

// The header values of a 2025-11-25 client (MCP 2025-11-25 Transports
// §2.1 item 2, §2.2 item 2).
const (
	AcceptBoth  = "application/json, text/event-stream"
	AcceptSSE   = "text/event-stream"
	ContentJSON = "application/json"
)

// MCP is what every request of one MCP client carries: the endpoint, the
// credential and, once there is one, the session. Request renders a
// well-formed request from it, the one builder of the probe, the scenarios
// and the load generator, so the three send the same fields in the same
// order:
//
//	Host, User-Agent, Accept, Content-Type, Authorization,
//	Mcp-Session-Id, MCP-Protocol-Version
//
// each only when it has a value. A step that tests one field changes it
// with Set, Drop or Add afterwards.
type MCP struct {
	Host          string
	Path          string
	UserAgent     string // "" sends none
	Authorization string // the whole field value ("Bearer …"); "" sends none
	Session       string // Mcp-Session-Id; "" sends none
	Version       string // MCP-Protocol-Version; "" sends none
}

// Request is a request to the endpoint. A POST carries Accept for both
// answers and Content-Type: application/json as a client MUST send them
// (Transports §2.1 item 2), a GET Accept: text/event-stream (§2.2 item 2);
// other methods carry no Accept. Body is sent as it is (nil for none).
func (m MCP) Request(method string, body []byte) Request {
	h := make([][2]string, 0, 7)
	h = append(h, [2]string{"Host", m.Host})
	if m.UserAgent != "" {
		h = append(h, [2]string{"User-Agent", m.UserAgent})
	}
	switch method {
	case "POST":
		h = append(h, [2]string{"Accept", AcceptBoth}, [2]string{"Content-Type", ContentJSON})
	case "GET":
		h = append(h, [2]string{"Accept", AcceptSSE})
	}
	if m.Authorization != "" {
		h = append(h, [2]string{"Authorization", m.Authorization})
	}
	if m.Session != "" {
		h = append(h, [2]string{"Mcp-Session-Id", m.Session})
	}
	if m.Version != "" {
		h = append(h, [2]string{"MCP-Protocol-Version", m.Version})
	}
	return Request{Method: method, Path: m.Path, Header: h, Body: body}
}

// Post, Get and Delete are Request for the three methods of the endpoint:
// a message, the notification stream, the end of the session.
func (m MCP) Post(body []byte) Request { return m.Request("POST", body) }
func (m MCP) Get() Request             { return m.Request("GET", nil) }
func (m MCP) Delete() Request          { return m.Request("DELETE", nil) }
