package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// authorizeCases: layer 3 of Figure 2, reached with a valid token.
func authorizeCases() []authCase {
	scopes := func(s ...string) []fixture {
		return []fixture{{tokAlice, func(r *TokenRecord) { r.Scopes = s }}}
	}
	holding := func(s ...string) Principal {
		return withPrincipal(func(pr *Principal) { pr.Scopes = scopeSetOf(s) })
	}
	tenant := func(name string) []fixture {
		return []fixture{{tokAlice, func(r *TokenRecord) { r.Tenant = name }}}
	}
	inTenant := func(name string) Principal {
		return withPrincipal(func(pr *Principal) { pr.Tenant = name })
	}
	insufficient := func(challenge string) *Denial {
		return &Denial{Status: 403, Challenge: challenge, Reason: ReasonInsufficientScope, Detail: DetailScope}
	}
	forbidden := &Denial{Status: 403, Challenge: "", Reason: ReasonTenantForbidden, Detail: DetailTenant}
	header := "Bearer " + tokAlice
	return []authCase{
		{name: "A-14/resources/list holding both scopes: allowed", header: header, op: "resources/list", authorize: true, want: alicePrincipal},
		{name: "A-14/resources/list without resources:read: 403 naming both scopes", header: header, op: "resources/list", authorize: true,
			tokens: scopes(ScopeConnect), want: holding(ScopeConnect), denial: insufficient(insufficientList)},
		{name: "A-15/resources/list holding nothing: 403 naming both scopes", header: header, op: "resources/list", authorize: true,
			tokens: scopes(), want: holding(), denial: insufficient(insufficientList)},
		{name: "A-15/resources/list holding resources:read only: 403 naming both scopes", header: header, op: "resources/list", authorize: true,
			tokens: scopes(ScopeResourcesRead), want: holding(ScopeResourcesRead), denial: insufficient(insufficientList)},
		{name: "A-15/ping without mcp:connect: 403 naming mcp:connect", header: header, op: "ping", authorize: true,
			tokens: scopes(ScopeResourcesRead), want: holding(ScopeResourcesRead), denial: insufficient(insufficientConnect)},
		{name: "A-15/GET without mcp:connect: 403 naming mcp:connect", header: header, op: "GET", authorize: true,
			tokens: scopes(), want: holding(), denial: insufficient(insufficientConnect)},
		{name: "A-15/DELETE without mcp:connect: 403 naming mcp:connect", header: header, op: "DELETE", authorize: true,
			tokens: scopes(), want: holding(), denial: insufficient(insufficientConnect)},
		{name: "A-15/initialize needs mcp:connect only", header: header, op: "initialize", authorize: true,
			tokens: scopes(ScopeConnect), want: holding(ScopeConnect)},
		{name: "A-15/notifications/initialized needs mcp:connect only", header: header, op: "notifications/initialized", authorize: true,
			tokens: scopes(ScopeConnect), want: holding(ScopeConnect)},
		{name: "A-15/an unknown method needs mcp:connect only", header: header, op: "tools/call", authorize: true,
			tokens: scopes(ScopeConnect), want: holding(ScopeConnect)},
		{name: "A-15/scopes compare case-sensitively", header: header, op: "ping", authorize: true,
			tokens: scopes("MCP:CONNECT"), want: holding("MCP:CONNECT"), denial: insufficient(insufficientConnect)},
		{name: "A-15/extra scopes do no harm", header: header, op: "ping", authorize: true,
			tokens: scopes("admin", ScopeConnect), want: holding("admin", ScopeConnect)},

		{name: "A-16/tenant not allowed: 403 without a challenge", header: header, op: "ping", authorize: true,
			tokens: tenant("tenant-b"), want: inTenant("tenant-b"), denial: forbidden},
		{name: "A-16/tenant refused before scope: no useless step-up", header: header, op: "resources/list", authorize: true,
			tokens: []fixture{{tokAlice, func(r *TokenRecord) { r.Tenant, r.Scopes = "tenant-b", nil }}},
			want:   withPrincipal(func(pr *Principal) { pr.Tenant, pr.Scopes = "tenant-b", 0 }), denial: forbidden},
		{name: "A-16/tenant compares case-sensitively", header: header, op: "ping", authorize: true,
			tokens: tenant("Tenant-A"), want: inTenant("Tenant-A"), denial: forbidden},
	}
}

func TestAuthorize(t *testing.T) {
	runAuthTable(t, authorizeCases())
}

// unicodeCases: subjects and tenants are compared as exact UTF-8, with no
// normalization.
func unicodeCases() []authCase {
	const tokUni = "tok-uni-Xq81Lm0Zr4"
	unicode := func(subject, tenant string) []fixture {
		return []fixture{{tokUni, func(r *TokenRecord) { r.Subject, r.Tenant = subject, tenant }}}
	}
	principal := func(subject, tenant string) Principal {
		return withPrincipal(func(pr *Principal) { pr.Subject, pr.Tenant, pr.Correlation = subject, tenant, "fcc6e005" })
	}
	return []authCase{
		{name: "A-16/Unicode subject and tenant: accepted", header: "Bearer " + tokUni, op: "resources/list", authorize: true,
			tokens: unicode("José 李 👩‍💻", "租户-α"), want: principal("José 李 👩‍💻", "租户-α")},
		{name: "A-16/tenant in NFC (café): accepted", header: "Bearer " + tokUni, authorize: true,
			tokens: unicode("zoë", "caf\u00e9"), want: principal("zoë", "caf\u00e9")},
		{name: "A-16/the same tenant in NFD: forbidden, no normalization", header: "Bearer " + tokUni, authorize: true,
			tokens: unicode("zoë", "cafe\u0301"), want: principal("zoë", "cafe\u0301"),
			denial: &Denial{Status: 403, Reason: ReasonTenantForbidden, Detail: DetailTenant}},
		{name: "A-11/a Unicode subject's revision change: 401", header: "Bearer " + tokUni,
			tokens: unicode("José 李", "租户-α"), setup: func(p *Policy) { p.SetRevision("José 李", 8) },
			denial: heldBy(DetailRevision, Principal{Subject: "José 李", Tenant: "租户-α", Revision: 7, Correlation: Correlate([]byte(tokUni))})},
		{name: "A-11/the NFD spelling of the subject is another subject", header: "Bearer " + tokUni,
			tokens: unicode("Jos\u00e9", "租户-α"), setup: func(p *Policy) { p.SetRevision("Jose\u0301", 8) }, want: principal("Jos\u00e9", "租户-α")},
	}
}

func TestUnicodeIdentities(t *testing.T) {
	runAuthTable(t, unicodeCases())
}

func TestRequiredScopes(t *testing.T) {
	both := []string{ScopeConnect, ScopeResourcesRead}
	connect := []string{ScopeConnect}
	for _, c := range []struct {
		op   string
		want []string
	}{
		{"initialize", connect},
		{"notifications/initialized", connect},
		{"ping", connect},
		{"resources/list", both},
		{"GET", connect},
		{"DELETE", connect},
		{"tools/call", connect},
		{"", connect},
		{"Resources/List", connect}, // methods are case-sensitive (JSON-RPC 2.0 §4)
	} {
		if diff := cmp.Diff(c.want, requiredScopes(c.op)); diff != "" {
			t.Errorf("A-15/requiredScopes(%q) (-want +got):\n%s", c.op, diff)
		}
	}
}
