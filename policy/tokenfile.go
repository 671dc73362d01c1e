package policy

import (
	"bytes"
	"encoding/json"
	"io"
	"time"
	"unicode/utf8"
)

// TokenFileEntry is one token of a token file and the record it maps to.
type TokenFileEntry struct {
	Token  string
	Record TokenRecord
}

// Structural field names of token-file errors (the other names are the
// members themselves).
const (
	fieldJSON   = "json"   // not UTF-8, not JSON, or bytes after the array
	fieldArray  = "array"  // the top-level value is not an array
	fieldEntry  = "entry"  // an array element is not an object
	fieldMember = "member" // an object member this format does not define
)

// selfResource is the value that stands for the canonical URI in the four
// resource members, so one file serves any port.
const selfResource = "self"

// tokenFileMember is one member of a token-file entry: its exact,
// case-sensitive name and whether it must appear; decodeMember lands its
// raw JSON value in the entry.
type tokenFileMember struct {
	name     string
	required bool
}

var tokenFileMembers = [...]tokenFileMember{
	{fieldToken, true}, {fieldTokenID, true}, {fieldIssuer, true},
	{fieldAudience, true}, {fieldResource, true}, {fieldAuthorizationResource, true}, {fieldTokenResource, true},
	{fieldSubject, true}, {fieldTenant, true}, {fieldScopes, true}, {fieldRevision, true}, {fieldActive, true},
	{fieldNotBefore, false}, {fieldExpiry, true},
}

// decodeMember lands the raw JSON value of the member name in e; false:
// the value has the wrong shape. self is the canonical URI "self" stands
// for in the four resource members.
func decodeMember(name string, raw []byte, e *TokenFileEntry, self string) bool {
	r := &e.Record
	switch name {
	case fieldToken:
		return decodeNotNull(raw, &e.Token)
	case fieldTokenID:
		return decodeNotNull(raw, &r.TokenID)
	case fieldIssuer:
		return decodeNotNull(raw, &r.Issuer)
	case fieldAudience:
		return decodeResource(raw, self, &r.Audience)
	case fieldResource:
		return decodeResource(raw, self, &r.Resource)
	case fieldAuthorizationResource:
		return decodeResource(raw, self, &r.AuthorizationResource)
	case fieldTokenResource:
		return decodeResource(raw, self, &r.TokenResource)
	case fieldSubject:
		return decodeNotNull(raw, &r.Subject)
	case fieldTenant:
		return decodeNotNull(raw, &r.Tenant)
	case fieldScopes:
		return decodeNotNull(raw, &r.Scopes)
	case fieldRevision:
		return decodeNotNull(raw, &r.Revision)
	case fieldActive:
		r.Active = string(raw) == "true"
		return r.Active || string(raw) == "false"
	case fieldNotBefore:
		return decodeTime(raw, &r.NotBefore)
	case fieldExpiry:
		return decodeTime(raw, &r.Expiry)
	}
	return false
}

// ParseTokenFile reads the token file of `rawmcp serve -tokens FILE`:
//
//	[{"token": "tok-alice-3fQ9zW", "token_id": "alice-1",
//	  "issuer": "http://127.0.0.1:9/as", "audience": "self", "resource": "self",
//	  "authorization_resource": "self", "token_resource": "self",
//	  "subject": "alice", "tenant": "tenant-a",
//	  "scopes": ["mcp:connect", "resources:read"], "revision": 1, "active": true,
//	  "not_before": "2026-07-21T00:00:00Z", "expiry": "2026-07-22T00:00:00Z"}]
//
// Every member but not_before is required; member names are exact and
// appear once; times are RFC 3339. "self" in audience, resource,
// authorization_resource or token_resource stands for canonicalURI; any
// other value is kept literally, so a fixture for another server stays
// expressible. Each entry must also pass Add's checks (duplicates across
// entries are Add's to find). Errors are *FieldError values naming the
// entry and member, never carrying file bytes: encoding/json and time
// errors quote their input, so they are dropped, not wrapped.
func ParseTokenFile(data []byte, canonicalURI string) ([]TokenFileEntry, error) {
	fail := func(entry int, field string) ([]TokenFileEntry, error) {
		return nil, &FieldError{Err: ErrMalformedTokenFile, Entry: entry, Field: field}
	}
	// encoding/json would replace invalid UTF-8 silently (U+FFFD).
	if !utf8.Valid(data) {
		return fail(0, fieldJSON)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if open, err := dec.Token(); err != nil {
		return fail(0, fieldJSON)
	} else if open != json.Delim('[') {
		return fail(0, fieldArray)
	}
	var entries []TokenFileEntry
	for n := 1; dec.More(); n++ {
		entry, field := decodeTokenFileEntry(dec, canonicalURI)
		if field == "" {
			field = recordFault(entry.Token, entry.Record)
		}
		if field != "" {
			return fail(n, field)
		}
		entries = append(entries, entry)
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return fail(0, fieldJSON)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail(0, fieldJSON)
	}
	return entries, nil
}

// decodeTokenFileEntry reads one object; it returns the name of the field
// at fault, or "".
func decodeTokenFileEntry(dec *json.Decoder, canonicalURI string) (TokenFileEntry, string) {
	var entry TokenFileEntry
	if open, err := dec.Token(); err != nil {
		return entry, fieldJSON
	} else if open != json.Delim('{') {
		return entry, fieldEntry
	}
	seen := make(map[string]bool, len(tokenFileMembers))
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return entry, fieldJSON
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return entry, fieldJSON
		}
		member := findTokenFileMember(key.(string)) // inside an object, Token yields string keys
		switch {
		case member == nil:
			return entry, fieldMember
		case seen[member.name]:
			return entry, member.name
		case !decodeMember(member.name, raw, &entry, canonicalURI):
			return entry, member.name
		}
		seen[member.name] = true
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return entry, fieldJSON
	}
	for _, member := range tokenFileMembers {
		if member.required && !seen[member.name] {
			return entry, member.name
		}
	}
	return entry, ""
}

func findTokenFileMember(name string) *tokenFileMember {
	for i := range tokenFileMembers {
		if tokenFileMembers[i].name == name {
			return &tokenFileMembers[i]
		}
	}
	return nil
}

// decodeNotNull is json.Unmarshal without its one leniency here: null into
// a string, a slice or an unsigned number succeeds and leaves the zero value.
// Any other JSON of the wrong type is an error already (a string or a
// negative, fractional or exponent number into uint64, a number into a
// string). The decoder hands over raw without surrounding whitespace.
func decodeNotNull(raw []byte, dst any) bool {
	return string(raw) != "null" && json.Unmarshal(raw, dst) == nil
}

func decodeResource(raw []byte, canonicalURI string, dst *string) bool {
	if !decodeNotNull(raw, dst) {
		return false
	}
	if *dst == selfResource {
		*dst = canonicalURI
	}
	return true
}

func decodeTime(raw []byte, dst *time.Time) bool {
	var s string
	if !decodeNotNull(raw, &s) {
		return false
	}
	t, err := time.Parse(time.RFC3339, s)
	*dst = t
	return err == nil
}
