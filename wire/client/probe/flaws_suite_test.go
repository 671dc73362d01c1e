package probe_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sync"
	"testing"

	"rawmcp/wire/client/probe"
)

// The flaws of the checks that close the gap to the official conformance
// suite (V2-32 to V2-38 against the modern reference, RS-04 against
// rawmcp), kept apart from the group tables they join.
func init() {
	v2Flaws = append(v2Flaws, suiteV2Flaws...)
	rsFlaws = append(rsFlaws, suiteRSFlaws...)
}

var suiteV2Flaws = []modernFlaw{
	{flawCase: flawCase{check: "V2-32", name: "a _meta without protocolVersion taken for the header's version", want: probe.Fail, says: "the request was served",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if isModern(r) && bytes.Contains(r.body, []byte("clientCapabilities")) && !bytes.Contains(r.body, []byte("protocolVersion")) {
				r.body = bytes.Replace(r.body, []byte(`"_meta":{`), []byte(`"_meta":{`+modernClaim+`,`), 1)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-33", name: "prompts served but not declared", want: probe.Fail, says: "serves prompts/list but declares no prompts capability",
		flaw: onMethod("server/discover", replacing(`,"prompts":{}`, ""))}},
	{flawCase: flawCase{check: "V2-34", name: "resources/read without cacheScope", want: probe.Fail, says: "resources/read: cacheScope is neither public nor private",
		flaw: onMethod("resources/read", replacing(`,"cacheScope":"public"`, ""))}},
	{flawCase: flawCase{check: "V2-35", name: "tools/list in a new order each time", want: probe.Warn, says: "the first [echo, ",
		flaw: reorderedTools()}},
	{flawCase: flawCase{check: "V2-36", name: "an unknown resource read as empty contents", want: probe.Fail, says: "with an empty contents array",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.get("Mcp-Method") == "resources/read" && !bytes.Contains(r.body, []byte(`"ref://doc"`)) {
				id, _, _ := bodyOf(r)
				return answer("200 OK", "application/json", `{"jsonrpc":"2.0","id":`+id+`,"result":{"contents":[],"resultType":"complete","ttlMs":0,"cacheScope":"public"}}`)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-37", name: "Mcp-Param-Region taken from the body", want: probe.Fail, says: "Mcp-Param-Region different from the argument answered 200",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			var m struct {
				Params struct {
					Arguments struct {
						Region *string `json:"region"`
					} `json:"arguments"`
				} `json:"params"`
			}
			if _, _, name := bodyOf(r); name == "route" && json.Unmarshal(r.body, &m) == nil && m.Params.Arguments.Region != nil {
				r.set("Mcp-Param-Region", *m.Params.Arguments.Region)
			}
			return nil
		}}}},
	{flawCase: flawCase{check: "V2-38", name: "Mcp-Name not compared on resources/read", want: probe.Fail, says: "resources/read without Mcp-Name answered 200",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			var m struct {
				Params struct {
					URI string `json:"uri"`
				} `json:"params"`
			}
			if r.get("Mcp-Method") == "resources/read" && json.Unmarshal(r.body, &m) == nil {
				r.set("Mcp-Name", m.Params.URI)
			}
			return nil
		}}}},
}

// toolsArray is the tools member of a tools/list result.
var toolsArray = regexp.MustCompile(`"tools":\[.*\]`)

// reorderedTools is a server whose tools/list lists echo first and then
// its other tools (route and five more) in a new order for every
// tools/list it answers: the n-th answer has the n-th of the 720 orders,
// so no two answers of a run share one.
func reorderedTools() flaw {
	type counter struct {
		mu sync.Mutex
		n  int
	}
	return flaw{response: func(p *flawProxy, r *proxied, ans []byte) []byte {
		if r.get("Mcp-Method") != "tools/list" {
			return ans
		}
		c := stateOf[counter](p, "tools/list answers")
		c.mu.Lock()
		n := c.n
		c.n++
		c.mu.Unlock()
		rest := []string{`{"name":"route","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}},"required":["region","query"]}}`}
		for _, name := range []string{"a", "b", "c", "d", "e"} {
			rest = append(rest, `{"name":"`+name+`","inputSchema":{"type":"object"}}`)
		}
		// The n-th permutation of rest (factorial number system).
		var order []string
		for k := len(rest); k > 0; k-- {
			f := 1
			for i := 2; i < k; i++ {
				f *= i
			}
			i := n / f % k
			order = append(order, rest[i])
			rest = append(rest[:i:i], rest[i+1:]...)
		}
		list := `"tools":[{"name":"echo","inputSchema":{"type":"object"}}`
		for _, tool := range order {
			list += "," + tool
		}
		return withBody(ans, func(b []byte) []byte { return toolsArray.ReplaceAll(b, []byte(list+"]")) })
	}}
}

var suiteRSFlaws = []flawCase{
	{check: "RS-04", name: "each GET stream leaks a session slot: after a dozen the session fails", want: probe.Fail,
		says: "GET streams on the session were abandoned, a request answered 500", flaw: leaksStreamSlots()},
}

// tally counts by key.
type tally struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *tally) add(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[key]++
	return c.n[key]
}

func (c *tally) of(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

// leaksStreamSlots is a server that keeps a slot of the session for every
// GET stream and never gives it back: from the twelfth on, the session's
// POSTs get 500.
func leaksStreamSlots() flaw {
	return flaw{request: func(p *flawProxy, r *proxied) []byte {
		session := r.get("Mcp-Session-Id")
		if session == "" {
			return nil
		}
		streams := stateOf[tally](p, "GET streams")
		switch {
		case r.method == "GET":
			streams.add(session)
		case r.method == "POST" && streams.of(session) >= 12:
			return answer("500 Internal Server Error", "application/json", `{"jsonrpc":"2.0","error":{"code":-32603,"message":"no stream slot left"}}`)
		}
		return nil
	}}
}

// TestV238SaysWhyNothingWasListed: a target that serves neither
// resources/list nor prompts/list (the TypeScript SDK v2 answers both 404
// with -32601 when it has no resources or prompts) leaves V2-38 nothing
// to call, and its skip says what the lists answered, not that they list
// nothing.
func TestV238SaysWhyNothingWasListed(t *testing.T) {
	unserved := flaw{request: func(_ *flawProxy, r *proxied) []byte {
		if m := r.get("Mcp-Method"); m == "resources/list" || m == "prompts/list" {
			return rpcRefusal(r, "404 Not Found", "-32601")
		}
		return nil
	}}
	addr := startProxy(t, startModernRef(t, modernRef{token: alice, legacy: true}), unserved)
	rep := run(t, addr, probe.Options{Token: alice, Only: []string{"V2-38"}})
	for _, res := range rep.Results {
		if res.Check.ID != "V2-38" {
			continue
		}
		want := "nothing to call with Mcp-Name: resources/list answered 404 with JSON-RPC error -32601 and prompts/list answered 404 with JSON-RPC error -32601"
		if res.Verdict != probe.Skip || res.Reason != want {
			t.Errorf("V2-38 %s: %q, want skip: %q", res.Verdict, res.Reason, want)
		}
		return
	}
	t.Fatal("V2-38 did not run")
}
