package probe

import (
	"encoding/json"
	"mime"
	"strconv"
	"time"

	"rawmcp/sseframe"
	"rawmcp/wire/client"
)

// protocolVersion is the MCP revision the probe speaks.
const protocolVersion = "2025-11-25"

// releasedVersions are the MCP revisions a server may answer with when it
// does not support the one proposed (Lifecycle §1.1.1).
var releasedVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// session is one MCP session the target issued.
type session struct {
	id            string // "" when the target issues none
	version       string // for MCP-Protocol-Version
	authorization string // the Authorization value that opened it ("" for none)
	ended         bool
	init          *reply
}

// fieldEdit changes a request's header fields: the client.Request
// editor (Set, Drop) in a form a check can pass along in a list.
type fieldEdit func(h [][2]string) [][2]string

// set gives the request exactly one field called name, of value
// (client.Request.Set).
func set(name, value string) fieldEdit {
	return func(h [][2]string) [][2]string { return client.Request{Header: h}.Set(name, value).Header }
}

// drop removes every field called name (client.Request.Drop).
func drop(name string) fieldEdit {
	return func(h [][2]string) [][2]string { return client.Request{Header: h}.Drop(name).Header }
}

// edit applies edits to r's header fields, in order.
func edit(r client.Request, edits ...fieldEdit) client.Request {
	for _, e := range edits {
		r.Header = e(r.Header)
	}
	return r
}

// request builds a well-formed request to the endpoint (client.MCP): the
// token (the run's, or the one that opened s), and for a session its id
// and version.
func (t *checkRun) request(method string, s *session, body []byte) client.Request {
	m := client.MCP{Host: t.p.target.Host, Path: t.p.target.Path, Authorization: t.p.authorization()}
	if s != nil {
		m.Authorization, m.Session, m.Version = s.authorization, s.id, s.version
	}
	return m.Request(method, body)
}

// rpc is a JSON-RPC request body with a fresh id.
func rpc(method, params string) (body []byte, id int64) {
	id = newID()
	b := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"method":"` + method + `"`
	if params != "" {
		b += `,"params":` + params
	}
	return []byte(b + "}"), id
}

// initializeBody proposes version.
func initializeBody(version string) ([]byte, int64) {
	return rpc("initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"rawmcp-probe","version":"`+client.Version+`"}}`)
}

// initialize is an initialize request with the run's token (or auth, if
// given: "" for none).
func (t *checkRun) initialize(edits ...fieldEdit) (client.Request, int64) {
	body, id := initializeBody(protocolVersion)
	return edit(t.request("POST", nil, body), edits...), id
}

// opening is the request that reaches the endpoint in the revision the
// target speaks, with edits: initialize on a target that speaks
// 2025-11-25 (or whose revision a run without its token could not
// learn), server/discover as a 2026-07-28 client sends it on a target
// that speaks only that. The boundary's checks (Host, Origin, media
// types, framing, tokens) judge what the server does with it, so each is
// judged on either kind of target; openingName says which it is.
func (t *checkRun) opening(edits ...fieldEdit) (client.Request, int64) {
	if t.p.modernOnly() {
		return t.modernRequest("server/discover", "", edits...)
	}
	return t.initialize(edits...)
}

// openingName is the method opening sends, for step names and reasons.
func (t *checkRun) openingName() string {
	if t.p.modernOnly() {
		return "server/discover"
	}
	return "initialize"
}

// plainMethod is a method every target serves: ping on a target that
// speaks 2025-11-25, server/discover on one that speaks only 2026-07-28
// (which removed ping).
func (t *checkRun) plainMethod() string {
	if t.p.modernOnly() {
		return "server/discover"
	}
	return "ping"
}

// plainParams are the params of a plainMethod request holding members
// (`"x":1`, "" for none), and on a 2026-07-28-only target the modern
// _meta; "" for no params at all.
func (t *checkRun) plainParams(members string) string {
	switch {
	case t.p.modernOnly() && members != "":
		return "{" + members + `,"_meta":` + modernMeta + "}"
	case t.p.modernOnly():
		return `{"_meta":` + modernMeta + "}"
	case members != "":
		return "{" + members + "}"
	}
	return ""
}

// plainRequest sends the plainMethod request (ping on the check's
// session, or server/discover) and reports the reply and its id.
func (t *checkRun) plainRequest(step string) (*reply, int64) {
	if !t.p.modernOnly() {
		return t.ping(step, t.session)
	}
	body, id := rpc(t.plainMethod(), t.plainParams(""))
	return t.postRPC(step, t.plainMethod(), body), id
}

