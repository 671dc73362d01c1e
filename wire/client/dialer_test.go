package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"testing"
	"time"

	"rawmcp/wire/client/clienttest"
)

// tlsEcho serves one fixed answer per request over TLS with a
// self-signed certificate for name, and returns its address and a pool
// that trusts it.
func tlsEcho(t *testing.T, name string) (string, *x509.CertPool) {
	t.Helper()
	cert := clienttest.SelfSigned(t, name)
	pool := x509.NewCertPool()
	pool.AddCert(cert.Leaf)
	addr := clienttest.Serve(t, &tls.Config{Certificates: []tls.Certificate{cert}}, func(nc net.Conn) {
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		if n, _ := nc.Read(make([]byte, 4096)); n > 0 {
			nc.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n"))
		}
	})
	return addr, pool
}

// TestDialerTLSAndResolve: a Dialer dials the Resolve address for the
// name it is given, verifies the certificate for ServerName, and the
// round trip and connection state come through.
func TestDialerTLSAndResolve(t *testing.T) {
	addr, pool := tlsEcho(t, "mcp.example.test")
	d := &Dialer{TLS: &tls.Config{ServerName: "mcp.example.test", RootCAs: pool, MinVersion: tls.VersionTLS12},
		Resolve: map[string]string{"mcp.example.test:443": addr}}
	if got := d.Lookup("MCP.example.test:443"); got != addr {
		t.Errorf("Lookup ignores case: %q", got)
	}
	if got := d.Lookup("other.example.test:443"); got != "other.example.test:443" {
		t.Errorf("Lookup of an unmapped address = %q, want it unchanged", got)
	}
	c := New("mcp.example.test:443")
	c.Dialer = d
	defer c.Close()
	resp, err := c.Do(Request{Method: "GET", Path: "/", Header: [][2]string{{"Host", "mcp.example.test"}}}.Bytes(), false)
	if err != nil || resp.Status != 204 {
		t.Fatalf("Do = %v, %v; want 204", resp, err)
	}
	st, ok := c.TLSState()
	if !ok || st.Version != tls.VersionTLS13 || len(st.PeerCertificates) != 1 || st.PeerCertificates[0].Subject.CommonName != "mcp.example.test" {
		t.Errorf("TLSState = %v, %+v", ok, st)
	}
	if c.RemoteAddr() != addr {
		t.Errorf("RemoteAddr = %q, want %q", c.RemoteAddr(), addr)
	}
}

// TestDialerVerifies: a certificate no root trusts ends the dial with
// x509's error, before a request byte is written.
func TestDialerVerifies(t *testing.T) {
	addr, _ := tlsEcho(t, "mcp.example.test")
	c := New(addr)
	c.Dialer = &Dialer{TLS: &tls.Config{ServerName: "mcp.example.test", RootCAs: x509.NewCertPool()}}
	err := c.Send([]byte("GET / HTTP/1.1\r\nHost: mcp.example.test\r\n\r\n"))
	var unknown x509.UnknownAuthorityError
	var handshake *HandshakeError
	if !errors.As(err, &unknown) || !errors.As(err, &handshake) {
		t.Errorf("Send error %v, want a HandshakeError for x509.UnknownAuthorityError", err)
	}
	if !c.Closed() {
		t.Error("a failed dial leaves no connection")
	}
}

// TestPlainClientHasNoTLSState: without a Dialer the client is plain TCP.
func TestPlainClientHasNoTLSState(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if nc, err := ln.Accept(); err == nil {
			defer nc.Close()
			nc.Read(make([]byte, 64))
		}
	}()
	c := New(ln.Addr().String())
	defer c.Close()
	if _, ok := c.TLSState(); ok {
		t.Error("TLSState before a dial")
	}
	if err := c.Send([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.TLSState(); ok {
		t.Error("TLSState on a plain connection")
	}
	if c.RemoteAddr() != ln.Addr().String() {
		t.Errorf("RemoteAddr = %q", c.RemoteAddr())
	}
}
