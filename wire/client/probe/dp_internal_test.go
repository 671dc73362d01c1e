package probe

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/clienttest"
)

// TestSuspect: a cut within 2 s of a well-known idle timeout names it;
// one 3 s off names nothing.
func TestSuspect(t *testing.T) {
	got := map[int]string{}
	for _, s := range []int{12, 13, 15, 17, 18, 47, 48, 50, 52, 53, 58, 60, 62, 63, 98, 100, 102, 103} {
		got[s] = suspect(s)
	}
	envoy, sixty, cloudflare := " (the usual suspect: Envoy's 15 s route timeout)",
		" (the usual suspect: a 60 s idle timeout: nginx proxy_read_timeout, AWS ALB, Apache, Traefik)",
		" (the usual suspect: Cloudflare's 100 s)"
	haproxy := " (the usual suspect: HAProxy's timeout server 50s, from its documentation's example)"
	want := map[int]string{12: "", 13: envoy, 15: envoy, 17: envoy, 18: "", 47: "", 48: haproxy, 50: haproxy, 52: haproxy, 53: "",
		58: sixty, 60: sixty, 62: sixty, 63: "",
		98: cloudflare, 100: cloudflare, 102: cloudflare, 103: ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("suspect (-want +got):\n%s", diff)
	}
}

// TestVersionNumber: DP-11 finds a version in a product token, not in a
// bare product name.
func TestVersionNumber(t *testing.T) {
	for banner, want := range map[string]bool{
		"nginx/1.22.1": true, "Apache/2.4.57 (Debian)": true, "PHP/8.2": true, "Express 4.18.2": true,
		"openresty/1.21.4.1": true, "Kestrel v2": true,
		"nginx": false, "Caddy": false, "Express": false, "cloudflare": false, "": false,
	} {
		if got := versionNumber.MatchString(banner); got != want {
			t.Errorf("versionNumber(%q) = %v, want %v", banner, got, want)
		}
	}
}

// TestCacheControlForbidsStore: no-cache or no-store, as a directive.
func TestCacheControlForbidsStore(t *testing.T) {
	for _, tt := range []struct {
		values []string
		want   bool
	}{
		{[]string{"no-store"}, true},
		{[]string{"No-Cache"}, true},
		{[]string{"private, no-cache=\"Set-Cookie\""}, true},
		{[]string{"max-age=0", "no-store"}, true},
		{[]string{"max-age=0"}, false},
		{[]string{"public, max-age=60"}, false},
		{[]string{"x-no-store"}, false},
		{nil, false},
	} {
		if got := cacheControlForbidsStore(tt.values); got != tt.want {
			t.Errorf("cacheControlForbidsStore(%q) = %v, want %v", tt.values, got, tt.want)
		}
	}
}

// TestLegacyHandshake: a server at Go's default refuses a handshake
// offering only TLS 1.0 and 1.1; one configured down to TLS 1.0 takes it,
// and that is seen whether or not its certificate verifies.
func TestLegacyHandshake(t *testing.T) {
	cert := clienttest.SelfSigned(t, "mcp.example.test")
	known := x509.NewCertPool()
	known.AddCert(cert.Leaf)
	for _, tt := range []struct {
		name  string
		min   uint16
		roots *x509.CertPool
		want  string
	}{
		{"Go's default minimum, TLS 1.2", 0, known, "refused: remote error: tls: protocol version not supported"},
		{"down to TLS 1.0, a certificate that verifies", tls.VersionTLS10, known, "accepted: the server chose TLS 1.1"},
		{"down to TLS 1.1, a certificate no root knows", tls.VersionTLS11, nil, "accepted: the server chose TLS 1.0 or 1.1; its certificate did not verify either"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr := tlsServer(t, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tt.min})
			h := legacyHandshake(addr, "mcp.example.test", tt.roots, 5*time.Second)
			got := map[bool]string{true: "accepted: ", false: "refused: "}[h.accepted] + h.String()
			if got != tt.want {
				t.Errorf("legacyHandshake = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLegacyHandshakeSilent: a server that never answers is no answer,
// not a refusal.
func TestLegacyHandshakeSilent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	held := make(chan net.Conn, 1)
	go func() {
		if nc, err := ln.Accept(); err == nil {
			held <- nc
		}
	}()
	h := legacyHandshake(ln.Addr().String(), "mcp.example.test", nil, 300*time.Millisecond)
	if h.accepted || h.err != errNoAnswer || !h.handshake {
		t.Errorf("legacyHandshake = %+v; want no answer to a handshake", h)
	}
	(<-held).Close()
}

// tlsServer completes handshakes with cfg on 127.0.0.1 and closes each
// connection after it.
func tlsServer(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	return clienttest.Serve(t, cfg, func(nc net.Conn) {
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		nc.(*tls.Conn).Handshake()
	})
}

// TestTwinIsDialledAsTheEndpointIs: DP-03's cleartext twin is port 80 of
// the address the run was aimed at. A -resolve entry for port 80 wins;
// a run aimed at an address by its own port's entry dials that address,
// never the name (a lookup would leave the machine it was aimed at); a
// name given no entry is dialled by name.
func TestTwinIsDialledAsTheEndpointIs(t *testing.T) {
	entry := func(s string) Resolve {
		r, err := ParseResolve(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tt := range []struct {
		name, url string
		resolve   []Resolve
		want      string
	}{
		{"an entry for port 80", "https://mcp.example.test/mcp", []Resolve{entry("mcp.example.test:443:127.0.0.2"), entry("mcp.example.test:80:127.0.0.3")}, "127.0.0.3:80"},
		{"the endpoint's own entry only", "https://mcp.example.test/mcp", []Resolve{entry("mcp.example.test:443:127.0.0.2")}, "127.0.0.2:80"},
		{"the endpoint's entry on another port", "https://mcp.example.test:8443/mcp", []Resolve{entry("mcp.example.test:8443:[::1]")}, "[::1]:80"},
		{"an entry for another name", "https://mcp.example.test/mcp", []Resolve{entry("other.example.test:443:127.0.0.2")}, "mcp.example.test:80"},
		{"no entry", "https://mcp.example.test/mcp", nil, "mcp.example.test:80"},
		{"localhost", "https://localhost:8443/mcp", nil, "127.0.0.1:80"},
		{"an address", "https://127.0.0.4:8443/mcp", nil, "127.0.0.4:80"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			target, err := ParseTarget(tt.url, tt.resolve...)
			if err != nil {
				t.Fatal(err)
			}
			if got := twinAt(target); got != tt.want {
				t.Errorf("twin of %s dialled at %s, want %s", tt.url, got, tt.want)
			}
		})
	}
}
