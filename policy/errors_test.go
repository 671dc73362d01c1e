package policy

import "testing"

// TestFieldErrorText: the text names the sentinel, the entry of a token
// file (from 1) and the field, and nothing else (A-P07).
func TestFieldErrorText(t *testing.T) {
	for _, c := range []struct {
		name string
		err  FieldError
		want string
	}{
		{"A-P07/a Config field has no entry", FieldError{Err: ErrInvalidConfig, Field: fieldConfigIssuer},
			"policy: invalid config: Issuer"},
		{"A-P07/a record field has no entry", FieldError{Err: ErrMalformedRecord, Field: fieldScopes},
			"policy: malformed token record: scopes"},
		{"A-P07/the first entry of a token file", FieldError{Err: ErrMalformedTokenFile, Entry: 1, Field: fieldExpiry},
			"policy: malformed token file: entry 1: expiry"},
		{"A-P07/a token-file fault outside any entry", FieldError{Err: ErrMalformedTokenFile, Field: fieldJSON},
			"policy: malformed token file: json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.err.Error(); got != c.want {
				t.Errorf("Error() = %q, want %q", got, c.want)
			}
		})
	}
}
