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
	body    []byte
}

// refuse builds an error answer; its body is filled in by conn.finish
// from the status alone.
func refuse(status int, rule string, headers ...header) response {
	return response{status: status, rule: rule, headers: headers}
}

// sessionNotFound is the one 404 for a session that is unknown, expired,
// ended or another principal's (T-43, T-P10).
var sessionNotFound = response{status: 404, rule: "T-43", rpcCode: codeSessionNotFound}

// unavailable is the 503 of a full budget (requests in processing, open
// connections, sessions): refused at once, with Retry-After so the client
// tries again soon rather than waiting (RFC 9110 §10.2.3).
func unavailable(rule string) response {
	return refuse(503, rule, header{"Retry-After", "1"})
}

// handle applies the receive order of T-P14 after the parser's framing
// and size checks: Host, Origin, path and method, media types, body and
// strict JSON, bearer token, protocol version, session, scope and tenant,
// dispatch. The first failing step answers; nothing later runs.
func (x *exchange) handle() response {
	p := x.srv.cfg.Policy
	host, _ := x.req.Get(httpparse.SingletonHost)
	if !p.HostAllowed(host) {
		return refuse(403, "T-P15")
	}
	if origin, ok := x.req.Get(httpparse.SingletonOrigin); ok && !p.OriginAllowed(origin) {
		return refuse(403, "T-P16")
	}
	switch string(x.req.Path) {
	case pathMCP:
		return x.mcpEndpoint()
	case pathMetadata, pathMetadataRoot:
		return x.metadata()
	}
	return refuse(404, "H-P11")
}

// methodRefusal is 405 with Allow for a method the standard defines, 501
// for one this server does not recognise (H-P12).
func methodRefusal(m httpparse.Method, allow string) response {
	if m == httpparse.MethodUnknown {
		return refuse(501, "H-P12")
	}
	return refuse(405, "H-P12", header{"Allow", allow})
}

// metadata serves the Protected Resource Metadata document at both
// well-known paths (A-22, A-23, A-P06).
func (x *exchange) metadata() response {
	if x.req.Method != httpparse.MethodGET {
		return methodRefusal(x.req.Method, "GET")
	}
	if _, ok := x.req.Get(httpparse.SingletonAuthorization); ok {
		return refuse(400, "A-P06")
	}
	if r, ok := x.readBody(); !ok {
		return r
	}
	return response{status: 200, contentType: contentTypeJSON, body: x.srv.cfg.Policy.Metadata(), rule: "A-23"}
}

func (x *exchange) mcpEndpoint() response {
	switch x.req.Method {
	case httpparse.MethodPOST:
		return x.post()
	case httpparse.MethodGET:
		return x.get()
	case httpparse.MethodDELETE:
		return x.delete()
	}
	return methodRefusal(x.req.Method, "GET, POST, DELETE")
}

// readBody brings the whole body into the buffer. Every check that needs
// no body has run by now, so this is where Expect: 100-continue is
// answered with 100 (H-P13): only when the body will be read.
func (x *exchange) readBody() (response, bool) {
	end := x.headLen + int(x.req.ContentLength)
	if x.req.ExpectContinue && x.req.ContentLength > 0 && x.c.filled < end {
		x.c.nc.SetWriteDeadline(x.now.Add(x.srv.cfg.WriteTimeout))
		if _, err := x.c.nc.Write(continueResponse); err != nil {
			return response{}, false
		}
	}
	if err := x.c.readBody(end); err != nil {
		if isTimeout(err) {
			return refuse(408, "H-P08"), false
		}
		// H-33: a body cut short by the peer is an incomplete message;
		// close without an answer.
		return response{}, false
	}
	x.body = x.c.space.buf[x.headLen:end]
	return response{}, true
}

func (x *exchange) post() response {
	if !x.req.Accepts(contentTypeJSON) || !x.req.Accepts(contentTypeSSE) {
		return refuse(406, "T-P02")
	}
	if ct, ok := x.req.Get(httpparse.SingletonContentType); !ok || !httpparse.ContentTypeIs(ct, contentTypeJSON) {
		return refuse(415, "T-P01", header{"Accept", contentTypeJSON})
	}
	if _, ok := x.req.Get(httpparse.SingletonContentLength); !ok {
		return refuse(411, "H-35")
	}
	if r, ok := x.readBody(); !ok {
		return r
	}
	msg, err := jsonrpc.Decode(x.body)
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) && je.Code == jsonrpc.CodeInvalidRequest {
			return response{status: 400, rule: "T-P03", rpcCode: codeInvalidRequest}
		}
		return response{status: 400, rule: "T-P13", rpcCode: codeParseError}
	}
	op := msg.Method
	principal, denial := x.authenticate(op)
	if denial != nil {
		return *denial
	}
	sessionID, hasSession := x.req.Get(httpparse.SingletonSessionID)
	if r, ok := x.checkPostVersion(msg, hasSession); !ok {
		return r
	}
	owner := ownerOf(principal)
	if msg.Method == mcp.MethodInitialize && msg.Kind == jsonrpc.KindRequest {
		if hasSession {
			return response{status: 400, rule: "T-P06", rpcCode: codeInvalidRequest}
		}
	} else if hasSession || msg.Method != mcp.MethodPing {
		phase, r, ok := x.checkSession(sessionID, hasSession, owner)
		if !ok {
			return r
		}
		// The lifecycle before scope and tenant (T-P14): asked here, the
		// input is applied only at dispatch.
		if in, rules := mcp.InputFor(msg); rules && state.Allows(phase, in) != nil {
			return response{status: 400, rule: "T-P06", rpcCode: codeInvalidRequest}
		}
	}
	if d := x.srv.cfg.Policy.Authorize(principal, op); d != nil {
		return denialResponse(d)
	}
	reply := x.srv.mcp.Post(mcp.Call{Msg: msg, SessionID: string(sessionID), Owner: owner, Now: x.now})
	return x.replyResponse(reply)
}

