package policy

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewRefusesConfig(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(*Config)
		field string // "" = accepted
	}{
		{"A-28/the test config is accepted", func(*Config) {}, ""},
		{"A-28/port 1 is accepted", func(c *Config) { c.CanonicalURI = "http://127.0.0.1:1/mcp" }, ""},
		{"A-28/port 65535 (the limit) is accepted", func(c *Config) { c.CanonicalURI = "http://127.0.0.1:65535/mcp" }, ""},
		{"A-28/port 65536 (one past the limit)", func(c *Config) { c.CanonicalURI = "http://127.0.0.1:65536/mcp" }, fieldCanonicalURI},
		{"A-28/port 0", func(c *Config) { c.CanonicalURI = "http://127.0.0.1:0/mcp" }, fieldCanonicalURI},
		{"A-28/port with a leading zero", func(c *Config) { c.CanonicalURI = "http://127.0.0.1:08080/mcp" }, fieldCanonicalURI},
		{"A-28/port with a sign", func(c *Config) { c.CanonicalURI = "http://127.0.0.1:+8080/mcp" }, fieldCanonicalURI},
		{"A-28/no port: the default is accepted", func(c *Config) { c.CanonicalURI = "http://127.0.0.1/mcp" }, ""},
		{"A-28/the default port spelled out", func(c *Config) { c.CanonicalURI = "http://127.0.0.1:80/mcp" }, fieldCanonicalURI},
		{"A-28/empty", func(c *Config) { c.CanonicalURI = "" }, fieldCanonicalURI},
		{"A-28/https, the public URL behind a TLS proxy, is accepted", func(c *Config) { c.CanonicalURI = "https://mcp.example.test:8443/mcp" }, ""},
		{"A-28/uppercase scheme", func(c *Config) { c.CanonicalURI = "HTTP://127.0.0.1:49152/mcp" }, fieldCanonicalURI},
		{"A-28/uppercase host", func(c *Config) { c.CanonicalURI = "http://LOCALHOST:49152/mcp" }, fieldCanonicalURI},
		{"A-28/trailing slash", func(c *Config) { c.CanonicalURI = testCanonical + "/" }, fieldCanonicalURI},
		{"A-28/query", func(c *Config) { c.CanonicalURI = testCanonical + "?a=b" }, fieldCanonicalURI},
		{"A-28/fragment", func(c *Config) { c.CanonicalURI = testCanonical + "#f" }, fieldCanonicalURI},
		{"A-28/another path is accepted: it is where the endpoint is served", func(c *Config) { c.CanonicalURI = "http://127.0.0.1:49152/api/mcp" }, ""},

		{"A-02/https issuer is accepted", func(c *Config) { c.Issuer = "https://as.example" }, ""},
		{"A-02/empty issuer", func(c *Config) { c.Issuer = "" }, fieldConfigIssuer},
		{"A-02/issuer without a scheme", func(c *Config) { c.Issuer = "as.example" }, fieldConfigIssuer},
		{"A-02/issuer with only a scheme", func(c *Config) { c.Issuer = "https://" }, fieldConfigIssuer},
		{"A-02/issuer with a query", func(c *Config) { c.Issuer = "https://as.example/?x" }, fieldConfigIssuer},
		{"A-02/issuer with a fragment", func(c *Config) { c.Issuer = "https://as.example/#x" }, fieldConfigIssuer},
		{"A-02/issuer with 0x20 (space), one below the range", func(c *Config) { c.Issuer = "https://as.example/a b" }, fieldConfigIssuer},
		{"A-02/issuer with 0x21 (!), the range's first byte, is accepted", func(c *Config) { c.Issuer = "https://as.example/a!b" }, ""},
		{"A-02/issuer with 0x7E (~), the range's last byte, is accepted", func(c *Config) { c.Issuer = "https://as.example/~a" }, ""},
		{"A-02/issuer with 0x7F (DEL), one past the range", func(c *Config) { c.Issuer = "https://as.example/a\x7fb" }, fieldConfigIssuer},
		{"A-02/issuer with a double quote", func(c *Config) { c.Issuer = `https://as.example/"` }, fieldConfigIssuer},

		{"T-P15/no allowed host", func(c *Config) { c.AllowedHosts = nil }, fieldAllowedHosts},
		{"T-P15/an allowed host without a port (the scheme's default) is accepted", func(c *Config) { c.AllowedHosts = []string{"mcp.example.test"} }, ""},
		{"T-P15/an allowed host with an empty port", func(c *Config) { c.AllowedHosts = []string{"mcp.example.test:"} }, fieldAllowedHosts},
		{"T-P15/an IPv6 allowed host without a port is accepted", func(c *Config) { c.AllowedHosts = []string{"[::1]"} }, ""},
		{"T-P15/an allowed host in uppercase", func(c *Config) { c.AllowedHosts = []string{"LOCALHOST:49152"} }, fieldAllowedHosts},
		{"T-P15/an empty allowed host", func(c *Config) { c.AllowedHosts = []string{""} }, fieldAllowedHosts},
		{"T-P15/an allowed host with a path", func(c *Config) { c.AllowedHosts = []string{"127.0.0.1:49152/"} }, fieldAllowedHosts},
		{"T-P15/an IPv6 allowed host is accepted", func(c *Config) { c.AllowedHosts = []string{"[::1]:49152"} }, ""},
		{"T-P15/an allowed host with z and 9, the last letter and digit, is accepted", func(c *Config) { c.AllowedHosts = []string{"z9.example:80"} }, ""},
		{"T-P15/an allowed host with 0x60 (`), one below a", func(c *Config) { c.AllowedHosts = []string{"a`b:80"} }, fieldAllowedHosts},
		{"T-P15/an allowed host with 0x7B ({), one past z", func(c *Config) { c.AllowedHosts = []string{"a{b:80"} }, fieldAllowedHosts},
		{"T-P15/an allowed host with 0x2F (/), one below 0", func(c *Config) { c.AllowedHosts = []string{"a/b:80"} }, fieldAllowedHosts},
		{"T-P15/an allowed host with 0x3B (;), one past the colon", func(c *Config) { c.AllowedHosts = []string{"a;b:80"} }, fieldAllowedHosts},
		{"T-P15/an allowed host that is only a port", func(c *Config) { c.AllowedHosts = []string{":49152"} }, fieldAllowedHosts},

		{"T-P16/no allowed origin is accepted", func(c *Config) { c.AllowedOrigins = nil }, ""},
		{"T-P16/allowed origin null", func(c *Config) { c.AllowedOrigins = []string{"null"} }, fieldAllowedOrigins},
		{"T-P16/allowed origin with a trailing slash", func(c *Config) { c.AllowedOrigins = []string{"http://127.0.0.1:49152/"} }, fieldAllowedOrigins},
		{"T-P16/allowed origin in uppercase", func(c *Config) { c.AllowedOrigins = []string{"http://LOCALHOST:49152"} }, fieldAllowedOrigins},
		{"T-P16/allowed origin with an uppercase scheme", func(c *Config) { c.AllowedOrigins = []string{"HTTP://127.0.0.1:49152"} }, fieldAllowedOrigins},
		{"T-P16/allowed origin without a scheme", func(c *Config) { c.AllowedOrigins = []string{"127.0.0.1:49152"} }, fieldAllowedOrigins},
		{"T-P16/allowed origin with only a scheme", func(c *Config) { c.AllowedOrigins = []string{"http://"} }, fieldAllowedOrigins},

		{"A-16/no allowed tenant is accepted", func(c *Config) { c.AllowedTenants = nil }, ""},
		{"A-16/an empty tenant", func(c *Config) { c.AllowedTenants = []string{""} }, fieldAllowedTenants},
		{"A-16/a tenant that is not UTF-8", func(c *Config) { c.AllowedTenants = []string{"t\xff"} }, fieldAllowedTenants},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig()
			c.edit(&cfg)
			p, err := New(cfg)
			if c.field == "" {
				if err != nil || p == nil {
					t.Fatalf("New = %v, %v; want a policy", p, err)
				}
				return
			}
			var fe *FieldError
			if !errors.Is(err, ErrInvalidConfig) || !errors.As(err, &fe) || p != nil {
				t.Fatalf("New = %v, %v; want nil, ErrInvalidConfig", p, err)
			}
			if fe.Field != c.field {
				t.Errorf("FieldError.Field = %q, want %q", fe.Field, c.field)
			}
		})
	}
}

