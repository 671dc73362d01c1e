package loadgen

import (
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Target is where the load goes: the address to dial, the authority for
// the Host header, and the request-target.
type Target struct {
	Dial string // "127.0.0.1:8080", "[::1]:8080"
	Host string // as in the URL: "localhost:8080"
	Path string // "/mcp", with the query if the URL has one
}

// The URL errors: constants, so an error never carries the URL's bytes.
var (
	ErrNotLoopback = errors.New("loadgen: the URL's host is not a loopback address (127.0.0.0/8, ::1, localhost)")
	ErrBadURL      = errors.New("loadgen: the URL must be http://host[:port]/path, without user info")
)

// ParseTarget reads an http URL whose host is a loopback IP literal or
// "localhost", which is dialled as 127.0.0.1 (RFC 6761 §6.3: localhost
// names the loopback interface). Every other host, names that resolve to
// loopback included, is refused before anything is dialled: resolution
// could change between the check and the dial.
func ParseTarget(raw string) (Target, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.User != nil || u.Host == "" || u.Opaque != "" {
		return Target{}, ErrBadURL
	}
	port := uint64(80)
	if p := u.Port(); p != "" {
		port, err = strconv.ParseUint(p, 10, 16)
		if err != nil || port == 0 {
			return Target{}, ErrBadURL
		}
	}
	host := u.Hostname()
	dialHost := host
	if strings.EqualFold(host, "localhost") {
		dialHost = "127.0.0.1"
	}
	addr, err := netip.ParseAddr(dialHost)
	if err != nil || !addr.Unmap().IsLoopback() || addr.Zone() != "" {
		return Target{}, ErrNotLoopback
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	return Target{Dial: netip.AddrPortFrom(addr.Unmap(), uint16(port)).String(), Host: u.Host, Path: path}, nil
}
