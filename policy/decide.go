package policy

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"strings"
	"time"
)

// Principal is the validated identity snapshot the session and MCP layers
// receive: a typed decision they trust, not a token to re-read. It never
// holds the token; Correlation is Correlate(token), for logs. Scopes holds
// the scopes rawmcp knows that the token grants, by value: a caller that
// changes its copy grants the next request nothing.
type Principal struct {
	Subject, Tenant string
	Revision        uint64
	Scopes          ScopeSet
	Correlation     string
}

// ScopeSet is a set of the scopes rawmcp knows (ScopeConnect,
// ScopeResourcesRead), one bit each; a token's other scopes grant nothing
// here and are left out.
type ScopeSet uint8

const (
	scopeConnectBit ScopeSet = 1 << iota
	scopeResourcesReadBit
)

// scopeSetOf is the set of the known scopes among scopes.
func scopeSetOf(scopes []string) ScopeSet {
	var set ScopeSet
	for _, s := range scopes {
		switch s {
		case ScopeConnect:
			set |= scopeConnectBit
		case ScopeResourcesRead:
			set |= scopeResourcesReadBit
		}
	}
	return set
}

// Remembered is what a connection keeps of the token it last presented: a
// copy of the token and its row in the table, so the next request with the
// same token finds the row by comparing bytes instead of hashing the token
// again. It holds no decision: every request still runs every check on the
// row (active, revoked, nbf, expiry, bindings, revision), and the scopes and
// tenant are read from it afresh. The zero value remembers nothing. A
// Remembered belongs to one connection; it is not safe for concurrent use.
type Remembered struct {
	p     *Policy
	token []byte
	entry *tokenEntry
}

// Denial is a refused request: the status, the WWW-Authenticate value to
// send ("" = send none) and, for the server log and trace only, why.
// Every field is a constant or built from configuration, never from
// request bytes (A-P07).
type Denial struct {
	Status    int
	Challenge string
	Reason    Reason
	Detail    string
	// Holder is whose token it was when a known token is refused because
	// it was revoked or its subject's revision changed (DetailRevoked,
	// DetailRevision), so the caller can end that holder's sessions: they
	// fail closed rather than wait for their TTL. It authorizes nothing;
	// nil for every other denial.
	Holder *Principal
}

// Reason is the class of a denial. The response reveals no more than the
// reason: every 401 for a presented token is ReasonInvalidToken, whichever
// check failed, so a client cannot probe claim by claim.
type Reason string

const (
	ReasonMissingToken           Reason = "missing_token"           // 401, bare challenge: no header, or another scheme
	ReasonMalformedAuthorization Reason = "malformed_authorization" // 400 invalid_request
	ReasonInvalidToken           Reason = "invalid_token"           // 401 invalid_token
	ReasonInsufficientScope      Reason = "insufficient_scope"      // 403 with a challenge
	ReasonTenantForbidden        Reason = "tenant_forbidden"        // 403, no challenge
)

// The statuses a Denial carries (RFC 9110 §15.5); net/http stays out of
// leaf packages.
const (
	statusBadRequest   = 400
	statusUnauthorized = 401
	statusForbidden    = 403
)

// Details: which check failed, for the server log only.
const (
	DetailAbsent                = "authorization_absent"
	DetailNotBearer             = "scheme_not_bearer"
	DetailEmptyToken            = "empty_token"
	DetailExtraWords            = "extra_words"
	DetailTokenSyntax           = "token_not_b64token"
	DetailUnknown               = "unknown"
	DetailInactive              = "inactive"
	DetailRevoked               = "revoked"
	DetailNotYetValid           = "not_yet_valid"
	DetailExpired               = "expired"
	DetailIssuer                = "issuer"
	DetailAudience              = "audience"
	DetailResource              = "resource"
	DetailAuthorizationResource = "authorization_resource"
	DetailTokenResource         = "token_resource"
	DetailRevision              = "revision"
	DetailScope                 = "scope"
	DetailTenant                = "tenant"
)