// checkPostVersion applies T-P05 to initialize (a header is optional, but
// if present it must be 2025-11-25 and equal params.protocolVersion) and
// T-P08 to everything else that has a session (the header is required).
func (x *exchange) checkPostVersion(msg jsonrpc.Message, hasSession bool) (response, bool) {
	version, present := x.req.Get(httpparse.SingletonProtocolVersion)
	if msg.Kind == jsonrpc.KindRequest && msg.Method == mcp.MethodInitialize {
		if !present {
			return response{}, true
		}
		proposed, _ := mcp.ProposedVersion(msg)
		if string(version) != mcp.ProtocolVersion || proposed != mcp.ProtocolVersion {
			return refuse(400, "T-P05"), false
		}
		return response{}, true
	}
	if !present && !hasSession {
		// Before any session (a ping, or a request T-P07 will refuse)
		// there is no negotiated version to require.
		return response{}, true
	}
	if string(version) != mcp.ProtocolVersion {
		return refuse(400, "T-P08"), false
	}
	return response{}, true
}

// checkSession applies T-42 (missing → 400), T-P09 (malformed → 400) and
// T-43/T-P10 (unknown, expired, ended or another principal's → 404).
func (x *exchange) checkSession(id []byte, present bool, owner state.Owner) (state.Phase, response, bool) {
	if !present {
		return state.PhaseClosed, refuse(400, "T-42"), false
	}
	if !state.ValidSessionID(id) {
		return state.PhaseClosed, refuse(400, "T-P09"), false
	}
	phase, err := x.srv.cfg.Sessions.Check(string(id), owner, x.now)
	if err != nil {
		return state.PhaseClosed, sessionNotFound, false
	}
	return phase, response{}, true
}

// authenticate is the bearer step; it runs on every /mcp request.
func (x *exchange) authenticate(op string) (policy.Principal, *response) {
	authz, present := x.req.Get(httpparse.SingletonAuthorization)
	principal, d := x.srv.cfg.Policy.Authenticate(authz, present, op, x.now)
	if d != nil {
		r := denialResponse(d)
		return principal, &r
	}
	return principal, nil
}

func denialResponse(d *policy.Denial) response {
	r := response{status: d.Status, rule: denialRule(d)}
	if d.Challenge != "" {
		r.headers = []header{{"WWW-Authenticate", d.Challenge}}
	}
	return r
}

func denialRule(d *policy.Denial) string {
	switch d.Status {
	case 400:
		return "A-P02"
	case 403:
		if d.Challenge == "" {
			return "A-tenant"
		}
		return "A-14"
	}
	if d.Reason == policy.ReasonMissingToken {
		return "A-08"
	}
	return "A-10"
}

func ownerOf(p policy.Principal) state.Owner {
	return state.Owner{Subject: p.Subject, Tenant: p.Tenant, Revision: p.Revision}
}

// replyResponse writes what wire/mcp decided as HTTP.
func (x *exchange) replyResponse(r mcp.Reply) response {
	resp := response{status: r.Status, rule: r.Rule}
	switch {
	case r.Status == 503:
		return unavailable(r.Rule)
	case r.Status >= 400:
		if r.Status == 404 {
			resp.rpcCode = codeSessionNotFound
		} else if r.Status == 400 {
			resp.rpcCode = codeInvalidRequest
		}
	case r.Body == mcp.BodyNone:
	case r.Body == mcp.BodyJSON:
		resp.contentType = contentTypeJSON
		resp.body = r.Message
	case r.Body == mcp.BodyEvent:
		resp.contentType = contentTypeSSE
		// Framed in the request's pooled event buffer: a fresh one would
		// grow by doubling on every answer.
		body, err := sseframe.AppendEvent(x.c.space.event[:0], sseframe.Event{ID: r.EventID, Data: string(r.Message)})
		if err != nil {
			return refuse(500, "internal")
		}
		x.c.space.event = body
		resp.body = body
	}
	if r.SessionID != "" {
		resp.headers = append(resp.headers, header{sessionIDHeader, r.SessionID})
	}
	return resp
}

