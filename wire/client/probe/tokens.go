package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"unicode/utf8"
)

// NamedKinds are the token kinds of a -tokens file (CHECKS.md, "Needs"),
// each the way a token a server must refuse (or, for low_scope, limit) is
// wrong.
var NamedKinds = []string{"wrong_audience", "wrong_issuer", "expired", "low_scope"}

// TokensError reports a -tokens file that cannot be used: which member is
// wrong, never a token's bytes.
type TokensError struct {
	Member string // "" when the file is not one JSON object
	Reason string
}

func (e *TokensError) Error() string {
	if e.Member == "" {
		return "probe: the tokens file " + e.Reason
	}
	return "probe: the tokens file's " + e.Member + " " + e.Reason
}

// ParseNamedTokens reads a -tokens file: one JSON object whose members are
// named kinds and whose values are tokens,
//
//	{"wrong_audience": "eyJ...", "expired": "tok-old", "low_scope": "tok-connect-only"}
//
// Every member is optional; an unknown or repeated name, a value that is
// not a string, and a token that is empty or has a byte outside 0x21-0x7E
// (it would not fit an Authorization header unchanged) are refused.
func ParseNamedTokens(data []byte) (map[string]string, error) {
	if !utf8.Valid(data) {
		return nil, &TokensError{Reason: "is not UTF-8"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if open, err := dec.Token(); err != nil || open != json.Delim('{') {
		return nil, &TokensError{Reason: "is not a JSON object"}
	}
	out := map[string]string{}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, &TokensError{Reason: "is not a JSON object"}
		}
		name := key.(string) // inside an object, Token yields string keys
		if !slices.Contains(NamedKinds, name) {
			return nil, &TokensError{Reason: "names a kind other than wrong_audience, wrong_issuer, expired, low_scope"}
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, &TokensError{Reason: "is not a JSON object"}
		}
		var token string
		switch {
		case out[name] != "":
			return nil, &TokensError{Member: name, Reason: "appears twice"}
		case len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &token) != nil:
			return nil, &TokensError{Member: name, Reason: "is not a string"}
		case !visibleASCII(token):
			return nil, &TokensError{Member: name, Reason: "is empty or holds a byte outside 0x21-0x7E"}
		}
		out[name] = token
	}
	if _, err := dec.Token(); err != nil {
		return nil, &TokensError{Reason: "is not a JSON object"}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &TokensError{Reason: "has bytes after its object"}
	}
	return out, nil
}
