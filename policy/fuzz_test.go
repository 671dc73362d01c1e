package policy

import (
	"errors"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The references bearerToken is checked against, as regular expressions:
// bearerOracle is RFC 6750 §2.1; schemeOracle is a first word (up to the
// first SP) that is the Bearer scheme.
var (
	bearerOracle = regexp.MustCompile(`^(?i:bearer) +[A-Za-z0-9\-._~+/]+=*$`)
	schemeOracle = regexp.MustCompile(`^(?i:bearer)(?: |$)`)
)

// FuzzAuthenticate: for any Authorization value, Authenticate either
// accepts the one registered token, or answers the bare 401 exactly when
// the value's scheme is not Bearer (RFC 6750 §3.1), 400 invalid_request
// exactly when it is Bearer but not `Bearer 1*SP one-word`, or 401
// invalid_token; every denial is drawn from the constant challenges,
// reasons and details, so no input byte can reach the response (A-P07).
// A connection that presented the registered token before gets the same
// answer through its Remembered as without one.
func FuzzAuthenticate(f *testing.F) {
	for _, c := range authorizationSyntaxCases() {
		f.Add([]byte(c.header))
	}
	p := newTestPolicy(f)
	if err := p.Add(tokAlice, aliceRecord()); err != nil {
		f.Fatal(err)
	}
	syntaxDetails := map[string]bool{DetailEmptyToken: true, DetailExtraWords: true}
	f.Fuzz(func(t *testing.T, header []byte) {
		pr, denial := p.AuthenticateRemembered(nil, header, true, "ping", t0)
		var mem Remembered
		if _, d := p.AuthenticateRemembered(&mem, []byte("Bearer "+tokAlice), true, "ping", t0); d != nil {
			t.Fatalf("warming the memory: %+v", d)
		}
		memPr, memDenial := p.AuthenticateRemembered(&mem, header, true, "ping", t0)
		if diff := cmp.Diff(pr, memPr); diff != "" {
			t.Fatalf("%q: Principal with a warm memory (-without +with):\n%s", header, diff)
		}
		if diff := cmp.Diff(denial, memDenial); diff != "" {
			t.Fatalf("%q: Denial with a warm memory (-without +with):\n%s", header, diff)
		}
		bearer, wellFormed := schemeOracle.Match(header), bearerOracle.Match(header)
		switch {
		case denial == nil:
			if diff := cmp.Diff(alicePrincipal, pr); diff != "" || !wellFormed {
				t.Fatalf("accepted %q (well-formed %v): (-want +got):\n%s", header, wellFormed, diff)
			}
		case denial.Detail == DetailNotBearer:
			if bearer || *denial != *notBearer() {
				t.Fatalf("%q (Bearer scheme %v): %+v", header, bearer, denial)
			}
		case syntaxDetails[denial.Detail]:
			if !bearer || wellFormed || *denial != *invalidRequest(denial.Detail) {
				t.Fatalf("%q (Bearer scheme %v, well-formed %v): %+v", header, bearer, wellFormed, denial)
			}
		case denial.Detail == DetailTokenSyntax:
			if !bearer || wellFormed || *denial != *invalidToken(DetailTokenSyntax) {
				t.Fatalf("%q (Bearer scheme %v, well-formed %v): %+v", header, bearer, wellFormed, denial)
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
