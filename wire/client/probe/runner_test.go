package probe_test

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client"
	"rawmcp/wire/client/probe"
)

// The runner owns the preconditions: a check whose need the target lacks
// skips with the runner's reason, and one defect fails one check, the
// others that rest on it saying "see ID".

// sessionless makes rawmcp a server that issues no session ids: an
// initialize's session is deleted at once and its id never reaches the
// probe; every other request is served on a session the proxy opened for
// its token; DELETE is not served.
var sessionless = flaw{
	request: func(p *flawProxy, r *proxied) []byte {
		switch {
		case r.path != "/mcp" || r.get("Mcp-Session-Id") != "" || isInitialize(r):
			return nil
		case r.method == "DELETE":
			return withField(answer("405 Method Not Allowed", "", ""), "Allow", "GET, POST")
		case bytes.Contains(r.body, []byte(`"method":"notifications/initialized"`)):
			// Nothing to initialize: the house session already is.
			return answer("202 Accepted", "", "")
		}
		if id := stateOf[houseSessions](p, "house").of(p, r.get("Host"), r.get("Authorization")); id != "" {
			r.set("Mcp-Session-Id", id)
		}
		return nil
	},
	response: func(p *flawProxy, r *proxied, ans []byte) []byte {
		id := field(ans, "Mcp-Session-Id")
		if id == "" || !isInitialize(r) {
			return ans
		}
		end := client.MCP{Host: r.get("Host"), Path: "/mcp", Authorization: r.get("Authorization"), Session: id, Version: "2025-11-25"}.Delete()
		p.forward(end.Bytes())
		return withoutField(ans, "Mcp-Session-Id")
	},
}

func isInitialize(r *proxied) bool {
	return r.method == "POST" && bytes.Contains(r.body, []byte(`"method":"initialize"`))
}

// houseSessions are the sessions the sessionless proxy serves requests
// on, one per Authorization value ("" for a token the server refuses).
type houseSessions struct {
	mu  sync.Mutex
	ids map[string]string
}

