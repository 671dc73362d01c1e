package probe_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/clienttest"
	"rawmcp/wire/client/probe"
)

// publicName is the deployment's name in these tests; -resolve aims it
// at 127.0.0.1, so nothing is ever looked up.
const publicName = "mcp.example.test"

// startTLSFront terminates TLS with cert on 127.0.0.1 and relays each
// request to the rawmcp server at upstream, as a reverse proxy does. It
// is the flaw proxy without a flaw: plain requests are parsed and
// forwarded, the framing checks' malformed bytes piped through.
//
// rawmcp allows only its own authority (127.0.0.1:PORT) as Host and
// names http://127.0.0.1:PORT/mcp as its resource, so the front rewrites
// the public origin and Host to the upstream's in requests and the
// upstream's URL and authority back in answers (fixing Content-Length
// where a body changed), as the flaw proxy does with its own address.
// Only the https origin is rewritten, so an Origin with the wrong scheme
// still reaches rawmcp as a foreign one. Once rawmcp serve learns a
// public URL the front can relay bytes unchanged.
func startTLSFront(t *testing.T, upstream string, cert tls.Certificate, cfg *tls.Config) (port string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if cfg == nil {
		cfg = &tls.Config{}
	}
	cfg.Certificates = []tls.Certificate{cert}
	_, port, _ = net.SplitHostPort(l.Addr().String())
	public := publicName + ":" + port
	p := &flawProxy{ln: tls.NewListener(l, cfg), upstream: upstream, deleted: map[string]bool{},
		toServer: [][2]string{{"https://" + public, "http://" + upstream}, {"Host: " + public + "\r\n", "Host: " + upstream + "\r\n"}},
		toCaller: [][2]string{{"http://" + upstream, "https://" + public}, {upstream, public}}}
	p.start(t)
	return port
}

