package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"rawmcp/wire/client/probe"
)

// probeAbout is the -h text of rawmcp probe: what it does, its groups and
// its exit statuses.
func probeAbout() string {
	var groups strings.Builder
	for _, g := range probe.Groups {
		n := 0
		for _, c := range probe.Catalogue() {
			if c.Group == g.Code {
				n++
			}
		}
		fmt.Fprintf(&groups, "  %-4s %-45s %2d checks\n", g.Code, g.Title, n)
	}
	return "Probes any MCP 2025-11-25 Streamable HTTP endpoint on loopback (127.0.0.0/8, [::1],\n" +
		"localhost) with the check catalogue: is Origin validated, Host checked, the session\n" +
		"id random and bound to its caller, does DELETE end it, does a foreign token get 401,\n" +
		"is anything echoed, does HTTP framing hold. Every session it opens is deleted.\n\n" +
		"Checks, by group (rawmcp probe -list for each; -list -only ID for its help; -list -md\n" +
		"for the catalogue as Markdown, wire/client/probe/CHECKS.md):\n" + groups.String() + "\n" +
		"Levels: MUST not met fails, SHOULD warns, H (hardening) warns, or fails with -strict.\n" +
		"Verdicts: pass, fail, warn, skip (the run lacks what the check needs), error (the\n" +
		"target broke the exchange), info. The token is sent to the endpoint only, never to the\n" +
		"metadata paths or in a query; outputs show tokens and session ids as correlation ids.\n\n" +
		"Output: the table and a summary line on stdout (-json: one JSON document instead);\n" +
		"-html FILE writes a self-contained page too; -trace prints every exchange on stderr.\n" +
		"Exit status: 0 no MUST check failed; 1 one did (or, with -require-all, a MUST check\n" +
		"was skipped or could not run); 2 a usage error, or no MCP endpoint at the URL (PRE-01)."
}

func runProbe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("probe", "probe -url http://127.0.0.1:PORT/mcp [flags]", probeAbout(), stderr)
	rawURL := fs.String("url", "", "the MCP endpoint, on loopback only (required unless -list)")
	token := fs.String("token", "", "a valid bearer token for the endpoint (none: a target without authorization)")
	token2 := fs.String("token2", "", "a second principal's valid token (SE-07)")
	tokens := fs.String("tokens", "", `JSON file of named tokens: {"wrong_audience": ..., "wrong_issuer": ..., "expired": ..., "low_scope": ...}`)
	only := fs.String("only", "", "run only these checks or groups, comma-separated (HO-02,AU)")
	skip := fs.String("skip", "", "skip these checks or groups")
	strict := fs.Bool("strict", false, "hardening (H) checks not met fail instead of warning")
	requireAll := fs.Bool("require-all", false, "exit 1 when a MUST check was skipped or could not run")
	asJSON := fs.Bool("json", false, "print one JSON document instead of the table")
	htmlFile := fs.String("html", "", "also write a self-contained HTML report to this file")
	trace := fs.Bool("trace", false, "print every exchange like curl -v on stderr, tokens and session ids redacted")
	timeout := fs.Duration("timeout", 5*time.Second, "limit on each exchange")
	list := fs.Bool("list", false, "print the catalogue (with -only, each check's help) and exit, touching no network")
	md := fs.Bool("md", false, "with -list: print the whole catalogue as Markdown (wire/client/probe/CHECKS.md)")
	if code, done := parse(fs, args, 0); done {
		return code
	}
	onlyIDs, err := probe.ParseIDs(*only)
	var skipIDs []string
	if err == nil {
		if skipIDs, err = probe.ParseIDs(*skip); err == nil {
			_, err = probe.Select(onlyIDs, skipIDs)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "rawmcp", err)
		return exitUsage
	}
	if *md && (!*list || len(onlyIDs)+len(skipIDs) > 0) {
		fmt.Fprintln(stderr, "rawmcp probe: -md prints the whole catalogue: give it with -list alone")
		return exitUsage
	}
	if *md {
		if err := probe.WriteMarkdown(stdout); err != nil {
			fmt.Fprintln(stderr, "rawmcp probe:", err)
			return exitFail
		}
		return exitOK
	}
	if *list {
		return probeList(stdout, onlyIDs)
	}
	if *rawURL == "" || *timeout <= 0 {
		fmt.Fprintln(stderr, "rawmcp probe: give -url (and a positive -timeout)")
		fs.Usage()
		return exitUsage
	}
	target, err := probe.ParseTarget(*rawURL)
	if err != nil {
		fmt.Fprintln(stderr, "rawmcp", err)
		return exitUsage
	}
	opts := probe.Options{Token: *token, Token2: *token2, Strict: *strict, Timeout: *timeout, Only: onlyIDs, Skip: skipIDs}
	if *tokens != "" {
		data, err := os.ReadFile(*tokens)
		if err == nil {
			opts.Named, err = probe.ParseNamedTokens(data)
		}
		if err != nil {
			fmt.Fprintf(stderr, "rawmcp probe: -tokens: %v\n", err)
			return exitUsage
		}
	}
	if *trace {
		opts.Trace = stderr
	}
	rep, err := probe.Run(ctx, target, opts)
	if rep == nil {
		fmt.Fprintln(stderr, "rawmcp", err)
		return exitUsage
	}
	// ErrNotMCP leaves a report holding PRE-01, which says why.
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err == nil && *htmlFile != "" {
		err = writeHTML(*htmlFile, rep)
	}
	if err != nil {
		fmt.Fprintln(stderr, "rawmcp probe:", err)
		return exitFail
	}
	return probeStatus(rep, *requireAll, stderr)
}

