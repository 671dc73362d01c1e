package mcp

import (
	"errors"
	"rawmcp/wire/rule"
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

// Outcome is what became of one POSTed message. The wire layer alone
// turns an outcome into a status, a rule and a JSON-RPC error code: this
// package knows MCP, not HTTP.
type Outcome uint8

const (
	// Answered: Message is the JSON-RPC response to send, as Body says.
	Answered Outcome = iota
	// Accepted: a notification the server takes; nothing to send back.
	Accepted
	// Unsolicited: a JSON-RPC response, but the server never sends
	// requests, so it answers nothing.
	Unsolicited
	// NotificationRefused: a notification this server does not take.
	NotificationRefused
	// SessionGone: the session expired, ended or changed hands between the
	// wire layer's check and this step.
	SessionGone
	// LifecycleRefused: the lifecycle does not allow this step now.
	LifecycleRefused
	// TableFull: initialize found every session slot taken.
	TableFull
	// Failed: the session table could not create a session.
	Failed
)

// Body is how an answered message goes out.
type Body uint8

const (
	// BodyJSON: one application/json JSON-RPC message.
	BodyJSON Body = iota
	// BodyEvent: one text/event-stream event whose data is the message.
	BodyEvent
)

// Reply is the outcome of one POSTed message and, when Answered, the
// message to send.
type Reply struct {
	Outcome   Outcome
	Body      Body
	Message   []byte  // the JSON-RPC response, when Answered
	EventID   []byte  // for BodyEvent
	SessionID string  // set only by a successful initialize (T-38)
	Rule      rule.ID // the rule that shaped an answered message, for traces
	// Out is Call.Out as the answer left it: Message and EventID alias
	// it. Passed back as the next Call.Out, it keeps what it grew.
	Out []byte
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
//
// Out is the caller's buffer: ping and resources/list write their answer
// into it from its start (nothing before its length is kept), so a warm
// connection answers without allocating.
type Call struct {
	Msg       jsonrpc.Message
	SessionID string
	Owner     state.Owner
	Now       time.Time
	Out       []byte
	// Ended is where Post puts the sessions its table calls ended (found
	// expired, by the request's own step or by an initialize's sweep),
	// after any the caller put there, for the caller to log.
	Ended []state.Ended
}

// Post answers one POSTed message. The wire layer has checked everything
// before dispatch (T-P14): framing, media types, the bearer token, the
// protocol version, the session (present, valid, the caller's: or absent
// only for initialize and ping) and, through InputFor, the lifecycle. What
// is left is to apply the lifecycle step, which can still find the session
// gone or the step taken by a racing request, and the method itself.
func (h *Handler) Post(c *Call) Reply {
	switch c.Msg.Kind {
	case jsonrpc.KindResult, jsonrpc.KindError:
		// No server-to-client request is ever outstanding, so any
		// response is unsolicited (T-P04).
		return Reply{Outcome: Unsolicited}
	case jsonrpc.KindNotification:
		return h.notification(c)
	}
	if c.Msg.Method == MethodInitialize {
		return h.initialize(c)
	}
	// A ping before any session has no lifecycle to step (Ping page).
	if c.SessionID != "" {
		input, _ := InputFor(&c.Msg)
		_, ended, err := h.Table.Step(c.SessionID, c.Owner, input, c.Now)
		c.Ended = append(c.Ended, ended...)
		if err != nil {
			return stateFailure(err)
		}
	}
	switch c.Msg.Method {
	case MethodPing:
		out := jsonrpc.AppendResult(c.Out[:0], c.Msg.ID, nil)
		return Reply{Message: out, Rule: rule.PingAnswered, Out: out}
	case MethodListRes:
		return h.listResources(c)
	}
	return Reply{
		Message: jsonrpc.AppendError(nil, c.Msg.ID, jsonrpc.CodeMethodNotFound, "Method not found"),
		Rule:    rule.MethodNotFound,
	}
}

// InputFor names the lifecycle input msg is for the state package's
// transition table, and false for messages the lifecycle does not rule on:
// responses and notifications other than notifications/initialized, which
// Post refuses on their own (T-P04, T-12).
func InputFor(msg *jsonrpc.Message) (state.Input, bool) {
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

func (h *Handler) notification(c *Call) Reply {
	if c.Msg.Method != MethodInitialized {
		// The only notification this server accepts; anything else is a
		// notification it "will not accept" (T-12).
		return Reply{Outcome: NotificationRefused}
	}
	_, ended, err := h.Table.Step(c.SessionID, c.Owner, state.InputInitialized, c.Now)
	c.Ended = append(c.Ended, ended...)
	if err != nil {
		return stateFailure(err)
	}
	return Reply{Outcome: Accepted}
}

// resultMessage is the JSON-RPC response carrying result, in a buffer
// sized for it up front: appending to nil would allocate three times on
// the way.
func resultMessage(id jsonrpc.ID, result []byte) []byte {
	msg := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":{}}`)+len(id.Raw())+len(result))
	return jsonrpc.AppendResult(msg, id, result)
}

// stateFailure names what a failed step of the session table means.
func stateFailure(err error) Reply {
	switch {
	case errors.Is(err, state.ErrNotFound):
		return Reply{Outcome: SessionGone}
	case errors.Is(err, state.ErrLifecycle):
		return Reply{Outcome: LifecycleRefused}
	case errors.Is(err, state.ErrFull):
		return Reply{Outcome: TableFull}
	}
	return Reply{Outcome: Failed}
}