// aimed is the target https://mcp.example.test:PORT/mcp with -resolve
// aiming it at 127.0.0.1:PORT.
func aimed(t *testing.T, host, port string) probe.Target {
	t.Helper()
	r, err := probe.ParseResolve(host + ":" + port + ":127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	target, err := probe.ParseTarget("https://"+host+":"+port+"/mcp", r)
	if err != nil {
		t.Fatal(err)
	}
	return target
}

// TestProbeOverTLS: through a TLS front, with -resolve and the test CA,
// a strict run passes every check it passes over plain HTTP, and the
// report starts with what it reached.
func TestProbeOverTLS(t *testing.T) {
	pki := clienttest.NewCA(t, "rawmcp test CA")
	cert := pki.Leaf(t, publicName, time.Now().Add(24*time.Hour))
	srv := startRawmcp(t)
	port := startTLSFront(t, srv.Addr, cert, nil)
	opts := fullOptions()
	opts.RootCAs = pki.Roots
	rep, err := probe.Run(context.Background(), aimed(t, publicName, port), opts)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, reasons(rep))
	}
	// Over TLS, DP-02 has a handshake to judge; DP-03 fails: this front
	// sends no Strict-Transport-Security (TestTLSFlawsFailTheirCheck's
	// does).
	overTLS := rawmcpVerdicts()
	overTLS["DP-02"], overTLS["DP-03"] = probe.Pass, probe.Fail
	if diff := cmp.Diff(overTLS, verdicts(rep)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s\n%s", diff, reasons(rep))
	}
	if live := srv.Sessions.Len(time.Now()); live != 0 {
		t.Errorf("%d sessions left after the run: every session must be deleted", live)
	}
	// The challenge's resource_metadata is on the https origin: fetched
	// from there, not found by falling back to the well-known path.
	for _, res := range rep.Results {
		if res.Check.ID == "AU-02" && !strings.HasPrefix(res.Reason, "found at the challenge's resource_metadata:") {
			t.Errorf("AU-02: %s", res.Reason)
		}
	}

	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Reached map[string]string `json:"reached"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	suite := doc.Reached["cipher_suite"]
	if !slices.ContainsFunc(tls.CipherSuites(), func(s *tls.CipherSuite) bool { return s.Name == suite }) {
		t.Errorf("cipher_suite %q is not a secure suite's name", suite)
	}
	delete(doc.Reached, "cipher_suite")
	want := map[string]string{
		"url":                 "https://" + publicName + ":" + port + "/mcp",
		"address":             "127.0.0.1:" + port,
		"tls_version":         "TLS 1.3",
		"certificate_subject": "CN=" + publicName,
		"certificate_issuer":  "CN=rawmcp test CA",
		"certificate_expiry":  cert.Leaf.NotAfter.UTC().Format(time.RFC3339),
	}
	if diff := cmp.Diff(want, doc.Reached); diff != "" {
		t.Errorf("reached (-want +got):\n%s", diff)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	head := "reached https://" + publicName + ":" + port + "/mcp at 127.0.0.1:" + port + "\n  TLS 1.3, " + suite +
		"\n  certificate CN=" + publicName + ", issued by CN=rawmcp test CA, expires " + want["certificate_expiry"] +
		"\n  Server: none; Via: none\n\n"
	if !strings.HasPrefix(text.String(), head) {
		t.Errorf("the text report starts\n%s\nwant\n%s", text.String()[:min(len(text.String()), len(head)+40)], head)
	}
	var page bytes.Buffer
	if err := rep.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{
		"<tr><td>reached</td><td><code>127.0.0.1:" + port + "</code>, TLS 1.3, <code>" + suite + "</code></td></tr>",
		"<tr><td>certificate</td><td><code>CN=" + publicName + "</code>, issued by <code>CN=rawmcp test CA</code>, expires " + want["certificate_expiry"] + "</td></tr>",
		"<tr><td>hop announced</td><td>Server: <code>none</code>; Via: <code>none</code></td></tr>",
	} {
		if !strings.Contains(page.String(), row) {
			t.Errorf("the page lacks %s", row)
		}
	}
}

// TestReachedOverHTTP: over http the block names the address and the
// hop's Server and Via.
func TestReachedOverHTTP(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"result":{}}`
	addr := fakeServer(t, "HTTP/1.1 200 OK\r\nServer: edge/1.0\r\nVia: 1.1 lb\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
	target, _ := probe.ParseTarget("http://" + addr + "/mcp")
	rep, _ := probe.Run(context.Background(), target, probe.Options{})
	want := &probe.Reached{URL: "http://" + addr + "/mcp", Address: addr, Server: "edge/1.0", Via: "1.1 lb"}
	if diff := cmp.Diff(want, rep.Reached); diff != "" {
		t.Errorf("reached (-want +got):\n%s", diff)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	head := "reached http://" + addr + "/mcp at " + addr + "\n  cleartext http, no TLS\n  Server: edge/1.0; Via: 1.1 lb\n\n"
	if !strings.HasPrefix(text.String(), head) {
		t.Errorf("text report starts\n%s\nwant\n%s", text.String(), head)
	}
}

// TestHandshakeFailures: a handshake or verification that fails is a
// PRE-01 error naming what failed, and nothing is sent.
func TestHandshakeFailures(t *testing.T) {
	pki := clienttest.NewCA(t, "rawmcp test CA")
	other := clienttest.NewCA(t, "another CA")
	good := pki.Leaf(t, publicName, time.Now().Add(time.Hour))
	expiredAt := time.Now().Add(-time.Hour).UTC()
	srv := startRawmcp(t)
	plain := fakeServer(t, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
	_, plainPort, _ := net.SplitHostPort(plain)
	type tc struct {
		name   string
		host   string
		port   string
		roots  *x509.CertPool
		reason string
	}
	tests := []tc{}
	port := startTLSFront(t, srv.Addr, good, nil)
	tests = append(tests, tc{"unknown authority", publicName, port, other.Roots,
		`TLS with 127.0.0.1:` + port + ` for mcp.example.test failed: unknown authority: the certificate is signed by "CN=rawmcp test CA", which neither the system roots nor -cacert trust`})
	tests = append(tests, tc{"name mismatch", "other.example.test", port, pki.Roots,
		`TLS with 127.0.0.1:` + port + ` for other.example.test failed: name mismatch: the certificate is for mcp.example.test, not other.example.test`})
	expPort := startTLSFront(t, srv.Addr, pki.Leaf(t, publicName, expiredAt), nil)
	tests = append(tests, tc{"expired", publicName, expPort, pki.Roots,
		`TLS with 127.0.0.1:` + expPort + ` for mcp.example.test failed: expired: current time ` + "%NOW%" + ` is after ` + expiredAt.Format(time.RFC3339)})
	oldPort := startTLSFront(t, srv.Addr, good, &tls.Config{MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11})
	tests = append(tests, tc{"protocol version", publicName, oldPort, pki.Roots,
		`TLS with 127.0.0.1:` + oldPort + ` for mcp.example.test failed: protocol version: the server offers no TLS 1.2 or later`})
	tests = append(tests, tc{"not TLS", publicName, plainPort, pki.Roots,
		`TLS with 127.0.0.1:` + plainPort + ` for mcp.example.test failed: not TLS: the server's first bytes are not a TLS record (is the URL http://?)`})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := probe.Run(context.Background(), aimed(t, tt.host, tt.port), probe.Options{Token: alice, RootCAs: tt.roots})
			if !errors.Is(err, probe.ErrNotMCP) {
				t.Fatalf("Run error %v, want ErrNotMCP", err)
			}
			if len(rep.Results) != 1 || rep.Results[0].Check.ID != "PRE-01" || rep.Results[0].Verdict != probe.Error {
				t.Fatalf("results %+v, want one PRE-01 error", rep.Results)
			}
			res := rep.Results[0]
			wantExpected := "TLS 1.2 or later, a certificate for " + tt.host + " that the system roots or -cacert trust"
			if res.Expected != wantExpected || res.Actual != tt.name {
				t.Errorf("evidence expected %q, actual %q; want %q, %q", res.Expected, res.Actual, wantExpected, tt.name)
			}
			reason := res.Reason
			if strings.Contains(tt.reason, "%NOW%") {
				// The clock's reading is in x509's detail: match around it.
				before, after, _ := strings.Cut(tt.reason, "%NOW%")
				if !strings.HasPrefix(reason, before) || !strings.HasSuffix(reason, after) {
					t.Errorf("reason\n%s\nwant\n%s", reason, tt.reason)
				}
				return
			}
			if reason != tt.reason {
				t.Errorf("reason\n%s\nwant\n%s", reason, tt.reason)
			}
		})
	}
}

