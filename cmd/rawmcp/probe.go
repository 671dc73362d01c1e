package main

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"rawmcp/wire/client"
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
	return "Probes any MCP Streamable HTTP endpoint, over http or https, with the check\n" +
		"catalogue: is Origin validated, Host checked, the session id random and bound to its\n" +
		"caller, does DELETE end it, does a foreign token get 401, is anything echoed, does\n" +
		"HTTP framing hold. It asks which revisions the endpoint speaks (2025-11-25 by\n" +
		"initialize, 2026-07-28 by server/discover) and runs the checks of each: the V2\n" +
		"group judges the 2026-07-28 wire, the L group the fallback between the two. Every\n" +
		"session it opens is deleted.\n\n" +
		"Reaching it: https is TLS 1.2 or later, verified against the URL's host with the\n" +
		"system roots plus -cacert; nothing turns verification off. -resolve HOST:PORT:ADDR\n" +
		"dials ADDR while Host, SNI and verification use HOST (as curl's). Redirects are never\n" +
		"followed. A token is never sent over http to a host that is not loopback (decided\n" +
		"from the URL, not the address dialled). The report starts with what was reached:\n" +
		"address, TLS version and cipher, the certificate, the hop's Server and Via.\n" +
		"Answers are read up to " + strconv.Itoa(client.MaxAnswerBody>>20) + " MiB of body (real tools/list answers run to hundreds of\n" +
		"KB); a larger one is reported as \"answer larger than " + strconv.Itoa(client.MaxAnswerBody) + " bytes\", never as a status.\n\n" +
		"Checks, by group (rawmcp probe -list for each; -list -only ID for its help; -list -md\n" +
		"for the catalogue as Markdown, wire/client/probe/CHECKS.md):\n" + groups.String() + "\n" +
		"Levels: MUST not met fails, SHOULD warns, H (hardening) warns, or fails with -strict.\n" +
		"Verdicts: pass, fail, warn, skip (the run lacks what the check needs), error (the\n" +
		"target broke the exchange), info. The token is sent to the endpoint only, never to the\n" +
		"metadata paths or in a query; outputs show tokens and session ids as correlation ids.\n\n" +
		"Output: the table and a summary line on stdout (-json: one JSON document instead);\n" +
		"-html FILE writes a self-contained page too, -sarif FILE a SARIF 2.1.0 log for code\n" +
		"scanning; -trace prints every exchange on stderr.\n" +
		"Explore: -explore N runs N random walks of at most -explore-steps steps instead of\n" +
		"the checks, over what a client can do (initialize, initialized, ping, a list, GET with\n" +
		"and without cursors, DELETE, reuse of an ended id, -token2 on the first's session, a bad\n" +
		"or missing MCP-Protocol-Version), each answer judged by the spec's MUSTs (fail) and\n" +
		"SHOULDs (warn) alone (rules EX-01 to EX-08). The same -seed draws the same walks. A\n" +
		"walk holds at most two sessions and deletes them. Each rule broken is shown once, its\n" +
		"walk shrunk to a shortest one that still breaks it, as a numbered transcript;\n" +
		"-explore-save FILE keeps those walks, -explore-replay FILE (or the -json output)\n" +
		"re-runs them. Exit 1 when a MUST rule broke.\n\n" +
		"Exit status: 0 no MUST check failed; 1 one did (or, with -require-all, a MUST check\n" +
		"was skipped or could not run); 2 a usage error, a token for cleartext http to a host\n" +
		"that is not loopback, or no MCP endpoint reached at the URL (PRE-01: a TLS failure,\n" +
		"a redirect, no answer). With -baseline FILE (a -json document, or {\"HO-01\":\"warn\"}:\n" +
		"a check not listed must pass) the status compares verdicts instead: 0 when each is\n" +
		"its baseline's, 1 when one is worse (a regression) or better (the baseline must be\n" +
		"updated); verdicts rank pass, info, skip, warn, error, fail. 3: the -budget ran out\n" +
		"(default 60s; with -slow 60s more than DP-08's hold) before every check finished and\n" +
		"no MUST check failed: the checks not finished are errors whose reason begins \"not\n" +
		"run:\" or \"not finished:\", and the run is incomplete (a failed MUST still exits 1)."
}

// exitIncomplete: the budget ran out before every check finished.
const exitIncomplete = 3

