package scenario

import (
	"errors"
	"rawmcp/wire/rule"
	"strings"

	"rawmcp/httpparse"
	"rawmcp/wire/mcp"
)

// attackTable covers the profile's counterexamples: the token bound to
// another audience, resource or issuer, or dead; the session used without
// its owner; the browser and DNS-rebinding paths; request smuggling and
// header abuse; resource exhaustion; cursors from elsewhere; hostile JSON.
var attackTable = []Attack{
	// The token: every 401 for a presented token looks the same.
	// Tokens for another audience or issuer, expired ones and a missing
	// scope are the probe's AU-07, AU-08 and AU-09; these need tokens
	// only the fixture can mint, or its power to revoke.
	{"token recorded for another resource", rule.InvalidToken, 401, tokenRefused("wrong-resource")},
	{"authorization-request resource at another server (RFC 8707)", rule.InvalidToken, 401, tokenRefused("authorization-resource-elsewhere")},
	{"token-request resource at another server (RFC 8707)", rule.InvalidToken, 401, tokenRefused("token-resource-elsewhere")},
	{"token not yet valid (nbf)", rule.InvalidToken, 401, tokenRefused("not-yet-valid")},
	{"inactive token", rule.InvalidToken, 401, tokenRefused("inactive")},
	{"token revoked mid-session", rule.InvalidToken, 401, revokedMidSession},
	{"authorization revision changed mid-session", rule.InvalidToken, 401, revisionChangedMidSession},
	{"tenant outside the ACL", rule.TenantNotServed, 403, tenantOutsideACL},

	// The browser: a rebinding Host on the GET stream, which carries no
	// Origin (the probe's HO-01 sends its foreign Host on initialize).
	{"DNS-rebinding Host on the GET stream", rule.HostNotOurs, 403, dnsRebinding},

	// Replay: the probe's RS-02 covers another session's cursor.
	{"Last-Event-ID of a POST SSE response", rule.CursorUnknown, 400, cursorOfPostStream},
}

// challenge is the one WWW-Authenticate value rawmcp sends for a token
// refusal: error code (none for a missing token), the metadata URL and
// the scopes the request needs, all quoted (A-06, A-07, A-P03).
func (b *bench) challenge(code, scope string) string {
	v := "Bearer "
	if code != "" {
		v += `error="` + code + `", `
	}
	return v + `resource_metadata="` + b.fx.MetadataURL + `", scope="` + scope + `"`
}

// opened returns a peer holding an operating session.
func (b *bench) opened(token string) (*peer, error) {
	p := b.peer(token)
	return p, p.open()
}

func tokenRefused(token string) func(*bench) (*httpparse.Response, error) {
	return func(b *bench) (*httpparse.Response, error) {
		resp, err := b.peer(token).initialize(mcp.ProtocolVersion)
		if err != nil {
			return resp, err
		}
		return resp, wantField(resp, "WWW-Authenticate", b.challenge("invalid_token", "mcp:connect"))
	}
}

// revokedMidSession: the policy is asked again on every request, so
// a revocation stops the next request, not the next session.
func revokedMidSession(b *bench) (*httpparse.Response, error) {
	p, err := b.opened("revocable")
	if err != nil {
		return nil, err
	}
	b.fx.Revoke(b.fx.TokenIDs["revocable"])
	resp, err := p.ping()
	if err != nil {
		return resp, err
	}
	return resp, wantField(resp, "WWW-Authenticate", b.challenge("invalid_token", "mcp:connect"))
}

func revisionChangedMidSession(b *bench) (*httpparse.Response, error) {
	p, err := b.opened("alice")
	if err != nil {
		return nil, err
	}
	b.fx.SetRevision("alice", 2)
	resp, err := p.ping()
	if err != nil {
		return resp, err
	}
	return resp, wantField(resp, "WWW-Authenticate", b.challenge("invalid_token", "mcp:connect"))
}

