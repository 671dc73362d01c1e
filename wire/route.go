package wire

import (
	"errors"
	"time"

	"rawmcp/httpparse"
	"rawmcp/policy"
	"rawmcp/sseframe"
	"rawmcp/state"
	"rawmcp/wire/jsonrpc"
	"rawmcp/wire/mcp"
	"rawmcp/wire/rule"
)

// The root metadata path; the endpoint's path and its path-suffixed
// metadata path are the resource identifier's (policy.EndpointPath,
// policy.MetadataPath), "/mcp" on loopback. All are matched exactly on the
// raw bytes (H-P11).
const pathMetadataRoot = policy.WellKnownPath

// Header names, as on the wire.
const (
	sessionIDHeader = "Mcp-Session-Id"
	contentTypeJSON = "application/json"
	contentTypeSSE  = "text/event-stream"
)

// mediaJSON and mediaSSE are the two media types every request is
// checked against, parsed once.
var (
	mediaJSON = httpparse.NewMediaType(contentTypeJSON)
	mediaSSE  = httpparse.NewMediaType(contentTypeSSE)
)

// router is what the receive order decides with: the policy, the session
// table, the MCP handler and the retry a GET stream announces. It does no
// I/O (h11's lesson, as httpparse does for the bytes): conn hands it a
// parsed head, reads the body it asks for, hands it that, and writes,
// frames and logs what it answers. It is the hub: it calls policy, the
// session table and wire/mcp, and collects what they return into the
// decision (the answer, the session opened, the sessions ended), which
// conn logs; nothing it calls calls back.
type router struct {
	policy   *policy.Policy
	sessions *state.Table
	mcp      mcp.Handler
	sseRetry time.Duration
}

// target is where a head that passed every step needing no body goes.
type target uint8

const (
	targetPOST target = iota + 1
	targetGET
	targetDELETE
	targetMetadata
)

// headDecision is the receive order's verdict on a head alone: an answer
// now (answer.status != 0), or "read the body and decide again"
// (router.decide with next); how the body is read, and 100 Continue, are
// the connection's rules' (h1). Like decision, the caller owns it and
// decideHead fills it.
type headDecision struct {
	answer response
	next   target
}

// decision is the verdict on a whole request: answer, whose body conn
// frames from stream when stream.kind is not streamNone, and the session
// the request opened (opened.id != "") for conn to log with its
// connection number. The caller owns it (conn keeps one in the pooled
// request space) and the route fills it through a pointer, together with
// call and reply, the message on its way to wire/mcp and back: none of
// them is returned or copied by value, so the frames of a request's
// deepest path stay small enough for a 4 KiB goroutine stack.
type decision struct {
	answer response
	stream stream
	opened openedSession
	ended  []state.Ended
	call   mcp.Call
	reply  mcp.Reply
}

// refuse sets d's answer to an error answer. Not inlined on purpose: each
// inlined refusal would give post's frame its own response-sized
// temporary, and post is on the deepest path of every request.
//
//go:noinline
func (d *decision) refuse(status int, id rule.ID) {
	d.answer = response{status: status, rule: id}
}

// deny sets d's answer to a policy denial's (denialResponse); not inlined,
// for the same reason as refuse.
//
//go:noinline
func (d *decision) deny(den *policy.Denial) {
	d.answer = denialResponse(den)
}

// collect adds the sessions a call of the request ended to d's, for conn
// to log.
func (d *decision) collect(ended []state.Ended) {
	d.ended = append(d.ended, ended...)
}

// openedSession is a session a request opened and who opened it.
type openedSession struct {
	id string
	by policy.Principal
}

// memory is what a connection keeps for the route between its requests,
// to save work, never a decision: the token it presented last and its
// policy row (every check on the row still runs per request), the session
// id it named last as a string, and, lent by the connection for one
// request, the buffer wire/mcp writes an answer into.
type memory struct {
	token     policy.Remembered
	sessionID string
	out       []byte
}

