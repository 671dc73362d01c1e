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

// shownReport is the compared report with HO-03 resting on HO-02's
// finding, two V2 checks skipped for one reason, and a fix and a link
// of the test's own on HO-02 and none on the others, so the tests hold
// whatever the catalogue says.
func shownReport() *Report {
	rep := comparedReport()
	for i := range rep.Results {
		c := &rep.Results[i].Check
		c.Fix, c.Link = "", ""
		if c.ID == "HO-02" {
			c.Fix = "Refuse a foreign Origin with 403 (the SDK's transport option)."
			c.Link = "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning"
		}
	}
	modern := "needs a target that speaks MCP 2026-07-28: this one serves no server/discover"
	rep.Results = append(rep.Results,
		Result{Check: *lookup("HO-03"), Verdict: Skip, Reason: "see HO-02 (fail): this check rests on its finding, and one defect is reported once"},
		Result{Check: *lookup("V2-01"), Verdict: Skip, Reason: modern},
		Result{Check: *lookup("V2-02"), Verdict: Skip, Reason: modern})
	return rep
}

// TestWriteText: what was reached and the revisions, then the findings
// first (failures, warnings, checks that could not run), each with its
// evidence, its fix, the section it rests on and the checks resting on
// it; the skips one line per group and reason; the reports; the passes
// by group; the summary. Control bytes from the target are blanked.
func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := shownReport().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `speaks MCP 2025-11-25 and 2026-07-28; ` + CatalogueLine() + `

Failed (1)
  fail  HO-02  Foreign Origin refused (MUST)
               answered 200 for Origin: http://evil.example [31m
               expected: 403
                 actual: 200 application/json with a result
               fix: Refuse a foreign Origin with 403 (the SDK's transport option).
               rests on: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning
               rests on this finding (skipped): HO-03
Warnings (1)
  warn  HO-06  No cross-site "simple" POST (H)
               answered 200
Could not run (2)
  error JR-01  Batches refused (H)
               no answer
  error AU-03  A garbage token refused (MUST)
               not finished: the 60s budget ran out
Skipped (3)
  Sessions: needs -token2: SE-07
  ` + groupTitle("V2") + `: needs a target that speaks MCP 2026-07-28: this one serves no server/discover: V2-01, V2-02
Info (1)
  info  PV-04  Missing header after init
               answered 400
Passed (2)
  Preflight
    pass  PRE-01 The endpoint speaks MCP
  Host and Origin (DNS rebinding, browsers)
    pass  HO-01  Foreign Host refused
probe: 2 pass, 1 fail, 1 warn, 4 skip, 2 error, 1 info (MUST failed: HO-02)
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestWriteTextFoldsAFix: a fix longer than a line is folded at 100
// columns under its finding, continuation lines indented two more.
func TestWriteTextFoldsAFix(t *testing.T) {
	var b strings.Builder
	writeWrapped(&b, "    ", "fix: "+strings.Repeat("word ", 30)+"end")
	want := "    fix: " + strings.Repeat("word ", 17) + "word\n      " + strings.Repeat("word ", 12) + "end\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if len(line) > textWidth {
			t.Errorf("a line of %d columns: %q", len(line), line)
		}
	}
}

// TestWriteTextOptions: -q keeps what did not pass and the summary;
// on a terminal each verdict is marked and coloured, elsewhere never.
func TestWriteTextOptions(t *testing.T) {
	write := func(o TextOptions) string {
		var b bytes.Buffer
		rep := shownReport()
		rep.Reached = &Reached{URL: rep.Target, Address: "127.0.0.1:8080"}
		if err := rep.WriteTextWith(&b, o); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	quiet := write(TextOptions{Quiet: true})
	var headings []string
	for _, line := range strings.Split(quiet, "\n") {
		if line != "" && line[0] != ' ' {
			headings = append(headings, line)
		}
	}
	if diff := cmp.Diff([]string{"Failed (1)", "Warnings (1)", "Could not run (2)", "Skipped (3)",
		"probe: 2 pass, 1 fail, 1 warn, 4 skip, 2 error, 1 info (MUST failed: HO-02)"}, headings); diff != "" {
		t.Errorf("-q's sections (-want +got):\n%s", diff)
	}
	for _, plain := range []string{write(TextOptions{}), quiet} {
		if strings.ContainsAny(plain, "\x1b✓×") {
			t.Errorf("a report for a file or pipe has marks or colour:\n%s", plain)
		}
	}
	term := write(TextOptions{Terminal: true})
	for _, want := range []string{"\x1b[1;31mFailed (1)\x1b[0m\n", "  \x1b[31m× fail \x1b[0m HO-02  Foreign Origin refused (MUST)\n",
		"\x1b[33m! warn \x1b[0m HO-06", "    \x1b[32m✓ pass \x1b[0m PRE-01 The endpoint speaks MCP\n",
		"                 expected: 403\n"} {
		if !strings.Contains(term, want) {
			t.Errorf("the terminal's report lacks %q:\n%s", want, term)
		}
	}
}

// TestWriteTextWithBaseline: each finding says where the baseline puts
// it, and a block lists the regressions, the expired entries and the
// entries no longer needed before the summary.
func TestWriteTextWithBaseline(t *testing.T) {
	rep := shownReport()
	rep.Baseline = rep.Compare(&Baseline{Edition: 1, Accepted: map[string]Accepted{
		"HO-02": {Verdict: Fail, Reason: "the Origin check ships in 2.3"}, "JR-01": {Verdict: Error, Expires: "2026-01-31", Reason: "old"}, "HO-01": {Verdict: Warn}}},
		time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	var b bytes.Buffer
	rep.WriteTextWith(&b, TextOptions{Quiet: true})
	for _, want := range []string{
		"  fail  HO-02  Foreign Origin refused (MUST) [accepted]\n",
		"               accepted by the baseline: the Origin check ships in 2.3\n",
		"  warn  HO-06  No cross-site \"simple\" POST (H) [regression]\n",
		"Baseline (catalogue edition 1)\n  regression  HO-06  warn, the baseline accepts pass\n  regression  JR-01  error, the baseline accepts pass\n" +
			"  expired     JR-01  error, expired 2026-01-31 (old): it accepts nothing; renew or remove it\n" +
			"  improved    HO-01  pass, the baseline accepts warn: the entry can go\n" +
			"probe: 2 pass, 1 fail, 1 warn, 4 skip, 2 error, 1 info (MUST failed: HO-02); baseline: 2 regressions (HO-06, JR-01), 1 accepted, 1 expired entry (JR-01), 1 entry no longer needed (HO-01)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
}

// TestWriteHTML: one page that loads nothing and links only to its own
// sections and the sections the checks rest on; the banner first; a
// table of contents; the findings in order, the checks resting on one
// under it and nowhere else; the skips one row per group and reason; the
// passes last and folded; the server's bytes escaped.
func TestWriteHTML(t *testing.T) {
	var b bytes.Buffer
	if err := shownReport().WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, external := range []string{"<script", "<link", "src=", "url(", "@import", "<img", "<iframe"} {
		if strings.Contains(page, external) {
			t.Errorf("the page has %q: it must be self-contained", external)
		}
	}
	for _, href := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(href[1], "#") && !strings.HasPrefix(href[1], "https://") {
			t.Errorf("a link to %q: only the page's own sections and https sections", href[1])
		}
	}
	inOrder(t, page,
		`<header class="banner fail">`, "<h1>1 MUST failure, 1 warning, 2 could not run</h1>",
		`<p class="counts"><span class="pass">2 pass</span><span class="fail">1 fail</span>`, `<span class="info">1 info</span></p>`,
		`<nav><a href="#failed">Failed (1)</a><a href="#warnings">Warnings (1)</a><a href="#errors">Could not run (2)</a><a href="#skipped">Skipped (3)</a><a href="#info">Info (1)</a><a href="#passed">Passed (2)</a><a href="#run">The run</a></nav>`,
		`<article class="fail" id="check-HO-02">`, "<dt>expected</dt><dd><code>403</code></dd><dt>actual</dt><dd><code>200 application/json with a result</code></dd>",
		`<p class="fix"><strong>Fix.</strong> Refuse a foreign Origin with 403 (the SDK&#39;s transport option).</p>`,
		`<p>Rests on <a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning">MCP Transports §Security warning</a>.</p>`,
		`<p class="rests">Rests on this finding, so not run: <code>HO-03</code> `+lookup("HO-03").Title+`.</p>`,
		"&lt;script&gt;x&lt;/script&gt;",
		`<article class="warn" id="check-HO-06">`, `<article class="error" id="check-JR-01">`, `<article class="error" id="check-AU-03">`,
		`<tr><td>Sessions</td><td>needs -token2</td><td><code>SE-07</code></td></tr>`,
		`<td><code>V2-01</code>, <code>V2-02</code></td></tr>`,
		`<section id="info">`, `<section id="passed">`, "<details><summary>2 checks passed: show them</summary>",
		`<section id="run">`,
		"<tr><td>probe</td><td>rawmcp 0.1.0, "+CatalogueLine()+"</td></tr>",
	)
	for part, n := range map[string]int{"speaks MCP 2025-11-25 and 2026-07-28": 1, `<span class="pass">2 pass</span>`: 1, "2 pass, 1 fail": 0} {
		if got := strings.Count(page, part); got != n {
			t.Errorf("%q is on the page %d times, want %d: the revisions and counts are shown once", part, got, n)
		}
	}
	if n := strings.Count(page, "HO-03"); n != 1 {
		t.Errorf("HO-03 appears %d times: a check resting on a finding is shown under it only", n)
	}
	if ruleID := string(lookup("HO-02").Rule); strings.Index(page, ruleID) < strings.Index(page, "<details><summary>Evidence") {
		t.Errorf("rawmcp's rule id %s is in a headline or missing: it belongs in the detail", ruleID)
	}
}

