package scenario

import (
	"errors"
	"fmt"
	"rawmcp/wire/rule"

	"rawmcp/httpparse"
	"rawmcp/sseframe"
	"rawmcp/wire/mcp"
)

// experimentTable is the profile document's list, in its order and words.
// Each probe starts from the request a 2025-11-25 client sends and changes
// exactly the one thing its "changed" line names.
var experimentTable = []Experiment{
	{1, "Change Accept to only application/json and observe POST 406", []probe{{
		changed: "Accept: application/json on initialize (text/event-stream dropped)",
		want:    406,
		rule:    rule.AcceptBothTypes,
		show:    []string{"Content-Type", "Connection"},
		run: func(b *bench) (*httpparse.Response, error) {
			p := b.peer("alice")
			resp, err := p.send("initialize accepting only JSON", p.initializeRequest(1, mcp.ProtocolVersion).Set("Accept", contentJSON))
			return resp, check(resp, err, refusal(406, codeHTTPError))
		},
	}}},
	{2, "Change Content-Type to text/plain: 415, a teaching-profile hardening rule, not a MUST of the stable spec", []probe{{
		changed: "Content-Type: text/plain on initialize",
		want:    415,
		rule:    rule.ContentTypeJSON,
		show:    []string{"Accept", "Connection"},
		run: func(b *bench) (*httpparse.Response, error) {
			p := b.peer("alice")
			resp, err := p.send("initialize as text/plain", p.initializeRequest(1, mcp.ProtocolVersion).Set("Content-Type", "text/plain"))
			return resp, check(resp, err, refusal(415, codeHTTPError, "Accept", contentJSON))
		},
	}}},
	{3, "Remove MCP-Protocol-Version or the session header from a subsequent request", []probe{
		{
			changed: "MCP-Protocol-Version removed from resources/list",
			want:    400,
			rule:    rule.VersionRequired,
			show:    []string{"Connection"},
			run: afterOpen("resources/list without MCP-Protocol-Version", func(p *peer) (*httpparse.Response, error) {
				return p.send("resources/list without MCP-Protocol-Version", p.listResourcesRequest(3).Drop("MCP-Protocol-Version"))
			}, refusal(400, codeHTTPError)),
		},
		{
			changed: "Mcp-Session-Id removed from resources/list",
			want:    400,
			rule:    rule.SessionRequired,
			show:    []string{"Connection"},
			run: afterOpen("resources/list without Mcp-Session-Id", func(p *peer) (*httpparse.Response, error) {
				return p.send("resources/list without Mcp-Session-Id", p.listResourcesRequest(3).Drop("Mcp-Session-Id"))
			}, refusal(400, codeHTTPError)),
		},
	}},
	{4, "Propose the Draft in the initialize body, then send it in a later protocol header", []probe{
		{
			changed: "initialize proposes " + DraftVersion + " in its body",
			want:    200,
			rule:    rule.VersionCounterOffer,
			show:    []string{"Content-Type", "Mcp-Session-Id"},
			run:     draftInBody,
		},
		{
			changed: "MCP-Protocol-Version: " + DraftVersion + " on the ping after the handshake",
			want:    400,
			rule:    rule.VersionRequired,
			show:    []string{"Connection"},
			run: afterOpen("ping with the Draft protocol header", func(p *peer) (*httpparse.Response, error) {
				return p.send("ping with MCP-Protocol-Version: "+DraftVersion, p.pingRequest(2).Set("MCP-Protocol-Version", DraftVersion))
			}, refusal(400, codeHTTPError)),
		},
	}},
	{5, "Put access_token in a URI query and verify that the body does not echo it", []probe{{
		changed: "the token moves from Authorization to ?access_token=",
		want:    400,
		rule:    rule.QueryRefused,
		show:    []string{"WWW-Authenticate", "Connection"},
		run:     tokenInQuery,
	}}},
	{6, "Use the correct token with a session owned by another subject: 404, not an owner disclosure", []probe{{
		changed: "bob's valid token on alice's session",
		want:    404,
		rule:    rule.SessionNotFound,
		show:    []string{"WWW-Authenticate", "Connection"},
		run:     sessionOfAnotherSubject,
	}}},
	{7, "Remove resources:read and compare the 403 challenge with an invalid token's 401 challenge", []probe{
		{
			changed: "a token without resources:read calls resources/list",
			want:    403,
			rule:    rule.InsufficientScope,
			show:    []string{"WWW-Authenticate"},
			run:     scopeStepUp,
		},
		{
			changed: "a token the server never issued calls resources/list",
			want:    401,
			rule:    rule.InvalidToken,
			show:    []string{"WWW-Authenticate"},
			run:     unknownTokenListsResources,
		},
	}},
	{8, "Change either the authorization-request or the token-request resource to another server", []probe{
		{
			changed: "RFC 8707 resource of the authorization request: http://127.0.0.1:1/mcp",
			want:    401,
			rule:    rule.InvalidToken,
			show:    []string{"WWW-Authenticate"},
			run:     tokenRefused("authorization-resource-elsewhere"),
		},
		{
			changed: "RFC 8707 resource of the token request: http://127.0.0.1:1/mcp",
			want:    401,
			rule:    rule.InvalidToken,
			show:    []string{"WWW-Authenticate"},
			run:     tokenRefused("token-resource-elsewhere"),
		},
	}},
	{9, "After initialization, revoke the token or change the authorization revision, then reuse the old session", []probe{
		{
			changed: "the token is revoked; the session is reused",
			want:    401,
			rule:    rule.InvalidToken,
			show:    []string{"WWW-Authenticate"},
			run:     revokedMidSession,
		},
		{
			changed: "the subject's authorization revision becomes 2; the session is reused",
			want:    401,
			rule:    rule.InvalidToken,
			show:    []string{"WWW-Authenticate"},
			run:     revisionChangedMidSession,
		},
	}},
	{10, "Recover the GET stream with Last-Event-ID; then try a POST SSE id or another session's id", []probe{
		{
			changed: "Last-Event-ID: the GET stream's priming id",
			want:    200,
			rule:    rule.GetStream,
			show:    []string{"Content-Type"},
			run:     resumeFromPriming,
		},
		{
			changed: "Last-Event-ID: the id of the notification already received",
			want:    200,
			rule:    rule.GetStream,
			show:    []string{"Content-Type"},
			run:     resumeFromNotification,
		},
		{
			changed: "no Last-Event-ID on the second GET",
			want:    200,
			rule:    rule.GetStream,
			show:    []string{"Content-Type"},
			run:     secondCursorlessGET,
		},
		{
			changed: "Last-Event-ID: the event id of a resources/list POST SSE response",
			want:    400,
			rule:    rule.CursorUnknown,
			show:    []string{"Connection"},
			run:     cursorOfPostStream,
		},
		{
			changed: "Last-Event-ID: a GET event id of another session",
			want:    400,
			rule:    rule.CursorUnknown,
			show:    []string{"Connection"},
			run:     cursorOfAnotherSession,
		},
	}},
}

