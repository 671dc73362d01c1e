package probe

import (
	"bytes"
	"mime"
	"sort"
	"strconv"
	"strings"

	"rawmcp/wire/client"
	"rawmcp/wire/rule"
)

// ehGroup is the EH group: each check is declared right above its run
// function; a check is in the catalogue when it is in this list.
var ehGroup = group{Group{"EH", "Error hygiene"}, eraBoundary, []*Check{&eh01, &eh02}}

// EH-01: nothing the client sent comes back. EH-01 sends a marker in
// each place a server is known to echo from (Host, Origin, the version
// and session headers, the token, the query, a header name, the JSON
// body), then scans every response of the run, its own and every other
// check's, for a marker or any of the run's real tokens.
var eh01 = Check{asks: askEither, ID: "EH-01", Level: Hardening, Source: "OWASP Error Handling Cheat Sheet", Rule: rule.NoSecretsInOutput,
	Section: "OWASP Error Handling Cheat Sheet (nothing of a request echoed)", Keyword: "", Binds: Profile,
	Title:    "Nothing echoed",
	Sends:    "random markers in Host, Origin, MCP-Protocol-Version, Mcp-Session-Id, the token, the query, a header name and the body; runs last",
	Passes:   "no response of the run carries a marker or a real token",
	Fix:      "Do not copy request data (Host, other headers, the session id, the token, the body) into responses, error messages above all: say what was wrong without quoting it. The SDKs probed echo the Host, the version header or the body in their error texts, so replace those with fixed texts in the web framework's error handler or a middleware.",
	Link:     "https://cheatsheetseries.owasp.org/cheatsheets/Error_Handling_Cheat_Sheet.html",
	Sessions: 2, Opens: 1, phase: phaseEchoScan, run: runEH01}

