package probe

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func sampleReport() *Report {
	check := func(id string) Check {
		for _, c := range catalogue {
			if c.ID == id {
				return c
			}
		}
		panic(id)
	}
	return &Report{
		Target: "http://127.0.0.1:8080/mcp", Server: []byte(`{"name":"x","version":"1"}`), ProtocolVersion: "2025-11-25",
		Revisions: []string{"2025-11-25", "2026-07-28"},
		Started:   time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC), Duration: 1500 * time.Millisecond,
		Results: []Result{
			{Check: check("PRE-01"), Verdict: Pass, Reason: "speaks MCP"},
			{Check: check("HO-01"), Verdict: Pass, Reason: "answered 403"},
			{Check: check("HO-02"), Verdict: Fail, Reason: "answered 200 for Origin: http://evil.example\x1b[31m",
				Expected: "403", Actual: "200 application/json with a result",
				Exchanges: []Exchange{{Request: "POST /mcp HTTP/1.1\r\n\r\n", Response: "HTTP/1.1 200 OK\r\n\r\n<script>x</script>"}}},
			{Check: check("PV-04"), Verdict: Info, Reason: "answered 400"},
			{Check: check("SE-07"), Verdict: Skip, Reason: "needs -token2"},
		},
	}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `speaks MCP 2025-11-25 and 2026-07-28

Preflight
  pass  PRE-01 The endpoint speaks MCP
Host and Origin (DNS rebinding, browsers)
  pass  HO-01  Foreign Host refused
  fail  HO-02  Foreign Origin refused
               answered 200 for Origin: http://evil.example [31m
               expected: 403
                 actual: 200 application/json with a result
Protocol version
  info  PV-04  Missing header after init
               answered 400
Sessions
  skip  SE-07  A session is bound to its principal
               needs -token2
probe: 2 pass, 1 fail, 0 warn, 1 skip, 0 error, 1 info (MUST failed: HO-02)
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestWriteHTML: one page that needs nothing from the network, failures
// first, the server's bytes escaped.
func TestWriteHTML(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, external := range []string{"<script", "<link", "src=", "href=", "url(", "@import"} {
		if strings.Contains(page, external) {
			t.Errorf("the page has %q: it must be self-contained", external)
		}
	}
	if !strings.Contains(page, "expected: <code>403</code><br>actual: <code>200 application/json with a result</code>") {
		t.Error("the page lacks HO-02's expected and actual")
	}
	if !strings.Contains(page, "<h1>rawmcp probe: speaks MCP 2025-11-25 and 2026-07-28</h1>") {
		t.Error("the page's heading does not say the revisions")
	}
	if !strings.Contains(page, "<tr><td>MCP revisions</td><td><code>2025-11-25</code>, <code>2026-07-28</code></td></tr>") {
		t.Error("the page's table does not list the revisions")
	}
	if !strings.Contains(page, "&lt;script&gt;x&lt;/script&gt;") {
		t.Error("the response bytes are not escaped")
	}
	order := regexp.MustCompile(`<code>([A-Z]+-[0-9]+)</code>`).FindAllStringSubmatch(page, -1)
	var ids []string
	for _, m := range order {
		ids = append(ids, m[1])
	}
	if diff := cmp.Diff([]string{"HO-02", "SE-07", "PV-04", "PRE-01", "HO-01"}, ids); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}
