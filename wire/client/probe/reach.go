package probe

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"rawmcp/wire/client"
)

// Reached is what the run reached, as the report's first block shows it:
// the hop that answered may be a proxy or a load balancer, not the MCP
// server itself.
type Reached struct {
	URL     string `json:"url"`
	Address string `json:"address"` // the address dialled
	// The TLS session, empty over http.
	TLSVersion  string    `json:"tls_version,omitempty"`
	CipherSuite string    `json:"cipher_suite,omitempty"`
	Subject     string    `json:"certificate_subject,omitempty"` // the leaf certificate's
	Issuer      string    `json:"certificate_issuer,omitempty"`
	NotAfter    time.Time `json:"certificate_expiry,omitzero"`
	// What the hop announced in PRE-01's answer.
	Server string `json:"server,omitempty"`
	Via    string `json:"via,omitempty"`
}

// ErrCleartextToken reports a run that would send a bearer token over
// http to a host that is not loopback: anyone on the path could read and
// replay it. Run returns it before a byte is sent.
var ErrCleartextToken = errors.New("probe: a bearer token is never sent over cleartext http to a host that is not loopback (anyone on the path could replay it): use the https:// URL")

// dialer is how the run connects: nil (plain TCP) over http; over https
// TLS 1.2 or later, verified against the URL's host with the system
// roots or opts.RootCAs. Nothing turns verification off: a probe that
// sends a token to an unverified peer is the leak it exists to find.
func (t Target) dialer(roots *x509.CertPool) *client.Dialer {
	if t.Scheme != "https" {
		return nil
	}
	return &client.Dialer{TLS: &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         t.Hostname,
		RootCAs:            roots,
		NextProtos:         []string{"http/1.1"},
		ClientSessionCache: tls.NewLRUClientSessionCache(16),
	}}
}

// reach connects once before PRE-01 over https, so a failed handshake
// is reported as what it is; over http the first request does that. It
// returns the reached block, or PRE-01's error.
func (p *prober) reach() (*Reached, *Result) {
	r := &Reached{URL: p.target.URL, Address: p.target.Dial}
	if p.dialer == nil {
		return r, nil
	}
	c := client.New(p.target.Dial)
	c.Dialer, c.Timeout = p.dialer, p.timeout()
	defer c.Close()
	if err := c.Send(nil); err != nil {
		failed := &Result{Check: *preflight, Verdict: Error,
			Expected: "TLS 1.2 or later, a certificate for " + p.target.Hostname + " that the system roots or -cacert trust"}
		var handshake *client.HandshakeError
		if errors.As(err, &handshake) {
			failed.Actual, failed.Reason = handshakeFailure(p.target, handshake.Err)
		} else {
			failed.Actual = "no connection"
			failed.Reason = "no MCP endpoint at " + p.target.URL + ": no connection to " + p.target.Dial + " (" + err.Error() + ")"
		}
		return nil, failed
	}
	st, _ := c.TLSState()
	r.TLSVersion, r.CipherSuite = tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite)
	if len(st.PeerCertificates) > 0 {
		leaf := st.PeerCertificates[0]
		r.Subject, r.Issuer, r.NotAfter = leaf.Subject.String(), leaf.Issuer.String(), leaf.NotAfter.UTC()
	}
	return r, nil
}