// TestHTTPSWithoutListener: nothing listening at an https target is
// PRE-01's "no connection", not a TLS failure.
func TestHTTPSWithoutListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	rep, err := probe.Run(context.Background(), aimed(t, publicName, port), probe.Options{})
	if !errors.Is(err, probe.ErrNotMCP) {
		t.Fatalf("Run error %v, want ErrNotMCP", err)
	}
	res := rep.Results[0]
	want := "no MCP endpoint at https://" + publicName + ":" + port + "/mcp: no connection to 127.0.0.1:" + port + " ("
	if !strings.HasPrefix(res.Reason, want) || res.Actual != "no connection" || res.Verdict != probe.Error {
		t.Errorf("PRE-01 %s %q (actual %q), want error %q… (actual \"no connection\")", res.Verdict, res.Reason, res.Actual, want)
	}
}

// recorder accepts connections and keeps every byte they carry.
type recorder struct {
	ln       net.Listener
	mu       sync.Mutex
	accepted int
	got      []byte
}

func startRecorder(t *testing.T) *recorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{ln: ln}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			r.mu.Lock()
			r.accepted++
			r.mu.Unlock()
			wg.Go(func() {
				defer nc.Close()
				nc.SetReadDeadline(time.Now().Add(5 * time.Second))
				buf := make([]byte, 4096)
				n, _ := nc.Read(buf)
				r.mu.Lock()
				r.got = append(r.got, buf[:n]...)
				r.mu.Unlock()
			})
		}
	})
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return r
}

