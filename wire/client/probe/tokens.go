package probe

import (
	"bytes"
	"encoding/json"
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

// ErrServeTokenFile reports rawmcp serve's token file given to probe
// -tokens: the two files hold different things.
var ErrServeTokenFile = &TokensError{Reason: `is a rawmcp serve token file (a list of token records): probe -tokens takes one object of the tokens a server must refuse or limit, {"wrong_audience": "...", "wrong_issuer": "...", "expired": "...", "low_scope": "..."}; give a valid token of that file with -token (and another principal's with -token2)`}

// isServeTokenFile reports whether data is a list of token records, as
// rawmcp serve -tokens reads.
func isServeTokenFile(data []byte) bool {
	var records []map[string]json.RawMessage
	if json.Unmarshal(data, &records) != nil || len(records) == 0 {
		return false
	}
	for _, r := range records {
		if r["token"] == nil {
			return false
		}
	}
	return true
}

// ParseNamedTokens reads a -tokens file: one JSON object whose members are
// named kinds and whose values are tokens,
//
//	{"wrong_audience": "eyJ...", "expired": "tok-old", "low_scope": "tok-connect-only"}
//
// Every member is optional; an unknown or repeated name, a value that is
// not a string, and a token that is empty or has a byte outside 0x21-0x7E
// (it would not fit an Authorization header unchanged) are refused; a
// syntax error says where it is, and rawmcp serve's token file (a list
// of records) is named as such.
func ParseNamedTokens(data []byte) (map[string]string, error) {
	if !utf8.Valid(data) {
		return nil, &TokensError{Reason: "is not UTF-8"}
	}
	if err := JSONSyntax(data); err != nil {
		return nil, &TokensError{Reason: "is " + err.Error()}
	}
	if isServeTokenFile(data) {
		return nil, &TokensError{Reason: ErrServeTokenFile.Reason}
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
	// JSONSyntax saw one value and nothing after it.
	return out, nil
}
