package probe

import (
	"encoding/json"
	"strings"
)

// eraGroup is the boundary between the revisions: what a client that
// speaks both sees from a 2025-11-25 server (L-01, L-02). V2-31, what a
// 2025-11-25 client sees from a 2026-07-28 server, is in the V2 group.
var eraGroup = group{Group{"L", "Era boundary (2025-11-25 and 2026-07-28)"}, eraLegacy, []*Check{&l01, &l02}}

// modernCodes are the JSON-RPC codes a client reads as "a modern server
// refused this request" (Transports 2026-07-28 §Backward Compatibility).
var modernCodes = []int{codeHeaderMismatch, codeMissingCapability, codeUnsupportedVersion}

// L-01: a 2025-11-25 server refuses a modern request in a way that lets a
// dual-era client fall back to initialize.
var l01 = Check{ID: "L-01", Level: Must, Source: "MCP 2025-11-25 Transports §Protocol Version Header (\"invalid or unsupported … MUST respond with 400\"); 2026-07-28 Transports §Backward Compatibility; Versioning §Compatibility matrix", Since: "2025-06-18",
	Section: "MCP 2025-11-25 Transports §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Title:  "A modern request refused so that clients fall back",
	Sends:  "server/discover and tools/list as a 2026-07-28 client sends them (skips where server/discover is served: the target speaks both)",
	Passes: "400 to each, with no body, no JSON, or a JSON-RPC error none of -32020, -32021, -32022 (a -32022 naming only legacy versions passes); 404 with -32601, 401, 403, 5xx or a 2xx fail",
	Fix:    "On a server that speaks only 2025-11-25, answer a request with MCP-Protocol-Version: 2026-07-28 with 400 and no modern error code (-32020, -32021, -32022), so that dual-era clients fall back to initialize. The Go SDK's stateful handler (v1.8.0) answers server/discover with 200, and a 404 with -32601 reads as a modern server: both stop the fallback.",
	Link:   "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header",
	run:    runL01}

func runL01(t *checkRun) outcome {
	var parts []string
	for _, method := range []string{"server/discover", "tools/list"} {
		req, id := t.modernRequest(method, "")
		r := t.must(t.send(method+" as a "+modernVersion+" client", req.Bytes(), toResponse, 0))
		if method == "server/discover" && supportsModern(r, id) {
			return t.skip("server/discover is served: the target speaks %s too, and a dual-era client stays modern", modernVersion)
		}
		e := r.errorOf()
		want := "400 without a modern error code"
		switch {
		case r.status() == 404 && e.Found && e.Code == codeMethodNotFound:
			// What the SDKs' clients do, read in their source: the
			// TypeScript SDK's probe classifier takes -32601 as legacy,
			// and the Go SDK falls back on any error but a -32022 that
			// lists a modern version.
			return t.unmet("%s answered 404 with -32601: the TypeScript and Go SDK clients fall back to initialize on it (a client that follows the 2026-07-28 text reads a modern server's unknown method and does not), but an unsupported MCP-Protocol-Version gets 400 (2025-11-25 Transports §Protocol Version Header)", method).with(want, r.said())
		case method == "server/discover" && listsVersions(r, id):
			// A DiscoverResult without 2026-07-28 in supportedVersions:
			// the official clients fall back on it, but the header named
			// a version the server does not speak, which 2025-11-25 says
			// to refuse with 400.
			return t.unmet("%s %s listing no %s version: clients fall back on it, but an unsupported MCP-Protocol-Version gets 400 (2025-11-25 Transports §Protocol Version Header)", method, r.describe(), modernVersion).with(want, r.said())
		case r.isResult(id) || is2xx(r.status()):
			return t.unmet("%s %s: an unsupported MCP-Protocol-Version gets 400 (2025-11-25 Transports), and a client cannot tell it served the request by the old rules", method, r.describe()).with(want, r.said())
		case r.status() == 401 || r.status() == 403:
			return t.unmet("%s answered %d to the run's valid token: a dual-era client takes it for an auth failure and never falls back", method, r.status()).with(want, r.said())
		case r.status() != 400:
			return t.unmet("%s %s: an unsupported MCP-Protocol-Version gets 400 (2025-11-25 Transports)", method, r.describe()).with(want, r.said())
		case e.Found && e.Code == codeUnsupportedVersion && !supportedIsModern(e.Data):
			parts = append(parts, method+" answered 400 with -32022 naming only legacy versions")
		case e.Found && containsInt(modernCodes, e.Code):
			return t.unmetAt(Informational, "%s answered 400 with %d, a modern error code: a client that follows the 2026-07-28 text stays modern and does not fall back (the TypeScript and Go SDK clients fall back on it anyway)", method, e.Code).with(want, r.said())
		default:
			parts = append(parts, method+" "+r.describe())
		}
	}
	return t.pass("%s: a dual-era client falls back to initialize", strings.Join(parts, "; "))
}

// listsVersions: the answer is a DiscoverResult, with a supportedVersions
// array (the 2025-11-25 Go SDK's sessions handler answers one, listing
// the versions it speaks).
func listsVersions(r *reply, id int64) bool {
	m, ok := r.response(id)
	if !ok || m.Result == nil {
		return false
	}
	var res struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	return json.Unmarshal(m.Result, &res) == nil && res.SupportedVersions != nil
}

// supportedIsModern: an UnsupportedProtocolVersionError's data lists a
// 2026-07-28 or later version, so a client retries with it.
func supportedIsModern(data json.RawMessage) bool {
	var d struct {
		Supported []string `json:"supported"`
	}
	json.Unmarshal(data, &d)
	for _, v := range d.Supported {
		if v >= modernVersion {
			return true
		}
	}
	return false
}

func containsInt(list []int, n int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

// L-02: the legacy path works after the modern requests were refused.
var l02 = Check{ID: "L-02", Level: Must, Source: "MCP 2025-11-25 Lifecycle; 2026-07-28 Versioning §Compatibility matrix (dual-era client, legacy server: works)",
	Section: "MCP 2025-11-25 Lifecycle", Keyword: "MUST", Binds: Server,
	Title:    "The fallback to initialize works",
	Sends:    "server/discover as a 2026-07-28 client, then initialize, notifications/initialized and a list method (or ping) on the session",
	Passes:   "a result to the list method",
	Fix:      "Keep serving initialize, notifications/initialized and the session that follows after refusing a 2026-07-28 request from the same client. Refuse the modern request on its own, leaving no state behind: no session minted, no connection closed, no limit counted against the client.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization",
	Sessions: 1, run: runL02}

func runL02(t *checkRun) outcome {
	req, _ := t.modernRequest("server/discover", "")
	first := t.must(t.send("server/discover as a "+modernVersion+" client", req.Bytes(), toResponse, 0))
	s, o := t.open(t.p.authorization(), false)
	if o != nil {
		return t.unmet("after the modern request %s", o.reason).with("a session", o.reason)
	}
	method := "ping"
	if len(t.p.listMethods) > 0 {
		method = t.p.listMethods[0]
	}
	body, id := rpc(method, "")
	r := t.must(t.postOn(method+" on the fallback session", s, body))
	if !r.isResult(id) {
		return t.unmet("after the fallback, %s %s", method, r.describe()).with("a result", r.said())
	}
	return t.pass("server/discover %s; initialize, then %s served", first.describe(), method)
}
