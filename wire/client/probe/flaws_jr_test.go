package probe_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"

	"rawmcp/wire/client/probe"
)

var deepParams = regexp.MustCompile(`,"params":\{"x":\[+\]+\}`)

var jrFlaws = []flawCase{
	{check: "JR-01", name: "a batch is served as its first message", want: probe.Fail, says: "a batch with MCP-Protocol-Version: 2025-11-25 answered 200",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			var batch []json.RawMessage
			if bytes.HasPrefix(r.body, []byte("[")) && json.Unmarshal(r.body, &batch) == nil && len(batch) > 0 {
				r.body = batch[0]
			}
			return nil
		}}},
	{check: "JR-02", name: "a null id is served", want: probe.Fail, says: "a null id is no request id",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			r.body = bytes.Replace(r.body, []byte(`"id":null`), []byte(`"id":7`), 1)
			return nil
		}}},
	{check: "JR-03", name: "answers are kept by id alone", want: probe.Fail, says: "belonged to another request with the same id", flaw: answersByID()},
	{check: "JR-04", name: `a member "Method" is read as "method"`, want: probe.Fail, says: "ran \"Method\" as the method",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			r.body = bytes.Replace(r.body, []byte(`"Method":`), []byte(`"method":`), 1)
			return nil
		}}},
	{check: "JR-05", name: "of two method members the last wins", want: probe.Fail, says: "took the last of two method members",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			r.body = bytes.Replace(r.body, []byte(`"method":"rawmcp-probe/no-such-method","method":"ping"`), []byte(`"method":"ping"`), 1)
			return nil
		}}},
	{check: "JR-06", name: "an unsolicited response is answered with a body", want: probe.Fail, says: "a POSTed response gets 202",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if string(r.body) == `{"jsonrpc":"2.0","id":99,"result":{}}` {
				return served(r.body)
			}
			return nil
		}}},
	{check: "JR-07", name: "a 10 000-deep document is served", want: probe.Fail, says: "was parsed and served",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			r.body = deepParams.ReplaceAll(r.body, nil)
			return nil
		}}},
	{check: "JR-08", name: "truncated JSON is completed and served", want: probe.Fail, says: "truncated JSON answered 200",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if bytes.HasSuffix(r.body, []byte(`"method":"pi`)) {
				r.body = append(r.body, `ng"}`...)
			}
			return nil
		}}},
	{check: "JR-08", name: "truncated JSON answered 500", want: probe.Warn, says: "a 5xx says the server failed",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if bytes.HasSuffix(r.body, []byte(`"method":"pi`)) {
				return answer("500 Internal Server Error", "application/json", `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}`)
			}
			return nil
		}}},
	{check: "JR-09", name: "invalid UTF-8 is served", want: probe.Fail, says: "invalid UTF-8 answered 200",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			r.body = bytes.Replace(r.body, []byte("\xff\xfe"), []byte("ok"), 1)
			return nil
		}}},
	// JR-03 judges whose answer each is, not its code.
	{check: "JR-10", name: "an unknown method is answered with error code 0", want: probe.Fail, says: "JR-03 0",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if !bytes.Contains(r.body, []byte(`"method":"rawmcp-probe/no-such-method"`)) {
				return ans
			}
			return withBody(ans, func(body []byte) []byte { return bytes.ReplaceAll(body, []byte(`"code":-32601`), []byte(`"code":0`)) })
		}}},
	{check: "JR-11", name: "a resources/list result without its resources", want: probe.Fail,
		says: `ListResourcesResult (2025-11-25): $.result: required: "resources" is missing`, flaw: withoutResources()},
}

// resourceList is the resources member of a resources/list result.
var resourceList = regexp.MustCompile(`"resources":\[[^\]]*\],?`)

// withoutResources is a server whose resources/list results leave out
// the required resources member (still results, so every check that only
// needs the list served keeps its verdict).
func withoutResources() flaw {
	return flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
		if _, method, _ := bodyOf(r); method != "resources/list" {
			return ans
		}
		return withBody(ans, func(b []byte) []byte { return resourceList.ReplaceAll(b, nil) })
	}}
}

// answersByID is a server that keeps the answer to each request id of a
// session and hands it to the next request with that id: the first
// request with id 1 is answered, every later one gets its answer.
func answersByID() flaw {
	type kept struct {
		mu      sync.Mutex
		answers map[string][]byte // session id and request id → answer
	}
	return flaw{request: func(p *flawProxy, r *proxied) []byte {
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(r.body, &msg) != nil || string(msg.ID) != "1" {
			return nil
		}
		k := stateOf[kept](p, "answers by id")
		k.mu.Lock() // held while the first is answered, so every later one waits for it
		defer k.mu.Unlock()
		key := r.get("Mcp-Session-Id") + " 1"
		if ans, ok := k.answers[key]; ok {
			return ans
		}
		ans := p.forward(r.bytes())
		if ans != nil {
			if k.answers == nil {
				k.answers = map[string][]byte{}
			}
			k.answers[key] = ans
		}
		return ans
	}}
}

// TestAFindingShowsTheLevelItBroke: a finding's line names the level of
// the rule it found broken, not its check's: JR-10 is a MUST (error codes
// are integers), and an integer outside JSON-RPC's ranges (JR-03's
// unknown method answered with code 0) is its hardening point, a warn the
// line calls H, as -json's "broke" does. The details still say the
// check's level.
func TestAFindingShowsTheLevelItBroke(t *testing.T) {
	srv := startRawmcp(t)
	rep := run(t, startProxy(t, srv.Addr, flawFor(t, "JR-10").flaw), probe.Options{Token: alice, Only: []string{"JR-03", "JR-10"}})
	var text, page, doc strings.Builder
	if err := rep.WriteTextWith(&text, probe.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&doc); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ where, doc, want string }{
		{"the text line", text.String(), "warn  JR-10  Error codes are integers in JSON-RPC's ranges (H)\n"},
		{"the HTML heading", page.String(), `<code>JR-10</code> Error codes are integers in JSON-RPC&#39;s ranges <span class="level">H</span>`},
		{"the HTML details", page.String(), "<br>Level MUST."},
		{"the JSON", doc.String(), `"level": "MUST",`},
		{"the JSON", doc.String(), `"verdict": "warn",
      "broke": "H",`},
	} {
		if !strings.Contains(tt.doc, tt.want) {
			t.Errorf("%s lacks %q:\n%s", tt.where, tt.want, tt.doc)
		}
	}
}
