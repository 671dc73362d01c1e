package clienttest

import (
	"crypto/x509"
	"os"
	"strings"
	"testing"
	"time"
)

// TestCertificates: a leaf verifies against its CA's Roots for its name
// and no other, an expired one does not, a self-signed one verifies
// against a pool of itself, and WritePEM writes the CA.
func TestCertificates(t *testing.T) {
	ca := NewCA(t, "test CA")
	verify := func(leaf *x509.Certificate, roots *x509.CertPool, name string) error {
		_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: name})
		return err
	}
	good := ca.Leaf(t, "mcp.example.test", time.Now().Add(time.Hour))
	if err := verify(good.Leaf, ca.Roots, "mcp.example.test"); err != nil {
		t.Errorf("the CA's leaf: %v", err)
	}
	if err := verify(good.Leaf, ca.Roots, "other.example.test"); err == nil {
		t.Error("the leaf verified for another name")
	}
	if err := verify(good.Leaf, NewCA(t, "other CA").Roots, "mcp.example.test"); err == nil {
		t.Error("the leaf verified against another CA")
	}
	expired := ca.Leaf(t, "mcp.example.test", time.Now().Add(-time.Hour))
	if err := verify(expired.Leaf, ca.Roots, "mcp.example.test"); err == nil {
		t.Error("an expired leaf verified")
	}
	self := SelfSigned(t, "mcp.example.test")
	pool := x509.NewCertPool()
	pool.AddCert(self.Leaf)
	if err := verify(self.Leaf, pool, "mcp.example.test"); err != nil {
		t.Errorf("the self-signed leaf against itself: %v", err)
	}
	pem, err := os.ReadFile(ca.WritePEM(t))
	if err != nil || !strings.HasPrefix(string(pem), "-----BEGIN CERTIFICATE-----") {
		t.Errorf("WritePEM wrote %q, %v", pem, err)
	}
}
