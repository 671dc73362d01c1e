package policy

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// aliceMembers is tokAlice's entry, member by member, in file order; its
// record is aliceRecord().
var aliceMembers = [][2]string{
	{"token", `"tok-alice-3fQ9zW7pLr"`},
	{"token_id", `"tid-1"`},
	{"issuer", `"http://127.0.0.1:9/as"`},
	{"audience", `"self"`},
	{"resource", `"self"`},
	{"authorization_resource", `"self"`},
	{"token_resource", `"self"`},
	{"subject", `"alice"`},
	{"tenant", `"tenant-a"`},
	{"scopes", `["mcp:connect", "resources:read"]`},
	{"revision", `7`},
	{"active", `true`},
	{"not_before", `"2026-07-21T11:00:00Z"`},
	{"expiry", `"2026-07-21T13:00:00Z"`},
}

// entryJSON writes aliceMembers as an object, changed by edits: pairs of
// member name and raw value; "-" removes the member, a name not in
// aliceMembers is appended, and "+name" appends a second copy.
func entryJSON(edits ...string) string {
	members := slices.Clone(aliceMembers)
	for i := 0; i < len(edits); i += 2 {
		name, raw := edits[i], edits[i+1]
		j := slices.IndexFunc(members, func(m [2]string) bool { return m[0] == name })
		switch {
		case strings.HasPrefix(name, "+"):
			members = append(members, [2]string{name[1:], raw})
		case j < 0:
			members = append(members, [2]string{name, raw})
		case raw == "-":
			members = slices.Delete(members, j, j+1)
		default:
			members[j][1] = raw
		}
	}
	var b strings.Builder
	b.WriteString("{")
	for i, m := range members {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + m[0] + `": ` + m[1])
	}
	b.WriteString("}")
	return b.String()
}

type tokenFileCase struct {
	name  string
	data  string
	want  []TokenFileEntry
	entry int    // of the error
	field string // "" = accepted
}

func aliceEntry(edit func(*TokenRecord)) TokenFileEntry {
	rec := aliceRecord()
	edit(&rec)
	return TokenFileEntry{Token: tokAlice, Record: rec}
}

