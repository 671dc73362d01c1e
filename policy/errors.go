package policy

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error this package returns is a *FieldError that
// unwraps to one of them, so callers test with errors.Is and read the field
// with errors.As, never by matching text.
var (
	// ErrInvalidConfig: a Config field New refuses.
	ErrInvalidConfig = errors.New("policy: invalid config")
	// ErrMalformedRecord: a TokenRecord (or its token) Add refuses.
	ErrMalformedRecord = errors.New("policy: malformed token record")
	// ErrDuplicateRecord: Add was given a token or token id already held.
	ErrDuplicateRecord = errors.New("policy: duplicate token record")
	// ErrMalformedTokenFile: ParseTokenFile refuses the file.
	ErrMalformedTokenFile = errors.New("policy: malformed token file")
)

// FieldError names the field that failed a check. Field is always one of
// this package's constant names (a Config field, a token-file member such
// as "expiry", or a structural name such as "json"), never the value, so
// the error is safe to log even when the value was a bearer token (A-P07).
type FieldError struct {
	Err   error  // one of the sentinels above
	Entry int    // 1-based position of the entry in a token file; 0 otherwise
	Field string // constant name of the refused field
}

func (e *FieldError) Error() string {
	if e.Entry > 0 {
		return fmt.Sprintf("%v: entry %d: %s", e.Err, e.Entry, e.Field)
	}
	return fmt.Sprintf("%v: %s", e.Err, e.Field)
}

func (e *FieldError) Unwrap() error { return e.Err }

// Field names shared by TokenRecord validation and the token file, spelled
// as the token file's members.
const (
	fieldToken                 = "token"
	fieldTokenID               = "token_id"
	fieldIssuer                = "issuer"
	fieldAudience              = "audience"
	fieldResource              = "resource"
	fieldAuthorizationResource = "authorization_resource"
	fieldTokenResource         = "token_resource"
	fieldSubject               = "subject"
	fieldTenant                = "tenant"
	fieldScopes                = "scopes"
	fieldRevision              = "revision"
	fieldActive                = "active"
	fieldNotBefore             = "not_before"
	fieldExpiry                = "expiry"
)

// Field names for Config.
const (
	fieldCanonicalURI   = "CanonicalURI"
	fieldConfigIssuer   = "Issuer"
	fieldAllowedHosts   = "AllowedHosts"
	fieldAllowedOrigins = "AllowedOrigins"
	fieldAllowedTenants = "AllowedTenants"
)
