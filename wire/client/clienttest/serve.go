package clienttest

import (
	"crypto/tls"
	"net"
	"testing"
)

// Serve listens on 127.0.0.1 (over TLS with cfg, plain TCP for a nil cfg)
// until the test ends, runs handle on each connection in a goroutine of
// its own and closes the connection when handle returns. It returns the
// listener's address.
func Serve(t testing.TB, cfg *tls.Config, handle func(nc net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				handle(nc)
			}()
		}
	}()
	return ln.Addr().String()
}
