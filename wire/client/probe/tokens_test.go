package probe

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseNamedTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]string
		err  *TokensError
	}{
		{"every kind", `{"wrong_audience": "a", "wrong_issuer": "b", "expired": "c", "low_scope": "eyJ.x-y_z"}`,
			map[string]string{"wrong_audience": "a", "wrong_issuer": "b", "expired": "c", "low_scope": "eyJ.x-y_z"}, nil},
		{"none", `{}`, map[string]string{}, nil},
		{"an unknown kind", `{"admin": "a"}`, nil, &TokensError{Reason: "names a kind other than wrong_audience, wrong_issuer, expired, low_scope"}},
		{"a kind twice", `{"expired": "a", "expired": "b"}`, nil, &TokensError{Member: "expired", Reason: "appears twice"}},
		{"a number", `{"expired": 1}`, nil, &TokensError{Member: "expired", Reason: "is not a string"}},
		{"null", `{"expired": null}`, nil, &TokensError{Member: "expired", Reason: "is not a string"}},
		{"a token with a space", `{"expired": "a b"}`, nil, &TokensError{Member: "expired", Reason: "is empty or holds a byte outside 0x21-0x7E"}},
		{"an empty token", `{"expired": ""}`, nil, &TokensError{Member: "expired", Reason: "is empty or holds a byte outside 0x21-0x7E"}},
		{"an array", `["a"]`, nil, &TokensError{Reason: "is not a JSON object"}},
		{"a syntax error says where", "{\n  \"expired\": \"a\",\n}", nil,
			&TokensError{Reason: "is not JSON: invalid character '}' looking for beginning of object key string at line 3, column 1"}},
		{"rawmcp serve's token file", `[{"token": "tok-alice", "token_id": "alice", "subject": "alice"}]`, nil, ErrServeTokenFile},
		{"bytes after the object", `{} x`, nil, &TokensError{Reason: "is not JSON: invalid character 'x' after top-level value at line 1, column 4"}},
		{"a second object", `{} {}`, nil, &TokensError{Reason: "is not JSON: invalid character '{' after top-level value at line 1, column 4"}},
		{"not UTF-8", "{\"expired\": \"\xff\"}", nil, &TokensError{Reason: "is not UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNamedTokens([]byte(tt.in))
			var te *TokensError
			switch {
			case tt.err == nil && err != nil:
				t.Fatalf("error %v", err)
			case tt.err != nil && !errors.As(err, &te):
				t.Fatalf("error %v, want %+v", err, tt.err)
			case tt.err != nil && *te != *tt.err:
				t.Errorf("error %+v, want %+v", *te, *tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseNamedTokens: a tokens file is either refused with a
// TokensError that carries none of the file's tokens, or every token it
// returns is of a known kind and fits a header unchanged.
func FuzzParseNamedTokens(f *testing.F) {
	for _, seed := range []string{`{"expired": "tok-1"}`, `{"low_scope": "a", "wrong_issuer": "b"}`, `{"expired": "a b"}`, `{}`, `[`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tokens, err := ParseNamedTokens(data)
		if err != nil {
			var te *TokensError
			if !errors.As(err, &te) {
				t.Fatalf("error %v is no TokensError", err)
			}
			if len(data) > 8 && strings.Contains(err.Error(), string(data)) {
				t.Fatalf("the error quotes the file")
			}
			return
		}
		for kind, tok := range tokens {
			if !isNamedKind(kind) || !visibleASCII(tok) {
				t.Fatalf("kind %q, token %q accepted", kind, tok)
			}
		}
	})
}

func isNamedKind(k string) bool {
	for _, n := range NamedKinds {
		if n == k {
			return true
		}
	}
	return false
}
