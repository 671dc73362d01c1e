package policy

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

type addCase struct {
	name  string
	token string
	edit  func(*TokenRecord)
	field string // "" = accepted
}

func addCases() []addCase {
	return []addCase{
		{"A-P07/a complete record is accepted", tokAlice, func(*TokenRecord) {}, ""},
		{"A-P05/no nbf is accepted", tokAlice, func(r *TokenRecord) { r.NotBefore = time.Time{} }, ""},
		{"A-15/no scopes is accepted", tokAlice, func(r *TokenRecord) { r.Scopes = nil }, ""},
		{"A-16/Unicode subject and tenant are accepted", tokAlice, func(r *TokenRecord) { r.Subject, r.Tenant = "José 李", "租户-α" }, ""},

		{"A-21/empty token", "", func(*TokenRecord) {}, fieldToken},
		{"A-21/token with a space", "tok-has space-Lw8Q", func(*TokenRecord) {}, fieldToken},
		{"A-21/token with = inside", "tok=inside-Rq7Z", func(*TokenRecord) {}, fieldToken},
		{"A-21/token with a non-ASCII letter", "tok-é-Vm3Kx9", func(*TokenRecord) {}, fieldToken},
		{"A-P07/empty token id", tokAlice, func(r *TokenRecord) { r.TokenID = "" }, fieldTokenID},
		{"A-P07/token id not UTF-8", tokAlice, func(r *TokenRecord) { r.TokenID = "tid-\xff" }, fieldTokenID},
		{"A-P04/empty issuer", tokAlice, func(r *TokenRecord) { r.Issuer = "" }, fieldIssuer},
		{"A-P04/issuer not UTF-8", tokAlice, func(r *TokenRecord) { r.Issuer = testIssuer + "\xc3" }, fieldIssuer},
		{"A-P04/empty audience", tokAlice, func(r *TokenRecord) { r.Audience = "" }, fieldAudience},
		{"A-P04/audience not UTF-8", tokAlice, func(r *TokenRecord) { r.Audience = "\xed\xa0\x80" }, fieldAudience},
		{"A-P04/empty resource", tokAlice, func(r *TokenRecord) { r.Resource = "" }, fieldResource},
		{"A-P04/empty authorization resource", tokAlice, func(r *TokenRecord) { r.AuthorizationResource = "" }, fieldAuthorizationResource},
		{"A-P04/empty token resource", tokAlice, func(r *TokenRecord) { r.TokenResource = "" }, fieldTokenResource},
		{"A-P04/token resource not UTF-8", tokAlice, func(r *TokenRecord) { r.TokenResource = "\x80" }, fieldTokenResource},
		{"T-P10/empty subject", tokAlice, func(r *TokenRecord) { r.Subject = "" }, fieldSubject},
		{"T-P10/subject not UTF-8", tokAlice, func(r *TokenRecord) { r.Subject = "al\xffice" }, fieldSubject},
		{"A-16/empty tenant", tokAlice, func(r *TokenRecord) { r.Tenant = "" }, fieldTenant},
		{"A-16/tenant not UTF-8", tokAlice, func(r *TokenRecord) { r.Tenant = "\xfe" }, fieldTenant},
		{"A-07/empty scope", tokAlice, func(r *TokenRecord) { r.Scopes = []string{ScopeConnect, ""} }, fieldScopes},
		{"A-07/scope with a space (0x20), one below the range", tokAlice, func(r *TokenRecord) { r.Scopes = []string{"mcp:connect resources:read"} }, fieldScopes},
		{"A-07/scope with 0x21 (!), the range's first byte, is accepted", tokAlice, func(r *TokenRecord) { r.Scopes = []string{"a!b"} }, ""},
		{"A-07/scope with 0x7E (~), the range's last byte, is accepted", tokAlice, func(r *TokenRecord) { r.Scopes = []string{"~a"} }, ""},
		{"A-07/scope with 0x7F (DEL), one past the range", tokAlice, func(r *TokenRecord) { r.Scopes = []string{"a\x7fb"} }, fieldScopes},
		{"A-07/scope with a double quote", tokAlice, func(r *TokenRecord) { r.Scopes = []string{`a"b`} }, fieldScopes},
		{"A-07/scope with a backslash", tokAlice, func(r *TokenRecord) { r.Scopes = []string{`a\b`} }, fieldScopes},
		{"A-07/scope not ASCII", tokAlice, func(r *TokenRecord) { r.Scopes = []string{"lé"} }, fieldScopes},
		{"A-P05/no expiry", tokAlice, func(r *TokenRecord) { r.Expiry = time.Time{} }, fieldExpiry},
	}
}

