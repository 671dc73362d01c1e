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

// The paths rawmcp serves, matched exactly on the raw bytes (H-P11).
const (
	pathMCP          = "/mcp"
	pathMetadata     = "/.well-known/oauth-protected-resource/mcp"
	pathMetadataRoot = "/.well-known/oauth-protected-resource"
)

// Header names, as on the wire.
const (
	sessionIDHeader       = "Mcp-Session-Id"
	protocolVersionHeader = "MCP-Protocol-Version"
	contentTypeJSON       = "application/json"
	contentTypeSSE        = "text/event-stream"
)

// exchange is one request on its way through the receive order.
type exchange struct {
	c       *conn
	srv     *Server
	req     *httpparse.Request
	headLen int
	now     time.Time
}

// handle walks the receive order of T-P14, numbered as in the README's
// table. Step 1 (framing and size) is the parser's and step 2 (the
// in-flight gate) the connection's; both ran before handle. The first
// failing step answers; nothing later runs.
func (x *exchange) handle() response {
	p := x.srv.cfg.Policy
	// 3. Host is one of ours (DNS rebinding).
	if host, _ := x.req.Get(httpparse.SingletonHost); !p.HostAllowed(host) {
		return refuse(403, rule.HostNotOurs)
	}
	// 4. Origin, if present, exactly on the allowlist.
	if origin, ok := x.req.Get(httpparse.SingletonOrigin); ok && !p.OriginAllowed(origin) {
		return refuse(403, rule.OriginNotAllowed)
	}
	// 5. Path, then method.
	switch string(x.req.Path) {
	case pathMCP:
		switch x.req.Method {
		case httpparse.MethodPOST:
			return x.post()
		case httpparse.MethodGET:
			return x.get()
		case httpparse.MethodDELETE:
			return x.delete()
		}
		return methodRefusal(x.req.Method, "GET, POST, DELETE")
	case pathMetadata, pathMetadataRoot:
		return x.metadata()
	}
	return refuse(404, rule.ExactRouting)
}

// post runs steps 6 to 13 for a POSTed JSON-RPC message.
func (x *exchange) post() response {
	// 6. Accept, then Content-Type.
	if okJSON, okSSE := x.req.AcceptsBoth(contentTypeJSON, contentTypeSSE); !okJSON || !okSSE {
		return refuse(406, rule.AcceptBothTypes)
	}
	if ct, ok := x.req.Get(httpparse.SingletonContentType); !ok || !httpparse.ContentTypeIs(ct, contentTypeJSON) {
		return refuse(415, rule.ContentTypeJSON, header{"Accept", contentTypeJSON})
	}
	// 7. Content-Length present, then the body.
	if _, ok := x.req.Get(httpparse.SingletonContentLength); !ok {
		return refuse(411, rule.LengthRequired)
	}
	body, r, ok := x.body()
	if !ok {
		return r
	}
	// 8. Strict JSON, then one JSON-RPC message.
	msg, err := jsonrpc.Decode(body)
	if err != nil {
		return decodeRefusal(err)
	}
	// 9. Bearer token.
	principal, d := x.authenticate(msg.Method)
	if d != nil {
		return denialResponse(d)
	}
	// 10. MCP-Protocol-Version.
	sessionID, hasSession := x.req.Get(httpparse.SingletonSessionID)
	if id := x.postVersionRefusal(msg, hasSession); id != "" {
		return refuse(400, id)
	}
	// 11. The session, then the lifecycle (asked here, applied at dispatch).
	owner := ownerOf(principal)
	switch {
	case opensSession(msg) && hasSession:
		return lifecycleRefusal
	case needsSession(msg, hasSession):
		phase, r, ok := x.checkSession(sessionID, hasSession, owner)
		if !ok {
			return r
		}
		if in, ruled := mcp.InputFor(msg); ruled && state.Allows(phase, in) != nil {
			return lifecycleRefusal
		}
	}
	// 12. Tenant, then scope.
	if d := x.srv.cfg.Policy.Authorize(principal, msg.Method); d != nil {
		return denialResponse(d)
	}
	// 13. Dispatch.
	reply := x.srv.mcp.Post(mcp.Call{Msg: msg, SessionID: x.sessionKey(sessionID), Owner: owner, Now: x.now, Out: x.c.space.reply})
	if reply.Out != nil {
		x.c.space.reply = reply.Out[:0]
	}
	if reply.SessionID != "" {
		x.srv.sessionOpened(x.c.id, reply.SessionID, principal)
	}
	return x.replyResponse(reply)
}