// afterOpen opens a session as alice, then sends the changed request and
// checks the whole answer.
func afterOpen(step string, send func(*peer) (*httpparse.Response, error), want expectation) func(*bench) (*httpparse.Response, error) {
	return func(b *bench) (*httpparse.Response, error) {
		p, err := b.opened("alice")
		if err != nil {
			return nil, err
		}
		resp, err := send(p)
		if err := check(resp, err, want); err != nil {
			return resp, fmt.Errorf("%s: %w", step, err)
		}
		return resp, nil
	}
}

// draftInBody: the counter-offer is a result, not an error (T-53). The
// client here speaks 2025-11-25, so it accepts and finishes the handshake;
// a client that did not would stop before notifications/initialized.
func draftInBody(b *bench) (*httpparse.Response, error) {
	p := b.peer("alice")
	resp, err := p.initialize(DraftVersion)
	if err := check(resp, err, jsonAnswer(200, initializeResult(1), "Mcp-Session-Id", anySessionID)); err != nil {
		return resp, err
	}
	after, err := p.initialized()
	return resp, wantStatus(after, err, 202)
}

// unknownTokenListsResources: the 401 challenge names what the request
// needs, like the 403 does, but says invalid_token: a new token is the
// cure, not a broader one.
func unknownTokenListsResources(b *bench) (*httpparse.Response, error) {
	owner, err := b.opened("alice")
	if err != nil {
		return nil, err
	}
	stranger := b.peer("")
	if stranger.token, err = randomToken(); err != nil {
		return nil, err
	}
	b.run.secret.AddToken(stranger.token)
	stranger.session = owner.session
	resp, err := stranger.listResources()
	if err != nil {
		return resp, err
	}
	return resp, wantField(resp, "WWW-Authenticate", b.challenge("invalid_token", "mcp:connect resources:read"))
}

// streamed opens a session, GETs its stream once and returns the peer and
// the events: priming event, then the list_changed notification.
func streamed(b *bench) (*peer, []sseframe.Event, error) {
	p, err := b.opened("alice")
	if err != nil {
		return nil, nil, err
	}
	resp, err := p.get()
	if err := wantStatus(resp, err, 200); err != nil {
		return nil, nil, errors.Join(errSetup, err)
	}
	evs, err := events(resp.Body)
	if err != nil || len(evs) != 2 {
		return nil, nil, errors.Join(errSetup, errors.New("the first GET did not deliver a priming event and a notification"))
	}
	return p, evs, nil
}

// resumeFromPriming: what the stream delivered after the cursor comes
// back, under the same id (T-36).
func resumeFromPriming(b *bench) (*httpparse.Response, error) {
	p, first, err := streamed(b)
	if err != nil {
		return nil, err
	}
	resp, evs, err := pollEvents(p, first[0].ID)
	if err != nil {
		return resp, err
	}
	if len(evs) != 2 || evs[1] != first[1] {
		return resp, fmt.Errorf("want a priming event, then %+v again, got %+v", first[1], evs)
	}
	return resp, nil
}

// resumeFromNotification: nothing came after the cursor, so nothing before
// it is repeated.
func resumeFromNotification(b *bench) (*httpparse.Response, error) {
	p, first, err := streamed(b)
	if err != nil {
		return nil, err
	}
	return onlyPriming(pollEvents(p, first[1].ID))
}

// secondCursorlessGET: a GET without a cursor is an at-most-once poll; it
// never replays what an earlier one delivered.
func secondCursorlessGET(b *bench) (*httpparse.Response, error) {
	p, _, err := streamed(b)
	if err != nil {
		return nil, err
	}
	return onlyPriming(pollEvents(p, ""))
}

func pollEvents(p *peer, cursor string) (*httpparse.Response, []sseframe.Event, error) {
	var resp *httpparse.Response
	var err error
	if cursor == "" {
		resp, err = p.get()
	} else {
		resp, err = p.getWithCursor(cursor)
	}
	if err := wantStatus(resp, err, 200); err != nil {
		return resp, nil, err
	}
	evs, err := events(resp.Body)
	return resp, evs, err
}

func onlyPriming(resp *httpparse.Response, evs []sseframe.Event, err error) (*httpparse.Response, error) {
	if err != nil {
		return resp, err
	}
	if len(evs) != 1 || evs[0].Data != "" || evs[0].ID == "" {
		return resp, fmt.Errorf("want only a priming event, got %+v", evs)
	}
	return resp, nil
}