func tokenFileCases() []tokenFileCase {
	same := func(*TokenRecord) {}
	one := func(edits ...string) string { return "[" + entryJSON(edits...) + "]" }
	return []tokenFileCase{
		{name: "A-P04/self stands for the canonical URI in all four resource members", data: one(), want: []TokenFileEntry{aliceEntry(same)}},
		{name: "A-P04/other values are kept literally, to express wrong-audience fixtures",
			data: one("audience", `"http://127.0.0.1:49153/mcp"`, "resource", `"HTTP://127.0.0.1:49152/mcp"`,
				"authorization_resource", `"http://127.0.0.1:49152/mcp/"`, "token_resource", `"Self"`),
			want: []TokenFileEntry{aliceEntry(func(r *TokenRecord) {
				r.Audience, r.Resource, r.AuthorizationResource, r.TokenResource =
					otherServer, "HTTP://127.0.0.1:49152/mcp", "http://127.0.0.1:49152/mcp/", "Self"
			})}},
		{name: "A-P04/self is literal in issuer", data: one("issuer", `"self"`),
			want: []TokenFileEntry{aliceEntry(func(r *TokenRecord) { r.Issuer = "self" })}},
		{name: "A-P05/not_before may be left out", data: one("not_before", "-"),
			want: []TokenFileEntry{aliceEntry(func(r *TokenRecord) { r.NotBefore = time.Time{} })}},
		{name: "A-P05/an RFC 3339 offset names the same instant", data: one("expiry", `"2026-07-21T15:00:00+02:00"`),
			want: []TokenFileEntry{aliceEntry(same)}},
		{name: "A-P05/fractional seconds", data: one("expiry", `"2026-07-21T13:00:00.5Z"`),
			want: []TokenFileEntry{aliceEntry(func(r *TokenRecord) { r.Expiry = r.Expiry.Add(500 * time.Millisecond) })}},
		{name: "A-P05/inactive and no scopes", data: one("active", "false", "scopes", "[]"),
			want: []TokenFileEntry{aliceEntry(func(r *TokenRecord) { r.Active, r.Scopes = false, []string{} })}},
		{name: "A-16/Unicode subject and tenant, escaped and raw", data: one("subject", `"Jos\u00e9"`, "tenant", `"租户-α"`),
			want: []TokenFileEntry{aliceEntry(func(r *TokenRecord) { r.Subject, r.Tenant = "José", "租户-α" })}},
		{name: "A-P07/two entries, in file order",
			data: "[" + entryJSON() + ",\n" + entryJSON("token", `"`+tokBob+`"`, "token_id", `"tid-2"`) + "]\n",
			want: []TokenFileEntry{aliceEntry(same), {Token: tokBob, Record: func() TokenRecord {
				r := aliceRecord()
				r.TokenID = "tid-2"
				return r
			}()}}},
		{name: "A-P07/an empty array", data: " [ ] ", want: nil},

		{name: "A-P07/unknown member", data: one("scope", `"x"`), entry: 1, field: fieldMember},
		{name: "A-P07/member names are case-sensitive", data: one("token", "-", "Token", `"`+tokAlice+`"`), entry: 1, field: fieldMember},
		{name: "A-P07/a member twice", data: one("+tenant", `"tenant-b"`), entry: 1, field: fieldTenant},
		{name: "A-P07/a member twice, once spelled with an escape", data: one(`+tok\u0065n`, `"x"`), entry: 1, field: fieldToken},
		{name: "A-P07/missing token", data: one("token", "-"), entry: 1, field: fieldToken},
		{name: "A-P07/missing token_id", data: one("token_id", "-"), entry: 1, field: fieldTokenID},
		{name: "A-P07/missing active", data: one("active", "-"), entry: 1, field: fieldActive},
		{name: "A-P05/missing expiry", data: one("expiry", "-"), entry: 1, field: fieldExpiry},
		{name: "A-P05/expiry with a space instead of T", data: one("expiry", `"2026-07-21 13:00:00Z"`), entry: 1, field: fieldExpiry},
		{name: "A-P05/expiry as a date only", data: one("expiry", `"2026-07-21"`), entry: 1, field: fieldExpiry},
		{name: "A-P05/expiry without a zone", data: one("expiry", `"2026-07-21T13:00:00"`), entry: 1, field: fieldExpiry},
		{name: "A-P05/expiry as a number", data: one("expiry", `1784638800`), entry: 1, field: fieldExpiry},
		{name: "A-P05/not_before null", data: one("not_before", `null`), entry: 1, field: fieldNotBefore},
		{name: "A-P07/token null", data: one("token", `null`), entry: 1, field: fieldToken},
		{name: "A-P07/token as a number", data: one("token", `12345678`), entry: 1, field: fieldToken},
		{name: "A-11/revision null", data: one("revision", `null`), entry: 1, field: fieldRevision},
		{name: "A-11/revision null after a line break", data: one("revision", "\n\tnull"), entry: 1, field: fieldRevision},
		{name: "A-11/revision negative", data: one("revision", `-1`), entry: 1, field: fieldRevision},
		{name: "A-11/revision fractional", data: one("revision", `1.5`), entry: 1, field: fieldRevision},
		{name: "A-11/revision as a string", data: one("revision", `"7"`), entry: 1, field: fieldRevision},
		{name: "A-11/revision 2^64 (one past the limit)", data: one("revision", `18446744073709551616`), entry: 1, field: fieldRevision},
		{name: "A-11/revision 2^64-1 (the limit)", data: one("revision", `18446744073709551615`),
			want: []TokenFileEntry{aliceEntry(func(r *TokenRecord) { r.Revision = 1<<64 - 1 })}},
		{name: "A-11/revision 0, the least", data: one("revision", `0`),
			want: []TokenFileEntry{aliceEntry(func(r *TokenRecord) { r.Revision = 0 })}},
		{name: "A-11/revision with an exponent", data: one("revision", `1e3`), entry: 1, field: fieldRevision},
		{name: "A-11/revision true", data: one("revision", `true`), entry: 1, field: fieldRevision},
		{name: "A-P07/active as a string", data: one("active", `"true"`), entry: 1, field: fieldActive},
		{name: "A-P07/active null", data: one("active", `null`), entry: 1, field: fieldActive},
		{name: "A-15/scopes null", data: one("scopes", `null`), entry: 1, field: fieldScopes},
		{name: "A-15/scopes as a string", data: one("scopes", `"mcp:connect"`), entry: 1, field: fieldScopes},
		{name: "A-15/a scope that is a number", data: one("scopes", `[1]`), entry: 1, field: fieldScopes},
		{name: "A-15/a scope that is null", data: one("scopes", `[null]`), entry: 1, field: fieldScopes},
		{name: "A-15/a scope with a space (Add's check)", data: one("scopes", `["mcp:connect resources:read"]`), entry: 1, field: fieldScopes},
		{name: "A-21/a token with a space (Add's check)", data: one("token", `"tok-has space-Lw8Q"`), entry: 1, field: fieldToken},
		{name: "T-P10/an empty subject (Add's check)", data: one("subject", `""`), entry: 1, field: fieldSubject},
		{name: "A-P07/the second entry is at fault", data: "[" + entryJSON() + "," + entryJSON("tenant", `""`) + "]", entry: 2, field: fieldTenant},

		{name: "A-P07/a top-level object", data: entryJSON(), field: fieldArray},
		{name: "A-P07/a top-level string", data: `"` + tokAlice + `"`, field: fieldArray},
		{name: "A-P07/an entry that is not an object", data: `[7]`, entry: 1, field: fieldEntry},
		{name: "A-P07/an entry that is an array", data: `[[]]`, entry: 1, field: fieldEntry},
		{name: "A-P07/broken JSON inside an entry", data: `[{"token" "` + tokAlice + `"}]`, entry: 1, field: fieldJSON},
		{name: "A-P07/bytes after the array", data: one() + " x", field: fieldJSON},
		{name: "A-P07/two arrays", data: "[][]", field: fieldJSON},
		{name: "A-P07/an unclosed array", data: "[" + entryJSON(), field: fieldJSON},
		{name: "A-P07/an unclosed entry", data: `[{"token": "` + tokAlice + `"`, entry: 1, field: fieldJSON},
		{name: "A-P07/empty input", data: "", field: fieldJSON},
		{name: "A-P07/invalid UTF-8 in a string", data: one("subject", "\"al\xffice\""), field: fieldJSON},
		{name: "A-P07/a leading BOM", data: "\ufeff" + one(), field: fieldJSON},
	}
}

