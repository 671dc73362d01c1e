package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseResourceURL(t *testing.T) {
	for _, c := range []struct {
		name string
		in   string
		want ResourceURL
		part string // "" = accepted
	}{
		{"A-28/loopback", "http://127.0.0.1:49152/mcp",
			ResourceURL{"http://127.0.0.1:49152/mcp", "http://127.0.0.1:49152", "127.0.0.1:49152", "/mcp"}, ""},
		{"A-28/a public https URL with a port", "https://mcp.example.test:8443/mcp",
			ResourceURL{"https://mcp.example.test:8443/mcp", "https://mcp.example.test:8443", "mcp.example.test:8443", "/mcp"}, ""},
		{"A-28/the default port left out: Host carries none", "https://mcp.example.test/mcp",
			ResourceURL{"https://mcp.example.test/mcp", "https://mcp.example.test", "mcp.example.test", "/mcp"}, ""},
		{"A-28/a deeper path", "https://mcp.example.test/api/v1/mcp",
			ResourceURL{"https://mcp.example.test/api/v1/mcp", "https://mcp.example.test", "mcp.example.test", "/api/v1/mcp"}, ""},
		{"A-28/an IPv6 literal", "http://[::1]:8080/mcp",
			ResourceURL{"http://[::1]:8080/mcp", "http://[::1]:8080", "[::1]:8080", "/mcp"}, ""},
		{"A-28/an IPv6 literal without a port", "https://[::1]/mcp",
			ResourceURL{"https://[::1]/mcp", "https://[::1]", "[::1]", "/mcp"}, ""},
		{"A-28/every unreserved byte in a segment", "https://h/aZ09-._~",
			ResourceURL{"https://h/aZ09-._~", "https://h", "h", "/aZ09-._~"}, ""},
		{"A-28/port 65535, the limit", "https://h:65535/mcp",
			ResourceURL{"https://h:65535/mcp", "https://h:65535", "h:65535", "/mcp"}, ""},

		{"A-28/empty", "", ResourceURL{}, PartScheme},
		{"A-28/not absolute: a path", "/mcp", ResourceURL{}, PartScheme},
		{"A-28/not absolute: no scheme", "mcp.example.test/mcp", ResourceURL{}, PartScheme},
		{"A-28/another scheme", "ftp://mcp.example.test/mcp", ResourceURL{}, PartScheme},
		{"A-28/an uppercase scheme", "HTTPS://mcp.example.test/mcp", ResourceURL{}, PartScheme},
		{"A-28/userinfo", "https://user@mcp.example.test/mcp", ResourceURL{}, PartUserinfo},
		{"A-28/userinfo with a password", "https://u:p@mcp.example.test/mcp", ResourceURL{}, PartUserinfo},
		{"A-28/an empty host", "https:///mcp", ResourceURL{}, PartHost},
		{"A-28/an empty host with a port", "https://:8443/mcp", ResourceURL{}, PartHost},
		{"A-28/an uppercase host", "https://MCP.example.test/mcp", ResourceURL{}, PartHost},
		{"A-28/a host with an underscore", "https://mcp_1.example.test/mcp", ResourceURL{}, PartHost},
		{"A-28/an IPv6 zone", "http://[fe80::1%25eth0]/mcp", ResourceURL{}, PartHost},
		{"A-28/an unclosed IPv6 literal", "http://[::1/mcp", ResourceURL{}, PartHost},
		{"A-28/an empty port", "https://h:/mcp", ResourceURL{}, PartPort},
		{"A-28/port 0", "https://h:0/mcp", ResourceURL{}, PartPort},
		{"A-28/port 65536, one past the limit", "https://h:65536/mcp", ResourceURL{}, PartPort},
		{"A-28/a port with a leading zero", "https://h:08443/mcp", ResourceURL{}, PartPort},
		{"A-28/https's default port spelled out", "https://h:443/mcp", ResourceURL{}, PartPort},
		{"A-28/http's default port spelled out", "http://h:80/mcp", ResourceURL{}, PartPort},
		{"A-28/a query", "https://h/mcp?x=1", ResourceURL{}, PartQuery},
		{"A-28/an empty query", "https://h/mcp?", ResourceURL{}, PartQuery},
		{"A-28/a query without a path", "https://h?x", ResourceURL{}, PartQuery},
		{"A-28/a fragment", "https://h/mcp#f", ResourceURL{}, PartFragment},
		{"A-28/a query and a fragment: the fragment is named", "https://h/mcp?x#f", ResourceURL{}, PartFragment},
		{"A-28/no path", "https://mcp.example.test", ResourceURL{}, PartPath},
		{"A-28/the root path", "https://mcp.example.test/", ResourceURL{}, PartPath},
		{"A-28/a trailing slash", "https://h/mcp/", ResourceURL{}, PartPath},
		{"A-28/a doubled slash", "https://h//mcp", ResourceURL{}, PartPath},
		{"A-28/a dot segment", "https://h/./mcp", ResourceURL{}, PartPath},
		{"A-28/a dot-dot segment", "https://h/a/../mcp", ResourceURL{}, PartPath},
		{"A-28/a percent escape", "https://h/m%63p", ResourceURL{}, PartPath},
		{"A-28/a sub-delim", "https://h/mcp;v=1", ResourceURL{}, PartPath},
		{"A-28/a space", "https://h/m cp", ResourceURL{}, PartPath},
		{"A-28/under /.well-known/, where the metadata lives", "https://h/.well-known/mcp", ResourceURL{}, PartPath},
		{"A-28//.well-known itself", "https://h/.well-known", ResourceURL{}, PartPath},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseResourceURL(c.in)
			if c.part == "" {
				if err != nil {
					t.Fatalf("ParseResourceURL(%q) = %v", c.in, err)
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				return
			}
			var fe *FieldError
			if !errors.Is(err, ErrInvalidConfig) || !errors.As(err, &fe) || got != (ResourceURL{}) {
				t.Fatalf("ParseResourceURL(%q) = %+v, %v; want the zero value, ErrInvalidConfig", c.in, got, err)
			}
			if fe.Field != c.part {
				t.Errorf("part = %q, want %q", fe.Field, c.part)
			}
			if strings.Contains(err.Error(), c.in) && c.in != "" {
				t.Errorf("the error %q echoes the URL", err)
			}
		})
	}
}

func TestResourceURLMetadata(t *testing.T) {
	r, err := ParseResourceURL("https://mcp.example.test:8443/api/mcp")
	if err != nil {
		t.Fatal(err)
	}
	got := [2]string{r.MetadataURL(), r.MetadataPath()}
	want := [2]string{"https://mcp.example.test:8443/.well-known/oauth-protected-resource/api/mcp", "/.well-known/oauth-protected-resource/api/mcp"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("A-22/RFC 9728 §3.1 inserts the well-known path before the path (-want +got):\n%s", diff)
	}
}