func TestHostAllowed(t *testing.T) {
	p := newTestPolicy(t)
	loopbackOnly := testConfig()
	loopbackOnly.AllowedHosts = []string{"127.0.0.1:49152"}
	q, err := New(loopbackOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		policy *Policy
		host   string
		want   bool
	}{
		{"T-P15/127.0.0.1 with our port", p, "127.0.0.1:49152", true},
		{"T-P15/localhost with our port, configured", p, "localhost:49152", true},
		{"T-P15/localhost with our port, not configured", q, "localhost:49152", false},
		{"T-P15/127.0.0.1 without a port", p, "127.0.0.1", false},
		{"T-P15/127.0.0.1 with another port", p, "127.0.0.1:49153", false},
		{"T-P15/127.0.0.1 with a leading-zero port", p, "127.0.0.1:049152", false},
		{"T-P15/uppercase LOCALHOST", p, "LOCALHOST:49152", false},
		{"T-P15/a rebound DNS name", p, "evil.example:49152", false},
		{"T-P15/trailing dot", p, "localhost.:49152", false},
		{"T-P15/trailing space", p, "127.0.0.1:49152 ", false},
		{"T-P15/trailing slash", p, "127.0.0.1:49152/", false},
		{"T-P15/userinfo", p, "a@127.0.0.1:49152", false},
		{"T-P15/empty", p, "", false},
		{"T-P15/[::1] when not configured", p, "[::1]:49152", false},
	} {
		if got := c.policy.HostAllowed([]byte(c.host)); got != c.want {
			t.Errorf("%s: HostAllowed(%q) = %v, want %v", c.name, c.host, got, c.want)
		}
	}
}

