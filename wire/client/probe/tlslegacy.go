package probe

// A handshake that offers only TLS 1.0 and 1.1 (DP-02).

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"time"

	"rawmcp/wire/client"
)

// errNoAnswer: the server neither answered nor closed within the timeout.
var errNoAnswer = errors.New("no answer")

// legacy is what a handshake offering only TLS 1.0 and 1.1 met.
type legacy struct {
	accepted  bool   // the server chose TLS 1.0 or 1.1
	version   uint16 // which, when the handshake completed (0 otherwise)
	handshake bool   // the connection stood and a handshake was tried
	err       error
}

func (h legacy) String() string {
	var hs *client.HandshakeError
	switch {
	case h.version != 0:
		return "the server chose " + tls.VersionName(h.version)
	case h.accepted:
		return "the server chose TLS 1.0 or 1.1; its certificate did not verify either"
	case errors.Is(h.err, errNoAnswer):
		return "no answer"
	case errors.As(h.err, &hs):
		return hs.Err.Error()
	case h.err == nil:
		return "no error"
	}
	return h.err.Error()
}

// legacyHandshake offers TLS 1.0 and 1.1 only to addr, verifying for
// serverName with roots, and sends no request: a server that got this
// far has already failed. A failed verification still shows the offer
// taken: the server sends its certificate only after it has chosen one
// of the offered versions.
func legacyHandshake(addr, serverName string, roots *x509.CertPool, timeout time.Duration) legacy {
	c := client.New(addr)
	c.Timeout = timeout
	c.Dialer = &client.Dialer{TLS: &tls.Config{
		ServerName: serverName,
		RootCAs:    roots,
		// Explicit bounds: crypto/tls offers versions below 1.2 only when
		// MinVersion asks for them.
		MinVersion: tls.VersionTLS10,
		MaxVersion: tls.VersionTLS11,
	}}
	defer c.Close()
	err := c.Send(nil)
	var hs *client.HandshakeError
	var verify *tls.CertificateVerificationError
	var timedOut interface{ Timeout() bool }
	switch {
	case err == nil:
		state, _ := c.TLSState()
		return legacy{accepted: true, version: state.Version, handshake: true}
	case errors.As(err, &timedOut) && timedOut.Timeout():
		return legacy{handshake: errors.As(err, &hs), err: errNoAnswer}
	case !errors.As(err, &hs):
		return legacy{err: err}
	case errors.As(err, &verify):
		return legacy{accepted: true, handshake: true, err: err}
	}
	return legacy{handshake: true, err: err}
}
