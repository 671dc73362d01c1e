package mcp

import (
	"errors"
	"time"

	"rawmcp/state"
	"rawmcp/wire/jsonrpc"
)

// ProtocolVersion is the only revision rawmcp speaks. The schema's
// LATEST_PROTOCOL_VERSION for the stable release.
const ProtocolVersion = "2025-11-25"

// Method names of the subset, named after the wire.
const (
	MethodInitialize  = "initialize"
	MethodInitialized = "notifications/initialized"
	MethodPing        = "ping"
	MethodListRes     = "resources/list"
	// MethodListChanged is the one server notification the GET stream
	// carries; capabilities.resources.listChanged declares it (T-57).
	MethodListChanged = "notifications/resources/list_changed"
)

// Body is how a Reply's body goes out.
type Body uint8

const (
	// BodyNone: 202 Accepted with Content-Length: 0 (T-11).
	BodyNone Body = iota
	// BodyJSON: one application/json JSON-RPC message.
	BodyJSON
	// BodyEvent: one text/event-stream event whose data is the message.
	BodyEvent
)

// Reply is what the HTTP layer writes for one POSTed message.
type Reply struct {
	Status    int
	Body      Body
	Message   []byte // the JSON-RPC message; nil for BodyNone and for errors the wire layer answers with its constant bodies
	EventID   string // for BodyEvent
	SessionID string // set only by a successful initialize (T-38)
	Rule      string // the requirement that decided this reply, for traces
}

// Handler dispatches the MCP subset. Safe for concurrent use: all session
// state lives in Table.
type Handler struct {
	Table         *state.Table
	ServerName    string
	ServerVersion string
}

// Call is one authenticated, strictly decoded message. SessionID is ""
// when the request carried no Mcp-Session-Id (the wire layer has already
// checked the header's syntax).
type Call struct {
	Msg       jsonrpc.Message
	SessionID string
	Owner     state.Owner
	Now       time.Time
}

// Post answers one POSTed message. The caller has checked framing, media
// types, the bearer token, the protocol-version header and the session
// header's presence and syntax (T-P14); what is left is the lifecycle and
// the method itself.
func (h *Handler) Post(c Call) Reply {
	switch c.Msg.Kind {
	case jsonrpc.KindResult, jsonrpc.KindError:
		// No server-to-client request is ever outstanding, so any
		// response is unsolicited (T-P04).
		return Reply{Status: 400, Rule: "T-P04"}
	case jsonrpc.KindNotification:
		return h.notification(c)
	}
	if c.Msg.Method == MethodInitialize {
		if c.SessionID != "" {
			// A live session refuses it through the transition table;
			// an unknown one is refused the same way, so initialize never
			// doubles as a session probe (T-P06).
			_, _ = h.Table.Step(c.SessionID, c.Owner, state.InputInitialize, c.Now)
			return Reply{Status: 400, Rule: "T-P06"}
		}
		return h.initialize(c)
	}
	if c.SessionID == "" {
		if c.Msg.Method == MethodPing {
			// Ping is allowed before initialization (Ping page; T-P07).
			return h.result(c, "T-59", []byte(`{}`))
		}
		return Reply{Status: 400, Rule: "T-P07"}
	}
	input, _ := InputFor(c.Msg)
	if _, err := h.Table.Step(c.SessionID, c.Owner, input, c.Now); err != nil {
		return stateFailure(err)
	}
	switch c.Msg.Method {
	case MethodPing:
		return h.result(c, "T-59", []byte(`{}`))
	case MethodListRes:
		return h.listResources(c)
	}
	return Reply{
		Status:  200,
		Body:    BodyJSON,
		Message: jsonrpc.AppendError(nil, c.Msg.ID, jsonrpc.CodeMethodNotFound, "Method not found"),
		Rule:    "T-66",
	}
}

// InputFor names the lifecycle input msg is for the state package's
// transition table, and false for messages the lifecycle does not rule on:
// responses and notifications other than notifications/initialized, which
// Post refuses on their own (T-P04, T-12).
func InputFor(msg jsonrpc.Message) (state.Input, bool) {
	switch {
	case msg.Kind == jsonrpc.KindNotification && msg.Method == MethodInitialized:
		return state.InputInitialized, true
	case msg.Kind != jsonrpc.KindRequest:
		return 0, false
	case msg.Method == MethodInitialize:
		return state.InputInitialize, true
	case msg.Method == MethodPing:
		return state.InputPing, true
	}
	return state.InputRequest, true
}

func (h *Handler) notification(c Call) Reply {
	if c.Msg.Method != MethodInitialized {
		// The only notification this server accepts; anything else is a
		// notification it "will not accept" (T-12).
		return Reply{Status: 400, Rule: "T-12"}
	}
	if c.SessionID == "" {
		return Reply{Status: 400, Rule: "T-42"}
	}
	if _, err := h.Table.Step(c.SessionID, c.Owner, state.InputInitialized, c.Now); err != nil {
		return stateFailure(err)
	}
	return Reply{Status: 202, Body: BodyNone, Rule: "T-11"}
}

func (h *Handler) result(c Call, rule string, result []byte) Reply {
	return Reply{
		Status:  200,
		Body:    BodyJSON,
		Message: resultMessage(c.Msg.ID, result),
		Rule:    rule,
	}
}

// resultMessage is the JSON-RPC response carrying result, in a buffer
// sized for it up front: appending to nil would allocate three times on
// the way.
func resultMessage(id jsonrpc.ID, result []byte) []byte {
	msg := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":{}}`)+len(id.Raw())+len(result))
	return jsonrpc.AppendResult(msg, id, result)
}

// stateFailure maps the state package's errors to statuses: a session that
// is gone for any reason is one indistinguishable 404 (T-43, T-P10); a step
// the lifecycle forbids is 400 (T-P06).
func stateFailure(err error) Reply {
	switch {
	case errors.Is(err, state.ErrNotFound):
		return Reply{Status: 404, Rule: "T-43"}
	case errors.Is(err, state.ErrLifecycle):
		return Reply{Status: 400, Rule: "T-P06"}
	case errors.Is(err, state.ErrFull):
		return Reply{Status: 503, Rule: "T-P-capacity"}
	}
	return Reply{Status: 500, Rule: "internal"}
}
