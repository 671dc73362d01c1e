package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// WellKnownPath is the RFC 9728 §3 well-known path. The document describing
// CanonicalURI lives at WellKnownPath followed by the canonical path
// ("/.well-known/oauth-protected-resource/mcp", see MetadataPath); rawmcp
// serves the same document at WellKnownPath alone, the root fallback MCP
// clients try next (MCP 2025-11-25 Authorization §4.2; both answered by
//
const WellKnownPath = "/.well-known/oauth-protected-resource"

// resourceName is the PRM resource_name (RFC 9728 §2, A-26).
const resourceName = "rawmcp"

// Config is what New needs; every field is checked there.
type Config struct {
	// CanonicalURI is the one resource identifier of the MCP endpoint,
	// "http://127.0.0.1:<port>/mcp", or the public URL clients use behind
	// a reverse proxy, spelled as ParseResourceURL requires: lowercase
	// scheme and host, no default port, no userinfo, query, fragment or
	// trailing slash (MCP Authorization §8.1, A-28). Its path is the path
	// the endpoint is served at.
	CanonicalURI string
	// Issuer is the configured authorization server issuer; a token from
	// any other issuer is refused and the PRM lists this one.
	Issuer string
	// AllowedHosts are exact Host header values such as "127.0.0.1:<port>"
	// ("localhost:<port>" only if configured; a public authority such as
	// "mcp.example.test", with no port when it is the default) (T-P15).
	// At least one.
	AllowedHosts []string
	// AllowedOrigins are exact serialized origins "scheme://host[:port]",
	// lowercase (T-P16). Empty: no Origin is allowed, so only clients that
	// send none (non-browser clients) get through.
	AllowedOrigins []string
	// AllowedTenants is the tenant ACL: a valid token whose tenant is not
	// listed gets 403 forbidden. Empty: every tenant is refused.
	AllowedTenants []string
}

// Policy is the offline protected-resource boundary. The allowlists and
// the metadata are fixed by New; the token table and the subjects'
// revisions change under mu while requests run.
type Policy struct {
	canonicalURI string
	issuer       string
	resource     ResourceURL
	metadataURL  string
	metadata     []byte
	hosts        map[string]struct{}
	origins      map[string]struct{}
	tenants      map[string]struct{}

	mu        sync.RWMutex
	byDigest  map[[sha256.Size]byte]*tokenEntry // key: SHA-256 of the token, never the token
	byID      map[string]*tokenEntry
	revisions map[string]uint64 // subject → current authorization revision
}

// New checks cfg and returns a Policy with an empty token table.
func New(cfg Config) (*Policy, error) {
	resource, err := ParseResourceURL(cfg.CanonicalURI)
	if err != nil {
		return nil, &FieldError{Err: ErrInvalidConfig, Field: fieldCanonicalURI}
	}
	if !validIssuer(cfg.Issuer) {
		return nil, &FieldError{Err: ErrInvalidConfig, Field: fieldConfigIssuer}
	}
	if len(cfg.AllowedHosts) == 0 {
		return nil, &FieldError{Err: ErrInvalidConfig, Field: fieldAllowedHosts}
	}
	hosts, ok := setOf(cfg.AllowedHosts, validAllowedHost)
	if !ok {
		return nil, &FieldError{Err: ErrInvalidConfig, Field: fieldAllowedHosts}
	}
	origins, ok := setOf(cfg.AllowedOrigins, validAllowedOrigin)
	if !ok {
		return nil, &FieldError{Err: ErrInvalidConfig, Field: fieldAllowedOrigins}
	}
	tenants, ok := setOf(cfg.AllowedTenants, nonEmptyUTF8)
	if !ok {
		return nil, &FieldError{Err: ErrInvalidConfig, Field: fieldAllowedTenants}
	}
	p := &Policy{
		canonicalURI: cfg.CanonicalURI,
		issuer:       cfg.Issuer,
		resource:     resource,
		metadataURL:  resource.MetadataURL(),
		hosts:        hosts,
		origins:      origins,
		tenants:      tenants,
		byDigest:     make(map[[sha256.Size]byte]*tokenEntry),
		byID:         make(map[string]*tokenEntry),
		revisions:    make(map[string]uint64),
	}
	p.metadata = metadataDocument(cfg.CanonicalURI, cfg.Issuer)
	return p, nil
}