func runProbe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("probe", "probe -url http[s]://HOST[:PORT]/PATH [flags]", probeAbout(), stderr)
	rawURL := fs.String("url", "", "the MCP endpoint, http:// or https:// (required unless -list)")
	var resolves resolveFlag
	fs.Var(&resolves, "resolve", "HOST:PORT:ADDR: dial ADDR for HOST:PORT, as curl's --resolve (repeatable)")
	cacert := fs.String("cacert", "", "PEM file of CA certificates trusted beside the system roots (https)")
	baseline := fs.String("baseline", "", "compare the verdicts with this file's (a -json report or {\"ID\": \"verdict\"}) for the exit status")
	sarifFile := fs.String("sarif", "", "also write a SARIF 2.1.0 log of the checks not passed to this file")
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
	budget := fs.Duration("budget", 0, "bound on the whole run; checks not finished then are reported as not run, exit 3 (0: 60s, with -slow 60s more than DP-08's hold)")
	slow := fs.Bool("slow", false, "also run the checks that hold a stream for minutes (DP-08: one GET stream, up to 130 s)")
	list := fs.Bool("list", false, "print the catalogue (with -only, each check's help) and exit, touching no network")
	md := fs.Bool("md", false, "with -list: print the whole catalogue as Markdown (wire/client/probe/CHECKS.md)")
	explore := fs.Int("explore", 0, "instead of the checks, run N random walks over the session lifecycle, judged by the spec's MUSTs and SHOULDs")
	seed := fs.Uint64("seed", 0, "with -explore: the seed of the walks (0: a random one, printed)")
	exploreSteps := fs.Int("explore-steps", 8, "with -explore: the most steps in a walk (2 to 64)")
	exploreSave := fs.String("explore-save", "", "with -explore: write each finding's shortest walk to this file, for -explore-replay")
	exploreReplay := fs.String("explore-replay", "", "re-run the walks of this file (-explore-save's, or an -explore -json document) and judge them")
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
	if *rawURL == "" || *timeout <= 0 || *budget < 0 {
		fmt.Fprintln(stderr, "rawmcp probe: give -url (and a positive -timeout, a -budget not negative)")
		fs.Usage()
		return exitUsage
	}
	target, err := probe.ParseTarget(*rawURL, resolves...)
	if err != nil {
		fmt.Fprintln(stderr, "rawmcp", err)
		return exitUsage
	}
	opts := probe.Options{Token: *token, Token2: *token2, Strict: *strict, Slow: *slow, Timeout: *timeout, Budget: *budget, Only: onlyIDs, Skip: skipIDs}
	if *cacert != "" {
		if opts.RootCAs, err = loadRoots(*cacert); err != nil {
			fmt.Fprintf(stderr, "rawmcp probe: -cacert: %v\n", err)
			return exitUsage
		}
	}
	var known probe.Baseline
	if *baseline != "" {
		data, err := os.ReadFile(*baseline)
		if err == nil {
			known, err = probe.ParseBaseline(data)
		}
		if err != nil {
			fmt.Fprintf(stderr, "rawmcp probe: -baseline: %v\n", err)
			return exitUsage
		}
	}
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
	if *explore != 0 || *exploreReplay != "" {
		x := probe.ExploreOptions{Walks: *explore, Seed: *seed, Steps: *exploreSteps}
		return runExplore(ctx, target, opts, x, exploreFlags{url: *rawURL, resolves: resolves, cacert: *cacert, token: *token != "", token2: *token2 != "",
			save: *exploreSave, replay: *exploreReplay, asJSON: *asJSON}, stdout, stderr)
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
		err = writeFile(*htmlFile, rep.WriteHTML)
	}
	if err == nil && *sarifFile != "" {
		err = writeFile(*sarifFile, rep.WriteSARIF)
	}
	if err != nil {
		fmt.Fprintln(stderr, "rawmcp probe:", err)
		return exitFail
	}
	if known != nil && rep.Results[0].Verdict == probe.Pass && !rep.Incomplete {
		return baselineStatus(rep, known, stderr)
	}
	return probeStatus(rep, *requireAll, stderr)
}

// exploreFlags are what runExplore needs of the command line beside the
// options: where to save and replay walks, and what the replay command
// line must repeat (whether tokens were given, never their values).
type exploreFlags struct {
	url           string
	resolves      resolveFlag
	cacert        string
	token, token2 bool
	save, replay  string
	asJSON        bool
}