// routing is one request on its way through the receive order.
type routing struct {
	r   *router
	req *httpparse.Request
	now time.Time
	mem *memory
}

// decideHead walks the receive order of T-P14, numbered as in the README's
// table, as far as a head alone decides: steps 3 to 7 up to the body. Step
// 1 (framing and size) is the parser's: nothing about a request can be
// trusted before its framing is, and a request whose length is ambiguous
// would desynchronise the connection. Step 2 (the in-flight gate) is the
// connection's, before any work is done for the request, so overload is
// refused at once and costs nothing. Both ran before. The first failing
// step answers; nothing later runs. Each step says why it stands where it
// does.
func (r *router) decideHead(req *httpparse.Request, h *headDecision) {
	*h = headDecision{}
	p := r.policy
	// 3. Host is one of ours. First, because DNS rebinding sends a page
	// of a foreign name to 127.0.0.1 with that name as Host and, on a
	// same-origin GET, no Origin at all: only Host tells it apart.
	if host, _ := req.Get(httpparse.SingletonHost); !p.HostAllowed(host) {
		h.answer = refuse(403, rule.HostNotOurs)
		return
	}
	// 4. Origin, if present, exactly on the allowlist. Before the path and
	// the token: a foreign page gets a bare 403 and learns nothing, neither
	// which paths exist (404 or 405) nor a 401 challenge that would lead it
	// into OAuth discovery.
	if origin, ok := req.Get(httpparse.SingletonOrigin); ok && !p.OriginAllowed(origin) {
		h.answer = refuse(403, rule.OriginNotAllowed)
		return
	}
	// 5. Path, then method: the methods allowed (405 + Allow) are the
	// path's, and the checks that follow are each path's own.
	var next target
	switch string(req.Path) {
	case p.EndpointPath():
		switch req.Method {
		case httpparse.MethodPOST:
			next = targetPOST
		case httpparse.MethodGET:
			next = targetGET
		case httpparse.MethodDELETE:
			next = targetDELETE
		default:
			h.answer = methodRefusal(req.Method, "GET, POST, DELETE")
			return
		}
	case p.MetadataPath(), pathMetadataRoot:
		// 5a. GET only, no Authorization (A-22, A-23, A-P06): the
		// metadata is public, so a token sent to discovery by mistake is
		// refused before anything reads it.
		if req.Method != httpparse.MethodGET {
			h.answer = methodRefusal(req.Method, "GET")
			return
		}
		if _, ok := req.Get(httpparse.SingletonAuthorization); ok {
			h.answer = refuse(400, rule.MetadataPublic)
			return
		}
		next = targetMetadata
	default:
		h.answer = refuse(404, rule.ExactRouting)
		return
	}
	switch next {
	case targetPOST:
		// 6. Accept, then Content-Type, before the body is read: a request
		// refused for its media types costs no 16 KiB read. Accept first:
		// whether the client can read any answer comes before what it sent.
		if okJSON, okSSE := req.AcceptsBoth(&mediaJSON, &mediaSSE); !okJSON || !okSSE {
			h.answer = refuse(406, rule.AcceptBothTypes)
			return
		}
		if ct, ok := req.Get(httpparse.SingletonContentType); !ok || !httpparse.ContentTypeIs(ct, &mediaJSON) {
			h.answer = refuse(415, rule.ContentTypeJSON, header{"Accept", contentTypeJSON})
			return
		}
		// 7. Content-Length present, then the body: a POST is never
		// close-delimited, and its length must be known to read it.
		if _, ok := req.Get(httpparse.SingletonContentLength); !ok {
			h.answer = refuse(411, rule.LengthRequired)
			return
		}
	case targetGET:
		// 6. Accept, before the body is read (as for POST).
		if !req.Accepts(&mediaSSE) {
			h.answer = refuse(406, rule.AcceptBothTypes)
			return
		}
	}
	// 7. The body: every method reads it, so the connection stays in step.
	// Every check that needs no body has run by now, which is why
	// Expect: 100-continue is answered after this verdict (H-P13): 100 is
	// sent only when the body will be read, and an earlier refusal is
	// answered without reading it (the connection closes, so its bytes
	// are never parsed).
	h.next = next
}