func runEH01(t *checkRun) outcome {
	m := t.p.markers
	init := func(edits ...fieldEdit) []byte {
		req, _ := t.opening(edits...)
		return req.Bytes()
	}
	// ping on the session (server/discover on a 2026-07-28-only target).
	pingWith := func(edits ...fieldEdit) []byte {
		body, _ := rpc(t.plainMethod(), t.plainParams(""))
		return edit(t.rpcRequest(t.plainMethod(), body), edits...).Bytes()
	}
	query, _ := t.opening()
	query.Path += "?" + m.query + "=" + m.query
	unknown, _ := rpc(m.body, t.plainParams(""))
	answered := 0
	for _, x := range []struct {
		where string
		raw   []byte
	}{
		{"Host", init(set("Host", m.host+".invalid"))},
		{"Origin", init(set("Origin", "http://"+m.origin+".invalid"))},
		{"MCP-Protocol-Version", pingWith(set("MCP-Protocol-Version", m.version))},
		{"Mcp-Session-Id", pingWith(set("Mcp-Session-Id", m.session))},
		{"the token", init(set("Authorization", "Bearer "+m.token))},
		{"the query", query.Bytes()},
		{"a header name", pingWith(set("X-"+m.name, "1"))},
		{"the JSON body", t.rpcRequest(m.body, unknown).Bytes()},
	} {
		if r := t.send("a marker in "+x.where, x.raw, toResponse, 0); r.resp != nil {
			answered++
		}
	}
	if answered == 0 {
		return t.errored("none of the marker requests was answered: nothing to scan")
	}

	places := map[string]string{m.host: "the Host marker", m.origin: "the Origin marker", m.version: "the version marker",
		m.session: "the session marker", m.token: "the token marker", m.query: "the query marker",
		m.name: "the header-name marker", m.body: "the body marker"}
	// A token shorter than client.MinSecret is not looked for: its bytes
	// occur by chance, so finding them says nothing. The reason says so.
	secrets, short := &client.Redactor{}, 0
	for _, tok := range t.p.tokens() {
		secrets.AddToken(tok)
		if len(tok) < client.MinSecret {
			short++
		}
	}
	leaks := map[string][]string{} // what leaked → the checks it leaked in
	scan := func(check string, exchanges []Exchange) {
		for _, x := range exchanges {
			for marker, what := range places {
				if bytes.Contains(x.raw, []byte(marker)) {
					leaks[what] = appendOnce(leaks[what], check)
				}
			}
			for _, label := range secrets.Found(x.raw) {
				leaks["the token "+label] = appendOnce(leaks["the token "+label], check)
			}
		}
	}
	for _, res := range t.p.earlier() {
		scan(res.Check.ID, res.Exchanges)
	}
	scan(t.check.ID, t.exchanges)
	if len(leaks) > 0 {
		return t.unmet("echoed %s", describeLeaks(leaks)).with("no marker or token in any answer", describeLeaks(leaks))
	}
	unsearched := ""
	if short > 0 {
		unsearched = " (" + plural(short, "token") + " shorter than " + strconv.Itoa(client.MinSecret) + " bytes not looked for)"
	}
	return t.pass("no marker and no token in %s%s", plural(t.responsesScanned(), "response"), unsearched)
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// describeLeaks lists what leaked where, in a stable order.
func describeLeaks(leaks map[string][]string) string {
	var parts []string
	for what, checks := range leaks {
		parts = append(parts, what+" (in "+strings.Join(checks, ", ")+")")
	}
	sort.Strings(parts)
	return joinAnd(parts)
}

// responsesScanned counts the responses of the run so far, this check's
// included.
func (t *checkRun) responsesScanned() int {
	n := 0
	for _, res := range t.p.earlier() {
		for _, x := range res.Exchanges {
			if x.resp != nil {
				n++
			}
		}
	}
	for _, x := range t.exchanges {
		if x.resp != nil {
			n++
		}
	}
	return n
}

// EH-02: an error answer is never a document a browser would sniff into
// HTML: its body is JSON, or it says nosniff. EH-02 makes three error
// answers of its own (a method not served, broken JSON, a path that does
// not exist) and judges every 4xx and 5xx of the run.
var eh02 = Check{ID: "EH-02", Level: Hardening, Source: "browser content sniffing", Rule: "",
	Section: "browser content sniffing", Keyword: "", Binds: Profile,
	Title:    "Error bodies are not sniffable",
	Sends:    "three error requests of its own (PUT, broken JSON, an unknown path); runs after the other checks",
	Passes:   "every 4xx and 5xx body of the run is application/json (or +json) or nosniff, and none is HTML",
	Fix:      "Send every error answer as application/json (a JSON-RPC error) or with X-Content-Type-Options: nosniff, never as an HTML page. What fails are Express's default HTML pages, the text/plain 400s Go's net/http writes before any handler, and proxies' own HTML error pages (replace them with nginx error_page or HAProxy errorfile).",
	Link:     "https://fetch.spec.whatwg.org/#x-content-type-options-header",
	Sessions: 0, phase: phaseScan, run: runEH02}

func runEH02(t *checkRun) outcome {
	t.send("PUT", t.request("PUT", nil, []byte("{}")).Bytes(), toHead, 0)
	t.send("broken JSON", t.request("POST", nil, []byte(`{"jsonrpc":`)).Bytes(), toResponse, 0)
	missing := "GET /rawmcp-probe-missing HTTP/1.1\r\nHost: " + t.p.target.Host + "\r\n\r\n"
	t.send("GET a path that does not exist", []byte(missing), toEnd, 0)

	var faults []string
	judged := 0
	judge := func(check string, exchanges []Exchange) {
		for _, x := range exchanges {
			if x.resp == nil || x.resp.Status < 400 || len(x.resp.Body) == 0 {
				continue
			}
			judged++
			if fault := sniffable(x); fault != "" && len(faults) < 5 {
				faults = append(faults, check+" "+strconv.Itoa(x.resp.Status)+" "+fault)
			}
		}
	}
	for _, res := range t.p.earlier() {
		judge(res.Check.ID, res.Exchanges)
	}
	judge(t.check.ID, t.exchanges)
	switch {
	case len(faults) > 0:
		return t.unmet("error bodies a browser may render as a page: %s", joinAnd(faults)).with("application/json or nosniff on every error body, and none HTML", joinAnd(faults))
	case judged == 0:
		return t.skip("no error answer with a body in the run: nothing to judge")
	}
	return t.pass("%s with a body, each JSON or nosniff", plural(judged, "error answer"))
}

// sniffable says what is wrong with an error answer's type, "" if
// nothing: HTML, which a browser renders whatever X-Content-Type-Options
// says, or a type other than JSON without nosniff, which it may sniff
// into HTML. An answer with nosniff is never called sniffable.
func sniffable(x Exchange) string {
	ct, _ := x.resp.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	nosniff := false
	for _, v := range x.resp.Values("X-Content-Type-Options") {
		nosniff = nosniff || strings.EqualFold(strings.TrimSpace(v), "nosniff")
	}
	switch {
	case (mt == "text/html" || mt == "application/xhtml+xml") && scriptsForbidden(x.resp.Values("Content-Security-Policy")):
		return "" // a page no script can run in: what it shows is inert
	case (mt == "text/html" || mt == "application/xhtml+xml") && nosniff:
		return "is HTML (nosniff does not stop a browser rendering it)"
	case mt == "text/html" || mt == "application/xhtml+xml":
		return "is HTML"
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return ""
	case nosniff:
		return ""
	case mt == "":
		return "has no Content-Type and no nosniff (a browser may sniff it)"
	}
	return "is " + mt + " without nosniff (a browser may sniff it)"
}

// scriptsForbidden reports a Content-Security-Policy under which a page
// runs no script: script-src 'none', or default-src 'none' without a
// script-src (web routers' default error pages send the latter).
func scriptsForbidden(policies []string) bool {
	for _, policy := range policies {
		directives := map[string]string{}
		for _, d := range strings.Split(policy, ";") {
			name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
			directives[strings.ToLower(name)] = strings.TrimSpace(value)
		}
		if src, ok := directives["script-src"]; ok {
			if src == "'none'" {
				return true
			}
			continue
		}
		if directives["default-src"] == "'none'" {
			return true
		}
	}
	return false
}
