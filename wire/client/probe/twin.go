package probe

// The cleartext twin of an https endpoint (DP-03) and the HSTS its
// answers carry.

import (
	"net/netip"
	"net/url"
	"strconv"
)

// twinAddr is the address of the target's cleartext twin (twinAt);
// tests aim it at their own listener.
var twinAddr = twinAt

// twinAt is port 80 of the target's host, dialled as the endpoint is: a
// -resolve entry for port 80, else port 80 of the address the endpoint's
// own -resolve entry names, else the name. A run aimed at an address
// never looks the name up for its twin: that lookup would leave the
// machine the run was aimed at, and could reach another host.
func twinAt(t Target) string {
	at := t.DialAt(80)
	if aimed, err := netip.ParseAddrPort(t.Dial); err == nil && at == t.Hostname+":80" {
		return netip.AddrPortFrom(aimed.Addr(), 80).String()
	}
	return at
}

// twinFault says what is wrong with the twin's answer to a request
// whose JSON-RPC id is id (0 for the GET, which has none), "" if nothing.
// An MCP answer is one of either revision: JSON-RPC in a 2xx body, a
// DiscoverResult naming 2026-07-28 among them, or an event stream.
func twinFault(r *reply, id int64, httpsURL string) string {
	switch st := r.status(); {
	case r.resp == nil:
		return ""
	case st == 301 || st == 308:
		if loc := r.header("Location"); loc != httpsURL {
			return "redirects to " + describeLocation(loc) + ", not to " + httpsURL
		}
		return ""
	case st >= 300 && st < 400:
		return "answered " + strconv.Itoa(st) + ": a redirect that may change the method; 301 or 308 to the https URL is the one that keeps a POST"
	case st == 401:
		if _, ok := r.bearer(); ok {
			return "answered a Bearer challenge in cleartext"
		}
	case is2xx(st) && supportsModern(r, id):
		return r.describe() + ", a DiscoverResult naming " + modernVersion + ": MCP in cleartext"
	case is2xx(st) && (len(r.messages()) > 0 || r.isSSE()):
		return r.describe() + ": MCP in cleartext"
	}
	return ""
}

// describeLocation names a redirect's scheme, host and path, not its query.
func describeLocation(loc string) string {
	u, err := url.Parse(loc)
	if err != nil || loc == "" {
		return "an unreadable Location"
	}
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}

// withoutHSTS counts the 2xx answers of the checks before this one
// (DP-03 runs after the concurrent ones) that lack
// Strict-Transport-Security. A client notes the header from any secure
// answer, so the answers its ordinary traffic gets must carry it; error
// answers of a framing layer often do not (nginx's add_header without
// always), and need not.
func (t *checkRun) withoutHSTS() int {
	missing := 0
	for _, res := range t.p.earlier() {
		for _, x := range res.Exchanges {
			if x.resp == nil || !is2xx(x.resp.Status) {
				continue
			}
			if _, ok := x.resp.Get("Strict-Transport-Security"); !ok {
				missing++
			}
		}
	}
	return missing
}

// sendTo sends raw on a fresh connection to another target (DP-03's
// twin) and records the exchange.
func (t *checkRun) sendTo(to Target, step string, raw []byte) *reply {
	twin := &prober{target: to, opts: t.p.opts}
	r := twin.roundTrip(t.ctx, raw, toResponse, 0)
	r.close()
	t.record(step, raw, r)
	return r
}

// twinSilence says how the twin gave no answer: nothing listened, the
// connection closed (by a reset or by a FIN, which only timing tells
// apart when a server closes at once), or the error itself, such as a
// name that did not resolve.
func twinSilence(err error) string {
	switch how := hangUp(err); how {
	case "":
		return "no answer (" + errText(err) + ")"
	case "connection refused":
		return how
	}
	return "closed without an answer"
}
