package probe_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe"
)

// olderServer is a server that speaks 2025-03-26 and nothing later, as
// that revision wrote it: it negotiates 2025-03-26 whatever is proposed
// (negotiates), refuses a request carrying 2025-11-25, receives JSON-RPC
// batches (a result for each request), and refuses a foreign Origin with
// 400, since 2025-03-26 asked only that Origin be validated.
func olderServer() flaw {
	negotiated := negotiates("2025-03-26", false)
	return flaw{
		request: func(p *flawProxy, r *proxied) []byte {
			switch {
			case r.get("Origin") == foreignOrigin:
				return answer("400 Bad Request", "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: invalid Origin"}}`)
			case r.method == "POST" && bytes.HasPrefix(r.body, []byte("[")):
				var batch []json.RawMessage
				json.Unmarshal(r.body, &batch)
				var results []string
				for _, m := range batch {
					results = append(results, result(m))
				}
				return answer("200 OK", "application/json", "["+strings.Join(results, ",")+"]")
			}
			return negotiated.request(p, r)
		},
		response: negotiated.response,
	}
}

// TestJudgedByTheNegotiatedVersion: a server that negotiated 2025-03-26
// is held to 2025-03-26's rules. The checks of rules that arrived later
// skip and say so; JR-01 judges its batch by the rule of the day (served,
// as servers MUST receive batches); a foreign Origin refused 400 passes
// HO-02 and HO-04 (the 403 came with 2025-11-25); and the report says
// which version was negotiated, not only that initialize was served.
func TestJudgedByTheNegotiatedVersion(t *testing.T) {
	srv := startRawmcp(t)
	rep := run(t, startProxy(t, srv.Addr, olderServer()), fullOptions())
	want := rawmcpVerdicts()
	for id, v := range olderRevision() {
		want[id] = v
	}
	want["JR-01"] = probe.Pass
	if diff := cmp.Diff(want, verdicts(rep)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s\n%s", diff, reasons(rep))
	}
	got := map[string]string{}
	for _, res := range rep.Results {
		// How many messages the run took varies with its retries.
		got[res.Check.ID] = regexp.MustCompile(`^[0-9]+ messages`).ReplaceAllString(res.Reason, "N messages")
	}
	for id, reason := range map[string]string{
		"PV-01": "the rule arrived in MCP 2025-06-18; the target negotiated 2025-03-26, which has no such rule",
		"AU-09": "the rule arrived in MCP 2025-11-25; the target negotiated 2025-03-26, which has no such rule",
		"JR-01": "the session negotiated MCP 2025-03-26, which allowed batches: the batch answered 200 application/json, a result for each ping",
		"JR-11": "N messages answered under MCP 2025-03-26, whose schema is not pinned (the probe holds those of 2025-11-25 and 2026-07-28): none checked",
		"HO-02": "answered 400: MCP 2025-03-26, the version negotiated, asks only that a foreign Origin be refused (403 came with 2025-11-25)",
	} {
		if got[id] != reason {
			t.Errorf("%s: %q, want %q", id, got[id], reason)
		}
	}
	if diff := cmp.Diff([]string{"2025-03-26"}, rep.Negotiated); diff != "" {
		t.Errorf("negotiated (-want +got):\n%s", diff)
	}
	if line := rep.RevisionsLine(); line != "speaks MCP 2025-03-26" {
		t.Errorf("revisions line %q", line)
	}
}

// TestReportSaysEveryVersionNegotiated: a server whose sessions do not
// all negotiate the same version is reported with each version its
// initialize answers chose, in the JSON report and the heading line.
func TestReportSaysEveryVersionNegotiated(t *testing.T) {
	srv := startRawmcp(t)
	// Every other initialize is answered 2025-06-18, which the server
	// then serves as it serves 2025-11-25.
	addr := startProxy(t, srv.Addr, flaw{
		request: func(_ *flawProxy, r *proxied) []byte {
			if r.get("MCP-Protocol-Version") == "2025-06-18" {
				r.set("MCP-Protocol-Version", "2025-11-25")
			}
			return nil
		},
		response: func(p *flawProxy, r *proxied, ans []byte) []byte {
			if !bytes.Contains(r.body, []byte(`"method":"initialize"`)) {
				return ans
			}
			n := stateOf[memo[int]](p, "initializes")
			count, _ := n.get("n")
			n.put("n", count+1)
			if count%2 == 0 {
				return ans
			}
			return withBody(ans, func(body []byte) []byte {
				return bytes.Replace(body, []byte(`"protocolVersion":"2025-11-25"`), []byte(`"protocolVersion":"2025-06-18"`), 1)
			})
		},
	})
	opts := fullOptions()
	opts.Only = []string{"HO", "MM"}
	rep := run(t, addr, opts)
	if diff := cmp.Diff([]string{"2025-06-18", "2025-11-25"}, rep.Negotiated); diff != "" {
		t.Errorf("negotiated (-want +got):\n%s", diff)
	}
	if line := rep.RevisionsLine(); line != "speaks MCP 2025-11-25 (its sessions negotiated 2025-06-18 and 2025-11-25)" {
		t.Errorf("revisions line %q", line)
	}
	var b bytes.Buffer
	rep.WriteJSON(&b)
	var doc struct {
		Negotiated []string `json:"negotiated"`
	}
	json.Unmarshal(b.Bytes(), &doc)
	if diff := cmp.Diff([]string{"2025-06-18", "2025-11-25"}, doc.Negotiated); diff != "" {
		t.Errorf("-json negotiated (-want +got):\n%s", diff)
	}
}
