package probe

import (
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Target is the endpoint a run probes.
type Target struct {
	URL      string // normalised: "https://mcp.example.test:8443/mcp"
	Scheme   string // "http" or "https"
	Host     string // the URL's authority, sent as Host: "mcp.example.test:8443"
	Hostname string // the URL's host alone, for SNI and verification: "mcp.example.test"
	Dial     string // the address dialled: "127.0.0.1:8443" (-resolve), or Host
	Path     string // the endpoint's path, whatever it is: "/mcp"
	// Loopback says the URL's host is 127.0.0.0/8, [::1] or localhost.
	// It is decided from the URL alone, never from the dialled address:
	// -resolve can aim any name at 127.0.0.1, and a name can resolve
	// anywhere.
	Loopback bool
	// MetadataPaths are RFC 9728 §3.1's well-known paths for the
	// endpoint: the path-inserted one (for a path other than "/"), then
	// the root one.
	MetadataPaths []string
	// Resolve are the -resolve entries the target was parsed with (DialAt).
	Resolve []Resolve
}

// Resolve is one -resolve entry, curl's HOST:PORT:ADDR: dial ADDR for
// HOST:PORT, while Host, SNI and verification still use HOST.
type Resolve struct {
	Host string
	Port uint16
	Addr netip.Addr
}

// The URL errors, constants that never carry the URL's bytes.
var (
	ErrBadURL = errors.New("probe: the URL must be http:// or https://host[:port]/path, without user info, query or fragment")
	// ErrBadResolve reports a -resolve that is not HOST:PORT:ADDR with a
	// port from 1 to 65535 and ADDR an IP address.
	ErrBadResolve = errors.New("probe: -resolve must be HOST:PORT:ADDR, ADDR an IP address (127.0.0.1, [::1])")
)

// ParseResolve reads curl's --resolve form HOST:PORT:ADDR; ADDR is one
// IPv4 or IPv6 address, the latter bracketed or not.
func ParseResolve(s string) (Resolve, error) {
	host, rest, ok := strings.Cut(s, ":")
	if !ok || host == "" || strings.ContainsAny(host, "[]/ ") {
		return Resolve{}, ErrBadResolve
	}
	portText, addrText, ok := strings.Cut(rest, ":")
	port, err := strconv.ParseUint(portText, 10, 16)
	if !ok || err != nil || port == 0 || portText[0] == '+' {
		return Resolve{}, ErrBadResolve
	}
	if strings.HasPrefix(addrText, "[") && strings.HasSuffix(addrText, "]") {
		addrText = addrText[1 : len(addrText)-1]
	}
	addr, err := netip.ParseAddr(addrText)
	if err != nil || addr.Zone() != "" {
		return Resolve{}, ErrBadResolve
	}
	return Resolve{Host: strings.ToLower(host), Port: uint16(port), Addr: addr.Unmap()}, nil
}

// wellKnownPRM is RFC 9728 §3.1's well-known path prefix.
const wellKnownPRM = "/.well-known/oauth-protected-resource"

// ParseTarget reads the endpoint URL: http or https, any host, the path
// as given. A query or fragment is refused: every request names the path
// alone, and AU-05 adds the only query a run sends. Dial is DialAt the
// URL's port.
func ParseTarget(raw string, resolve ...Resolve) (Target, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Host == "" ||
		u.Opaque != "" || strings.ContainsAny(raw, "?#") {
		return Target{}, ErrBadURL
	}
	port := uint64(80)
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		port, err = strconv.ParseUint(p, 10, 16)
		if err != nil || port == 0 {
			return Target{}, ErrBadURL
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return Target{}, ErrBadURL
	}
	// A zone (fe80::1%eth0) names an interface of this machine, not a
	// host a Host field or certificate can carry.
	hostname := u.Hostname()
	if hostname == "" || strings.Contains(hostname, "%") {
		return Target{}, ErrBadURL
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	t := Target{URL: u.Scheme + "://" + u.Host + path, Scheme: u.Scheme, Host: u.Host, Hostname: hostname, Path: path, Resolve: resolve}
	addr, err := netip.ParseAddr(hostname)
	t.Loopback = strings.EqualFold(hostname, "localhost") || err == nil && addr.Unmap().IsLoopback()
	t.Dial = t.DialAt(uint16(port))
	if path != "/" {
		t.MetadataPaths = append(t.MetadataPaths, wellKnownPRM+path)
	}
	t.MetadataPaths = append(t.MetadataPaths, wellKnownPRM)
	return t, nil
}

// DialAt is the address dialled for the URL's host at port: the first
// Resolve entry for them, else 127.0.0.1 for localhost (RFC 6761 §6.3),
// else the host itself. Checks that reach another port of the host (the
// cleartext twin of an https endpoint) dial it as the endpoint is dialled.
func (t Target) DialAt(port uint16) string {
	for _, r := range t.Resolve {
		if strings.EqualFold(r.Host, t.Hostname) && r.Port == port {
			return netip.AddrPortFrom(r.Addr, r.Port).String()
		}
	}
	if strings.EqualFold(t.Hostname, "localhost") {
		return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port).String()
	}
	if addr, err := netip.ParseAddr(t.Hostname); err == nil {
		return netip.AddrPortFrom(addr.Unmap(), port).String()
	}
	// A name has no colon: only an IP literal needs brackets.
	return t.Hostname + ":" + strconv.Itoa(int(port))
}

// origin is the target's own origin, as a browser on a page it served
// would send it (RFC 6454 §6.1: scheme, host and any port as given).
func (t Target) origin() string { return t.Scheme + "://" + strings.ToLower(t.Host) }
