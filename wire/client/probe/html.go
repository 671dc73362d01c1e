package probe

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"rawmcp/wire/client"
)

// WriteHTML writes the report as one self-contained page: no script, no
// style sheet, font or image from elsewhere, so it reads the same offline
// and from an archived CI artifact; its only links are to its own
// sections and to the sections the checks rest on. A verdict banner comes
// first (the MUST failures and warnings, the counts, the revisions, once),
// then a short table of contents; the findings (failures, warnings,
// checks that could not run), each with its evidence, its fix and the
// section it rests on, and under it the checks that rest on it; the
// skips, one line per group and reason; the reports; the passes last,
// folded; the run's details.
func (r *Report) WriteHTML(w io.Writer) error {
	l := r.layout()
	server := string(r.Server)
	if server == "" {
		server = "unknown"
	}
	var sections []htmlSection
	for _, s := range l.findingSections() {
		if len(s.findings) > 0 {
			sections = append(sections, htmlSection{Title: s.title, Anchor: s.anchor, Verdict: s.verdict, Findings: s.findings})
		}
	}
	var passed []htmlGroup
	for _, g := range Groups {
		var in []Result
		for _, res := range l.passed {
			if res.Check.Group == g.Code {
				in = append(in, res)
			}
		}
		if len(in) > 0 {
			passed = append(passed, htmlGroup{g, in})
		}
	}
	// A group's title heads its first skip row only.
	var skipped []skipLine
	for i, line := range l.skipped {
		if i > 0 && l.skipped[i-1].Group.Code == line.Group.Code {
			line.Group.Title = ""
		}
		skipped = append(skipped, line)
	}
	return page.Execute(w, htmlView{
		Report: r, Banner: r.banner(l), Server: server, Started: r.Started.UTC().Format(time.RFC3339),
		Version: "rawmcp " + client.Version + ", " + CatalogueLine(), Counts: l.counts, Order: Verdicts,
		Sections: sections, Skipped: skipped, SkipCount: l.skipCount(), Resting: l.counts[Skip] - l.skipCount(), Info: l.info, Passed: passed, PassCount: len(l.passed),
	})
}

type htmlView struct {
	Report           *Report
	Banner           htmlBanner
	Server, Started  string
	Version, Summary string
	Counts           map[Verdict]int
	Order            []Verdict
	Sections         []htmlSection
	Skipped          []skipLine
	SkipCount        int
	Resting          int // skips shown under the finding they rest on
	Info             []Result
	Passed           []htmlGroup
	PassCount        int
}

type htmlSection struct {
	Title, Anchor string
	Verdict       Verdict
	Findings      []finding
}

type htmlGroup struct {
	Group   Group
	Results []Result
}

// htmlBanner is the verdict at the top of the page: its class colours it.
type htmlBanner struct {
	Class, Headline, Detail string
}

// banner says the run's verdict first: the MUST failures, else that none
// failed, with the warnings and what else needs a look.
func (r *Report) banner(l layout) htmlBanner {
	must := len(r.MustIDs(Fail))
	var b htmlBanner
	if len(r.Results) > 0 && r.Results[0].Check.ID == "PRE-01" && r.Results[0].Verdict != Pass {
		return htmlBanner{Class: "fail", Headline: "Not judged: no MCP endpoint was reached", Detail: printable(r.Results[0].Reason)}
	}
	switch {
	case must > 0:
		b = htmlBanner{Class: "fail", Headline: plural(must, "MUST failure")}
	case len(l.failed)+len(l.warned)+len(l.errored) > 0:
		b = htmlBanner{Class: "warn", Headline: "No MUST failed"}
	default:
		b = htmlBanner{Class: "pass", Headline: "No MUST failed"}
	}
	var more []string
	if n := len(l.failed) - must; n > 0 {
		more = append(more, plural(n, "hardening failure"))
	}
	if n := len(l.warned); n > 0 {
		more = append(more, plural(n, "warning"))
	}
	if n := len(l.errored); n > 0 {
		more = append(more, fmt.Sprintf("%d could not run", n))
	}
	if len(more) > 0 {
		b.Headline += ", " + strings.Join(more, ", ")
	}
	var detail []string
	switch {
	case r.Stopped != "":
		detail = append(detail, "incomplete: "+r.Stopped)
	case r.Incomplete:
		detail = append(detail, "incomplete: the budget ran out before every check finished")
	}
	if c := r.Baseline; c != nil {
		detail = append(detail, c.Line())
	}
	b.Detail = strings.Join(detail, "; ")
	return b
}

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"ids": func(rs []Result) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Check.ID)
		}
		return strings.Join(out, ", ")
	},
	"anchor": func(id string) string { return "check-" + id },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>rawmcp probe: {{.Banner.Headline}}: {{.Report.Target}}</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 72em; padding: 0 1em; color: #222; }