// withParams is the params member of a request body written by hand
// (`,"params":{...}`), "" for none.
func withParams(params string) string {
	if params == "" {
		return ""
	}
	return `,"params":` + params
}

// postRPC posts body as the target's client would: on the check's
// session of a target that speaks 2025-11-25, or, on one that speaks only
// 2026-07-28, with that revision's headers (MCP-Protocol-Version, and
// Mcp-Method naming method, the method the body is about).
func (t *checkRun) postRPC(step, method string, body []byte, edits ...fieldEdit) *reply {
	return t.send(step, edit(t.rpcRequest(method, body), edits...).Bytes(), toResponse, 0)
}

// rpcRequest is the POST of body postRPC sends ("" for a body without a
// method: no Mcp-Method).
func (t *checkRun) rpcRequest(method string, body []byte) client.Request {
	if !t.p.modernOnly() {
		return t.request("POST", t.session, body)
	}
	m := client.MCP{Host: t.p.target.Host, Path: t.p.target.Path, Authorization: t.p.authorization(), Version: modernVersion}
	req := m.Request("POST", body)
	if method != "" {
		req = req.Set("Mcp-Method", method)
	}
	return req
}

// onSession is a GET or DELETE of the check's session on a target that
// speaks 2025-11-25; on one that speaks only 2026-07-28, which has no
// session (and no GET or DELETE to serve), the same method with that
// revision's version header.
func (t *checkRun) onSession(method string) client.Request {
	if !t.p.modernOnly() {
		return t.request(method, t.session, nil)
	}
	m := client.MCP{Host: t.p.target.Host, Path: t.p.target.Path, Authorization: t.p.authorization(), Version: modernVersion}
	return m.Request(method, nil)
}

// modernOnly reports a target that speaks 2026-07-28 and not 2025-11-25.
func (p *prober) modernOnly() bool { return p.modern && !p.legacy }

// open initializes a session with authorization (the Authorization value,
// "" for none) and sends notifications/initialized; bare leaves the
// notification out. It fails with an error outcome when the target will
// not open one, naming what it answered (with the session when only the
// notification failed).
func (t *checkRun) open(authorization string, bare bool) (*session, *outcome) {
	req, id := t.initialize(withAuthorization(authorization))
	r := t.send("open a session: initialize", req.Bytes(), toResponse, 0)
	if r.status() == 401 && t.p.tokenless {
		o := t.skip("%s: initialize answered 401, so no session opens", needsToken)
		return nil, &o
	}
	if !r.isResult(id) {
		why := r.describe()
		switch {
		case r.resp == nil || !is2xx(r.status()) || r.ended:
		case t.outOfTime():
			// The check's time (the run's budget, or the check's own
			// bound) ended the wait before -timeout did: -timeout is no
			// remedy, and the runner's reason names the budget.
			why += ", but its result had not come " + r.elapsed.Round(100*time.Millisecond).String() + " later, when the check's time ran out"
		default:
			// The stream was served but slow: the target's pace, not a
			// refusal, and -timeout is the remedy.
			why += ", but its result had not come " + t.p.timeout().String() + " later (a slow target: give a longer -timeout)"
		}
		o := t.errored("could not open a session: initialize %s", why)
		return nil, &o
	}
	s := t.issued(r, authorization)
	if bare {
		return s, nil
	}
	if n := t.initialized(s); !is2xx(n.status()) {
		o := t.errored("could not open a session: notifications/initialized %s", n.describe())
		return s, &o
	}
	return s, nil
}

// issued is the session an initialize answer opened: the one learn
// registered for its Mcp-Session-Id (so a DELETE that ends it is seen), or
// a sessionless one for a target that issues no ids.
func (t *checkRun) issued(r *reply, authorization string) *session {
	if id := r.header("Mcp-Session-Id"); id != "" {
		for _, s := range t.created {
			if s.id == id {
				return s
			}
		}
	}
	version := negotiatedVersion(r)
	if version == "" {
		version = protocolVersion
	}
	return &session{version: version, authorization: authorization, init: r}
}

// withAuthorization sends authorization, or no Authorization for "".
func withAuthorization(authorization string) fieldEdit {
	if authorization == "" {
		return drop("Authorization")
	}
	return set("Authorization", authorization)
}

// initialized sends notifications/initialized on s.
func (t *checkRun) initialized(s *session) *reply {
	body := []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return t.send("notifications/initialized", t.request("POST", s, body).Bytes(), toResponse, 0)
}

// ping sends ping on s and reports the reply and its id.
func (t *checkRun) ping(step string, s *session, edits ...fieldEdit) (*reply, int64) {
	body, id := rpc("ping", "")
	return t.send(step, edit(t.request("POST", s, body), edits...).Bytes(), toResponse, 0), id
}

