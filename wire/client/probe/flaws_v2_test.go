package probe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe"
)

// modernFlaw is a flaw of the V2 and era checks: the proxy breaks the
// modern reference server (modernRef, dual-era unless modernOnly, a
// resource server for alice's token) in one way, or, for the era checks,
// rawmcp, a 2025-11-25 server.
type modernFlaw struct {
	flawCase
	legacy     bool // rawmcp behind the proxy instead of the modern reference
	modernOnly bool // the reference without its 2025-11-25 side
}

// The modern request's parts a flaw reads.
var (
	modernClaim = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	modernMeta  = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

// bodyOf is a request body's id, method and params.name, "" each where absent.
func bodyOf(r *proxied) (id, method, name string) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	json.Unmarshal(r.body, &m)
	return string(m.ID), m.Method, m.Params.Name
}

// rpcRefusal is status with a JSON-RPC error code for the request's id.
func rpcRefusal(r *proxied, status string, code string) []byte {
	id, _, _ := bodyOf(r)
	if id == "" {
		id = "null"
	}
	return answer(status, "application/json", `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":`+code+`,"message":"flaw"}}`)
}

func isModern(r *proxied) bool { return r.get("MCP-Protocol-Version") == "2026-07-28" }

// onMethod is a response flaw applied to the answers of one Mcp-Method.
func onMethod(method string, change func(body []byte) []byte) flaw {
	return flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
		if r.get("Mcp-Method") != method {
			return ans
		}
		return withBody(ans, change)
	}}
}

func replacing(old, new string) func([]byte) []byte {
	return func(b []byte) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
}