// scopeStepUp: the 403 names every scope the request needs, the held
// mcp:connect included.
func scopeStepUp(b *bench) (*httpparse.Response, error) {
	p, err := b.opened("no-resources-scope")
	if err != nil {
		return nil, err
	}
	resp, err := p.listResources()
	if err != nil {
		return resp, err
	}
	return resp, wantField(resp, "WWW-Authenticate", b.challenge("insufficient_scope", "mcp:connect resources:read"))
}

// tenantOutsideACL: no challenge, since no scope step-up could help.
func tenantOutsideACL(b *bench) (*httpparse.Response, error) {
	resp, err := b.peer("other-tenant").initialize(mcp.ProtocolVersion)
	return resp, check(resp, err, refusal(403, codeHTTPError))
}

// sessionOfAnotherSubject: the answer is the same 404 as for an unknown
// id, so it does not even reveal that the session exists (T-P10).
func sessionOfAnotherSubject(b *bench) (*httpparse.Response, error) {
	owner, err := b.opened("alice")
	if err != nil {
		return nil, err
	}
	bob := b.peer("bob")
	bob.session = owner.session
	resp, err := bob.ping()
	return resp, check(resp, err, refusal(404, codeSessionNotFound))
}

// dnsRebinding: a page on a rebound name reaches 127.0.0.1 with its own
// Host and, on a GET, no Origin; a valid token and session change nothing.
func dnsRebinding(b *bench) (*httpparse.Response, error) {
	p, err := b.opened("alice")
	if err != nil {
		return nil, err
	}
	_, port, _ := strings.Cut(b.fx.Addr, ":")
	resp, err := p.send("GET with a rebound Host", p.getRequest("").Set("Host", "rebind.attacker.example:"+port))
	return resp, check(resp, err, refusal(403, codeHTTPError))
}

// tokenInQuery: the parser refuses any query with a plain 400 that does
// not echo the token (A-P01); the leak check looks again at the end.
func tokenInQuery(b *bench) (*httpparse.Response, error) {
	p := b.peer("")
	req := p.initializeRequest(1, mcp.ProtocolVersion)
	req.Path = "/mcp?access_token=" + b.fx.Tokens["alice"]
	resp, err := p.send("initialize with access_token in the query", req)
	return resp, check(resp, err, refusal(400, codeHTTPError))
}

// primingID opens the peer's GET stream and returns its first event id.
func (p *peer) primingID() (string, error) {
	resp, err := p.get()
	if err := wantStatus(resp, err, 200); err != nil {
		return "", errors.Join(errSetup, err)
	}
	evs, err := events(resp.Body)
	if err != nil || len(evs) == 0 {
		return "", errors.Join(errSetup, errors.New("the GET stream has no priming event"))
	}
	return evs[0].ID, nil
}

func cursorOfAnotherSession(b *bench) (*httpparse.Response, error) {
	other, err := b.opened("alice")
	if err != nil {
		return nil, err
	}
	cursor, err := other.primingID()
	if err != nil {
		return nil, err
	}
	p, err := b.opened("alice")
	if err != nil {
		return nil, err
	}
	resp, err := p.getWithCursor(cursor)
	return resp, check(resp, err, refusal(400, codeHTTPError))
}

// cursorOfPostStream: POST response streams are not resumable here, so
// their event ids are no cursor (T-37).
func cursorOfPostStream(b *bench) (*httpparse.Response, error) {
	p, err := b.opened("alice")
	if err != nil {
		return nil, err
	}
	list, err := p.listResources()
	if err := wantStatus(list, err, 200); err != nil {
		return nil, errors.Join(errSetup, err)
	}
	evs, err := events(list.Body)
	if err != nil || len(evs) != 1 {
		return nil, errors.Join(errSetup, errors.New("resources/list sent no event"))
	}
	resp, err := p.getWithCursor(evs[0].ID)
	return resp, check(resp, err, refusal(400, codeHTTPError))
}