func setOf(values []string, valid func(string) bool) (map[string]struct{}, bool) {
	set := make(map[string]struct{}, len(values))
	for _, v := range values {
		if !valid(v) {
			return nil, false
		}
		set[v] = struct{}{}
	}
	return set, true
}

func nonEmptyUTF8(s string) bool { return s != "" && utf8.ValidString(s) }

func validPort(s string) bool {
	if s == "" || s[0] == '0' || len(s) > 5 {
		return false
	}
	n, err := strconv.ParseUint(s, 10, 32)
	return err == nil && n <= 65535
}

// issuer = ( "http://" / "https://" ) 1*( %x21-7E except "?" "#" DQUOTE "\" )
//
// RFC 8414 §2 issuers have no query or fragment; the loopback placeholder
// may be http, since nothing here fetches it.
func validIssuer(s string) bool {
	rest, ok := strings.CutPrefix(s, "https://")
	if !ok {
		rest, ok = strings.CutPrefix(s, "http://")
	}
	if !ok || rest == "" {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c < 0x21 || c > 0x7e || c == '?' || c == '#' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// allowed-host   = 1*host-char [ ":" port ]
// allowed-origin = ( "http" / "https" ) "://" 1*host-char
// host-char      = %x61-7A / DIGIT / "." / "-" / ":" / "[" / "]"
//
// Entries are what the wire carries after serialization, lowercase, so
// an exact byte compare is the whole check (T-P15, T-P16); "null", paths
// and trailing slashes can never be configured.
func validAllowedHost(s string) bool {
	host, port, hasPort := splitAuthority(s)
	return host != "" && allHostChars(host) && (!hasPort || validPort(port))
}

func validAllowedOrigin(s string) bool {
	rest, ok := strings.CutPrefix(s, "https://")
	if !ok {
		rest, ok = strings.CutPrefix(s, "http://")
	}
	return ok && rest != "" && allHostChars(rest)
}

// allHostChars reports whether every byte of s is a host-char; the callers
// have already refused an empty s.
func allHostChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte(".-:[]", c) >= 0) {
			return false
		}
	}
	return true
}

// HostAllowed reports whether host, the raw Host header value, is on the
// allowlist. The compare is exact: no case folding, no default port, so a
// DNS-rebound name never matches (T-P15, T-P17).
func (p *Policy) HostAllowed(host []byte) bool {
	_, ok := p.hosts[string(host)]
	return ok
}

// OriginAllowed reports whether origin, the raw value of an Origin header
// that is present, is on the allowlist, compared exactly (T-P16, T-P17).
// "null" is never allowed: it cannot be configured.
func (p *Policy) OriginAllowed(origin []byte) bool {
	_, ok := p.origins[string(origin)]
	return ok
}

// MetadataURL is the absolute URL of the path-suffixed PRM document, the
// resource_metadata value of every challenge (A-P03, A-22).
func (p *Policy) MetadataURL() string { return p.metadataURL }

// EndpointPath is the path of CanonicalURI, where the MCP endpoint is
// served: "/mcp" on loopback, the public URL's path behind a proxy.
func (p *Policy) EndpointPath() string { return p.resource.Path }

// MetadataPath is the path of MetadataURL, where the path-suffixed PRM
// document is served (RFC 9728 §3.1).
func (p *Policy) MetadataPath() string { return p.resource.MetadataPath() }

// Metadata is the PRM JSON document (RFC 9728 §2, §3.2), compact, members in
// a fixed order, every array non-empty. The caller gets its own copy.
func (p *Policy) Metadata() []byte { return bytes.Clone(p.metadata) }

// prmDocument fixes the member order of the PRM JSON.
type prmDocument struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name"`
}

func metadataDocument(canonicalURI, issuer string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// The resource must stay byte-for-byte the canonical URI; no
	// HTML escaping of characters a URL may carry.
	enc.SetEscapeHTML(false)
	// Encoding strings and string slices cannot fail.
	_ = enc.Encode(prmDocument{
		Resource:               canonicalURI,
		AuthorizationServers:   []string{issuer},
		ScopesSupported:        []string{ScopeConnect, ScopeResourcesRead},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           resourceName,
	})
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