var v2Flaws = []modernFlaw{
	{flawCase: flawCase{check: "V2-01", name: "server/discover without ttlMs", want: probe.Fail, says: "ttlMs is not a number >= 0",
		flaw: onMethod("server/discover", replacing(`"ttlMs":60000,`, ""))}},
	{flawCase: flawCase{check: "V2-02", name: "server/discover without serverInfo", want: probe.Warn, says: "no serverInfo",
		flaw: onMethod("server/discover", replacing(`"io.modelcontextprotocol/serverInfo":{"name":"modernref","version":"1"}`, ""))}},
	{flawCase: flawCase{check: "V2-03", name: "_meta's version not compared with the header", want: probe.Fail, says: "the request was served",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if isModern(r) {
				r.body = bytes.Replace(r.body, []byte(`protocolVersion":"2025-11-25"`), []byte(`protocolVersion":"2026-07-28"`), 1)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-04", name: "a missing version header taken from _meta", want: probe.Fail, says: "the request was served",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "POST" && r.get("MCP-Protocol-Version") == "" && bytes.Contains(r.body, []byte(modernClaim)) {
				r.set("MCP-Protocol-Version", "2026-07-28")
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-05", name: "a future version refused without the supported list", want: probe.Fail, says: "without a list of supported versions",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.get("MCP-Protocol-Version") == "2099-12-31" {
				return rpcRefusal(r, "400 Bad Request", "-32022")
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-06", name: "1900-01-01 answered plain-text 400", want: probe.Fail, says: "with no JSON-RPC error",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.get("MCP-Protocol-Version") == "1900-01-01" {
				return answer("400 Bad Request", "text/plain; charset=utf-8", "Unsupported protocol version\n")
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-07", name: "a request without _meta served", want: probe.Fail, says: "the request was served",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if isModern(r) {
				r.body = bytes.Replace(r.body, []byte(`"params":{}`), []byte(`"params":{"_meta":`+modernMeta+`}`), 1)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-08", name: "a _meta without clientCapabilities served", want: probe.Fail, says: "the request was served",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if isModern(r) && !bytes.Contains(r.body, []byte("clientCapabilities")) {
				r.body = bytes.Replace(r.body, []byte(modernClaim), []byte(modernClaim+`,"io.modelcontextprotocol/clientCapabilities":{}`), 1)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-08", name: "a _meta without clientCapabilities refused with -32021", want: probe.Fail,
		says: "answered 400 with JSON-RPC error -32021, not -32602",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if isModern(r) && bytes.Contains(r.body, []byte(modernClaim)) && !bytes.Contains(r.body, []byte("clientCapabilities")) {
				return rpcRefusal(r, "400 Bad Request", "-32021")
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-09", name: "clientInfo required", want: probe.Fail, says: "without clientInfo (optional) answered 400",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if isModern(r) && bytes.Contains(r.body, []byte(modernClaim)) && !bytes.Contains(r.body, []byte("clientInfo")) {
				return rpcRefusal(r, "400 Bad Request", "-32602")
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-10", name: "a missing Mcp-Method taken from the body", want: probe.Fail, says: "the request was served",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if _, method, _ := bodyOf(r); isModern(r) && r.get("Mcp-Method") == "" && method != "" {
				r.set("Mcp-Method", method)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-11", name: "Mcp-Method not compared with the body", want: probe.Fail, says: "the request was served",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if _, method, _ := bodyOf(r); isModern(r) && method != "" && r.get("Mcp-Method") != "" && !strings.EqualFold(r.get("Mcp-Method"), method) {
				r.set("Mcp-Method", method)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-12", name: "Mcp-Method compared case-insensitively", want: probe.Fail, says: "the request was served",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if _, method, _ := bodyOf(r); isModern(r) && r.get("Mcp-Method") != method && strings.EqualFold(r.get("Mcp-Method"), method) {
				r.set("Mcp-Method", method)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-13", name: "lower-case field names not recognised", want: probe.Fail, says: "with the field names in lower case answered 400",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if strings.Contains(r.head, "\r\nmcp-method:") {
				return rpcRefusal(r, "400 Bad Request", "-32020")
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-14", name: "a missing Mcp-Name taken from the body", want: probe.Fail, says: "the request was served",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if _, method, name := bodyOf(r); isModern(r) && method == "tools/call" && r.get("Mcp-Name") == "" {
				r.set("Mcp-Name", name)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-15", name: "Mcp-Name not compared with the body", want: probe.Fail, says: "the request was served",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if _, method, name := bodyOf(r); isModern(r) && method == "tools/call" && r.get("Mcp-Name") == "rawmcp_wrong_name" {
				r.set("Mcp-Name", name)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-16", name: "a Base64-encoded Mcp-Name refused", want: probe.Fail, says: "refused as a header fault",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if strings.HasPrefix(r.get("Mcp-Name"), "=?base64?") {
				return rpcRefusal(r, "400 Bad Request", "-32020")
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-17", name: "whitespace around Mcp-Name kept in the comparison", want: probe.Fail, says: "refused as a header fault",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if regexp.MustCompile(`\r\nMcp-Name: \s`).MatchString(r.head) {
				return rpcRefusal(r, "400 Bad Request", "-32020")
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-18", name: "an unknown method answered 200 with -32601", want: probe.Fail, says: "the status is not 404",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if r.get("Mcp-Method") == "rawmcp/no-such-method" {
				return bytes.Replace(ans, []byte("HTTP/1.1 404 Not Found"), []byte("HTTP/1.1 200 OK"), 1)
			}
			return ans
		}}}},
	{flawCase: flawCase{check: "V2-19", name: "ping still served on a modern request", want: probe.Fail, says: "ping answered 200",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if isModern(r) && r.get("Mcp-Method") == "ping" {
				return served(r.body)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-20", name: "GET answered 405 without Allow", want: probe.Warn, says: "without an Allow field",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if r.method == "GET" {
				return withoutField(ans, "Allow")
			}
			return ans
		}}}},
	{flawCase: flawCase{check: "V2-21", name: "DELETE answered 204 by a dual-era server (reported, not judged)", want: probe.Info, says: "this target also speaks 2025-11-25",
		flaw: deleteServed}},
	{modernOnly: true, flawCase: flawCase{check: "V2-21", name: "DELETE answered 204 by a modern-only server", want: probe.Warn, says: "a server that speaks only 2026-07-28 answers 405",
		flaw: deleteServed}},
	{flawCase: flawCase{check: "V2-22", name: "a session id echoed", want: probe.Warn, says: "the answer carries an Mcp-Session-Id",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if id := r.get("Mcp-Session-Id"); id != "" && r.method == "POST" {
				return withField(ans, "Mcp-Session-Id", id)
			}
			return ans
		}}}},
	{flawCase: flawCase{check: "V2-23", name: "Last-Event-ID answered 400", want: probe.Warn, says: "where it was served without",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "POST" && r.get("Last-Event-ID") != "" {
				return answer("400 Bad Request", "text/plain; charset=utf-8", "can't send Last-Event-ID for POST request\n")
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-24", name: "a foreign Origin served on the modern path", want: probe.Fail, says: "any web page can drive the server",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if isModern(r) && r.get("Origin") == "http://evil.example" {
				r.drop("Origin")
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-25", name: "a notification answered 200 with a body", want: probe.Fail, says: "an accepted notification gets 202 with no body",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if id, method, _ := bodyOf(r); id == "" && strings.HasPrefix(method, "notifications/") && isModern(r) {
				return answer("200 OK", "application/json", `{}`)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-26", name: "a batch served", want: probe.Info, says: "one message per POST binds the client",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if bytes.HasPrefix(r.body, []byte("[")) {
				return answer("200 OK", "application/json", `[{"jsonrpc":"2.0","id":1,"result":{}}]`)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-27", name: "tools/list without cacheScope", want: probe.Fail, says: "cacheScope is neither public nor private",
		flaw: onMethod("tools/list", replacing(`,"cacheScope":"public"`, ""))}},
	{flawCase: flawCase{check: "V2-28", name: "a request on a tool call's stream", want: probe.Fail, says: "a request on a response stream",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if r.get("Mcp-Method") != "tools/call" || field(ans, "Content-Type") != "text/event-stream" {
				return ans
			}
			return withBody(ans, func(b []byte) []byte {
				return append([]byte(`data: {"jsonrpc":"2.0","id":"srv-1","method":"sampling/createMessage","params":{}}`+"\n\n"), b...)
			})
		}}}},
	{flawCase: flawCase{check: "V2-29", name: "a subscription acknowledged without its id", want: probe.Fail, says: "not the listen request's id",
		flaw: onMethod("subscriptions/listen", func(b []byte) []byte {
			return regexp.MustCompile(`"io.modelcontextprotocol/subscriptionId":\d+`).ReplaceAll(b, []byte(`"io.modelcontextprotocol/subscriptionId":"sub-1"`))
		})}},
	{flawCase: flawCase{check: "V2-30", name: "an invalid token served on a modern request", want: probe.Fail, says: "no token or an invalid one gets 401",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if isModern(r) && r.get("Authorization") == "Bearer rawmcp-invalid" {
				r.set("Authorization", "Bearer "+alice)
			}
			return nil
		}}}},
	{modernOnly: true, flawCase: flawCase{check: "V2-31", name: "a legacy initialize refused with a plain 400 by a modern-only server", want: probe.Warn, says: "naming none of the versions",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if _, method, _ := bodyOf(r); method == "initialize" && !bytes.Contains(r.body, []byte(modernClaim)) {
				return answer("400 Bad Request", "text/plain; charset=utf-8", "Bad Request\n")
			}
			return nil
		}}}},
	{legacy: true, flawCase: flawCase{check: "L-01", name: "server/discover answered 404 with -32601 by a legacy server", want: probe.Fail, says: "answered 404 with -32601: the TypeScript and Go SDK clients fall back to initialize on it",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.get("Mcp-Method") == "server/discover" {
				return rpcRefusal(r, "404 Not Found", "-32601")
			}
			return nil
		}}}},
	{legacy: true, flawCase: flawCase{check: "L-02", name: "initialize refused once a modern request came", want: probe.Fail, says: "could not open a session",
		flaw: flaw{request: func(p *flawProxy, r *proxied) []byte {
			seen := stateOf[struct {
				sync.Mutex
				modern bool
			}](p, "modern seen")
			seen.Lock()
			defer seen.Unlock()
			if r.get("Mcp-Method") == "server/discover" {
				seen.modern = true
			}
			if _, method, _ := bodyOf(r); seen.modern && method == "initialize" {
				return answer("400 Bad Request", "text/plain", "no")
			}
			return nil
		}}}},
}

