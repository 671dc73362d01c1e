package client

import (
	"context"
	"crypto/tls"
	"net"
	"strings"
	"time"
)

// Dialer opens a Client's connections when plain TCP to Client.Addr is
// not enough: TLS, and curl's --resolve. A nil Dialer on a Client is
// plain TCP, the path every loopback test and benchmark takes.
type Dialer struct {
	// TLS, if set, makes every connection a TLS client with this config;
	// the caller sets ServerName (SNI and verification), RootCAs and
	// MinVersion. The handshake is part of the dial, so a connection
	// handed to the caller is verified.
	TLS *tls.Config
	// Resolve maps an address as Client.Addr names it ("host:port",
	// lower case) to the address dialled instead ("127.0.0.1:8443"), as
	// curl's --resolve: the name still goes to TLS as given.
	Resolve map[string]string
}

// Lookup is the address Dial dials for addr.
func (d *Dialer) Lookup(addr string) string {
	if to, ok := d.Resolve[strings.ToLower(addr)]; ok {
		return to
	}
	return addr
}

// Dial connects to addr (through Resolve) and, with TLS set, completes
// the handshake, all within timeout.
func (d *Dialer) Dial(addr string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var nd net.Dialer
	nc, err := nd.DialContext(ctx, "tcp", d.Lookup(addr))
	if err != nil || d.TLS == nil {
		return nc, err
	}
	tc := tls.Client(nc, d.TLS)
	if err := tc.HandshakeContext(ctx); err != nil {
		nc.Close()
		return nil, &HandshakeError{err}
	}
	return tc, nil
}

// HandshakeError is a TLS handshake or verification that failed once the
// TCP connection stood: what a caller reports as the TLS failure it is,
// not as a host that cannot be reached.
type HandshakeError struct{ Err error }

func (e *HandshakeError) Error() string { return "tls: handshake: " + e.Err.Error() }

func (e *HandshakeError) Unwrap() error { return e.Err }