// message is a JSON-RPC message as any server may write it, read
// leniently (encoding/json): an error with "id": null is still an error.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (m message) isResponse() bool { return m.Result != nil || m.Error != nil }

// answers reports whether m is the response to the request with id.
func (m message) answers(id int64) bool {
	return m.isResponse() && string(m.ID) == strconv.FormatInt(id, 10)
}

// messagesIn reads the JSON-RPC messages of SSE events.
func messagesIn(events []sseframe.Event) []message {
	var out []message
	for _, ev := range events {
		var m message
		if ev.Data != "" && json.Unmarshal([]byte(ev.Data), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func (r *reply) status() int {
	if r.resp == nil {
		return 0
	}
	return r.resp.Status
}

func (r *reply) header(name string) string {
	if r.resp == nil {
		return ""
	}
	v, _ := r.resp.Get(name)
	return v
}

func (r *reply) mediaType() string {
	mt, _, _ := mime.ParseMediaType(r.header("Content-Type"))
	return mt
}

func (r *reply) isSSE() bool { return r.mediaType() == "text/event-stream" }

// events are the SSE events of an event-stream answer.
func (r *reply) events() []sseframe.Event {
	if !r.isSSE() {
		return nil
	}
	return client.Events(r.resp.Body)
}

// messages are the JSON-RPC messages of the answer: the JSON body, or the
// data of its events.
func (r *reply) messages() []message {
	switch {
	case r.resp == nil:
		return nil
	case r.isSSE():
		return messagesIn(r.events())
	}
	var m message
	if json.Unmarshal(r.resp.Body, &m) != nil {
		return nil
	}
	return []message{m}
}

// response is the message answering id, if the answer holds one.
func (r *reply) response(id int64) (message, bool) {
	for _, m := range r.messages() {
		if m.answers(id) {
			return m, true
		}
	}
	return message{}, false
}

// isResult reports a 2xx answer carrying a result for id.
func (r *reply) isResult(id int64) bool {
	m, ok := r.response(id)
	return r.status() >= 200 && r.status() < 300 && ok && m.Result != nil && m.Error == nil
}

// isRPCError reports an answer carrying a JSON-RPC error for id (or with
// a null id, for a request the server could not read).
func (r *reply) isRPCError(id int64) bool {
	for _, m := range r.messages() {
		if m.Error != nil && (m.answers(id) || string(m.ID) == "null" || m.ID == nil) {
			return true
		}
	}
	return false
}

// describe says in a few words what came back, for a reason: "answered
// 403", "answered 200 text/event-stream with a result", "got no answer
// (...)".
func (r *reply) describe() string {
	if r.resp == nil {
		return "got " + r.actual()
	}
	return "answered " + r.actual()
}

// actual is what came back, as a report's Actual: "403", "200
// text/event-stream with a result", "no answer (...)".
func (r *reply) actual() string {
	if r.resp == nil {
		return "no answer (" + errText(r.err) + ")"
	}
	d := strconv.Itoa(r.resp.Status)
	if mt := r.mediaType(); mt != "" && r.resp.Status < 300 {
		d += " " + mt
	}
	for _, m := range r.messages() {
		switch {
		case m.Error != nil:
			return d + " with JSON-RPC error " + strconv.Itoa(m.Error.Code)
		case m.Result != nil:
			return d + " with a result"
		}
	}
	return d
}

// negotiatedVersion is result.protocolVersion of an initialize answer.
func negotiatedVersion(r *reply) string {
	for _, m := range r.messages() {
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if m.Result != nil && json.Unmarshal(m.Result, &res) == nil && visibleASCII(res.ProtocolVersion) {
			return res.ProtocolVersion
		}
	}
	return ""
}

// visibleASCII reports non-empty VCHARs only (0x21-0x7E), fit to be sent
// back in a header unchanged.
func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return s != ""
}

// is2xx, is4xx classify a status.
func is2xx(status int) bool { return status >= 200 && status < 300 }
func is4xx(status int) bool { return status >= 400 && status < 500 }

// getWindow bounds the read of a GET stream: long enough for a priming
// event, short enough for a stream held open with nothing to send.
const getWindow = 2 * time.Second

// end deletes s now.
func (t *checkRun) end(s *session) *reply {
	return t.send("end the session: DELETE", t.request("DELETE", s, nil).Bytes(), toHead, 0)
}

// postOn sends body on s and returns the reply.
func (t *checkRun) postOn(step string, s *session, body []byte, edits ...fieldEdit) *reply {
	return t.send(step, edit(t.request("POST", s, body), edits...).Bytes(), toResponse, 0)
}
