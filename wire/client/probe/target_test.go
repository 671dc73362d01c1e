package probe_test

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe"
)

// sameAddr compares netip.Addr values, whose fields are unexported.
var sameAddr = cmp.Comparer(func(a, b netip.Addr) bool { return a == b })

func TestParseTarget(t *testing.T) {
	prm := "/.well-known/oauth-protected-resource"
	aim := probe.Resolve{Host: "mcp.example.test", Port: 8443, Addr: netip.MustParseAddr("127.0.0.1")}
	tests := []struct {
		name    string
		url     string
		resolve []probe.Resolve
		want    probe.Target
		err     error
	}{
		{"a loopback IP literal", "http://127.0.0.1:8080/mcp", nil, probe.Target{URL: "http://127.0.0.1:8080/mcp", Scheme: "http", Host: "127.0.0.1:8080", Hostname: "127.0.0.1", Dial: "127.0.0.1:8080", Path: "/mcp", Loopback: true, MetadataPaths: []string{prm + "/mcp", prm}}, nil},
		{"localhost is dialled as 127.0.0.1", "http://localhost:8080/mcp", nil, probe.Target{URL: "http://localhost:8080/mcp", Scheme: "http", Host: "localhost:8080", Hostname: "localhost", Dial: "127.0.0.1:8080", Path: "/mcp", Loopback: true, MetadataPaths: []string{prm + "/mcp", prm}}, nil},
		{"IPv6 loopback at the root path: one metadata path", "http://[::1]:8080/", nil, probe.Target{URL: "http://[::1]:8080/", Scheme: "http", Host: "[::1]:8080", Hostname: "::1", Dial: "[::1]:8080", Path: "/", Loopback: true, MetadataPaths: []string{prm}}, nil},
		{"no path is the root", "http://127.0.0.1:8080", nil, probe.Target{URL: "http://127.0.0.1:8080/", Scheme: "http", Host: "127.0.0.1:8080", Hostname: "127.0.0.1", Dial: "127.0.0.1:8080", Path: "/", Loopback: true, MetadataPaths: []string{prm}}, nil},
		{"https defaults to port 443", "https://mcp.example.test/mcp", nil, probe.Target{URL: "https://mcp.example.test/mcp", Scheme: "https", Host: "mcp.example.test", Hostname: "mcp.example.test", Dial: "mcp.example.test:443", Path: "/mcp", MetadataPaths: []string{prm + "/mcp", prm}}, nil},
		{"any path, kept as given", "https://mcp.example.test:8443/api/v2/mcp", nil, probe.Target{URL: "https://mcp.example.test:8443/api/v2/mcp", Scheme: "https", Host: "mcp.example.test:8443", Hostname: "mcp.example.test", Dial: "mcp.example.test:8443", Path: "/api/v2/mcp", MetadataPaths: []string{prm + "/api/v2/mcp", prm}}, nil},
		{"-resolve aims the host:port, loopback is still the URL's", "https://MCP.example.test:8443/mcp", []probe.Resolve{aim}, probe.Target{URL: "https://MCP.example.test:8443/mcp", Scheme: "https", Host: "MCP.example.test:8443", Hostname: "MCP.example.test", Dial: "127.0.0.1:8443", Path: "/mcp", MetadataPaths: []string{prm + "/mcp", prm}, Resolve: []probe.Resolve{aim}}, nil},
		{"-resolve for another port does not apply", "https://mcp.example.test:9443/mcp", []probe.Resolve{aim}, probe.Target{URL: "https://mcp.example.test:9443/mcp", Scheme: "https", Host: "mcp.example.test:9443", Hostname: "mcp.example.test", Dial: "mcp.example.test:9443", Path: "/mcp", MetadataPaths: []string{prm + "/mcp", prm}, Resolve: []probe.Resolve{aim}}, nil},
		{"a non-loopback address is not loopback", "http://10.0.0.1:8080/mcp", nil, probe.Target{URL: "http://10.0.0.1:8080/mcp", Scheme: "http", Host: "10.0.0.1:8080", Hostname: "10.0.0.1", Dial: "10.0.0.1:8080", Path: "/mcp", MetadataPaths: []string{prm + "/mcp", prm}}, nil},
		{"another scheme", "ftp://127.0.0.1/mcp", nil, probe.Target{}, probe.ErrBadURL},
		{"a query", "http://127.0.0.1:8080/mcp?x=1", nil, probe.Target{}, probe.ErrBadURL},
		{"a fragment", "https://mcp.example.test/mcp#x", nil, probe.Target{}, probe.ErrBadURL},
		{"user info", "http://u:p@127.0.0.1/mcp", nil, probe.Target{}, probe.ErrBadURL},
		{"port 0", "https://mcp.example.test:0/mcp", nil, probe.Target{}, probe.ErrBadURL},
		{"an empty port", "https://mcp.example.test:/mcp", nil, probe.Target{}, probe.ErrBadURL},
		{"no host", "https:///mcp", nil, probe.Target{}, probe.ErrBadURL},
		{"an IPv6 zone", "http://[fe80::1%25eth0]:80/mcp", nil, probe.Target{}, probe.ErrBadURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := probe.ParseTarget(tt.url, tt.resolve...)
			if !errors.Is(err, tt.err) {
				t.Fatalf("ParseTarget error %v, want %v", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got, sameAddr); diff != "" {
				t.Errorf("ParseTarget (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDialAt: another port of the target's host is dialled as the
// endpoint is: through -resolve, localhost as 127.0.0.1, else by name.
func TestDialAt(t *testing.T) {
	aim := probe.Resolve{Host: "mcp.example.test", Port: 80, Addr: netip.MustParseAddr("127.0.0.1")}
	tests := []struct {
		url  string
		port uint16
		want string
	}{
		{"https://MCP.example.test:8443/mcp", 80, "127.0.0.1:80"},
		{"https://mcp.example.test:8443/mcp", 81, "mcp.example.test:81"},
		{"https://localhost:8443/mcp", 80, "127.0.0.1:80"},
		{"https://[::1]:8443/mcp", 80, "[::1]:80"},
		{"https://[::ffff:127.0.0.1]:8443/mcp", 80, "127.0.0.1:80"},
	}
	for _, tt := range tests {
		target, err := probe.ParseTarget(tt.url, aim)
		if err != nil {
			t.Fatal(err)
		}
		if got := target.DialAt(tt.port); got != tt.want {
			t.Errorf("%s DialAt(%d) = %q, want %q", tt.url, tt.port, got, tt.want)
		}
	}
}

// TestParseResolve: curl's --resolve HOST:PORT:ADDR, one IP address.
func TestParseResolve(t *testing.T) {
	tests := []struct {
		in   string
		want probe.Resolve
		err  error
	}{
		{"mcp.example.test:443:127.0.0.1", probe.Resolve{Host: "mcp.example.test", Port: 443, Addr: netip.MustParseAddr("127.0.0.1")}, nil},
		{"MCP.Example.Test:8443:127.0.0.2", probe.Resolve{Host: "mcp.example.test", Port: 8443, Addr: netip.MustParseAddr("127.0.0.2")}, nil},
		{"mcp.example.test:1:[::1]", probe.Resolve{Host: "mcp.example.test", Port: 1, Addr: netip.MustParseAddr("::1")}, nil},
		{"mcp.example.test:65535:::1", probe.Resolve{Host: "mcp.example.test", Port: 65535, Addr: netip.MustParseAddr("::1")}, nil},
		{"mcp.example.test:443:[::ffff:127.0.0.1]", probe.Resolve{Host: "mcp.example.test", Port: 443, Addr: netip.MustParseAddr("127.0.0.1")}, nil},
		{"", probe.Resolve{}, probe.ErrBadResolve},
		{"mcp.example.test", probe.Resolve{}, probe.ErrBadResolve},
		{"mcp.example.test:443", probe.Resolve{}, probe.ErrBadResolve},
		{"mcp.example.test:443:", probe.Resolve{}, probe.ErrBadResolve},
		{":443:127.0.0.1", probe.Resolve{}, probe.ErrBadResolve},
		{"mcp.example.test::127.0.0.1", probe.Resolve{}, probe.ErrBadResolve},
		{"mcp.example.test:0:127.0.0.1", probe.Resolve{}, probe.ErrBadResolve},
		{"mcp.example.test:65536:127.0.0.1", probe.Resolve{}, probe.ErrBadResolve},
		{"mcp.example.test:+443:127.0.0.1", probe.Resolve{}, probe.ErrBadResolve},
		{"mcp.example.test:https:127.0.0.1", probe.Resolve{}, probe.ErrBadResolve},
		{"mcp.example.test:443:localhost", probe.Resolve{}, probe.ErrBadResolve},
		{"mcp.example.test:443:127.0.0.1,127.0.0.2", probe.Resolve{}, probe.ErrBadResolve},
		{"mcp.example.test:443:[::1", probe.Resolve{}, probe.ErrBadResolve},
		{"mcp.example.test:443:fe80::1%eth0", probe.Resolve{}, probe.ErrBadResolve},
		{"[::1]:443:127.0.0.1", probe.Resolve{}, probe.ErrBadResolve},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := probe.ParseResolve(tt.in)
			if !errors.Is(err, tt.err) || got != tt.want {
				t.Errorf("ParseResolve(%q) = %+v, %v; want %+v, %v", tt.in, got, err, tt.want, tt.err)
			}
		})
	}
}

// FuzzParseResolve: an accepted -resolve renders back to itself (host
// lower case, the address canonical), a host without colon or bracket,
// a port above 0.
func FuzzParseResolve(f *testing.F) {
	for _, seed := range []string{"mcp.example.test:443:127.0.0.1", "h:8443:[::1]", "h:0:127.0.0.1", "h:443:", "::::"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := probe.ParseResolve(s)
		if err != nil {
			if !errors.Is(err, probe.ErrBadResolve) {
				t.Fatalf("error %v is not ErrBadResolve", err)
			}
			return
		}
		if r.Host == "" || strings.ContainsAny(r.Host, ":[]") || r.Host != strings.ToLower(r.Host) || r.Port == 0 || !r.Addr.IsValid() {
			t.Fatalf("%q accepted as %+v", s, r)
		}
		again, err := probe.ParseResolve(r.Host + ":" + strconv.Itoa(int(r.Port)) + ":[" + r.Addr.String() + "]")
		if err != nil || again != r {
			t.Fatalf("%+v renders to %+v, %v", r, again, err)
		}
	})
}

// FuzzParseTarget: an accepted URL is http or https with a path, no
// query or fragment, and its normalised URL parses to the same target;
// the metadata paths end with the root one.
func FuzzParseTarget(f *testing.F) {
	for _, seed := range []string{"http://127.0.0.1:8080/mcp", "https://mcp.example.test/a/b", "https://[::1]:1/", "http://x:0/", "https://h/%2e%2e/mcp", "http://u@h/"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := probe.ParseTarget(s)
		if err != nil {
			if !errors.Is(err, probe.ErrBadURL) {
				t.Fatalf("error %v is not ErrBadURL", err)
			}
			return
		}
		if tg.Scheme != "http" && tg.Scheme != "https" || !strings.HasPrefix(tg.Path, "/") || strings.ContainsAny(tg.URL, "?#") ||
			tg.MetadataPaths[len(tg.MetadataPaths)-1] != "/.well-known/oauth-protected-resource" {
			t.Fatalf("%q accepted as %+v", s, tg)
		}
		again, err := probe.ParseTarget(tg.URL)
		if err != nil {
			t.Fatalf("%q normalised to %q, which is refused: %v", s, tg.URL, err)
		}
		if diff := cmp.Diff(tg, again, sameAddr); diff != "" {
			t.Fatalf("%q and its normalised URL differ (-first +again):\n%s", s, diff)
		}
	})
}