// decide walks the rest of the receive order for a head that decideHead
// sent to next, with its whole body, and the connection's memory, and
// writes its verdict into d, which must be zero.
func (r *router) decide(req *httpparse.Request, next target, body []byte, now time.Time, mem *memory, d *decision) {
	x := routing{r: r, req: req, now: now, mem: mem}
	switch next {
	case targetPOST:
		x.post(body, d)
	case targetGET:
		x.get(d)
	case targetDELETE:
		x.delete(d)
	default:
		// The Protected Resource Metadata document, at both well-known
		// paths; its body was read and is ignored. Set field
		// by field (d is zero): a literal would be a temporary in this
		// frame.
		d.answer.status, d.answer.contentType, d.answer.rule = 200, contentTypeJSON, rule.MetadataServed
		d.answer.body = r.policy.Metadata()
	}
}

// post runs steps 8 to 13 for a POSTed JSON-RPC message.
// The message and the principal live in d (d.call.Msg, d.opened.by), not
// in this frame.
func (x *routing) post(body []byte, d *decision) {
	msg := &d.call.Msg
	// 8. Strict JSON, then one JSON-RPC message. Before the token: the 401
	// challenge names the scope the request's method needs, and the
	// method is in the body.
	var err error
	if *msg, err = jsonrpc.Decode(body); err != nil {
		d.decodeRefused(err)
		return
	}
	// 9. Bearer token. Before the session: a session id is no credential
	// (T-72), so a caller without a valid token learns nothing about which
	// sessions exist, and the session check needs the principal as owner.
	principal := &d.opened.by
	if den := x.authenticate(msg.Method, d); den != nil {
		d.deny(den)
		return
	}
	// 10. MCP-Protocol-Version. Before the session: a header check that
	// needs no state, so the session table is consulted only for a
	// request that speaks the negotiated version.
	sessionID, hasSession := x.req.Get(httpparse.SingletonSessionID)
	if id := x.postVersionRefusal(msg, hasSession); id != "" {
		d.refuse(400, id)
		return
	}
	// 11. The session, then the lifecycle (asked here, applied at
	// dispatch): a phase means something only once the session is known to
	// be the caller's, and asking without applying lets a request refused
	// at step 12 move nothing.
	d.call.Owner = ownerOf(principal)
	switch {
	case opensSession(msg) && hasSession:
		d.answer = lifecycleRefusal
		return
	case needsSession(msg, hasSession):
		phase, ok := x.checkSession(sessionID, hasSession, &d.call.Owner, d)
		if !ok {
			return
		}
		if in, ruled := mcp.InputFor(msg); ruled && state.Allows(phase, in) != nil {
			d.answer = lifecycleRefusal
			return
		}
	}
	// 12. Tenant, then scope, after the session: a refused request leaves
	// the session as it was (Table.Check). Tenant first: no step-up can
	// gain a tenant, so a 403 without challenge comes before a 403
	// insufficient_scope that would send the client to ask for more scope.
	if den := x.authorize(principal, msg.Method); den != nil {
		d.deny(den)
		return
	}
	// 13. Dispatch, last: only a request that passed every check changes
	// state.
	d.call.SessionID, d.call.Now, d.call.Out = x.sessionKey(sessionID), x.now, x.mem.out
	x.dispatch(d)
}

// dispatch hands d.call to wire/mcp and writes its reply as d's answer.
// Not inlined, so the reply's temporary is in this frame, not post's.
//
//go:noinline
func (x *routing) dispatch(d *decision) {
	d.reply = x.r.mcp.Post(&d.call)
	d.collect(d.call.Ended)
	if d.reply.Out != nil {
		x.mem.out = d.reply.Out[:0]
	}
	replyResponse(d)
}

