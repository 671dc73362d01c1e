package main

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"rawmcp/wire/client/clienttest"
)

// tlsRelay terminates TLS for mcp.example.test with a certificate of a
// CA made here and relays the bytes to upstream unchanged; it returns its
// port and the CA's PEM file.
func tlsRelay(t *testing.T, upstream string) (port, caFile string) {
	t.Helper()
	ca := clienttest.NewCA(t, "probe test CA")
	caFile = ca.WritePEM(t)
	leaf := ca.Leaf(t, "mcp.example.test", time.Now().Add(time.Hour))
	addr := clienttest.Serve(t, &tls.Config{Certificates: []tls.Certificate{leaf}}, func(nc net.Conn) {
		up, err := net.Dial("tcp", upstream)
		if err != nil {
			return
		}
		defer up.Close()
		go io.Copy(up, nc)
		io.Copy(nc, up)
	})
	_, port, _ = net.SplitHostPort(addr)
	return port, caFile
}

// TestProbeOverHTTPS: -url https with -resolve and -cacert reaches the
// endpoint through TLS and reports what it reached; without -cacert the
// certificate is not trusted, a PRE-01 error: not judged, exit 4.
func TestProbeOverHTTPS(t *testing.T) {
	port, caFile := tlsRelay(t, permissiveServer(t))
	url := "https://mcp.example.test:" + port + "/mcp"
	resolve := "mcp.example.test:" + port + ":127.0.0.1"
	stdout, stderr, code := rawmcp(t, "probe", "-url", url, "-resolve", resolve, "-cacert", caFile, "-only", "HO-02", "-json")
	if code != exitFail {
		t.Fatalf("exit status %d, want %d (the server serves a foreign Origin); stderr:\n%s", code, exitFail, stderr)
	}
	var doc struct {
		Reached map[string]string `json:"reached"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"url": url, "address": "127.0.0.1:" + port, "tls_version": "TLS 1.3",
		"certificate_subject": "CN=mcp.example.test", "certificate_issuer": "CN=probe test CA"} {
		if doc.Reached[k] != want {
			t.Errorf("reached.%s = %q, want %q", k, doc.Reached[k], want)
		}
	}

	_, stderr, code = rawmcp(t, "probe", "-url", url, "-resolve", resolve, "-only", "HO-02")
	want := `rawmcp probe: PRE-01: TLS with 127.0.0.1:` + port + ` for mcp.example.test failed: unknown authority: the certificate is signed by "CN=probe test CA", which neither the system roots nor -cacert trust`
	if code != exitUnjudged || !strings.Contains(stderr, want) {
		t.Errorf("without -cacert: exit status %d, stderr:\n%s\nwant %d and\n%s", code, stderr, exitUnjudged, want)
	}
}
