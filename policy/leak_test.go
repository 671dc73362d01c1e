package policy

import (
	"fmt"
	"strings"
	"testing"
)

// TestNothingEchoesAToken runs every table again and scans every outcome:
// no Denial field, no Principal field and no error string may contain a
// token the case added or presented (A-33, A-P07).
func TestNothingEchoesAToken(t *testing.T) {
	var tables [][]authCase
	tables = append(tables, authorizationSyntaxCases(), tokenStateCases(), bindingCases(),
		revisionCases(), authorizeCases(), unicodeCases())
	for _, table := range tables {
		for _, c := range table {
			pr, denial := c.run(t)
			outputs := []string{fmt.Sprintf("%#v", pr)}
			if denial != nil {
				outputs = append(outputs, fmt.Sprintf("%#v", *denial))
			}
			secrets := append(c.fixtureTokens(), presentedToken(c.header))
			checkNoSecret(t, c.name, outputs, secrets)
		}
	}
	for _, c := range addCases() {
		p := newTestPolicy(t)
		rec := aliceRecord()
		c.edit(&rec)
		if err := p.Add(c.token, rec); err != nil {
			checkNoSecret(t, c.name, []string{err.Error(), fmt.Sprintf("%#v", err)}, []string{c.token})
		}
	}
	for _, c := range tokenFileCases() {
		if _, err := ParseTokenFile([]byte(c.data), testCanonical); err != nil {
			secrets := []string{tokAlice, tokBob, "tok-has space-Lw8Q"}
			checkNoSecret(t, c.name, []string{err.Error(), fmt.Sprintf("%#v", err)}, secrets)
		}
	}
}

// presentedToken is the part of an Authorization value after the scheme,
// which may be a secret even when malformed.
func presentedToken(header string) string {
	_, rest, _ := strings.Cut(header, " ")
	return strings.TrimSpace(rest)
}

func checkNoSecret(t *testing.T, name string, outputs, secrets []string) {
	t.Helper()
	for _, secret := range secrets {
		// Shorter strings ("==", "ab=cd") occur in constants by chance;
		// fixture tokens are all longer.
		if len(secret) < 12 {
			continue
		}
		for _, out := range outputs {
			if strings.Contains(out, secret) {
				t.Errorf("A-P07/%s: output holds a token: %s", name, out)
			}
		}
	}
}

// TestDenialsAreConstant: a 401 for a presented token is the same bytes
// whatever check failed, so the response is no oracle for the claims.
func TestDenialsAreConstant(t *testing.T) {
	seen := map[string]string{} // challenge → first case
	for _, table := range [][]authCase{tokenStateCases(), bindingCases(), revisionCases()} {
		for _, c := range table {
			if c.op != "" {
				continue // another op names other scopes
			}
			_, denial := c.run(t)
			if denial == nil {
				continue
			}
			seen[fmt.Sprint(denial.Status, denial.Reason, denial.Challenge)] = c.name
		}
	}
	if len(seen) != 1 {
		t.Errorf("A-P04/401s differ on the wire: %v", seen)
	}
}