// runExplore runs rawmcp probe -explore or -explore-replay: the report,
// the saved walks, and the exit status (1 when a MUST rule broke, 2 when
// the target is not an MCP endpoint).
func runExplore(ctx context.Context, target probe.Target, opts probe.Options, x probe.ExploreOptions, f exploreFlags, stdout, stderr io.Writer) int {
	if x.Walks < 0 || (x.Walks > 0 && f.replay != "") {
		fmt.Fprintln(stderr, "rawmcp probe: give -explore N (N > 0) or -explore-replay FILE, not both")
		return exitUsage
	}
	if f.replay != "" {
		data, err := os.ReadFile(f.replay)
		if err == nil {
			x.Replay, err = probe.ParseWalks(data)
		}
		if err != nil {
			fmt.Fprintf(stderr, "rawmcp probe: -explore-replay: %v\n", err)
			return exitUsage
		}
	} else if x.Seed == 0 {
		x.Seed = rand.Uint64()
	}
	e, rep, err := probe.Explore(ctx, target, opts, x)
	if e == nil {
		if rep != nil && len(rep.Results) > 0 && rep.Results[0].Verdict != probe.Pass {
			fmt.Fprintln(stderr, "rawmcp probe: PRE-01:", rep.Results[0].Reason)
		} else {
			fmt.Fprintln(stderr, "rawmcp", err)
		}
		return exitUsage
	}
	save := f.save
	if f.replay != "" {
		save = f.replay
	}
	if f.save != "" && len(e.Findings) > 0 {
		data, err := json.MarshalIndent(e.SavedWalks(), "", "  ")
		if err == nil {
			err = os.WriteFile(f.save, append(data, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintln(stderr, "rawmcp probe: -explore-save:", err)
			return exitFail
		}
	}
	if f.asJSON {
		err = e.WriteJSON(stdout)
	} else {
		err = e.WriteText(stdout, replayCommand(f, save))
	}
	if err != nil {
		fmt.Fprintln(stderr, "rawmcp probe:", err)
		return exitFail
	}
	if e.MustFailed() {
		return exitFail
	}
	return exitOK
}

// replayCommand is the command line that re-runs the saved walks, tokens
// named by flag only; save "" (nothing saved) names the -json output.
func replayCommand(f exploreFlags, save string) string {
	cmd := "rawmcp probe -url " + f.url
	for _, r := range f.resolves {
		cmd += " -resolve " + r.Host + ":" + strconv.Itoa(int(r.Port)) + ":" + r.Addr.String()
	}
	if f.cacert != "" {
		cmd += " -cacert " + f.cacert
	}
	if f.token {
		cmd += " -token TOKEN"
	}
	if f.token2 {
		cmd += " -token2 TOKEN2"
	}
	if save == "" {
		return cmd + " -explore-replay FILE (FILE: this run's -explore-save, or its -json output)"
	}
	return cmd + " -explore-replay " + save
}

// resolveFlag collects -resolve entries.
type resolveFlag []probe.Resolve

func (f *resolveFlag) String() string { return "" }

func (f *resolveFlag) Set(s string) error {
	r, err := probe.ParseResolve(s)
	if err != nil {
		return err
	}
	*f = append(*f, r)
	return nil
}

// loadRoots is the system roots plus the certificates of a PEM file.
func loadRoots(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	roots, err := x509.SystemCertPool()
	if err != nil {
		roots = x509.NewCertPool()
	}
	if !roots.AppendCertsFromPEM(data) {
		return nil, errors.New("no PEM certificate in the file")
	}
	return roots, nil
}

// baselineStatus is the exit status of a run compared with a baseline:
// 1 when a verdict is worse than its baseline's or better (the baseline
// no longer holds and must be updated), each listed on stderr.
func baselineStatus(rep *probe.Report, known probe.Baseline, stderr io.Writer) int {
	worse, better := rep.Compare(known)
	if len(worse)+len(better) == 0 {
		return exitOK
	}
	var b strings.Builder
	fmt.Fprintf(&b, "rawmcp probe: -baseline: regressions: %d; entries that no longer hold: %d\n", len(worse), len(better))
	for _, d := range worse {
		fmt.Fprintf(&b, "  regression  %-6s %s, the baseline says %s\n", d.ID, d.Now, d.Was)
	}
	for _, d := range better {
		fmt.Fprintf(&b, "  no longer   %-6s %s, the baseline says %s: update the baseline\n", d.ID, d.Now, d.Was)
	}
	io.WriteString(stderr, b.String())
	return exitFail
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
	if rep.Incomplete {
		fmt.Fprintln(stderr, "rawmcp probe: the run is incomplete: the budget ran out before every check finished")
		return exitIncomplete
	}
	if requireAll && len(rep.MustIDs(probe.Skip))+len(rep.MustIDs(probe.Error)) > 0 {
		fmt.Fprintln(stderr, "rawmcp probe: -require-all: MUST checks not run:", strings.Join(append(rep.MustIDs(probe.Skip), rep.MustIDs(probe.Error)...), ", "))
		return exitFail
	}
	return exitOK
}

// writeFile writes one of the report's forms to path.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
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
	// The needs column is as wide as the widest needs of the catalogue.
	width := 0
	for _, c := range probe.Catalogue() {
		width = max(width, len(c.Needs.String()))
	}
	var b strings.Builder
	for _, g := range probe.Groups {
		title := g.Title + "\n"
		for _, c := range probe.Catalogue() {
			if c.Group != g.Code || !selected[c.ID] {
				continue
			}
			// A group is named only above checks of its own, so
			// -list -only HO-02 is not a list of empty groups.
			b.WriteString(title)
			title = ""
			fmt.Fprintf(&b, "  %-6s %-6s %-*s %s\n", c.ID, c.Level, width, c.Needs, c.Title)
			if len(only) > 0 {
				fmt.Fprintf(&b, "         source: %s; rule: %s\n", c.Source, orNone(string(c.Rule)))
				b.WriteString(wrap("sends: "+c.Sends, 9, 88))
				b.WriteString(wrap("passes when: "+c.Passes, 9, 88))
				b.WriteString(wrap("fix: "+c.Fix, 9, 88))
				fmt.Fprintf(&b, "         link: %s\n", c.Link)
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
