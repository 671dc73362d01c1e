package policy

import (
	"errors"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bearerOracle is RFC 6750 §2.1 written as a regular expression, the
// reference bearerToken is checked against.
var bearerOracle = regexp.MustCompile(`^(?i:bearer) +[A-Za-z0-9\-._~+/]+=*$`)

// FuzzAuthenticate: for any Authorization value, Authenticate either
// accepts the one registered token, or answers 400 invalid_request exactly
// when the value is not `Bearer 1*SP one-word`, or 401 invalid_token; every
// denial is drawn from the constant challenges, reasons and details, so no
// input byte can reach the response (A-P07).
func FuzzAuthenticate(f *testing.F) {
	for _, c := range authorizationSyntaxCases() {
		f.Add([]byte(c.header))
	}
	p := newTestPolicy(f)
	if err := p.Add(tokAlice, aliceRecord()); err != nil {
		f.Fatal(err)
	}
	syntaxDetails := map[string]bool{DetailNotBearer: true, DetailEmptyToken: true, DetailExtraWords: true}
	f.Fuzz(func(t *testing.T, header []byte) {
		pr, denial := p.Authenticate(header, true, "ping", t0)
		wellFormed := bearerOracle.Match(header)
		switch {
		case denial == nil:
			if diff := cmp.Diff(alicePrincipal, pr); diff != "" || !wellFormed {
				t.Fatalf("accepted %q (well-formed %v): (-want +got):\n%s", header, wellFormed, diff)
			}
		case syntaxDetails[denial.Detail]:
			if wellFormed || *denial != *invalidRequest(denial.Detail) {
				t.Fatalf("%q (well-formed %v): %+v", header, wellFormed, denial)
			}
		case denial.Detail == DetailTokenSyntax:
			if wellFormed || *denial != *invalidToken(DetailTokenSyntax) {
				t.Fatalf("%q (well-formed %v): %+v", header, wellFormed, denial)
			}
		default:
			if !wellFormed || *denial != *invalidToken(DetailUnknown) {
				t.Fatalf("%q (well-formed %v): %+v", header, wellFormed, denial)
			}
		}
	})
}

// FuzzParseTokenFile: for any bytes, ParseTokenFile returns entries that Add
// takes, or a *FieldError for ErrMalformedTokenFile naming a constant field;
// it never panics.
func FuzzParseTokenFile(f *testing.F) {
	for _, c := range tokenFileCases() {
		f.Add([]byte(c.data))
	}
	fields := map[string]bool{fieldJSON: true, fieldArray: true, fieldEntry: true, fieldMember: true}
	for _, m := range tokenFileMembers {
		fields[m.name] = true
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ParseTokenFile(data, testCanonical)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Err != ErrMalformedTokenFile || !fields[fe.Field] || fe.Entry < 0 || entries != nil {
				t.Fatalf("ParseTokenFile(%q) = %v, %v", data, entries, err)
			}
			return
		}
		p := newTestPolicy(t)
		for _, e := range entries {
			if err := p.Add(e.Token, e.Record); err != nil && !errors.Is(err, ErrDuplicateRecord) {
				t.Fatalf("ParseTokenFile(%q) gave an entry Add refuses: %v", data, err)
			}
		}
	})
}