// deleteServed answers DELETE with 204, as a 2025-11-25 server ending a
// session does.
var deleteServed = flaw{request: func(_ *flawProxy, r *proxied) []byte {
	if r.method == "DELETE" {
		return []byte("HTTP/1.1 204 No Content\r\n\r\n")
	}
	return nil
}}

// modernRefVerdicts is what the modern reference earns with -strict and
// alice's token: every V2 check passes; L-01 skips (the reference serves
// server/discover: it speaks both) and L-02 passes.
func modernRefVerdicts() map[string]probe.Verdict {
	want := map[string]probe.Verdict{"PRE-01": probe.Pass, "L-01": probe.Skip, "L-02": probe.Pass}
	for _, c := range probe.Catalogue() {
		if c.Group == "V2" {
			want[c.ID] = probe.Pass
		}
	}
	return want
}

// TestEveryRefusalRowIsACheckWithAFlaw: each row of the refusal table is
// a check of the catalogue run by the table, each check the table runs
// has its row, and each row has a flaw that makes its check fail, so a
// row cannot be added unlisted, unread or untested.
func TestEveryRefusalRowIsACheckWithAFlaw(t *testing.T) {
	if diff := cmp.Diff(probe.RefusalRows(), probe.RunByRefusal()); diff != "" {
		t.Errorf("the refusal table's rows (-) and the catalogue's checks run by it (+):\n%s", diff)
	}
	failed := map[string]bool{}
	for _, mf := range v2Flaws {
		if mf.want == probe.Fail {
			failed[mf.check] = true
		}
	}
	for _, id := range probe.RefusalRows() {
		if !failed[id] {
			t.Errorf("%s is a row of the refusal table without a flaw that fails it", id)
		}
	}
}