// probeStatus is the exit status of a finished run.
func probeStatus(rep *probe.Report, requireAll bool, stderr io.Writer) int {
	if pre := rep.Results[0]; pre.Verdict != probe.Pass {
		fmt.Fprintln(stderr, "rawmcp probe: PRE-01:", pre.Reason)
		return exitUsage
	}
	if len(rep.MustIDs(probe.Fail)) > 0 {
		return exitFail
	}
	if requireAll && len(rep.MustIDs(probe.Skip))+len(rep.MustIDs(probe.Error)) > 0 {
		fmt.Fprintln(stderr, "rawmcp probe: -require-all: MUST checks not run:", strings.Join(append(rep.MustIDs(probe.Skip), rep.MustIDs(probe.Error)...), ", "))
		return exitFail
	}
	return exitOK
}

func writeHTML(path string, rep *probe.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := rep.WriteHTML(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// probeList prints the catalogue: a line per check, grouped; with only,
// the selected checks with their help.
func probeList(stdout io.Writer, only []string) int {
	selected := map[string]bool{}
	checks, _ := probe.Select(only, nil)
	for _, c := range checks {
		selected[c.ID] = true
	}
	// Select leaves PRE-01 out (Run always runs it); -list shows it when
	// named.
	selected["PRE-01"] = len(only) == 0 || slices.Contains(only, "PRE-01") || slices.Contains(only, "PRE")
	var b strings.Builder
	for _, g := range probe.Groups {
		b.WriteString(g.Title + "\n")
		for _, c := range probe.Catalogue() {
			if c.Group != g.Code || !selected[c.ID] {
				continue
			}
			fmt.Fprintf(&b, "  %-6s %-6s %-5s %s\n", c.ID, c.Level, c.Needs, c.Line)
			if len(only) > 0 {
				fmt.Fprintf(&b, "         source: %s; rule: %s\n", c.Source, orNone(string(c.Rule)))
				b.WriteString(wrap("sends: "+c.Sends, 9, 88))
				b.WriteString(wrap("passes when: "+c.Passes, 9, 88))
			}
		}
	}
	io.WriteString(stdout, b.String())
	return exitOK
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// wrap folds text into lines of at most width columns, indented.
func wrap(text string, indent, width int) string {
	var b strings.Builder
	line := strings.Repeat(" ", indent)
	for _, word := range strings.Fields(text) {
		if len(line)+1+len(word) > width && strings.TrimSpace(line) != "" {
			b.WriteString(line + "\n")
			line = strings.Repeat(" ", indent)
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += word
	}
	return b.String() + line + "\n"
}