func (h *houseSessions) of(p *flawProxy, host, authorization string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if id, ok := h.ids[authorization]; ok {
		return id
	}
	m := client.MCP{Host: host, Path: "/mcp", Authorization: authorization}
	init := m.Post([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"house","version":"1"}}}`))
	id := field(p.forward(init.Bytes()), "Mcp-Session-Id")
	if id != "" {
		m.Session, m.Version = id, "2025-11-25"
		p.forward(m.Post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)).Bytes())
	}
	if h.ids == nil {
		h.ids = map[string]string{}
	}
	h.ids[authorization] = id
	return id
}

// TestSessionlessTargetSkipsSessionChecks: on a server that issues no
// session ids every check about sessions skips with the runner's reason,
// none warns or errors, and the checks that need no session (JR-04 and
// JR-05 among them) run as on any server.
func TestSessionlessTargetSkipsSessionChecks(t *testing.T) {
	srv := startRawmcp(t)
	rep := run(t, startProxy(t, srv.Addr, sessionless), fullOptions())
	const because = "needs a target that issues session ids: this one issues none (stateless)"
	sessionChecks := []string{"PRE-02", "SE-01", "SE-02", "SE-03", "SE-04", "SE-05", "SE-06", "SE-07", "SE-08", "SE-09", "RS-02", "DP-06", "DP-08", "DP-09"}
	got := map[string]string{}
	for _, res := range rep.Results {
		switch {
		case strings.Contains(strings.Join(sessionChecks, ","), res.Check.ID):
			got[res.Check.ID] = string(res.Verdict) + ": " + res.Reason
		case res.Verdict == probe.Warn || res.Verdict == probe.Error || res.Verdict == probe.Fail:
			t.Errorf("%s %s: %s", res.Check.ID, res.Verdict, res.Reason)
		}
	}
	want := map[string]string{}
	for _, id := range sessionChecks {
		want[id] = "skip: " + because
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("session checks (-want +got):\n%s\n%s", diff, reasons(rep))
	}
	if v := verdicts(rep); v["JR-04"] != probe.Pass || v["JR-05"] != probe.Pass {
		t.Errorf("JR-04 %s, JR-05 %s; want both to pass: they need no session", v["JR-04"], v["JR-05"])
	}
}

// withoutMetadata is a server with authorization but no Protected
// Resource Metadata: nothing at the well-known paths, no resource_metadata
// in the challenge.
var withoutMetadata = flaw{
	request: func(_ *flawProxy, r *proxied) []byte {
		if strings.HasPrefix(r.path, "/.well-known/") {
			return answer("404 Not Found", "", "")
		}
		return nil
	},
	response: func(_ *flawProxy, _ *proxied, ans []byte) []byte {
		if !isStatus(ans, "401") {
			return ans
		}
		challenge := field(ans, "WWW-Authenticate")
		if i := strings.Index(challenge, "resource_metadata="); i >= 0 {
			kept := strings.TrimRight(challenge[:i], ", ")
			if rest, ok := strings.CutPrefix(challenge[i:], "resource_metadata=\""); ok {
				if _, after, ok := strings.Cut(rest, "\""); ok {
					kept += after
				}
			}
			return withField(withoutField(ans, "WWW-Authenticate"), "WWW-Authenticate", kept)
		}
		return ans
	},
}

// withoutAllow is a server whose 405s carry no Allow: GET and PUT.
var withoutAllow = flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
	switch {
	case r.method == "GET" && r.path == "/mcp" && r.get("Last-Event-ID") == "":
		return answer("405 Method Not Allowed", "", "")
	case r.method == "PUT":
		return withoutField(ans, "Allow")
	}
	return ans
}}

// TestOneDefectOneFailure: a defect that several checks would see fails
// the one check whose rule it breaks; the others say where it is reported.
func TestOneDefectOneFailure(t *testing.T) {
	for _, tt := range []struct {
		name string
		flaw flaw
		must string            // the summary's MUST failures: one defect
		want map[string]string // id → verdict: the start of the reason
	}{
		{"no metadata", withoutMetadata, "AU-02", map[string]string{
			"AU-02": "fail: no Protected Resource Metadata",
			"AU-11": "skip: needs a target that serves Protected Resource Metadata: none at",
			"DP-04": "skip: see AU-02 (fail)",
		}},
		{"no Allow on any 405", withoutAllow, "MM-05", map[string]string{
			"MM-05": "fail: answered 405 without Allow",
			"MM-04": "skip: see MM-05 (fail)",
			"DP-08": "skip: GET answered 405",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := startRawmcp(t)
			rep := run(t, startProxy(t, srv.Addr, tt.flaw), fullOptions())
			want := rawmcpVerdicts()
			got := map[string]probe.Verdict{}
			for _, res := range rep.Results {
				got[res.Check.ID] = res.Verdict
				if start, ok := tt.want[res.Check.ID]; ok {
					want[res.Check.ID] = probe.Verdict(strings.SplitN(start, ":", 2)[0])
					if line := string(res.Verdict) + ": " + res.Reason; !strings.HasPrefix(line, start) {
						t.Errorf("%s %q, want it to start %q", res.Check.ID, line, start)
					}
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s\n%s", diff, reasons(rep))
			}
			if !strings.HasSuffix(rep.Summary(), "(MUST failed: "+tt.must+")") {
				t.Errorf("summary %q; want one MUST failure, %s", rep.Summary(), tt.must)
			}
		})
	}
}

// slowTarget answers every request a second late, as a server that
// starts a child process per request does.
var slowTarget = flaw{request: func(_ *flawProxy, _ *proxied) []byte {
	time.Sleep(time.Second)
	return nil
}}

// TestBudgetBoundsTheRun: against a target that takes a second per
// request, the run stops at its budget: the checks not finished are
// errors that say so, and the report is incomplete.
func TestBudgetBoundsTheRun(t *testing.T) {
	srv := startRawmcp(t)
	opts := fullOptions()
	opts.Budget = 8 * time.Second
	target, err := probe.ParseTarget("http://" + startProxy(t, srv.Addr, slowTarget) + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := probe.Run(context.Background(), target, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !rep.Incomplete {
		t.Errorf("the report is complete; want incomplete\n%s", reasons(rep))
	}
	notRun := 0
	for _, res := range rep.Results {
		if strings.HasPrefix(res.Reason, "not run: the 8s budget ran out") || strings.HasPrefix(res.Reason, "not finished: the 8s budget ran out") {
			notRun++
			if res.Verdict != probe.Error {
				t.Errorf("%s %s: %s; want error", res.Check.ID, res.Verdict, res.Reason)
			}
		}
	}
	if notRun == 0 {
		t.Errorf("no check says the budget ran out\n%s", reasons(rep))
	}
	if !strings.HasSuffix(rep.Summary(), "; incomplete: the budget ran out") {
		t.Errorf("summary %q does not say the run is incomplete", rep.Summary())
	}
}

// modernOnly answers server/discover as a 2026-07-28 server does and
// everything else with 400: it serves no initialize.
func modernOnly(t *testing.T) string {
	id := regexp.MustCompile(`"id":(\d+),"method":"server/discover"`)
	return answerOnce(t, func(req string) string {
		if m := id.FindStringSubmatch(req); m != nil && strings.Contains(req, "Mcp-Method: server/discover") {
			body := `{"jsonrpc":"2.0","id":` + m[1] + `,"result":{"supportedVersions":["2026-07-28"],"capabilities":{},"resultType":"complete","ttlMs":0,"cacheScope":"public",` +
				`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern","version":"1"}}}}`
			return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
		}
		return "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
	})
}

