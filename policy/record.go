package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"time"
)

// TokenRecord is what a real authorization server would have minted and a
// real resource server would learn by signature check or introspection; here
// it is preset in an offline table. Every string is compared
// exactly, without Unicode normalization.
type TokenRecord struct {
	TokenID               string
	Issuer                string
	Audience              string
	Resource              string // the resource the offline policy recorded
	AuthorizationResource string // RFC 8707 resource of the authorization request
	TokenResource         string // RFC 8707 resource of the token request
	Subject, Tenant       string
	Scopes                []string
	Revision              uint64 // authorization revision the token was minted under
	Active                bool
	NotBefore, Expiry     time.Time // NotBefore zero = no nbf
}

// tokenEntry is one row of the token table, found by the token's SHA-256
// digest; it never holds the token.
type tokenEntry struct {
	record      TokenRecord
	revoked     bool
	scopes      ScopeSet // the known scopes of record.Scopes, which never change
	correlation string   // Correlate(token), computed once here for every request's Principal
}

// Add puts a token into the table under SHA-256(token). SHA-256 here only
// keeps raw fixture tokens out of memory maps and logs; it is not password
// hashing. A subject's current revision is
// raised to rec.Revision when that is newer: a token is minted under the
// revision current at minting time, so minting a newer one retires older
// ones. Refused records leave the table unchanged.
func (p *Policy) Add(token string, rec TokenRecord) error {
	if field := recordFault(token, rec); field != "" {
		return &FieldError{Err: ErrMalformedRecord, Field: field}
	}
	digest := sha256.Sum256([]byte(token))
	rec.Scopes = slices.Clone(rec.Scopes)

	return p.add(digest, rec)
}

// add puts the entry into the table under mu.
func (p *Policy) add(digest [sha256.Size]byte, rec TokenRecord) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, dup := p.byDigest[digest]; dup {
		return &FieldError{Err: ErrDuplicateRecord, Field: fieldToken}
	}
	if _, dup := p.byID[rec.TokenID]; dup {
		return &FieldError{Err: ErrDuplicateRecord, Field: fieldTokenID}
	}
	entry := &tokenEntry{record: rec, scopes: scopeSetOf(rec.Scopes), correlation: correlation(digest)}
	p.byDigest[digest] = entry
	p.byID[rec.TokenID] = entry
	p.revisions[rec.Subject] = max(p.revisions[rec.Subject], rec.Revision)
	return nil
}

// recordFault returns the name of the first field Add refuses, or "".
func recordFault(token string, rec TokenRecord) string {
	if !isB64Token([]byte(token)) {
		return fieldToken
	}
	required := [...]struct{ field, value string }{
		{fieldTokenID, rec.TokenID},
		{fieldIssuer, rec.Issuer},
		{fieldAudience, rec.Audience},
		{fieldResource, rec.Resource},
		{fieldAuthorizationResource, rec.AuthorizationResource},
		{fieldTokenResource, rec.TokenResource},
		{fieldSubject, rec.Subject},
		{fieldTenant, rec.Tenant},
	}
	for _, r := range required {
		if !nonEmptyUTF8(r.value) {
			return r.field
		}
	}
	for _, scope := range rec.Scopes {
		if !validScopeToken(scope) {
			return fieldScopes
		}
	}
	if rec.Expiry.IsZero() {
		return fieldExpiry
	}
	return ""
}

// b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
//
// RFC 6750 §2.1.
func isB64Token(b []byte) bool {
	i := 0
	for i < len(b) && isB64TokenChar(b[i]) {
		i++
	}
	if i == 0 {
		return false
	}
	for i < len(b) && b[i] == '=' {
		i++
	}
	return i == len(b)
}

func isB64TokenChar(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
}

// scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
//
// RFC 6749 §3.3, the syntax RFC 6750 §3 quotes in the scope auth-param:
// no space, DQUOTE or backslash, so a scope list is a quoted-string as is.
func validScopeToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return s != ""
}

// Revoke marks the token with this id revoked; it reports whether the id is
// known. The row stays, so the log can say "revoked" rather than "unknown".
func (p *Policy) Revoke(tokenID string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	entry, ok := p.byID[tokenID]
	if ok {
		entry.revoked = true
	}
	return ok
}

// SetRevision sets the subject's current authorization revision. Tokens
// minted under any other revision, older or newer, stop working at their
// next request (fail closed). Ending the sessions bound to those
// revisions is the assembled server's (assemble.Server.SetRevision).
func (p *Policy) SetRevision(subject string, revision uint64) {
	p.mu.Lock()
	p.revisions[subject] = revision
	p.mu.Unlock()
}

// Revision is the subject's current authorization revision (0 for a
// subject never seen).
func (p *Policy) Revision(subject string) uint64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.revisions[subject]
}

// Correlate returns a short irreversible id for a secret: the first 8 hex
// digits of its SHA-256. Logs and traces carry it so that two lines about
// the same token can be matched without either holding the token.
func Correlate(secret []byte) string {
	digest := sha256.Sum256(secret)
	return correlation(digest)
}

func correlation(digest [sha256.Size]byte) string {
	return hex.EncodeToString(digest[:4])
}
