package probe

// What in an event-stream answer invites a proxy to buffer or cache it
// (DP-10).

import (
	"strings"
)

func isSSEResponse(x Exchange) bool {
	return (&reply{resp: x.resp}).isSSE()
}

// bufferingFault says what in an SSE answer invites a proxy to buffer or
// cache it ("" if nothing), and whether the answer came through nginx
// (where a missing X-Accel-Buffering is expected).
func bufferingFault(x Exchange) (fault string, behindNginx bool) {
	for _, name := range []string{"Server", "Via"} {
		for _, v := range x.resp.Values(name) {
			behindNginx = behindNginx || strings.Contains(strings.ToLower(v), "nginx")
		}
	}
	var faults []string
	accel, _ := x.resp.Get("X-Accel-Buffering")
	if !strings.EqualFold(strings.TrimSpace(accel), "no") && !behindNginx {
		faults = append(faults, "no X-Accel-Buffering: no")
	}
	if !cacheControlForbidsStore(x.resp.Values("Cache-Control")) {
		faults = append(faults, "no Cache-Control no-cache or no-store")
	}
	if _, ok := x.resp.Get("Age"); ok {
		faults = append(faults, "Age (served by a cache)")
	}
	for _, name := range []string{"X-Cache", "X-Cache-Status", "CF-Cache-Status", "X-Proxy-Cache"} {
		if v, _ := x.resp.Get(name); strings.Contains(strings.ToUpper(v), "HIT") {
			faults = append(faults, name+": "+quoteInfo(v))
		}
	}
	return strings.Join(faults, ", "), behindNginx && len(faults) == 0 && !strings.EqualFold(strings.TrimSpace(accel), "no")
}

func cacheControlForbidsStore(values []string) bool {
	for _, v := range values {
		for _, d := range strings.Split(v, ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(d), "=")
			if strings.EqualFold(name, "no-cache") || strings.EqualFold(name, "no-store") {
				return true
			}
		}
	}
	return false
}

// hopNamed names the hop an answer came through, "" when it names none:
// any Via (RFC 9110 §7.6.3: each proxy adds itself), or a Server that is
// a known proxy's. Only then is a missing field blamed on a hop rather
// than on the server, which is then the check of that field's finding.
func hopNamed(r *reply) string {
	if r.resp == nil {
		return ""
	}
	if via, _ := r.resp.Get("Via"); via != "" {
		return "a hop (Via: " + quoteInfo(cut(via, 60)) + ")"
	}
	server, _ := r.resp.Get("Server")
	for _, proxy := range []string{"nginx", "openresty", "caddy", "haproxy", "envoy", "traefik", "cloudflare", "varnish", "awselb", "apache"} {
		if strings.Contains(strings.ToLower(server), proxy) {
			return "a hop (Server: " + quoteInfo(cut(server, 60)) + ")"
		}
	}
	return ""
}
