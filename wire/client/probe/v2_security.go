package probe

import (
	"encoding/json"
	"net/url"
	"strings"

	"rawmcp/wire/client"
)

// V2-24: a foreign Origin gets 403 on the modern path; a foreign Host is
// refused (hardening, as HO-01).
var v224 = Check{ID: "V2-24", Level: Must, Source: "MCP 2026-07-28 Transports §Security Warning (\"MUST respond with HTTP 403 Forbidden\"); Host: MCP Security Best Practices (H)", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Security Warning", Keyword: "MUST", Binds: Server,
	Line:   "Foreign Origin refused on the modern path",
	Sends:  "server/discover with Origin: http://evil.example; then with Host: evil.example (no Origin)",
	Passes: "403 to the Origin (MUST); a 4xx to the Host (H); the official suite sends both at once and accepts any 4xx",
	run:    runV224}

func runV224(t *checkRun) outcome {
	if _, _, o := t.control("server/discover", ""); o != nil {
		return *o
	}
	req, _ := t.modernRequest("server/discover", "", set("Origin", foreignOrigin))
	r := t.send("server/discover with Origin: "+foreignOrigin, req.Bytes(), toResponse, 0)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	switch {
	case is2xx(r.status()):
		return t.unmet("%s for Origin: %s: any web page can drive the server", r.describe(), foreignOrigin).with("403", r.said()+" for Origin: "+foreignOrigin)
	case r.status() != 403:
		return t.unmet("answered %d for Origin: %s: a foreign Origin gets 403 Forbidden", r.status(), foreignOrigin).with("403", r.said()+" for Origin: "+foreignOrigin)
	}
	req, _ = t.modernRequest("server/discover", "", set("Host", foreignHost))
	h := t.send("server/discover with Host: "+foreignHost, req.Bytes(), toResponse, 0)
	if o := t.unjudgeable(h); o != nil {
		return *o
	}
	if !is4xx(h.status()) {
		return t.unmetAt(Hardening, "Origin refused with 403, but %s for Host: %s: a page on a DNS-rebinding name reaches the server", h.describe(), foreignHost).
			with("a 4xx", h.said()+" for Host: "+foreignHost)
	}
	return t.pass("answered 403 to Origin: %s and %d to Host: %s", foreignOrigin, h.status(), foreignHost)
}

// V2-28: what an event stream of a modern answer may carry.
var v228 = Check{ID: "V2-28", Level: Must, Source: "MCP 2026-07-28 Transports §Sending Messages (no requests on the stream: MUST NOT; X-Accel-Buffering: SHOULD); Changelog item 5 (no notifications/message without logLevel: MUST NOT)", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Sending Messages", Keyword: "MUST", Binds: Server,
	Line:   "Modern event streams carry no requests",
	Sends:  "nothing: reads every event-stream answer of the V2 checks",
	Passes: "no event holds a JSON-RPC request or notifications/message (MUST NOT); each stream says X-Accel-Buffering: no (SHOULD); skips when no answer was a stream",
	phase:  phaseScan, run: runV228}

func runV228(t *checkRun) outcome {
	streams := 0
	var requests, logs, unbuffered []string
	for _, res := range t.p.earlier() {
		if res.Check.Group != "V2" && !strings.HasPrefix(res.Check.ID, "V2-") {
			continue
		}
		for _, x := range res.Exchanges {
			if x.resp == nil || !strings.HasPrefix(x.Request, "POST ") {
				continue
			}
			r := &reply{resp: x.resp}
			if !r.isSSE() {
				continue
			}
			streams++
			for _, m := range r.messages() {
				switch {
				case m.Method != "" && m.ID != nil && string(m.ID) != "null":
					requests = append(requests, res.Check.ID+" ("+m.Method+")")
				case m.Method == "notifications/message":
					logs = append(logs, res.Check.ID)
				}
			}
			if !strings.EqualFold(r.header("X-Accel-Buffering"), "no") {
				unbuffered = append(unbuffered, res.Check.ID)
			}
		}
	}
	switch {
	case streams == 0:
		return t.skip("no V2 answer was an event stream")
	case len(requests) > 0:
		return t.unmet("a request on a response stream: %s (MUST NOT)", joinAnd(dedupe(requests))).with("notifications and the response only", "a request in "+joinAnd(dedupe(requests)))
	case len(logs) > 0:
		return t.unmet("notifications/message on the stream of a request without logLevel: %s (MUST NOT)", joinAnd(dedupe(logs))).with("no log notifications", "notifications/message in "+joinAnd(dedupe(logs)))
	case len(unbuffered) > 0:
		return t.unmetAt(Should, "event streams without X-Accel-Buffering: no: %s (a proxy may hold them)", joinAnd(dedupe(unbuffered))).with("X-Accel-Buffering: no", "missing in "+joinAnd(dedupe(unbuffered)))
	}
	return t.pass("%s, no request or log notification on them, each with X-Accel-Buffering: no", plural(streams, "event stream"))
}