// sessionRequest runs the steps GET and DELETE share after their own
// header checks: bearer, protocol version (required: there is always a
// session), session, scope and tenant.
func (x *exchange) sessionRequest(op string) (id string, owner state.Owner, r response, ok bool) {
	if r, ok := x.readBody(); !ok {
		return "", owner, r, false
	}
	principal, denial := x.authenticate(op)
	if denial != nil {
		return "", owner, *denial, false
	}
	if v, present := x.req.Get(httpparse.SingletonProtocolVersion); !present || string(v) != mcp.ProtocolVersion {
		return "", owner, refuse(400, "T-P08"), false
	}
	owner = ownerOf(principal)
	sid, present := x.req.Get(httpparse.SingletonSessionID)
	if _, r, ok := x.checkSession(sid, present, owner); !ok {
		return "", owner, r, false
	}
	if d := x.srv.cfg.Policy.Authorize(principal, op); d != nil {
		return "", owner, denialResponse(d), false
	}
	return string(sid), owner, response{}, true
}

// get answers the session's notification stream at once: a priming event
// (fresh id, empty data, retry) and the queued notifications, then the
// stream ends (T-P12). Framed by Content-Length: the whole set is written
// at once (S-P04).
func (x *exchange) get() response {
	if !x.req.Accepts(contentTypeSSE) {
		return refuse(406, "T-P02")
	}
	id, owner, r, ok := x.sessionRequest("GET")
	if !ok {
		return r
	}
	cursor, hasCursor := x.req.Get(httpparse.SingletonLastEventID)
	if hasCursor && !sseframe.ValidID(cursor) {
		return refuse(400, "S-P01")
	}
	batch, err := x.srv.cfg.Sessions.Poll(id, owner, string(cursor), x.now)
	switch {
	case errors.Is(err, state.ErrCursor):
		return refuse(400, "T-P11")
	case errors.Is(err, state.ErrNotFound):
		return sessionNotFound
	case errors.Is(err, state.ErrLifecycle):
		return response{status: 400, rule: "T-P06", rpcCode: codeInvalidRequest}
	case err != nil:
		return refuse(500, "internal")
	}
	retry := int(x.srv.cfg.SSERetry / time.Millisecond)
	// Framed in the request's pooled event buffer, as replyResponse does.
	body, err := sseframe.AppendEvent(x.c.space.event[:0], sseframe.Event{ID: batch.PrimingID, Retry: retry})
	for _, ev := range batch.Events {
		if err != nil {
			break
		}
		body, err = sseframe.AppendEvent(body, sseframe.Event{ID: ev.ID, Data: string(ev.Data)})
	}
	if err != nil {
		return refuse(500, "internal")
	}
	x.c.space.event = body
	return response{status: 200, contentType: contentTypeSSE, body: body, rule: "T-25"}
}

// delete ends the session: 204, and every later request with its id is 404.
func (x *exchange) delete() response {
	id, owner, r, ok := x.sessionRequest("DELETE")
	if !ok {
		return r
	}
	if _, err := x.srv.cfg.Sessions.Step(id, owner, state.InputDelete, x.now); err != nil {
		return sessionNotFound
	}
	return response{status: 204, rule: "T-45"}
}

// ruleForParseError names the requirement behind a parser refusal.
func ruleForParseError(e *httpparse.Error) string {
	switch e.Reason {
	case httpparse.ReasonBareLF:
		return "H-P01"
	case httpparse.ReasonLeadingEmptyLines, httpparse.ReasonInvalidRequestLine, httpparse.ReasonTargetNotOriginForm,
		httpparse.ReasonInvalidTarget, httpparse.ReasonInvalidPercentEscape, httpparse.ReasonInvalidVersion:
		return "H-P02"
	case httpparse.ReasonTargetQuery, httpparse.ReasonTargetFragment:
		return "A-P01"
	case httpparse.ReasonInvalidMethod:
		return "H-08"
	case httpparse.ReasonInvalidFieldValue:
		return "H-P04"
	case httpparse.ReasonDuplicateField:
		return "H-P05"
	case httpparse.ReasonMissingHost, httpparse.ReasonInvalidHost:
		return "H-15"
	case httpparse.ReasonInvalidContentLength:
		return "H-24"
	case httpparse.ReasonTransferEncodingWithContentLength, httpparse.ReasonInvalidTransferEncoding,
		httpparse.ReasonChunkedNotFinal, httpparse.ReasonTransferEncodingNotImplemented:
		return "H-P06"
	case httpparse.ReasonMethodTooLong:
		return "H-09"
	case httpparse.ReasonUnsupportedExpectation:
		return "H-52"
	case httpparse.ReasonVersionNotSupported:
		return "H-50"
	}
	switch e.Status {
	case 413, 414, 431:
		return "H-P07"
	}
	return "H-P03"
}