// TestNoCleartextTokenToAnotherHost: a token over http to a host that is
// not loopback stops the run before it connects, even when -resolve aims
// the name at 127.0.0.1: loopback is the URL's host, never the dialled
// address. Without a token, or to a loopback host, the run goes on.
func TestNoCleartextTokenToAnotherHost(t *testing.T) {
	tests := []struct {
		name string
		host string
		opts probe.Options
		err  error
		sent bool
	}{
		{"-token to a public name", publicName, probe.Options{Token: alice}, probe.ErrCleartextToken, false},
		{"-token2 alone", publicName, probe.Options{Token2: bob}, probe.ErrCleartextToken, false},
		{"-tokens alone", publicName, probe.Options{Named: map[string]string{"expired": expired}}, probe.ErrCleartextToken, false},
		{"-token to a non-loopback address", "10.0.0.1", probe.Options{Token: alice}, probe.ErrCleartextToken, false},
		{"no token: the run goes on", publicName, probe.Options{}, probe.ErrNotMCP, true},
		{"-token to 127.0.0.1: the run goes on", "127.0.0.1", probe.Options{Token: alice}, probe.ErrNotMCP, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := startRecorder(t)
			_, port, _ := net.SplitHostPort(rec.ln.Addr().String())
			p, _ := strconv.ParseUint(port, 10, 16)
			aim := probe.Resolve{Host: tt.host, Port: uint16(p), Addr: netip.MustParseAddr("127.0.0.1")}
			target, err := probe.ParseTarget("http://"+tt.host+":"+port+"/mcp", aim)
			if err != nil {
				t.Fatal(err)
			}
			tt.opts.Timeout = time.Second
			_, err = probe.Run(context.Background(), target, tt.opts)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Run error %v, want %v", err, tt.err)
			}
			rec.ln.Close()
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if sent := rec.accepted > 0; sent != tt.sent {
				t.Errorf("connected: %v, want %v (%d bytes: %q)", sent, tt.sent, len(rec.got), rec.got)
			}
			if !tt.sent && len(rec.got) > 0 {
				t.Errorf("sent %q, want nothing", rec.got)
			}
		})
	}
}

// TestRedirectIsNotFollowed: a 3xx on the endpoint is a PRE-01 error that
// says where it points, scheme and host only, never the query.
func TestRedirectIsNotFollowed(t *testing.T) {
	tests := []struct {
		name, answer, where string
	}{
		{"to another host", "HTTP/1.1 307 Temporary Redirect\r\nLocation: https://login.example.test:8443/mcp?next=x7f3\r\nContent-Length: 0\r\n\r\n", "307, a redirect to https://login.example.test:8443"},
		{"a relative Location is on the target", "HTTP/1.1 308 Permanent Redirect\r\nLocation: /v2/mcp?x=1\r\nContent-Length: 0\r\n\r\n", "308, a redirect to http://%ADDR%"},
		{"no Location", "HTTP/1.1 301 Moved Permanently\r\nContent-Length: 0\r\n\r\n", "301, a redirect without a Location"},
		{"the edge of the range", "HTTP/1.1 399 Odd\r\nLocation: http://a.example.test/\r\nContent-Length: 0\r\n\r\n", "399, a redirect to http://a.example.test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := fakeServer(t, tt.answer)
			target, _ := probe.ParseTarget("http://" + addr + "/mcp")
			rep, err := probe.Run(context.Background(), target, probe.Options{})
			if !errors.Is(err, probe.ErrNotMCP) {
				t.Fatalf("Run error %v, want ErrNotMCP", err)
			}
			want := "the endpoint answered " + strings.ReplaceAll(tt.where, "%ADDR%", addr) + ": the probe follows no redirect; give -url the URL the endpoint answers at"
			if got := rep.Results[0].Reason; got != want {
				t.Errorf("reason\n%s\nwant\n%s", got, want)
			}
		})
	}
}