h2 { font-size: 1.15em; margin: 1.6em 0 .4em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
code, pre { font: 13px/1.4 ui-monospace, monospace; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; white-space: pre-wrap; word-break: break-all; margin: .3em 0; }
a { color: #0b57d0; }
.banner { border-radius: 6px; padding: .8em 1.2em; border: 2px solid; }
.banner h1 { font-size: 1.6em; margin: 0 0 .2em; }
.banner p { margin: .15em 0; }
.banner.fail { background: #fdecee; border-color: #b00020; } .banner.fail h1 { color: #b00020; }
.banner.warn { background: #fff4e0; border-color: #a15c00; } .banner.warn h1 { color: #8a4f00; }
.banner.pass { background: #e9f5ea; border-color: #1b5e20; } .banner.pass h1 { color: #1b5e20; }
.counts span { margin-right: 1em; white-space: nowrap; }
nav { margin: .8em 0; } nav a { margin-right: 1.2em; white-space: nowrap; }
.v { display: inline-block; min-width: 3.6em; font-weight: bold; text-transform: uppercase; font-size: .8em; }
.v.fail, .counts .fail { color: #b00020; } .v.warn, .counts .warn { color: #a15c00; } .v.error, .counts .error { color: #6a1b9a; }
.v.skip, .counts .skip { color: #555; } .v.info, .counts .info { color: #01579b; } .v.pass, .counts .pass { color: #1b5e20; }
.counts .zero { color: #999; }
article { border-left: 4px solid #ddd; padding: .2em 0 .4em 1em; margin: 1em 0; }
article.fail { border-color: #b00020; } article.warn { border-color: #a15c00; } article.error { border-color: #6a1b9a; }
article h3 { font-size: 1.05em; margin: .2em 0; color: #222; }
.level { font-weight: normal; color: #555; font-size: .85em; }
.Standing { font-size: .8em; border: 1px solid; border-radius: 3px; padding: 0 .3em; }
article p, article dl { margin: .3em 0; }
dl.evidence { display: grid; grid-template-columns: max-content 1fr; gap: .1em 1em; }
dl.evidence dt { color: #555; } dl.evidence dd { margin: 0; }
.fix { background: #eef4ff; padding: .4em .6em; border-radius: 4px; }
.rests { color: #444; }
details { margin: .3em 0; } summary { cursor: pointer; color: #444; }
table.skips, table.meta { border-collapse: collapse; }
table.skips { width: 100%; }
table.skips td, table.skips th { border-top: 1px solid #eee; padding: .25em .8em .25em 0; vertical-align: top; text-align: left; }
table.skips td:first-child { width: 12em; } table.skips td:nth-child(2) { width: 45%; }
table.meta td { padding: 0 1em 0 0; vertical-align: top; }
ul.plain { list-style: none; padding-left: 1em; margin: .2em 0; }
</style>
</head>
<body>
<header class="banner {{.Banner.Class}}">
<h1>{{.Banner.Headline}}</h1>
<p><code>{{.Report.Target}}</code>{{with .Report.RevisionsLine}}: {{.}}{{end}}</p>
{{with .Banner.Detail}}<p>{{.}}</p>
{{end}}<p class="counts">{{range .Order}}<span class="{{.}}{{if eq (index $.Counts .) 0}} zero{{end}}">{{index $.Counts .}} {{.}}</span>{{end}}</p>
</header>
<nav>{{range .Sections}}<a href="#{{.Anchor}}">{{.Title}} ({{len .Findings}})</a>{{end}}{{if .Skipped}}<a href="#skipped">Skipped ({{.SkipCount}})</a>{{end}}{{if .Info}}<a href="#info">Info ({{len .Info}})</a>{{end}}{{if .Passed}}<a href="#passed">Passed ({{.PassCount}})</a>{{end}}<a href="#run">The run</a></nav>
{{range .Sections}}<section id="{{.Anchor}}">
<h2>{{.Title}} ({{len .Findings}})</h2>
{{range .Findings}}<article class="{{.Verdict}}" id="{{anchor .Check.ID}}">
<h3><span class="v {{.Verdict}}">{{.Verdict}}</span> <code>{{.Check.ID}}</code> {{.Check.Title}} <span class="level">{{.Level}}</span>{{with .Standing}} <span class="standing">{{.}}</span>{{end}}</h3>
{{if .Reason}}<p>{{.Reason}}</p>
{{end}}{{if or .Expected .Actual}}<dl class="evidence"><dt>expected</dt><dd><code>{{.Expected}}</code></dd><dt>actual</dt><dd><code>{{.Actual}}</code></dd></dl>
{{end}}{{with .Check.Fix}}<p class="fix"><strong>Fix.</strong> {{.}}</p>
{{end}}<p>Rests on {{if .Check.Link}}<a href="{{.Check.Link}}">{{.Check.Source}}</a>{{else}}{{.Check.Source}}{{end}}.</p>
{{with .AcceptReason}}<p>Accepted by the baseline: {{.}}</p>
{{end}}{{with .Dependents}}<p class="rests">Rests on this finding, so not run: {{range $i, $d := .}}{{if $i}}, {{end}}<code>{{$d.Check.ID}}</code> {{$d.Check.Title}}{{end}}.</p>
{{end}}<details><summary>Evidence: {{len .Exchanges}} exchanges; what the check sends</summary>
<p>Sends: {{.Check.Sends}}.<br>Passes when: {{.Check.Passes}}.<br>Level {{.Check.Level}}{{with .Check.Rule}}; rawmcp rule <code>{{.}}</code>{{end}}.</p>
{{range .Exchanges}}<pre>{{.Request}}</pre>
<pre>{{.Response}}</pre>
{{end}}</details>
</article>
{{end}}</section>
{{end}}{{if .Skipped}}<section id="skipped">
<h2>Skipped ({{.SkipCount}})</h2>
{{with .Resting}}<p>{{.}} more rest on a finding above and are shown under it.</p>
{{end}}<table class="skips">
<tr><th>group</th><th>why</th><th>checks</th></tr>
{{range .Skipped}}<tr><td>{{.Group.Title}}</td><td>{{.Reason}}</td><td>{{range $i, $id := .IDs}}{{if $i}}, {{end}}<code>{{$id}}</code>{{end}}</td></tr>
{{end}}</table>
</section>
{{end}}{{if .Info}}<section id="info">
<h2>Info ({{len .Info}})</h2>
{{range .Info}}<details><summary><span class="v info">info</span> <code>{{.Check.ID}}</code> {{.Check.Title}}: {{.Reason}}</summary>
{{range .Exchanges}}<pre>{{.Request}}</pre>
<pre>{{.Response}}</pre>
{{end}}</details>
{{end}}</section>
{{end}}{{if .Passed}}<section id="passed">
<h2>Passed ({{.PassCount}})</h2>
<details><summary>{{.PassCount}} checks passed: show them</summary>
{{range .Passed}}<h3>{{.Group.Title}}</h3>
<ul class="plain">
{{range .Results}}<li><details><summary><span class="v pass">pass</span> <code>{{.Check.ID}}</code> {{.Check.Title}}{{with .Reason}}: {{.}}{{end}}</summary>
{{range .Exchanges}}<pre>{{.Request}}</pre>
<pre>{{.Response}}</pre>
{{end}}</details></li>
{{end}}</ul>
{{end}}</details>
</section>
{{end}}<section id="run">
<h2>The run</h2>
<table class="meta">
<tr><td>target</td><td><code>{{.Report.Target}}</code></td></tr>
{{with .Report.Reached}}<tr><td>reached</td><td><code>{{.Address}}</code>{{if .TLSVersion}}, {{.TLSVersion}}, <code>{{.CipherSuite}}</code>{{else}}, cleartext http{{end}}</td></tr>
{{if .TLSVersion}}<tr><td>certificate</td><td><code>{{.Subject}}</code>, issued by <code>{{.Issuer}}</code>, expires {{.NotAfter.Format "2006-01-02T15:04:05Z07:00"}}</td></tr>
{{end}}<tr><td>hop announced</td><td>Server: <code>{{or .Server "none"}}</code>; Via: <code>{{or .Via "none"}}</code></td></tr>
{{end}}<tr><td>server</td><td><code>{{.Server}}</code></td></tr>
<tr><td>protocol version</td><td><code>{{.Report.ProtocolVersion}}</code></td></tr>
<tr><td>started</td><td>{{.Started}}, {{.Report.Duration.Milliseconds}} ms</td></tr>
<tr><td>probe</td><td>{{.Version}}</td></tr>
</table>
</section>
</body>
</html>
`))
