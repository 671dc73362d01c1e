package policy

import "strings"

// ResourceURL is a resource identifier (the URL of the MCP endpoint) and
// what the server derives from it: the origin browsers send, the
// authority clients put in Host, and the path the endpoint is served at.
type ResourceURL struct {
	URL       string // "https://mcp.example.test:8443/mcp"
	Origin    string // "https://mcp.example.test:8443"
	Authority string // "mcp.example.test:8443"
	Path      string // "/mcp"
}

// MetadataURL is where the URL's Protected Resource Metadata lives: the
// well-known path inserted between the authority and the path (RFC 9728
// §3.1), "https://h:8443/mcp" → "https://h:8443/.well-known/oauth-protected-resource/mcp".
// (Appending it after the path is the OIDC style, wrong here.)
func (r ResourceURL) MetadataURL() string { return r.Origin + WellKnownPath + r.Path }

// MetadataPath is the path part of MetadataURL.
func (r ResourceURL) MetadataPath() string { return WellKnownPath + r.Path }

// The parts of a resource URL ParseResourceURL names when it refuses one,
// as FieldError.Field.
const (
	PartScheme   = "scheme"   // not http:// or https://, lowercase: not an absolute URL
	PartUserinfo = "userinfo" // user@ before the host
	PartHost     = "host"     // empty, uppercase, or not a DNS name, IPv4 or [IPv6]
	PartPort     = "port"     // empty, 0, a leading zero, past 65535, or the scheme's default spelled out
	PartPath     = "path"     // empty, "/", a trailing or doubled slash, "." or "..", a byte beyond unreserved, or under /.well-known/
	PartQuery    = "query"
	PartFragment = "fragment"
)

// ParseResourceURL checks that s is a resource identifier spelled the one
// canonical way, so the exact-match audience check (A-P04) and the exact
// Host and Origin checks (T-P15, T-P16) can compare bytes:
//
//	resource-url = ( "http" / "https" ) "://" host [ ":" port ] path
//	host         = 1*( %x61-7A / DIGIT / "-" / "." ) / "[" 1*( HEXDIG-lower / ":" / "." ) "]"
//	port         = 1-65535, no leading zero, not the scheme's default (80, 443)
//	path         = 1*( "/" segment ), no segment "." or "..", not under /.well-known/
//	segment      = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" )
//
// No userinfo, query or fragment (MCP Authorization §8.1, RFC 8707 §2).
// A refusal is a *FieldError wrapping ErrInvalidConfig whose Field is one
// of the Part constants.
func ParseResourceURL(s string) (ResourceURL, error) {
	fail := func(part string) (ResourceURL, error) {
		return ResourceURL{}, &FieldError{Err: ErrInvalidConfig, Field: part}
	}
	scheme, rest, defaultPort := "https", "", "443"
	if r, ok := strings.CutPrefix(s, "https://"); ok {
		rest = r
	} else if r, ok := strings.CutPrefix(s, "http://"); ok {
		scheme, rest, defaultPort = "http", r, "80"
	} else {
		return fail(PartScheme)
	}
	end := strings.IndexAny(rest, "/?#")
	if end == -1 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if strings.Contains(authority, "@") {
		return fail(PartUserinfo)
	}
	host, port, hasPort := splitAuthority(authority)
	switch {
	case !validHost(host):
		return fail(PartHost)
	case hasPort && (!validPort(port) || port == defaultPort):
		return fail(PartPort)
	case strings.Contains(tail, "#"):
		return fail(PartFragment)
	case strings.Contains(tail, "?"):
		return fail(PartQuery)
	case !validResourcePath(tail):
		return fail(PartPath)
	}
	return ResourceURL{URL: s, Origin: scheme + "://" + authority, Authority: authority, Path: tail}, nil
}

// splitAuthority cuts host[:port]; the colons inside an IPv6 literal's
// brackets are the host's.
func splitAuthority(a string) (host, port string, hasPort bool) {
	i := strings.LastIndexByte(a, ':')
	if i == -1 || strings.Contains(a[i:], "]") {
		return a, "", false
	}
	return a[:i], a[i+1:], true
}

// validHost accepts a lowercase reg-name (DNS names and IPv4 alike) or an
// IPv6 literal in brackets with lowercase hex digits and no zone.
func validHost(h string) bool {
	if inner, ok := strings.CutPrefix(h, "["); ok {
		inner, ok = strings.CutSuffix(inner, "]")
		return ok && inner != "" && onlyBytes(inner, "0123456789abcdef:.")
	}
	return h != "" && onlyBytes(h, "abcdefghijklmnopqrstuvwxyz0123456789-.")
}

func validResourcePath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/.well-known/") || p == "/.well-known" {
		return false
	}
	for seg := range strings.SplitSeq(p[1:], "/") {
		if seg == "" || seg == "." || seg == ".." || !onlyBytes(seg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~") {
			return false
		}
	}
	return true
}

func onlyBytes(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}
