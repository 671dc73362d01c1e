package clienttest

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"testing"
)

// TestServe: every connection gets handle, over plain TCP or TLS, and
// is closed when handle returns.
func TestServe(t *testing.T) {
	echo := func(nc net.Conn) {
		b := make([]byte, 4)
		io.ReadFull(nc, b)
		nc.Write(b)
	}
	cert := SelfSigned(t, "mcp.example.test")
	roots := x509.NewCertPool()
	roots.AddCert(cert.Leaf)
	for name, dial := range map[string]func(addr string) (net.Conn, error){
		"plain": func(addr string) (net.Conn, error) { return net.Dial("tcp", addr) },
		"tls": func(addr string) (net.Conn, error) {
			return tls.Dial("tcp", addr, &tls.Config{ServerName: "mcp.example.test", RootCAs: roots})
		},
	} {
		t.Run(name, func(t *testing.T) {
			var cfg *tls.Config
			if name == "tls" {
				cfg = &tls.Config{Certificates: []tls.Certificate{cert}}
			}
			addr := Serve(t, cfg, echo)
			for range 2 { // a second connection is served too
				nc, err := dial(addr)
				if err != nil {
					t.Fatal(err)
				}
				nc.Write([]byte("ping"))
				got, err := io.ReadAll(nc) // ends when handle's return closes it
				nc.Close()
				if string(got) != "ping" || err != nil {
					t.Errorf("got %q, %v; want the 4 bytes echoed, then the close", got, err)
				}
			}
		})
	}
}