// opensSession is initialize: the one request that must come without a
// session, since it makes one.
func opensSession(msg *jsonrpc.Message) bool {
	return msg.Kind == jsonrpc.KindRequest && msg.Method == mcp.MethodInitialize
}

// needsSession says whether msg must name a live session of the caller:
// everything but initialize, and but a ping that comes with no session id
// (ping is allowed before initialization, Ping page). A ping that names a
// session has that session checked like any request.
func needsSession(msg *jsonrpc.Message, hasSession bool) bool {
	if opensSession(msg) {
		return false
	}
	return hasSession || !isPing(msg)
}

func isPing(msg *jsonrpc.Message) bool {
	return msg.Kind == jsonrpc.KindRequest && msg.Method == mcp.MethodPing
}

// postVersionRefusal applies T-P05 to initialize (the header is optional,
// but if present it must be 2025-11-25 and equal params.protocolVersion)
// and T-P08 to everything else that has a session (the header is
// required). It returns the rule that refuses, or "".
func (x *routing) postVersionRefusal(msg *jsonrpc.Message, hasSession bool) rule.ID {
	version, present := x.req.Get(httpparse.SingletonProtocolVersion)
	switch {
	case opensSession(msg):
		if !present {
			return ""
		}
		if proposed, _ := mcp.ProposedVersion(msg); string(version) != mcp.ProtocolVersion || proposed != mcp.ProtocolVersion {
			return rule.InitializeVersion
		}
	case !present && !hasSession:
		// Before any session (a ping, or a request step 11 refuses) there
		// is no negotiated version to require.
	case string(version) != mcp.ProtocolVersion:
		return rule.VersionRequired
	}
	return ""
}

// sessionRequest runs steps 9 to 12 for GET and DELETE, which carry no
// message (their body was read and is ignored): the bearer token, the
// protocol version (required: there is always a session), the session,
// then tenant and scope. It returns the session's key, the caller being
// d.call.Owner, or false with d's answer set.
func (x *routing) sessionRequest(op string, d *decision) (id string, ok bool) {
	// 9. Bearer token, before the session (as for POST; the challenge
	// names op's scope).
	principal := &d.opened.by
	if den := x.authenticate(op, d); den != nil {
		d.deny(den)
		return "", false
	}
	// 10. MCP-Protocol-Version, a check needing no state, before the
	// session.
	if v, present := x.req.Get(httpparse.SingletonProtocolVersion); !present || string(v) != mcp.ProtocolVersion {
		d.refuse(400, rule.VersionRequired)
		return "", false
	}
	// 11. The session, bound to the principal of step 9.
	d.call.Owner = ownerOf(principal)
	sid, present := x.req.Get(httpparse.SingletonSessionID)
	if _, ok := x.checkSession(sid, present, &d.call.Owner, d); !ok {
		return "", false
	}
	// 12. Tenant, then scope (as for POST).
	if den := x.authorize(principal, op); den != nil {
		d.deny(den)
		return "", false
	}
	return x.sessionKey(sid), true
}

// get runs the shared steps, the Last-Event-ID checks and then answers the
// session's notification stream at once: a priming event (fresh id, empty
// data, retry) and the queued notifications, then the stream ends
// (T-P12). Framed by Content-Length: the whole set is written at once
// (S-P04).
func (x *routing) get(d *decision) {
	id, ok := x.sessionRequest("GET", d)
	if !ok {
		return
	}
	// 12a. Last-Event-ID: well formed, then one this stream delivered.
	// After every check of the caller: whether an event id was delivered
	// is the session's, told only to its authorized owner.
	cursor, hasCursor := x.req.Get(httpparse.SingletonLastEventID)
	if hasCursor && !sseframe.ValidID(cursor) {
		d.refuse(400, rule.EventIDSyntax)
		return
	}
	batch, ended, err := x.r.sessions.Poll(id, d.call.Owner, string(cursor), x.now)
	d.collect(ended)
	switch {
	case errors.Is(err, state.ErrCursor):
		d.refuse(400, rule.CursorUnknown)
		return
	case errors.Is(err, state.ErrNotFound):
		d.answer = sessionNotFound
		return
	case err != nil:
		d.refuse(500, rule.InternalError)
		return
	}
	// 13. Dispatch, last (as for POST).
	d.answer = response{status: 200, contentType: contentTypeSSE, rule: rule.GetStream}
	d.stream = stream{kind: streamBatch, batch: batch, retry: x.r.sseRetry}
}