// handshakeFailure names what failed when the probe could not complete a
// TLS handshake: the kind (the evidence's actual) and the reason.
func handshakeFailure(t Target, err error) (kind, reason string) {
	var unknown x509.UnknownAuthorityError
	var name x509.HostnameError
	var invalid x509.CertificateInvalidError
	var record tls.RecordHeaderError
	detail := err.Error()
	switch {
	case errors.As(err, &unknown):
		issuer := "an unknown issuer"
		if unknown.Cert != nil {
			issuer = fmt.Sprintf("%q", unknown.Cert.Issuer.String())
		}
		kind, detail = "unknown authority", "the certificate is signed by "+issuer+", which neither the system roots nor -cacert trust"
	case errors.As(err, &name):
		names := "no DNS name"
		if name.Certificate != nil && len(name.Certificate.DNSNames) > 0 {
			names = strings.Join(name.Certificate.DNSNames, ", ")
		}
		kind, detail = "name mismatch", "the certificate is for "+names+", not "+t.Hostname
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		kind, detail = "expired", invalid.Detail
	case errors.As(err, &invalid):
		kind = "invalid certificate"
	case strings.Contains(detail, "protocol version"):
		kind, detail = "protocol version", "the server offers no TLS 1.2 or later"
	case errors.As(err, &record):
		kind, detail = "not TLS", "the server's first bytes are not a TLS record (is the URL http://?)"
	default:
		kind = "handshake failed"
	}
	return kind, "TLS with " + t.Dial + " for " + t.Hostname + " failed: " + kind + ": " + detail
}

// redirect describes a 3xx answer: the probe follows no redirect (a 307
// to another host would carry the token there, a 301 turns a POST into a
// GET), so PRE-01 says where it points, scheme and host only.
func (p *prober) redirect(r *reply) string {
	where := "without a Location"
	if loc := r.header("Location"); loc != "" {
		where = "to an unreadable Location"
		if u, err := url.Parse(loc); err == nil {
			scheme, host := u.Scheme, u.Host
			if host == "" {
				scheme, host = p.target.Scheme, p.target.Host
			}
			where = "to " + scheme + "://" + host
		}
	}
	return fmt.Sprintf("the endpoint answered %d, a redirect %s: the probe follows no redirect; give -url the URL the endpoint answers at", r.status(), where)
}

// announced fills in the Server and Via fields PRE-01's first answer
// carried.
func (r *Reached) announced(pre *Result) {
	if len(pre.Exchanges) == 0 || pre.Exchanges[0].resp == nil {
		return
	}
	resp := pre.Exchanges[0].resp
	server, _ := resp.Get("Server")
	via, _ := resp.Get("Via")
	r.Server, r.Via = cut(server, 200), cut(via, 200)
}

// cut bounds a server-chosen string for the report.
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// lines is the reached block of the text report:
//
//	reached https://mcp.example.test:8443/mcp at 127.0.0.1:8443
//	  TLS 1.3, TLS_AES_128_GCM_SHA256
//	  certificate CN=mcp.example.test, issued by CN=test CA, expires 2027-01-01T00:00:00Z
//	  Server: nginx; Via: none
func (r *Reached) lines() []string {
	lines := []string{"reached " + r.URL + " at " + r.Address}
	if r.TLSVersion != "" {
		lines = append(lines, "  "+r.TLSVersion+", "+r.CipherSuite,
			"  certificate "+orNone(r.Subject)+", issued by "+orNone(r.Issuer)+", expires "+r.NotAfter.Format(time.RFC3339))
	} else {
		lines = append(lines, "  cleartext http, no TLS")
	}
	return append(lines, "  Server: "+orNone(printable(r.Server))+"; Via: "+orNone(printable(r.Via)))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// speaksTLS reports whether the target's address answers a TLS
// handshake, for an http:// URL PRE-01 found no endpoint at: a
// handshake that completes, or fails on the certificate or with an
// alert, came from a TLS server. Only a ClientHello is sent.
func speaksTLS(t Target, timeout time.Duration) bool {
	https := t
	https.Scheme = "https"
	c := client.New(t.Dial)
	c.Dialer, c.Timeout = https.dialer(nil), timeout
	defer c.Close()
	err := c.Send(nil)
	var handshake *client.HandshakeError
	var alert tls.AlertError
	var verify *tls.CertificateVerificationError
	return err == nil || errors.As(err, &handshake) && (errors.As(err, &alert) || errors.As(err, &verify))
}
