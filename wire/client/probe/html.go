package probe

import (
	"html/template"
	"io"
	"slices"
	"time"
)

// WriteHTML writes the report as one self-contained page: no script, no
// external style sheet, font or image, so it reads the same offline and
// from an archived CI artifact. Failures come first, then warnings,
// errors, skips, info and passes; each check's evidence (its help text
// and every exchange, redacted) is folded under it.
func (r *Report) WriteHTML(w io.Writer) error {
	order := map[Verdict]int{Fail: 0, Warn: 1, Error: 2, Skip: 3, Info: 4, Pass: 5}
	results := slices.Clone(r.Results)
	slices.SortStableFunc(results, func(a, b Result) int { return order[a.Verdict] - order[b.Verdict] })
	server := string(r.Server)
	if server == "" {
		server = "unknown"
	}
	return page.Execute(w, struct {
		Report  *Report
		Server  string
		Started string
		Results []Result
		Counts  map[Verdict]int
		Order   []Verdict
		Summary string
	}{r, server, r.Started.UTC().Format(time.RFC3339), results, r.Counts(), Verdicts, r.Summary()})
}

var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rawmcp probe: {{.Report.Target}}</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #222; }
h1 { font-size: 1.4em; }
table.meta td { padding: 0 1em 0 0; }
code, pre { font: 13px/1.4 ui-monospace, monospace; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
details { border-top: 1px solid #ddd; padding: .3em 0; }
summary { cursor: pointer; }
.v { display: inline-block; width: 3.5em; font-weight: bold; text-transform: uppercase; font-size: .8em; }
.fail { color: #b00020; } .warn { color: #a15c00; } .error { color: #6a1b9a; }
.skip { color: #555; } .info { color: #01579b; } .pass { color: #1b5e20; }
.reason { margin: .2em 0 .2em 4.5em; }
.help { color: #444; }
</style>
</head>
<body>
<h1>rawmcp probe{{with .Report.RevisionsLine}}: {{.}}{{end}}</h1>
<table class="meta">
<tr><td>target</td><td><code>{{.Report.Target}}</code></td></tr>
{{with .Report.Reached}}<tr><td>reached</td><td><code>{{.Address}}</code>{{if .TLSVersion}}, {{.TLSVersion}}, <code>{{.CipherSuite}}</code>{{else}}, cleartext http{{end}}</td></tr>
{{if .TLSVersion}}<tr><td>certificate</td><td><code>{{.Subject}}</code>, issued by <code>{{.Issuer}}</code>, expires {{.NotAfter.Format "2006-01-02T15:04:05Z07:00"}}</td></tr>
{{end}}<tr><td>hop announced</td><td>Server: <code>{{or .Server "none"}}</code>; Via: <code>{{or .Via "none"}}</code></td></tr>
{{end}}<tr><td>server</td><td><code>{{.Server}}</code></td></tr>
<tr><td>protocol version</td><td><code>{{.Report.ProtocolVersion}}</code></td></tr>
<tr><td>MCP revisions</td><td>{{range $i, $v := .Report.Revisions}}{{if $i}}, {{end}}<code>{{$v}}</code>{{else}}none found{{end}}</td></tr>
<tr><td>started</td><td>{{.Started}}, {{.Report.Duration.Milliseconds}} ms</td></tr>
<tr><td>counts</td><td>{{range .Order}}<span class="{{.}}">{{index $.Counts .}} {{.}}</span> {{end}}</td></tr>
</table>
<p><code>{{.Summary}}</code></p>
{{range .Results}}<details>
<summary><span class="v {{.Verdict}}">{{.Verdict}}</span> <code>{{.Check.ID}}</code> {{.Check.Title}} <small>({{.Check.Level}} · {{.Check.Source}}{{if .Check.Rule}} · {{.Check.Rule}}{{end}})</small>
{{if .Reason}}<div class="reason">{{.Reason}}</div>{{end}}{{if or .Expected .Actual}}<div class="reason">expected: <code>{{.Expected}}</code><br>actual: <code>{{.Actual}}</code></div>{{end}}</summary>
<p class="help">sends: {{.Check.Sends}}<br>passes when: {{.Check.Passes}}</p>
{{range $i, $x := .Exchanges}}<pre>{{$x.Request}}</pre>
<pre>{{$x.Response}}</pre>
{{end}}</details>
{{end}}</body>
</html>
`))