// TestEachModernFlawFailsItsCheck: against the modern reference (or, for
// the era checks, rawmcp) behind a proxy with one flaw, exactly the check
// for that flaw does not pass, saying why; the clean reference passes
// every V2 check. The era flaws run L alone: L-02's flaw refuses every
// initialize after a server/discover, which would break every check that
// opens a session.
func TestEachModernFlawFailsItsCheck(t *testing.T) {
	cases := append([]modernFlaw{{flawCase: flawCase{name: "no flaw: the reference passes"}}}, v2Flaws...)
	reports := make([]*probe.Report, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	for i, tt := range cases {
		upstream := ""
		// As fullOptions: many runs at once on a loaded machine, where a
		// slow answer must not read as a missing one.
		opts := probe.Options{Token: alice, Strict: true, Only: []string{"V2", "L"}, Timeout: 20 * time.Second}
		if tt.legacy {
			upstream = startRawmcp(t).Addr
			opts.Only = []string{"L"}
		} else {
			upstream = startModernRef(t, modernRef{token: alice, legacy: !tt.modernOnly})
		}
		target, err := probe.ParseTarget("http://" + startProxy(t, upstream, tt.flaw) + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { reports[i], errs[i] = probe.Run(context.Background(), target, opts) })
	}
	wg.Wait()
	for i, tt := range cases {
		t.Run(tt.check+"/"+tt.name, func(t *testing.T) {
			rep := reports[i]
			if rep == nil {
				t.Fatalf("Run: %v", errs[i])
			}
			want := modernRefVerdicts()
			switch {
			case tt.legacy:
				want = map[string]probe.Verdict{"PRE-01": probe.Pass, "L-01": probe.Pass, "L-02": probe.Pass}
			case tt.modernOnly:
				// No 2025-11-25 side: the era checks need one.
				want["L-02"] = probe.Skip
			}
			if tt.check != "" {
				want[tt.check] = tt.want
			}
			for id, v := range tt.also {
				want[id] = v
			}
			if diff := cmp.Diff(want, verdicts(rep)); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s\n%s", diff, reasons(rep))
			}
			for _, res := range rep.Results {
				if res.Check.ID == tt.check && !strings.Contains(res.Reason, tt.says) {
					t.Errorf("%s reason %q, want it to say %q", tt.check, res.Reason, tt.says)
				}
			}
		})
	}
}