// opensSession is initialize: the one request that must come without a
// session, since it makes one.
func opensSession(msg jsonrpc.Message) bool {
	return msg.Kind == jsonrpc.KindRequest && msg.Method == mcp.MethodInitialize
}

// needsSession says whether msg must name a live session of the caller:
// everything but initialize, and but a ping that comes with no session id
// (ping is allowed before initialization, Ping page). A ping that names a
// session has that session checked like any request.
func needsSession(msg jsonrpc.Message, hasSession bool) bool {
	if opensSession(msg) {
		return false
	}
	return hasSession || !isPing(msg)
}

func isPing(msg jsonrpc.Message) bool {
	return msg.Kind == jsonrpc.KindRequest && msg.Method == mcp.MethodPing
}

// postVersionRefusal applies T-P05 to initialize (the header is optional,
// but if present it must be 2025-11-25 and equal params.protocolVersion)
// and T-P08 to everything else that has a session (the header is
// required). It returns the rule that refuses, or "".
func (x *exchange) postVersionRefusal(msg jsonrpc.Message, hasSession bool) rule.ID {
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

// sessionRequest runs steps 7 and 9 to 12 for GET and DELETE, which carry
// no message: the body (drained, whatever it holds), the bearer token,
// the protocol version (required: there is always a session), the
// session, then tenant and scope.
func (x *exchange) sessionRequest(op string) (id string, owner state.Owner, r response, ok bool) {
	// 7. The body, read so the connection stays in step.
	if _, r, ok := x.body(); !ok {
		return "", owner, r, false
	}
	// 9. Bearer token.
	principal, d := x.authenticate(op)
	if d != nil {
		return "", owner, denialResponse(d), false
	}
	// 10. MCP-Protocol-Version.
	if v, present := x.req.Get(httpparse.SingletonProtocolVersion); !present || string(v) != mcp.ProtocolVersion {
		return "", owner, refuse(400, rule.VersionRequired), false
	}
	// 11. The session.
	owner = ownerOf(principal)
	sid, present := x.req.Get(httpparse.SingletonSessionID)
	if _, r, ok := x.checkSession(sid, present, owner); !ok {
		return "", owner, r, false
	}
	// 12. Tenant, then scope.
	if d := x.srv.cfg.Policy.Authorize(principal, op); d != nil {
		return "", owner, denialResponse(d), false
	}
	return x.sessionKey(sid), owner, response{}, true
}

// get runs step 6 (Accept), the shared steps, the Last-Event-ID checks and
// then answers the session's notification stream at once: a priming event
// (fresh id, empty data, retry) and the queued notifications, then the
// stream ends (T-P12). Framed by Content-Length: the whole set is written
// at once (S-P04).
func (x *exchange) get() response {
	// 6. Accept.
	if !x.req.Accepts(contentTypeSSE) {
		return refuse(406, rule.AcceptBothTypes)
	}
	id, owner, r, ok := x.sessionRequest("GET")
	if !ok {
		return r
	}
	// 12a. Last-Event-ID: well formed, then one this stream delivered.
	cursor, hasCursor := x.req.Get(httpparse.SingletonLastEventID)
	if hasCursor && !sseframe.ValidID(cursor) {
		return refuse(400, rule.EventIDSyntax)
	}
	batch, err := x.srv.cfg.Sessions.Poll(id, owner, string(cursor), x.now)
	switch {
	case errors.Is(err, state.ErrCursor):
		return refuse(400, rule.CursorUnknown)
	case errors.Is(err, state.ErrNotFound):
		return sessionNotFound
	case err != nil:
		return refuse(500, rule.InternalError)
	}
	// 13. Dispatch.
	body, err := x.c.frameStream(batch, x.srv.cfg.SSERetry)
	if err != nil {
		return refuse(500, rule.InternalError)
	}
	return response{status: 200, contentType: contentTypeSSE, body: body, rule: rule.GetStream}
}

// delete runs the shared steps, then ends the session: 204, and every
// later request with its id is 404.
func (x *exchange) delete() response {
	id, owner, r, ok := x.sessionRequest("DELETE")
	if !ok {
		return r
	}
	// 13. Dispatch.
	if _, err := x.srv.cfg.Sessions.Step(id, owner, state.InputDelete, x.now); err != nil {
		return sessionNotFound
	}
	return response{status: 204, rule: rule.DeleteEndsSession}
}

// metadata serves the Protected Resource Metadata document at both
// well-known paths (A-22, A-23, A-P06), step 5a: GET only, no
// Authorization, and the body read (and ignored) so the connection stays
// in step.
func (x *exchange) metadata() response {
	if x.req.Method != httpparse.MethodGET {
		return methodRefusal(x.req.Method, "GET")
	}
	if _, ok := x.req.Get(httpparse.SingletonAuthorization); ok {
		return refuse(400, rule.MetadataPublic)
	}
	if _, r, ok := x.body(); !ok {
		return r
	}
	return response{status: 200, contentType: contentTypeJSON, body: x.srv.cfg.Policy.Metadata(), rule: rule.MetadataServed}
}

// body reads the request's whole body (step 7). Every check that needs no
// body has run by now, which is why Expect: 100-continue is answered here
// (H-P13). A body that does not arrive in time is 408; one cut short by
// the peer is an incomplete message (H-33) and gets no answer.
func (x *exchange) body() ([]byte, response, bool) {
	body, err := x.c.readBody(x.headLen, x.req)
	switch {
	case err == nil:
		return body, response{}, true
	case isTimeout(err):
		return nil, refuse(408, rule.ReadDeadline), false
	}
	return nil, response{}, false
}

// checkSession applies T-42 (missing → 400), T-P09 (malformed → 400) and
// T-43/T-P10 (unknown, expired, ended or another principal's → 404).
func (x *exchange) checkSession(id []byte, present bool, owner state.Owner) (state.Phase, response, bool) {
	if !present {
		return state.PhaseClosed, refuse(400, rule.SessionRequired), false
	}
	if !state.ValidSessionID(id) {
		return state.PhaseClosed, refuse(400, rule.SessionIDSyntax), false
	}
	phase, err := x.srv.cfg.Sessions.Check(x.sessionKey(id), owner, x.now)
	if err != nil {
		return state.PhaseClosed, sessionNotFound, false
	}
	return phase, response{}, true
}

// sessionKey is a checked session id as the string the session table takes:
// the one this connection sent last when the bytes are the same, so a
// keep-alive connection of one session converts it once. Only ids that
// passed state.ValidSessionID come here (or "" for none), so a connection
// holds at most one id's length.
func (x *exchange) sessionKey(id []byte) string {
	if string(id) != x.c.sessionID {
		x.c.sessionID = string(id)
	}
	return x.c.sessionID
}

// authenticate is the bearer step; it runs on every /mcp request. A
// token refused because it was revoked or its revision changed ends the
// session it names, if that session is its holder's: the session fails
// closed now instead of living out its TTL.
func (x *exchange) authenticate(op string) (policy.Principal, *policy.Denial) {
	authz, present := x.req.Get(httpparse.SingletonAuthorization)
	p, d := x.srv.cfg.Policy.AuthenticateRemembered(&x.c.token, authz, present, op, x.now)
	if d != nil && d.Holder != nil {
		if sid, ok := x.req.Get(httpparse.SingletonSessionID); ok && state.ValidSessionID(sid) {
			how := state.EndRevoked
			if d.Detail == policy.DetailRevision {
				how = state.EndRevisionChanged
			}
			x.srv.cfg.Sessions.End(string(sid), ownerOf(*d.Holder), how, x.now)
		}
	}
	return p, d
}

func ownerOf(p policy.Principal) state.Owner {
	return state.Owner{Subject: p.Subject, Tenant: p.Tenant, Revision: p.Revision}
}