// AuthenticateRemembered is layer 1 of the decision order (package
// comment), run on every request to the MCP endpoint:
// authorization is the raw Authorization header
// value, present says whether the header was sent, op selects the scopes
// named in challenges, now is the request's clock reading. A value of
// another scheme than Bearer carries no bearer credential and is answered
// like an absent header (RFC 6750 §3.1, A-08). The token is looked up by
// its SHA-256 and then, in this order: active, not revoked, not before
// nbf, before expiry; issuer, audience and the three resource bindings
// equal to this server's exactly (A-P04); the subject's current revision.
// Any failure there is the same 401 invalid_token.
//
// mem is what the caller keeps per connection (nil: keep nothing). A
// token equal to the one mem holds, by a constant-time comparison, is
// looked up through mem's row; any other token is hashed and looked up
// afresh, and mem then remembers it if the table knows it. A row, once in
// the table, stays the row of its token (Add refuses duplicates, nothing
// removes one), so the row mem holds is the one the digest would find;
// what can change in it (revocation, the subject's revision) is read on
// every call.
func (p *Policy) AuthenticateRemembered(mem *Remembered, authorization []byte, present bool, op string, now time.Time) (Principal, *Denial) {
	scopes := requiredScopes(op)
	if !present {
		return Principal{}, &Denial{Status: statusUnauthorized, Challenge: p.challenge("", scopes), Reason: ReasonMissingToken, Detail: DetailAbsent}
	}
	token, detail := bearerToken(authorization)
	switch detail {
	case "":
	case DetailNotBearer:
		return Principal{}, &Denial{Status: statusUnauthorized, Challenge: p.challenge("", scopes), Reason: ReasonMissingToken, Detail: detail}
	case DetailTokenSyntax:
		return Principal{}, p.invalidToken(scopes, detail)
	default:
		return Principal{}, &Denial{Status: statusBadRequest, Challenge: p.challenge(errorInvalidRequest, scopes), Reason: ReasonMalformedAuthorization, Detail: detail}
	}

	entry := mem.recall(p, token)
	if entry == nil {
		// The map is keyed by SHA-256 digests: the lookup compares digests,
		// whose timing tells an attacker nothing about any stored token.
		digest := sha256.Sum256(token)
		p.mu.RLock()
		entry = p.byDigest[digest]
		p.mu.RUnlock()
		mem.remember(p, token, entry)
	}
	if entry == nil {
		return Principal{}, p.invalidToken(scopes, DetailUnknown)
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	rec := &entry.record
	holder := Principal{
		Subject:     rec.Subject,
		Tenant:      rec.Tenant,
		Revision:    rec.Revision,
		Correlation: entry.correlation,
	}
	if detail := p.tokenFault(entry, now); detail != "" {
		d := p.invalidToken(scopes, detail)
		if detail == DetailRevoked || detail == DetailRevision {
			// A copy, so holder itself stays on the stack of every
			// accepted request.
			h := holder
			d.Holder = &h
		}
		return Principal{}, d
	}
	holder.Scopes = entry.scopes
	return holder, nil
}

// recall returns mem's row if token is the token mem holds, for p; else nil.
func (mem *Remembered) recall(p *Policy, token []byte) *tokenEntry {
	if mem == nil || mem.p != p || subtle.ConstantTimeCompare(mem.token, token) != 1 {
		return nil
	}
	return mem.entry
}

// remember keeps token and its row. A token the table does not know is not
// kept (mem keeps what it had): a connection holds at most a copy of a
// token some record was minted for, never bytes a client made up. The copy
// reuses mem's buffer, so a connection that keeps presenting tokens of one
// length allocates once.
func (mem *Remembered) remember(p *Policy, token []byte, entry *tokenEntry) {
	if mem == nil || entry == nil {
		return
	}
	mem.p, mem.entry, mem.token = p, entry, append(mem.token[:0], token...)
}

// tokenFault returns the first failed check of the decision order's token
// steps, or "". The caller holds p.mu.
func (p *Policy) tokenFault(entry *tokenEntry, now time.Time) string {
	rec := &entry.record
	switch {
	case !rec.Active:
		return DetailInactive
	case entry.revoked:
		return DetailRevoked
	case !rec.NotBefore.IsZero() && now.Before(rec.NotBefore):
		return DetailNotYetValid
	case !now.Before(rec.Expiry):
		return DetailExpired
	case rec.Issuer != p.issuer:
		return DetailIssuer
	case rec.Audience != p.canonicalURI:
		return DetailAudience
	case rec.Resource != p.canonicalURI:
		return DetailResource
	case rec.AuthorizationResource != p.canonicalURI:
		return DetailAuthorizationResource
	case rec.TokenResource != p.canonicalURI:
		return DetailTokenResource
	case rec.Revision != p.revisions[rec.Subject]:
		return DetailRevision
	}
	return ""
}

func (p *Policy) invalidToken(scopes []string, detail string) *Denial {
	return &Denial{Status: statusUnauthorized, Challenge: p.challenge(errorInvalidToken, scopes), Reason: ReasonInvalidToken, Detail: detail}
}

// credentials = auth-scheme 1*SP b64token   ; auth-scheme "Bearer", any case
//
// RFC 6750 §2.1 with RFC 9110 §11.1 (case-insensitive scheme). Only SP
// separates; HTAB does not, so "Bearer<HTAB>x" is another scheme. The
// scheme is the value up to its first SP (all of it if there is none, so an
// empty value or a bare word is another scheme too). Another scheme is no
// bearer credential at all (DetailNotBearer; RFC 6750 §3.1, A-08). The
// profile's classification (A-P02): an empty token or more words after the
// token is a malformed request (400 invalid_request); a single word with a
// character outside b64token is a malformed token (401 invalid_token, RFC
// 6750 §3.1). bearerToken returns the token, or nil and the Detail saying
// which.
func bearerToken(value []byte) ([]byte, string) {
	scheme, rest, _ := bytes.Cut(value, []byte(" "))
	if !isBearerScheme(scheme) {
		return nil, DetailNotBearer
	}
	token := bytes.TrimLeft(rest, " ")
	switch {
	case len(token) == 0:
		return nil, DetailEmptyToken
	case bytes.Contains(token, []byte(" ")):
		return nil, DetailExtraWords
	case !isB64Token(token):
		return nil, DetailTokenSyntax
	}
	return token, ""
}

// isBearerScheme compares with ASCII case folding only: Unicode folding
// (bytes.EqualFold) is not what RFC 9110 §11.1 means by case-insensitive.
func isBearerScheme(scheme []byte) bool {
	const bearer = "bearer"
	if len(scheme) != len(bearer) {
		return false
	}
	for i := range len(bearer) {
		if scheme[i]|0x20 != bearer[i] {
			return false
		}
	}
	return true
}

// Authorize is layer 3 of the decision order, after the session checks:
// may pr do op? The tenant ACL comes first: when the tenant is refused,
// more scope would not help, so the 403 carries no challenge that would
// send the client through a useless step-up (the package comment's 401 or
// 403 table). Otherwise the
// scopes: a missing one gives 403 insufficient_scope naming every scope op
// needs, held ones included, so re-authorizing does not drop them (A-14,
// A-15, MCP Authorization §10.1.1).
func (p *Policy) Authorize(pr Principal, op string) *Denial {
	if _, ok := p.tenants[pr.Tenant]; !ok {
		return &Denial{Status: statusForbidden, Reason: ReasonTenantForbidden, Detail: DetailTenant}
	}
	scopes := requiredScopes(op)
	if need := scopeSetOf(scopes); pr.Scopes&need != need {
		return &Denial{Status: statusForbidden, Challenge: p.challenge(errorInsufficientScope, scopes), Reason: ReasonInsufficientScope, Detail: DetailScope}
	}
	return nil
}

// The scopes rawmcp knows. scopes_supported publishes exactly these two, the
// minimal baseline.
const (
	ScopeConnect       = "mcp:connect"
	ScopeResourcesRead = "resources:read"
)

// scopesBeyondConnect lists the operations that need more than ScopeConnect.
// The table in doc.go is the same data, for readers. A list, not a map: it
// is looked up on every request and holds one entry.
var scopesBeyondConnect = []struct {
	op     string
	scopes []string
}{
	{"resources/list", []string{ScopeConnect, ScopeResourcesRead}},
}

// connectOnly is what every operation not in scopesBeyondConnect needs.
var connectOnly = []string{ScopeConnect}

// requiredScopes returns the scopes op needs, in a fixed order. op is a
// JSON-RPC method name for POST ("initialize", "notifications/initialized",
// "ping", "resources/list"; any other method needs ScopeConnect only, and
// the MCP layer refuses it later), or "GET" / "DELETE" for the notification
// stream and the session end. The slice is shared: callers only read it.
func requiredScopes(op string) []string {
	for _, e := range scopesBeyondConnect {
		if e.op == op {
			return e.scopes
		}
	}
	return connectOnly
}

// Bearer error codes, RFC 6750 §3.1.
const (
	errorInvalidRequest    = "invalid_request"
	errorInvalidToken      = "invalid_token"
	errorInsufficientScope = "insufficient_scope"
)

// challenge builds the one WWW-Authenticate challenge rawmcp sends:
//
//	challenge = "Bearer" SP [ error-param ", " ] metadata-param ", " scope-param
//	error-param    = "error=" DQUOTE error-code DQUOTE
//	metadata-param = "resource_metadata=" DQUOTE absolute-URL DQUOTE
//	scope-param    = "scope=" DQUOTE scope-token *( SP scope-token ) DQUOTE
//
// RFC 6750 §3 (the Bearer challenge and its error codes), RFC 9728 §5.1
// (resource_metadata), RFC 9110 §11.2 (auth-params). Each parameter appears
// once and always as a quoted-string; the error comes first
// whenever there is one. No value needs quoted-pair escaping: error codes
// and scopes are this package's constants, and the metadata URL is built
// from a CanonicalURI that New checked holds neither DQUOTE nor backslash.
// Without an error code this is the bare challenge for a request that had
// no credentials (RFC 6750 §3.1, A-08).
func (p *Policy) challenge(errorCode string, scopes []string) string {
	var b strings.Builder
	b.WriteString("Bearer ")
	if errorCode != "" {
		b.WriteString(`error="`)
		b.WriteString(errorCode)
		b.WriteString(`", `)
	}
	b.WriteString(`resource_metadata="`)
	b.WriteString(p.metadataURL)
	b.WriteString(`", scope="`)
	b.WriteString(strings.Join(scopes, " "))
	b.WriteString(`"`)
	return b.String()
}