// TestRevisionsReported: the preflight finds which revisions a target
// speaks, the report says them, and a check needing the other revision
// skips saying so: rawmcp speaks 2025-11-25 only, the reference both or,
// without its legacy path, 2026-07-28 only, where every V2 check passes
// and the era checks, which need a 2025-11-25 server, skip.
func TestRevisionsReported(t *testing.T) {
	for _, tt := range []struct {
		name      string
		target    func(t *testing.T) string
		revisions []string
		skips     map[string]string // check → the start of its skip reason
	}{
		{"rawmcp", func(t *testing.T) string { return startRawmcp(t).Addr }, []string{"2025-11-25"}, v2Skips("needs a target that speaks MCP 2026-07-28")},
		{"the dual-era reference", func(t *testing.T) string { return startModernRef(t, modernRef{token: alice, legacy: true}) }, []string{"2025-11-25", "2026-07-28"},
			map[string]string{"L-01": "server/discover is served"}},
		{"the modern-only reference", func(t *testing.T) string { return startModernRef(t, modernRef{token: alice}) }, []string{"2026-07-28"},
			map[string]string{"L-01": "needs a target that speaks MCP 2025-11-25", "L-02": "needs a target that speaks MCP 2025-11-25"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep := run(t, tt.target(t), probe.Options{Token: alice, Strict: true, Only: []string{"V2", "L"}})
			if diff := cmp.Diff(tt.revisions, rep.Revisions); diff != "" {
				t.Errorf("revisions (-want +got):\n%s", diff)
			}
			for _, res := range rep.Results {
				prefix, skips := tt.skips[res.Check.ID]
				switch {
				case skips && (res.Verdict != probe.Skip || !strings.HasPrefix(res.Reason, prefix)):
					t.Errorf("%s %s: %s; want a skip starting %q", res.Check.ID, res.Verdict, res.Reason, prefix)
				case !skips && res.Verdict != probe.Pass:
					t.Errorf("%s %s: %s; want a pass", res.Check.ID, res.Verdict, res.Reason)
				}
			}
			var doc struct {
				Revisions []string `json:"revisions"`
			}
			var b bytes.Buffer
			rep.WriteJSON(&b)
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil || !slicesEqual(doc.Revisions, tt.revisions) {
				t.Errorf("-json revisions %v (%v), want %v", doc.Revisions, err, tt.revisions)
			}
		})
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

// v2Skips is every V2 check skipping with reason.
func v2Skips(reason string) map[string]string {
	out := map[string]string{}
	for _, c := range probe.Catalogue() {
		if c.Group == "V2" {
			out[c.ID] = reason
		}
	}
	return out
}

// TestL01ReadsTheFallbackSignal: what a 2025-11-25 server answers a
// modern server/discover, and L-01's verdict on it, each answer standing
// in for rawmcp's 400 -32000 (which passes, TestEachModernFlawFailsItsCheck).
func TestL01ReadsTheFallbackSignal(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer func(r *proxied) []byte
		want   probe.Verdict
		says   string
	}{
		{"400 -32022 naming only legacy versions", func(r *proxied) []byte {
			id, _, _ := bodyOf(r)
			return answer("400 Bad Request", "application/json", `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32022,"message":"x","data":{"supported":["2025-11-25"],"requested":"2026-07-28"}}}`)
		}, probe.Pass, "-32022 naming only legacy versions"},
		{"400 -32022 naming 2026-07-28", func(r *proxied) []byte {
			id, _, _ := bodyOf(r)
			return answer("400 Bad Request", "application/json", `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32022,"message":"x","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`)
		}, probe.Info, "a modern error code"},
		{"400 -32020", func(r *proxied) []byte { return rpcRefusal(r, "400 Bad Request", "-32020") }, probe.Info, "a modern error code"},
		{"400 with no body", func(*proxied) []byte { return answer("400 Bad Request", "", "") }, probe.Pass, "a dual-era client falls back"},
		{"403 to the valid token", func(*proxied) []byte { return answer("403 Forbidden", "", "") }, probe.Fail, "never falls back"},
		{"500", func(*proxied) []byte { return answer("500 Internal Server Error", "", "") }, probe.Fail, "gets 400"},
		{"served under the old rules", func(r *proxied) []byte { return served(r.body) }, probe.Fail, "cannot tell it served the request"},
		{"a DiscoverResult listing only legacy versions", func(r *proxied) []byte {
			return answer("200 OK", "application/json", strings.Replace(result(r.body), `"result":{}`, `"result":{"supportedVersions":["2025-11-25"],"capabilities":{}}`, 1))
		}, probe.Fail, "clients fall back on it, but an unsupported MCP-Protocol-Version gets 400"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addr := startProxy(t, startRawmcp(t).Addr, flaw{request: func(_ *flawProxy, r *proxied) []byte {
				if r.get("Mcp-Method") == "server/discover" {
					return tt.answer(r)
				}
				return nil
			}})
			rep := run(t, addr, probe.Options{Token: alice, Only: []string{"L-01"}})
			for _, res := range rep.Results {
				if res.Check.ID == "L-01" && (res.Verdict != tt.want || !strings.Contains(res.Reason, tt.says)) {
					t.Errorf("L-01 %s: %s; want %s saying %q", res.Verdict, res.Reason, tt.want, tt.says)
				}
			}
		})
	}
}
