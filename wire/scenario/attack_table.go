package scenario

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"rawmcp/wire/rule"
	"strconv"
	"strings"
	"time"

	"rawmcp/httpparse"
	"rawmcp/state"
	"rawmcp/wire/mcp"
)

// attackTable covers the profile's counterexamples: the token bound to
// another audience, resource or issuer, or dead; the session used without
// its owner; the browser and DNS-rebinding paths; request smuggling and
// header abuse; resource exhaustion; cursors from elsewhere; hostile JSON.
var attackTable = []Attack{
	// The token: every 401 for a presented token looks the same.
	{"token minted for another audience", rule.InvalidToken, 401, tokenRefused("wrong-audience")},
	{"token recorded for another resource", rule.InvalidToken, 401, tokenRefused("wrong-resource")},
	{"authorization-request resource at another server (RFC 8707)", rule.InvalidToken, 401, tokenRefused("authorization-resource-elsewhere")},
	{"token-request resource at another server (RFC 8707)", rule.InvalidToken, 401, tokenRefused("token-resource-elsewhere")},
	{"token from another issuer", rule.InvalidToken, 401, tokenRefused("wrong-issuer")},
	{"expired token", rule.InvalidToken, 401, tokenRefused("expired")},
	{"token not yet valid (nbf)", rule.InvalidToken, 401, tokenRefused("not-yet-valid")},
	{"inactive token", rule.InvalidToken, 401, tokenRefused("inactive")},
	{"token revoked mid-session", rule.InvalidToken, 401, revokedMidSession},
	{"authorization revision changed mid-session", rule.InvalidToken, 401, revisionChangedMidSession},
	{"scope step-up: resources/list without resources:read", rule.InsufficientScope, 403, scopeStepUp},
	{"tenant outside the ACL", rule.TenantNotServed, 403, tenantOutsideACL},

	// The session: an id is a correlation handle, never a credential.
	{"session id without a token", rule.NoCredentials, 401, sessionWithoutToken},
	{"session id with another subject's token", rule.SessionNotFound, 404, sessionOfAnotherSubject},
	{"forged well-formed session id", rule.SessionNotFound, 404, forgedSessionID},
	{"session reused after DELETE", rule.SessionNotFound, 404, reuseAfterDelete},

	// The browser: Origin and Host (T-04, T-P15, T-P16).
	{"Origin of a hostile page", rule.OriginNotAllowed, 403, withOrigin("http://evil.example")},
	{"Origin: null from a sandboxed page", rule.OriginNotAllowed, 403, withOrigin("null")},
	{"DNS-rebinding Host on the GET stream", rule.HostNotOurs, 403, dnsRebinding},

	// The message: framing and header abuse, all refused by the parser.
	{"access_token in the query", rule.QueryRefused, 400, tokenInQuery},
	{"CL+TE smuggling with a pipelined DELETE", rule.TransferEncoding, 400, smuggling},
	{"duplicate Content-Length", rule.DuplicateSingleton, 400, duplicateContentLength},
	{"obs-fold header continuation", rule.NeverRepaired, 400, obsFold},
	{"oversized header section", rule.FixedLimit, 431, oversizedHead},
	{"bare LF line ends", rule.BareLF, 400, bareLF},

	// Exhaustion and replay.
	{"session flood past capacity", rule.SessionCapacity, 503, sessionFlood},
	{"Last-Event-ID of another session", rule.CursorUnknown, 400, cursorOfAnotherSession},
	{"Last-Event-ID of a POST SSE response", rule.CursorUnknown, 400, cursorOfPostStream},

	// The JSON (T-P13).
	{"JSON duplicate keys", rule.StrictJSON, 400, duplicateKeys},
	{"JSON depth bomb", rule.StrictJSON, 400, depthBomb},
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
	b.fx.Policy.Revoke(b.fx.TokenIDs["revocable"])
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
	b.fx.Policy.SetRevision("alice", 2)
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

// sessionWithoutToken: a session id alone proves nothing (T-72); the
// challenge is the bare one, with no error code.
func sessionWithoutToken(b *bench) (*httpparse.Response, error) {
	owner, err := b.opened("alice")
	if err != nil {
		return nil, err
	}
	thief := b.peer("")
	thief.session = owner.session
	resp, err := thief.ping()
	if err != nil {
		return resp, err
	}
	return resp, wantField(resp, "WWW-Authenticate", b.challenge("", "mcp:connect"))
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

func forgedSessionID(b *bench) (*httpparse.Response, error) {
	if _, err := b.opened("alice"); err != nil {
		return nil, err
	}
	p := b.peer("alice")
	p.session = forgeSessionID()
	resp, err := p.ping()
	return resp, check(resp, err, refusal(404, codeSessionNotFound))
}

// forgeSessionID returns an id of the issued shape, 24 random bytes in
// base64url, that the server never issued.
func forgeSessionID() string {
	var raw [24]byte
	rand.Read(raw[:])
	return base64.RawURLEncoding.EncodeToString(raw[:])
}

func reuseAfterDelete(b *bench) (*httpparse.Response, error) {
	p, err := b.opened("alice")
	if err != nil {
		return nil, err
	}
	resp, err := p.deleteSession()
	if err := wantStatus(resp, err, 204); err != nil {
		return nil, errors.Join(errSetup, err)
	}
	resp, err = p.ping()
	return resp, check(resp, err, refusal(404, codeSessionNotFound))
}

// withOrigin: a browser page's initialize. The 403 carries no OAuth
// challenge: no token could make a hostile page welcome (T-04).
func withOrigin(origin string) func(*bench) (*httpparse.Response, error) {
	return func(b *bench) (*httpparse.Response, error) {
		p := b.peer("alice")
		resp, err := p.send("initialize with Origin: "+origin, withHeader(p.initializeRequest(1, mcp.ProtocolVersion), "Origin", origin))
		return resp, check(resp, err, refusal(403, codeHTTPError))
	}
}

// dnsRebinding: a page on a rebound name reaches 127.0.0.1 with its own
// Host and, on a GET, no Origin; a valid token and session change nothing.
func dnsRebinding(b *bench) (*httpparse.Response, error) {
	p, err := b.opened("alice")
	if err != nil {
		return nil, err
	}
	_, port, _ := strings.Cut(b.fx.Addr, ":")
	resp, err := p.send("GET with a rebound Host", withHeader(p.getRequest(""), "Host", "rebind.attacker.example:"+port))
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

// smuggling: Content-Length says the body is "0\r\n\r\n", Transfer-Encoding
// says the same bytes end a chunked body, and a DELETE of the session
// follows. A server that picked either framing and went on would run the
// DELETE; rawmcp refuses both framings at once and closes (H-26, H-P06).
func smuggling(b *bench) (*httpparse.Response, error) {
	p, err := b.opened("alice")
	if err != nil {
		return nil, err
	}
	req := withHeader(withHeader(p.pingRequest(5), "Transfer-Encoding", "chunked"), "Content-Length", "5")
	req.Body = []byte("0\r\n\r\n")
	raw := append(req.Bytes(), p.deleteRequest().Bytes()...)
	resp, err := b.send(p.c, "ping with Content-Length and Transfer-Encoding, then a pipelined DELETE", raw)
	if err := check(resp, err, refusal(400, codeHTTPError)); err != nil {
		return resp, err
	}
	if !b.quiet(100 * time.Millisecond) {
		return resp, errors.New("the pipelined DELETE was answered")
	}
	if after, err := p.ping(); wantStatus(after, err, 200) != nil {
		return resp, errors.New("the session no longer answers ping: the smuggled DELETE ran")
	}
	return resp, nil
}

func duplicateContentLength(b *bench) (*httpparse.Response, error) {
	p := b.peer("alice")
	req := p.initializeRequest(1, mcp.ProtocolVersion)
	n := strconv.Itoa(len(req.Body))
	req.Header = append(req.Header, [2]string{"Content-Length", n}, [2]string{"Content-Length", n})
	resp, err := p.send("initialize with Content-Length twice", req)
	return resp, check(resp, err, refusal(400, codeHTTPError))
}

func obsFold(b *bench) (*httpparse.Response, error) {
	p := b.peer("alice")
	req := withHeader(p.initializeRequest(1, mcp.ProtocolVersion), "X-Note", "first\r\n folded")
	resp, err := p.send("initialize with an obs-fold line", req)
	return resp, check(resp, err, refusal(400, codeHTTPError))
}

// oversizedHead: seven 2000-byte fields, each within the 2 KiB value limit,
// add up past the 12 KiB header section (H-22).
func oversizedHead(b *bench) (*httpparse.Response, error) {
	p := b.peer("alice")
	req := p.initializeRequest(1, mcp.ProtocolVersion)
	for i := range 7 {
		req = withHeader(req, "X-Pad-"+strconv.Itoa(i), strings.Repeat("a", 2000))
	}
	resp, err := p.send("initialize with a 14 KB header section", req)
	return resp, check(resp, err, refusal(431, codeHTTPError))
}

func bareLF(b *bench) (*httpparse.Response, error) {
	p := b.peer("alice")
	raw := strings.ReplaceAll(string(p.initializeRequest(1, mcp.ProtocolVersion).Bytes()), "\r\n", "\n")
	resp, err := b.send(p.c, "initialize with bare LF line ends", []byte(raw))
	return resp, check(resp, err, refusal(400, codeHTTPError))
}

// sessionFlood: the table is full at capacity and refuses the next
// initialize with 503 and Retry-After, evicting nobody: every earlier
// session still answers.
func sessionFlood(b *bench) (*httpparse.Response, error) {
	capacity := state.DefaultConfig().MaxSessions
	if tc := b.run.fixture.TableConfig; tc != nil {
		capacity = tc.MaxSessions
	}
	p := b.peer("alice")
	var sessions []string
	for range capacity {
		p.session = ""
		resp, err := p.initialize(mcp.ProtocolVersion)
		if err := wantStatus(resp, err, 200); err != nil {
			return nil, errors.Join(errSetup, err)
		}
		sessions = append(sessions, p.session)
	}
	p.session = ""
	resp, err := p.send("initialize past capacity", p.initializeRequest(1, mcp.ProtocolVersion))
	if err := check(resp, err, refusal(503, codeHTTPError, "Retry-After", "1")); err != nil {
		return resp, err
	}
	for i, s := range sessions {
		p.session = s
		if after, err := p.ping(); wantStatus(after, err, 200) != nil {
			return resp, errors.New("session " + strconv.Itoa(i+1) + " was evicted by the flood")
		}
	}
	return resp, nil
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

func duplicateKeys(b *bench) (*httpparse.Response, error) {
	p := b.peer("alice")
	body := strings.Replace(initializeBody(1, mcp.ProtocolVersion), `"id":1,`, `"id":1,"id":2,`, 1)
	resp, err := p.send("initialize with a duplicate id member", p.postRequest(body))
	return resp, check(resp, err, refusal(400, codeParseError))
}

// depthBomb nests params 100 deep, past the 64 levels the strict decoder
// allows, in well under the 16 KiB body limit.
func depthBomb(b *bench) (*httpparse.Response, error) {
	p := b.peer("alice")
	body := `{"jsonrpc":"2.0","id":1,"method":"ping","params":` + strings.Repeat(`{"a":`, 100) + `{}` + strings.Repeat(`}`, 100) + `}`
	resp, err := p.send("ping with params nested 100 deep", p.postRequest(body))
	return resp, check(resp, err, refusal(400, codeParseError))
}
