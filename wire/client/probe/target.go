package probe

import (
	"errors"
	"strings"

	"rawmcp/wire/client/loadgen"
)

// Target is the endpoint a run probes.
type Target struct {
	URL  string // as given: "http://127.0.0.1:8080/mcp"
	Dial string // the address dialled: "127.0.0.1:8080"
	Host string // the authority, sent as Host: "127.0.0.1:8080"
	Path string // "/mcp"
}

// The URL errors, constants that never carry the URL's bytes.
var (
	ErrNotLoopback = errors.New("probe: the URL's host is not a loopback address (127.0.0.0/8, [::1], localhost)")
	ErrBadURL      = errors.New("probe: the URL must be http://host[:port]/path, without user info, query or fragment")
)

// ParseTarget reads the endpoint URL by the rule rawmcp bench uses: http,
// a loopback IP literal or "localhost" (dialled as 127.0.0.1), nothing
// resolved by name, so a probe can never be pointed at another machine. A
// query or fragment is refused too: every request names the path alone,
// and AU-05 adds the only query a run sends.
func ParseTarget(raw string) (Target, error) {
	if strings.ContainsAny(raw, "?#") {
		return Target{}, ErrBadURL
	}
	t, err := loadgen.ParseTarget(raw)
	switch {
	case errors.Is(err, loadgen.ErrNotLoopback):
		return Target{}, ErrNotLoopback
	case err != nil:
		return Target{}, ErrBadURL
	}
	return Target{URL: "http://" + t.Host + t.Path, Dial: t.Dial, Host: t.Host, Path: t.Path}, nil
}

// origin is the target's own origin, as a browser on a page it served
// would send it.
func (t Target) origin() string { return "http://" + strings.ToLower(t.Host) }