func groupTitle(code string) string {
	for _, g := range Groups {
		if g.Code == code {
			return g.Title
		}
	}
	return code
}

// inOrder fails unless page holds each part, in this order.
func inOrder(t *testing.T, page string, parts ...string) {
	t.Helper()
	at := 0
	for _, part := range parts {
		i := strings.Index(page[at:], part)
		if i < 0 {
			if strings.Contains(page, part) {
				t.Errorf("the page has %q, but out of order", part)
			} else {
				t.Errorf("the page lacks %q", part)
			}
			continue
		}
		at += i + len(part)
	}
}

// TestHTMLBanner: the banner says the verdict first: not judged, the
// MUST failures, or that none failed, with what else needs a look.
func TestHTMLBanner(t *testing.T) {
	only := func(results ...Result) *Report {
		rep := sampleReport()
		rep.Results = append([]Result{rep.Results[0]}, results...)
		return rep
	}
	r := func(id string, v Verdict) Result { return Result{Check: *lookup(id), Verdict: v} }
	tests := []struct {
		name string
		rep  *Report
		want htmlBanner
	}{
		{"a clean run", only(r("HO-01", Pass), r("SE-07", Skip), r("PV-04", Info)), htmlBanner{Class: "pass", Headline: "No MUST failed"}},
		{"warnings only", only(r("HO-06", Warn), r("HO-05", Warn)), htmlBanner{Class: "warn", Headline: "No MUST failed, 2 warnings"}},
		{"a hardening failure with -strict", only(r("HO-06", Fail)), htmlBanner{Class: "warn", Headline: "No MUST failed, 1 hardening failure"}},
		{"MUST failures", only(r("HO-02", Fail), r("AU-03", Fail), r("HO-06", Warn), r("JR-01", Error)),
			htmlBanner{Class: "fail", Headline: "2 MUST failures, 1 warning, 1 could not run"}},
		{"not judged", &Report{Results: []Result{r("PRE-01", Error)}}, htmlBanner{Class: "fail", Headline: "Not judged: no MCP endpoint was reached"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.rep.banner(tt.rep.layout())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	incomplete := only(r("HO-02", Fail))
	incomplete.Incomplete = true
	if got := incomplete.banner(incomplete.layout()).Detail; got != "incomplete: the budget ran out before every check finished" {
		t.Errorf("an incomplete run's detail %q", got)
	}
}