func TestParseTokenFile(t *testing.T) {
	for _, c := range tokenFileCases() {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseTokenFile([]byte(c.data), testCanonical)
			if c.field == "" {
				if err != nil {
					t.Fatalf("ParseTokenFile = %v, want nil", err)
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("entries (-want +got):\n%s", diff)
				}
				return
			}
			var fe *FieldError
			if !errors.Is(err, ErrMalformedTokenFile) || !errors.As(err, &fe) || got != nil {
				t.Fatalf("ParseTokenFile = %v, %v; want nil, ErrMalformedTokenFile", got, err)
			}
			if diff := cmp.Diff(FieldError{Err: ErrMalformedTokenFile, Entry: c.entry, Field: c.field}, *fe,
				cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("FieldError (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTokenFileFeedsAdd: what ParseTokenFile returns, Add takes, and the
// token then authenticates.
func TestTokenFileFeedsAdd(t *testing.T) {
	entries, err := ParseTokenFile([]byte("["+entryJSON()+"]"), testCanonical)
	if err != nil {
		t.Fatal(err)
	}
	p := newTestPolicy(t)
	for _, e := range entries {
		if err := p.Add(e.Token, e.Record); err != nil {
			t.Fatal(err)
		}
	}
	pr, denial := p.AuthenticateRemembered(nil, []byte("Bearer "+tokAlice), true, "ping", t0)
	if diff := cmp.Diff(alicePrincipal, pr); diff != "" || denial != nil {
		t.Errorf("A-P04/Authenticate = %+v (-want +got):\n%s", denial, diff)
	}
}
