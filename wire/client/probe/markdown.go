package probe

import (
	"fmt"
	"io"
	"strings"
)

// checksPreface opens CHECKS.md: what the catalogue is, and how levels
// become verdicts.
const checksPreface = `# rawmcp probe: the check catalogue

The black-box contract of an MCP 2025-11-25 Streamable HTTP endpoint, its protected-resource
boundary and the HTTP/1.1 framing under them, of an MCP 2026-07-28 endpoint (V2) and of the
fallback between the two (L), as checks that run against any server, over http or https.
Ids are stable: they appear in the output, in ` + "`-only`/`-skip`" + ` and in ` + "`-json`" + `. Each check names
the rule it tests (` + "`wire/rule`" + `) where there is one, and its level.

This file is generated from the checks themselves: each is declared, with its run function right
below it, in its group's file (` + "`wire/client/probe/ho.go`" + ` for HO, and so on) or a topic file of the
group (such as ` + "`v2_results.go`" + ` in V2). Do not edit it; run
` + "`go run ./cmd/rawmcp probe -list -md > wire/client/probe/CHECKS.md`" + ` (or
` + "`go test ./wire/client/probe -run TestChecksMarkdownIsCurrent -update`" + `), and a test fails
while it is stale.

Levels and verdicts:
- **MUST** (the spec or an RFC requires it): not met is ` + "`fail`" + `.
- **SHOULD**: not met is ` + "`warn`" + `.
- **H** (hardening: stricter than the spec, the profile's own rule or a known attack's fix): not
  met is ` + "`warn`" + `; ` + "`-strict`" + ` makes it ` + "`fail`" + `.
- **info**: reported, never judged.
- ` + "`skip`" + `: the run lacks what the check needs (a token, a server that issues sessions, a
  prerequisite), with the reason. ` + "`-require-all`" + ` turns a skipped MUST into exit 1.
- ` + "`error`" + `: the check could not run: the target broke the exchange, or answered what the check
  cannot judge. A verdict never rests on an answer that did not serve the request: a 401 to the
  run's valid token, a 503, or no answer is an error, never a pass. A 429 (or a 503 with
  Retry-After) is the runner's: it waits out a short Retry-After and sends the request again, and
  a longer one stops the run, the checks not finished saying "rate limited (Retry-After: N s)". A
  target that stops answering stops the run too, and PRE-03 reports it once.

Every verdict but a pass comes with a reason, and where it rests on an answer, with what was
expected and what actually came back. Under each group's table, **How to fix** gives each check's
remedy, where it usually lives (the SDK's transport options, the web framework, the proxy in
front), and the link to the section of the specification, RFC or advisory the check rests on.

Needs: **T** a valid token (` + "`-token`" + `), **T2** a second principal's token (` + "`-token2`" + `), **X** a
token of a named kind (` + "`-tokens FILE`" + `: a JSON object of ` + "`wrong_audience`, `wrong_issuer`, `expired`,\n`low_scope`" + `), **slow** ` + "`-slow`" + `; and what the runner decides about the target once per run:
**auth** it refuses a request without a token, **sessions** it issues session ids, **metadata** it
serves Protected Resource Metadata (or refuses it for the lack of a token), **SSE** it answers some
request as an event stream, **legacy** it speaks MCP 2025-11-25 (initialize), **modern** it speaks
MCP 2026-07-28 (server/discover). Without its need a check is ` + "`skip`" + `, with the reason; a run
without ` + "`-token`" + ` against a target that asks for one judges what needs no token and skips the rest
with "needs -token". **from REVISION**: the rule arrived in that MCP revision, and a target that
negotiated an earlier one skips the check. A check that rests on another's finding runs after it
and, when that one failed or could not run, skips with "see ID": one defect is reported once.

Section, keyword and binds: the requirement a check's level rests on, its keyword, and the party it
binds (server, client, deployment: a hop in front of the server, or profile: the profile's own
rule). A check whose requirement binds the client is hardening at most: a server that tolerates a
client breaking a rule breaks none of its own.
`

// WriteMarkdown writes the catalogue as Markdown, CHECKS.md: the
// preface, then per group a table (id, check, sends, passes when, level
// and source, needs, section, keyword, binds) and a "How to fix" list,
// each check's fix and the link to the section it rests on.
func WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString(checksPreface)
	for _, g := range groups {
		fmt.Fprintf(&b, "\n## %s (`%s.go`)\n\n", g.Title, strings.ToLower(g.Code))
		b.WriteString("| id | check | sends | passes when | level · source | needs | section | keyword | binds |\n|---|---|---|---|---|---|---|---|---|\n")
		var fixes strings.Builder
		for _, c := range catalogue {
			if c.Group != g.Code {
				continue
			}
			level := string(c.Level) + " · " + c.Source
			if c.Rule != "" {
				level += " · " + string(c.Rule)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				c.ID, cell(c.Title), cell(c.Sends), cell(c.Passes), cell(level), needsCell(c), cell(c.Section), c.Keyword, c.Binds)
			fmt.Fprintf(&fixes, "- **%s %s.** %s\n  <%s>\n", c.ID, inline(c.Title), inline(c.Fix), c.Link)
		}
		b.WriteString("\n**How to fix**\n\n" + fixes.String())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell keeps a table cell one cell: a bar would end it.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// needsCell is the Needs column: the needs, and the revision the rule
// arrived in.
func needsCell(c Check) string {
	if c.Since == "" {
		return c.Needs.String()
	}
	return c.Needs.String() + ", from " + c.Since
}

// inline keeps prose prose in a Markdown paragraph: a backslash, a
// backtick, an asterisk or an angle bracket would start markup, and so
// would an underscore at the edge of a word (_meta); one inside a word
// (allowed_hosts) is left as it is, which Markdown reads literally.
func inline(s string) string {
	var b strings.Builder
	for i, r := range s {
		edge := r == '_' && (i == 0 || !isWordByte(s[i-1]) || i+1 == len(s) || !isWordByte(s[i+1]))
		if strings.ContainsRune("\\`*<>", r) || edge {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