// delete runs the shared steps, then ends the session: 204, and every
// later request with its id is 404.
func (x *routing) delete(d *decision) {
	id, ok := x.sessionRequest("DELETE", d)
	if !ok {
		return
	}
	// 13. Dispatch, last (as for POST).
	_, ended, err := x.r.sessions.Step(id, d.call.Owner, state.InputDelete, x.now)
	d.collect(ended)
	if err != nil {
		d.answer = sessionNotFound
		return
	}
	d.answer = response{status: 204, rule: rule.DeleteEndsSession}
}

// checkSession applies T-42 (missing → 400), T-P09 (malformed → 400) and
// T-43/T-P10 (unknown, expired, ended or another principal's → 404),
// setting d's answer when it refuses.
func (x *routing) checkSession(id []byte, present bool, owner *state.Owner, d *decision) (state.Phase, bool) {
	if !present {
		d.refuse(400, rule.SessionRequired)
		return state.PhaseClosed, false
	}
	if !state.ValidSessionID(id) {
		d.refuse(400, rule.SessionIDSyntax)
		return state.PhaseClosed, false
	}
	phase, ended, err := x.r.sessions.Check(x.sessionKey(id), *owner, x.now)
	d.collect(ended)
	if err != nil {
		d.answer = sessionNotFound
		return state.PhaseClosed, false
	}
	return phase, true
}

// sessionKey is a checked session id as the string the session table takes:
// the one this connection named last when the bytes are the same, so a
// keep-alive connection of one session converts it once. Only ids that
// passed state.ValidSessionID come here (or "" for none), so a connection
// holds at most one id's length.
func (x *routing) sessionKey(id []byte) string {
	if string(id) != x.mem.sessionID {
		x.mem.sessionID = string(id)
	}
	return x.mem.sessionID
}

// authenticate is the bearer step; it runs on every /mcp request. A
// token refused because it was revoked or its revision changed ends the
// session it names, if that session is its holder's: the session fails
// closed now instead of living out its TTL.
//
// The principal is written into d.opened.by, so its temporary is in this
// frame and not in its callers' (post is on the deepest path of every
// request); a session it ends goes to d's list.
func (x *routing) authenticate(op string, d *decision) *policy.Denial {
	authz, present := x.req.Get(httpparse.SingletonAuthorization)
	var den *policy.Denial
	d.opened.by, den = x.r.policy.AuthenticateRemembered(&x.mem.token, authz, present, op, x.now)
	if den != nil && den.Holder != nil {
		if sid, ok := x.req.Get(httpparse.SingletonSessionID); ok && state.ValidSessionID(sid) {
			how := state.EndRevoked
			if den.Detail == policy.DetailRevision {
				how = state.EndRevisionChanged
			}
			d.collect(x.r.sessions.End(string(sid), ownerOf(den.Holder), how, x.now))
		}
	}
	return den
}

// authorize is step 12, tenant then scope, for the principal p. Not
// inlined: the copy of the principal policy takes stays in this frame.
//
//go:noinline
func (x *routing) authorize(p *policy.Principal, op string) *policy.Denial {
	return x.r.policy.Authorize(*p, op)
}

func ownerOf(p *policy.Principal) state.Owner {
	return state.Owner{Subject: p.Subject, Tenant: p.Tenant, Revision: p.Revision}
}