func dedupe(list []string) []string {
	var out []string
	for _, s := range list {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// V2-30: the resource-server boundary on modern requests.
var v230 = Check{ID: "V2-30", Level: Must, Source: "MCP 2026-07-28 Authorization §Token Handling (401 for invalid tokens: MUST; scope in the challenge: SHOULD; no offline_access: SHOULD NOT); Authorization Server Discovery (resource_metadata or well-known: MUST; authorization_servers: MUST)", Needs: NeedModern | NeedAuth,
	Section: "MCP 2026-07-28 Authorization §Token Handling", Keyword: "MUST", Binds: Server,
	Line:   "Modern requests need a token",
	Sends:  "server/discover without a token and with Bearer rawmcp-invalid; GET the metadata the challenge names (or the well-known paths)",
	Passes: "401 to both with a Bearer challenge; metadata with authorization_servers (MUST); scope in the challenge (SHOULD); no offline_access (SHOULD NOT)",
	run:    runV230}

func runV230(t *checkRun) outcome {
	if _, _, o := t.control("server/discover", ""); o != nil {
		return *o
	}
	req, _ := t.modernRequest("server/discover", "", drop("Authorization"))
	bare := t.send("server/discover without a token", req.Bytes(), toResponse, 0)
	req, _ = t.modernRequest("server/discover", "", set("Authorization", "Bearer rawmcp-invalid"))
	bad := t.send("server/discover with Bearer rawmcp-invalid", req.Bytes(), toResponse, 0)
	for _, r := range []*reply{bare, bad} {
		if r.resp == nil {
			return t.errored("%s %s", r.step, r.describe())
		}
		if r.status() != 401 {
			return t.unmet("%s %s: no token or an invalid one gets 401", r.step, r.describe()).with("401", r.said())
		}
	}
	c, ok := bare.bearer()
	if !ok {
		return t.unmet("401 without a Bearer challenge").with("401 with WWW-Authenticate: Bearer", "401 without it")
	}
	var paths []string
	if u, err := url.Parse(c.Params["resource_metadata"]); c.Params["resource_metadata"] != "" && err == nil &&
		u.Scheme == t.p.target.Scheme && strings.EqualFold(u.Host, t.p.target.Host) {
		paths = append(paths, u.EscapedPath())
	}
	paths = append(paths, t.p.target.MetadataPaths...)
	var prm struct {
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	found := ""
	for _, path := range paths {
		get := client.Request{Method: "GET", Path: path, Header: [][2]string{{"Host", t.p.target.Host}, {"Accept", "application/json"}}}
		m := t.send("GET the metadata, no token", get.Bytes(), toEnd, 0)
		if m.status() == 200 && json.Unmarshal(m.resp.Body, &prm) == nil {
			found = path
			break
		}
	}
	switch {
	case found == "":
		return t.unmet("no Protected Resource Metadata at %s", joinAnd(paths)).with("metadata at resource_metadata or a well-known path", "none")
	case len(prm.AuthorizationServers) == 0:
		return t.unmet("the metadata at %s lists no authorization_servers", found).with("a non-empty authorization_servers", "none")
	case strings.Contains(" "+c.Params["scope"]+" ", " offline_access ") || contains(prm.ScopesSupported, "offline_access"):
		return t.unmetAt(Should, "offline_access offered in the challenge's scope or the metadata's scopes_supported (SHOULD NOT)").with("no offline_access", "offline_access")
	case c.Params["scope"] == "":
		return t.unmetAt(Should, "the challenge names no scope (SHOULD)").with("a Bearer challenge with scope", "none")
	}
	return t.pass("401 to no token and to an invalid one; metadata at %s with %s; scope %q", found, plural(len(prm.AuthorizationServers), "authorization server"), c.Params["scope"])
}
