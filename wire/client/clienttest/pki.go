// Package clienttest is what the client side's tests serve and trust, as
// net/http/httptest is for servers: throwaway certificates (a CA made at
// test start and the leaves it signs, or a leaf that signs itself; P-256
// keys, nothing written outside the test's own folders) and fake servers
// on 127.0.0.1 (Serve). Only tests import it.
package clienttest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority that exists for one test.
type CA struct {
	Cert  *x509.Certificate
	Roots *x509.CertPool // trusts Cert alone
	key   *ecdsa.PrivateKey
}

// NewCA makes a CA called name, valid from an hour ago until a day from
// now.
func NewCA(t testing.TB, name string) *CA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	cert := create(t, tmpl, tmpl, key, key)
	roots := x509.NewCertPool()
	roots.AddCert(cert.Leaf)
	return &CA{Cert: cert.Leaf, Roots: roots, key: key}
}

// Leaf is a server certificate for dnsName that ca signs, valid from two
// days ago until notAfter (a past notAfter makes an expired one).
func (ca *CA) Leaf(t testing.TB, dnsName string, notAfter time.Time) tls.Certificate {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: dnsName},
		DNSNames:     []string{dnsName},
		NotBefore:    time.Now().Add(-48 * time.Hour),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	return create(t, tmpl, ca.Cert, newKey(t), ca.key)
}

// WritePEM writes ca's certificate as PEM into a folder of the test's own
// and returns the file's path, for a -cacert flag.
func (ca *CA) WritePEM(t testing.TB) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Cert.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// SelfSigned is a server certificate for name that signs itself, valid
// from an hour ago until an hour from now; a pool holding its Leaf trusts
// it.
func SelfSigned(t testing.TB, name string) tls.Certificate {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		DNSNames:              []string{name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	return create(t, tmpl, tmpl, key, key)
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// create signs tmpl for key with the issuer's key and returns it as a
// certificate a tls.Config can serve, Leaf parsed.
func create(t testing.TB, tmpl, issuer *x509.Certificate, key, issuerKey *ecdsa.PrivateKey) tls.Certificate {
	t.Helper()
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, &key.PublicKey, issuerKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
}