// TestPreflightFindsTheEra: PRE-01 asks both ways; a server that speaks
// only 2026-07-28 passes it, the report names the revision, and every
// check that needs 2025-11-25 (and no option) skips with the runner's
// reason.
func TestPreflightFindsTheEra(t *testing.T) {
	rep := run(t, modernOnly(t), probe.Options{})
	if diff := cmp.Diff([]string{"2026-07-28"}, rep.Revisions); diff != "" {
		t.Errorf("revisions (-want +got):\n%s", diff)
	}
	if pre := rep.Results[0]; pre.Verdict != probe.Pass || !strings.Contains(pre.Reason, "speaks MCP 2026-07-28 only") {
		t.Errorf("PRE-01 %s: %s", pre.Verdict, pre.Reason)
	}
	for _, res := range rep.Results[1:] {
		// The options are asked about first: a check needing a token
		// the run was not given says that.
		if res.Check.Needs&probe.NeedLegacy == 0 || res.Check.Needs&(probe.NeedToken|probe.NeedToken2|probe.NeedNamed|probe.NeedSlow) != 0 {
			continue
		}
		// A check that rests on a failed one says so first (HO-03 on
		// HO-02: this target refuses a foreign Origin with 400).
		if res.Verdict == probe.Skip && strings.HasPrefix(res.Reason, "see ") {
			continue
		}
		if res.Verdict != probe.Skip || !strings.HasPrefix(res.Reason, "needs a target that speaks MCP 2025-11-25") || !strings.Contains(res.Reason, "this one serves no initialize") {
			t.Errorf("%s %s: %s; want a skip: it needs 2025-11-25", res.Check.ID, res.Verdict, res.Reason)
		}
	}
}

// TestRevisionsOfALegacyServer: rawmcp speaks 2025-11-25 only today; the
// report says so.
func TestRevisionsOfALegacyServer(t *testing.T) {
	srv := startRawmcp(t)
	rep := run(t, srv.Addr, probe.Options{Token: alice, Only: []string{"HO-02"}})
	if diff := cmp.Diff([]string{"2025-11-25"}, rep.Revisions); diff != "" {
		t.Errorf("revisions (-want +got):\n%s", diff)
	}
}

// TestWrongEraRestsOnNoFinding: a check the target's revisions cannot run
// says what it lacks, not that it rests on a finding it would never have
// judged: on rawmcp, which speaks 2025-11-25 only, V2-24 (after HO-02)
// skips for want of 2026-07-28 even when HO-02 fails.
func TestWrongEraRestsOnNoFinding(t *testing.T) {
	srv := startRawmcp(t)
	rep := run(t, startProxy(t, srv.Addr, hoFlaws[1].flaw), probe.Options{Token: alice, Only: []string{"HO-02", "V2-24"}})
	got := map[string]string{}
	for _, res := range rep.Results {
		got[res.Check.ID] = string(res.Verdict) + ": " + res.Reason
	}
	if !strings.HasPrefix(got["HO-02"], "fail: ") {
		t.Fatalf("HO-02 %s, want the flaw to fail it", got["HO-02"])
	}
	if want := "skip: needs a target that speaks MCP 2026-07-28: this one serves no server/discover"; got["V2-24"] != want {
		t.Errorf("V2-24 %q, want %q", got["V2-24"], want)
	}
}

// TestModernSkipSaysWhatDiscoverListed: on a 2025-11-25 server that
// answers server/discover with a result whose supportedVersions lack
// 2026-07-28 (the Go SDK v1.8.0), a check that needs 2026-07-28 says so,
// not that the server serves no server/discover.
func TestModernSkipSaysWhatDiscoverListed(t *testing.T) {
	srv := startRawmcp(t)
	legacyDiscover := flaw{request: func(_ *flawProxy, r *proxied) []byte {
		if id, method, _ := bodyOf(r); method == "server/discover" {
			return answer("200 OK", "application/json", `{"jsonrpc":"2.0","id":`+id+`,"result":{"resultType":"complete","supportedVersions":["2025-11-25","2025-06-18"],"capabilities":{"tools":{}}}}`)
		}
		return nil
	}}
	rep := run(t, startProxy(t, srv.Addr, legacyDiscover), probe.Options{Token: alice, Only: []string{"V2-01"}})
	for _, res := range rep.Results {
		if res.Check.ID != "V2-01" {
			continue
		}
		if want := "skip: needs a target that speaks MCP 2026-07-28: this one's server/discover result lists only 2025-11-25, 2025-06-18"; string(res.Verdict)+": "+res.Reason != want {
			t.Errorf("V2-01 %s: %q, want %q", res.Verdict, res.Reason, want)
		}
	}
}