func TestAddValidatesRecord(t *testing.T) {
	for _, c := range addCases() {
		t.Run(c.name, func(t *testing.T) {
			p := newTestPolicy(t)
			rec := aliceRecord()
			c.edit(&rec)
			err := p.Add(c.token, rec)
			if c.field == "" {
				if err != nil {
					t.Fatalf("Add = %v, want nil", err)
				}
				return
			}
			var fe *FieldError
			if !errors.Is(err, ErrMalformedRecord) || !errors.As(err, &fe) {
				t.Fatalf("Add = %v, want ErrMalformedRecord", err)
			}
			if fe.Field != c.field {
				t.Errorf("FieldError.Field = %q, want %q", fe.Field, c.field)
			}
			if len(p.byDigest) != 0 || len(p.byID) != 0 || len(p.revisions) != 0 {
				t.Errorf("a refused record changed the table")
			}
		})
	}
}

func TestAddRefusesDuplicates(t *testing.T) {
	for _, c := range []struct {
		name  string
		token string
		id    string
		field string
	}{
		{"A-P07/the same token under another id", tokAlice, "tid-2", fieldToken},
		{"A-P07/another token under the same id", tokBob, "tid-1", fieldTokenID},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newTestPolicy(t)
			if err := p.Add(tokAlice, aliceRecord()); err != nil {
				t.Fatal(err)
			}
			rec := aliceRecord()
			rec.TokenID, rec.Subject, rec.Revision = c.id, "mallory", 99
			err := p.Add(c.token, rec)
			var fe *FieldError
			if !errors.Is(err, ErrDuplicateRecord) || !errors.As(err, &fe) || fe.Field != c.field {
				t.Fatalf("Add = %v, want ErrDuplicateRecord on %q", err, c.field)
			}
			if _, known := p.revisions["mallory"]; known {
				t.Error("a refused duplicate set its subject's revision")
			}
			if pr, denial := p.AuthenticateRemembered(nil, []byte("Bearer "+tokAlice), true, "ping", t0); denial != nil || pr.Subject != "alice" {
				t.Errorf("the first record changed: %+v, %+v", pr, denial)
			}
		})
	}
}

// TestAddKeysByDigest: the table holds SHA-256(token), never the token
// (the profile's Figure 2 "SHA-256 lookup key").
func TestAddKeysByDigest(t *testing.T) {
	p := newTestPolicy(t)
	if err := p.Add(tokAlice, aliceRecord()); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.byDigest[sha256.Sum256([]byte(tokAlice))]; !ok || len(p.byDigest) != 1 {
		t.Fatalf("byDigest has no entry under SHA-256(token)")
	}
	for _, entry := range p.byID {
		if dump := fmt.Sprintf("%+v", *entry); strings.Contains(dump, tokAlice) {
			t.Errorf("A-33/a table entry holds the raw token: %s", dump)
		}
	}
}

func TestRevoke(t *testing.T) {
	p := newTestPolicy(t)
	if err := p.Add(tokAlice, aliceRecord()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		id   string
		want bool
	}{
		{"A-P05/known id", "tid-1", true},
		{"A-P05/known id again", "tid-1", true},
		{"A-P05/unknown id", "tid-9", false},
		{"A-P05/the token itself is not an id", tokAlice, false},
	} {
		if got := p.Revoke(c.id); got != c.want {
			t.Errorf("%s: Revoke(%q) = %v, want %v", c.name, c.id, got, c.want)
		}
	}
}

func TestCorrelate(t *testing.T) {
	for _, c := range []struct {
		name   string
		secret string
		want   string
	}{
		{"A-33/SHA-256(abc) starts ba7816bf (FIPS 180-2 example)", "abc", "ba7816bf"},
		{"A-33/empty secret", "", "e3b0c442"},
		{"A-33/a fixture token", tokAlice, "c1c639dc"},
	} {
		first, second := Correlate([]byte(c.secret)), Correlate([]byte(c.secret))
		if first != c.want || second != c.want {
			t.Errorf("%s: Correlate = %q then %q, want %q", c.name, first, second, c.want)
		}
	}
}