func TestOriginAllowed(t *testing.T) {
	p := newTestPolicy(t)
	noOrigins := testConfig()
	noOrigins.AllowedOrigins = nil
	q, err := New(noOrigins)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		policy *Policy
		origin string
		want   bool
	}{
		{"T-P16/our origin", p, "http://127.0.0.1:49152", true},
		{"T-P16/localhost origin, configured", p, "http://localhost:49152", true},
		{"T-P16/our origin when none is configured", q, "http://127.0.0.1:49152", false},
		{"T-P16/null", p, "null", false},
		{"T-P16/trailing slash", p, "http://127.0.0.1:49152/", false},
		{"T-P16/uppercase scheme", p, "HTTP://127.0.0.1:49152", false},
		{"T-P16/uppercase host", p, "http://LOCALHOST:49152", false},
		{"T-P16/https instead of http", p, "https://127.0.0.1:49152", false},
		{"T-P16/no port", p, "http://127.0.0.1", false},
		{"T-P16/another port", p, "http://127.0.0.1:49153", false},
		{"T-P16/another site", p, "https://evil.example", false},
		{"T-P16/our origin as a subdomain prefix", p, "http://127.0.0.1:49152.evil.example", false},
		{"T-P16/with a path", p, "http://127.0.0.1:49152/mcp", false},
		{"T-P16/empty value", p, "", false},
	} {
		if got := c.policy.OriginAllowed([]byte(c.origin)); got != c.want {
			t.Errorf("%s: OriginAllowed(%q) = %v, want %v", c.name, c.origin, got, c.want)
		}
	}
}

func TestMetadata(t *testing.T) {
	p := newTestPolicy(t)
	const want = `{"resource":"http://127.0.0.1:49152/mcp",` +
		`"authorization_servers":["http://127.0.0.1:9/as"],` +
		`"scopes_supported":["mcp:connect","resources:read"],` +
		`"bearer_methods_supported":["header"],` +
		`"resource_name":"rawmcp"}`
	got := p.Metadata()
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("A-01/A-25/Metadata (-want +got):\n%s", diff)
	}
	if !json.Valid(got) {
		t.Error("A-23/Metadata is not valid JSON")
	}
	var doc map[string]any
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["resource"] != testCanonical {
		t.Errorf("A-23/resource = %v, want %q", doc["resource"], testCanonical)
	}
	got[0] = 'X' // the caller's copy
	if string(p.Metadata()) != want {
		t.Error("A-23/changing a returned document changed the next one")
	}
}

func TestMetadataKeepsIssuerBytes(t *testing.T) {
	cfg := testConfig()
	cfg.Issuer = "https://as.example/a&b<c>"
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"resource":"http://127.0.0.1:49152/mcp","authorization_servers":["https://as.example/a&b<c>"],` +
		`"scopes_supported":["mcp:connect","resources:read"],"bearer_methods_supported":["header"],"resource_name":"rawmcp"}`
	if diff := cmp.Diff(want, string(p.Metadata())); diff != "" {
		t.Errorf("A-02/Metadata, no HTML escaping (-want +got):\n%s", diff)
	}
}

func TestMetadataURL(t *testing.T) {
	for _, c := range []struct{ canonical, want string }{
		{testCanonical, testMetadataURL},
		{"http://127.0.0.1:1/mcp", "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"},
		{"https://mcp.example.test:8443/mcp", "https://mcp.example.test:8443/.well-known/oauth-protected-resource/mcp"},
		{"https://mcp.example.test/api/mcp", "https://mcp.example.test/.well-known/oauth-protected-resource/api/mcp"},
	} {
		cfg := testConfig()
		cfg.CanonicalURI = c.canonical
		p, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.MetadataURL(); got != c.want {
			t.Errorf("A-22/MetadataURL for %q = %q, want %q", c.canonical, got, c.want)
		}
	}
	if got, want := WellKnownPath, "/.well-known/oauth-protected-resource"; got != want {
		t.Errorf("A-22/WellKnownPath = %q, want %q", got, want)
	}
}
