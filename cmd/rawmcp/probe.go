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

// probeAbout is the -h text of rawmcp probe: what it does, its groups,
// its outputs and its exit statuses.
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
	var exits strings.Builder
	for _, e := range probeExits {
		fmt.Fprintf(&exits, "  %d  %s\n", e.code, e.meaning)
	}
	return "Probes any MCP Streamable HTTP endpoint, over http or https, with the " + probe.CatalogueLine() + ":\n" +
		"is Origin validated, Host checked, the session id random and bound to its caller,\n" +
		"does DELETE end it, does a foreign token get 401,\n" +
		"is anything echoed, does HTTP framing hold. It asks which revisions the endpoint speaks\n" +
		"(2025-11-25 by initialize, 2026-07-28 by server/discover) and runs the checks of each:\n" +
		"the V2 group judges the 2026-07-28 wire, the L group the fallback between the two.\n" +
		"Every session it opens is deleted.\n\n" +
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
		"Output: on stdout the findings first (failures, warnings, checks that could not run,\n" +
		"each with its evidence and fix), then skips, reports, passes and a summary line; -q\n" +
		"keeps the findings, skips and summary; -json prints one JSON document instead. On a\n" +
		"terminal the verdicts are marked and coloured (not with NO_COLOR set). -html FILE writes\n" +
		"a self-contained page, -sarif FILE a SARIF 2.1.0 log for code scanning (results only\n" +
		"for findings of checks that finished and no baseline accepts, located at\n" +
		"-sarif-location, a file of your repository). Progress goes to stderr (a live line on a\n" +
		"terminal, a line per check otherwise; -q and -trace silence it); -trace prints every\n" +
		"exchange there instead. Output paths are checked before the run.\n\n" +
		"Baselines: -baseline FILE accepts what a deployment is known to have, so CI fails only\n" +
		"on a regression: a check that newly fails, warns or errors. FILE is what\n" +
		"-write-baseline wrote, a -json report, or {\"HO-01\": \"warn\", \"V2\": \"skip\"} (ids or\n" +
		"groups; an entry may be {\"verdict\": \"fail\", \"reason\": \"...\", \"expires\": \"2027-01-31\"},\n" +
		"and an expired one accepts nothing). A check absent from the baseline may pass, skip or\n" +
		"report (info); one a later catalogue edition added is reported as new, never as a\n" +
		"regression.\n\n" +
		"Explore: -explore N runs N random walks of at most -explore-steps steps instead of\n" +
		"the checks, over what a client can do (initialize, initialized, ping, a list, GET with\n" +
		"and without cursors, DELETE, reuse of an ended id, -token2 on the first's session, a bad\n" +
		"or missing MCP-Protocol-Version), each answer judged by the spec's MUSTs (fail) and\n" +
		"SHOULDs (warn) alone (rules EX-01 to EX-08). The same -seed draws the same walks. A\n" +
		"walk holds at most two sessions and deletes them. Each rule broken is shown once, its\n" +
		"walk shrunk to a shortest one that still breaks it, as a numbered transcript;\n" +
		"-explore-save FILE keeps those walks, -explore-replay FILE (or the -json output)\n" +
		"re-runs them. It writes its own report: -html, -sarif and the baselines are the checks'.\n\n" +
		"Exit status:\n" + exits.String() +
		"With -require-all, a MUST check skipped or not run is 1 too. -budget (default 60s; with\n" +
		"-slow 60s more than DP-08's hold) bounds the run; checks not finished are errors whose\n" +
		"reason begins \"not run:\" or \"not finished:\"."
}

// Exit statuses of rawmcp probe beyond the common three.
const (
	exitIncomplete = 3 // the budget ran out, or a rate limit stopped the run, before every check finished
	exitUnjudged   = 4 // the target could not be judged (PRE-01)
	exitUnwritten  = 5 // a report could not be written after the run
)

// probeExits are rawmcp probe's exit statuses as -h and the README list
// them (TestProbeExitTables holds both to this table, and
// TestProbeExitStatus has a case for each).
var probeExits = []struct {
	code    int
	meaning string
}{
	{exitOK, "no MUST check failed (with -baseline: no regression)"},
	{exitFail, "a MUST check failed (with -baseline: a check newly fails, warns or errors)"},
	{exitUsage, "usage error: a flag, the URL, an input file or an output path; nothing was sent"},
	{exitIncomplete, "the run is incomplete: the -budget ran out or a rate limit stopped it before every check finished, and nothing above is 1"},
	{exitUnjudged, "the target could not be judged: not reached, TLS failed, no MCP endpoint, token refused"},
	{exitUnwritten, "a report could not be written after the run (the output, -html, -sarif, -write-baseline): its verdicts are not in it"},
}

// probeFlags are rawmcp probe's flags, parsed.
type probeFlags struct {
	url, cacert, token, token2, tokens, only, skip       string
	baseline, writeBaseline, html, sarif, sarifLocation  string
	resolves                                             resolveFlag
	strict, requireAll, asJSON, quiet, trace, slow, list bool
	md, version                                          bool
	timeout, budget                                      time.Duration
	explore, exploreSteps                                int
	seed                                                 uint64
	exploreSave, exploreReplay                           string
}

func newProbeFlags() (*flagSet, *probeFlags) {
	fs := newFlags("probe", probeAbout(), "probe [flags] URL", "probe -list [-only IDS] [-md]")
	f := &probeFlags{}
	fs.StringVar(&f.url, "url", "", "the MCP endpoint, http:// or https:// (or give it as the argument)")
	fs.Var(&f.resolves, "resolve", "HOST:PORT:ADDR: dial ADDR for HOST:PORT, as curl's --resolve (repeatable)")
	fs.StringVar(&f.cacert, "cacert", "", "PEM file of CA certificates trusted beside the system roots (https)")
	fs.StringVar(&f.token, "token", "", "a valid bearer token for the endpoint (none: a target without authorization)")
	fs.StringVar(&f.token2, "token2", "", "another principal's valid token, not -token's (SE-07)")
	fs.StringVar(&f.tokens, "tokens", "", `JSON file of named tokens a server must refuse: {"wrong_audience": ..., "wrong_issuer": ..., "expired": ..., "low_scope": ...}`)
	fs.StringVar(&f.only, "only", "", "run only these checks or groups, comma-separated (HO-02,AU)")
	fs.StringVar(&f.skip, "skip", "", "skip these checks or groups")
	fs.BoolVar(&f.strict, "strict", false, "hardening (H) checks not met fail instead of warning")
	fs.BoolVar(&f.requireAll, "require-all", false, "exit 1 when a MUST check was skipped or could not run")
	fs.StringVar(&f.baseline, "baseline", "", "accept the findings this file lists (-write-baseline's, a -json report, or {\"ID or group\": \"verdict\"}): exit 1 only on a regression")
	fs.StringVar(&f.writeBaseline, "write-baseline", "", "also write this run's findings to this file as a baseline that accepts them")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON document instead of the text report")
	fs.BoolVar(&f.quiet, "q", false, "print only the findings, the skips and the summary; no progress")
	fs.StringVar(&f.html, "html", "", "also write a self-contained HTML report to this file")
	fs.StringVar(&f.sarif, "sarif", "", "also write a SARIF 2.1.0 log of the findings to this file, for code scanning")
	fs.StringVar(&f.sarifLocation, "sarif-location", probe.DefaultSARIFLocation, "with -sarif: the file of your repository (relative to its root) each result points at")
	fs.BoolVar(&f.trace, "trace", false, "print every exchange like curl -v on stderr, tokens and session ids redacted")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Second, "limit on each exchange")
	fs.DurationVar(&f.budget, "budget", 0, "bound on the whole run; checks not finished then are reported as not run, exit 3 (0: 60s, with -slow 60s more than DP-08's hold)")
	fs.BoolVar(&f.slow, "slow", false, "also run the checks that hold a stream for minutes (DP-08: one GET stream, up to 130 s)")
	fs.BoolVar(&f.list, "list", false, "print the catalogue (with -only, each check's help) and exit, touching no network")
	fs.BoolVar(&f.md, "md", false, "with -list: print the whole catalogue as Markdown (wire/client/probe/CHECKS.md)")
	fs.BoolVar(&f.version, "version", false, "print the version and the check catalogue's edition, and exit")
	fs.IntVar(&f.explore, "explore", 0, "instead of the checks, run N random walks over the session lifecycle, judged by the spec's MUSTs and SHOULDs")
	fs.Uint64Var(&f.seed, "seed", 0, "with -explore: the seed of the walks (0: a random one, printed)")
	fs.IntVar(&f.exploreSteps, "explore-steps", 8, "with -explore: the most steps in a walk (2 to 64)")
	fs.StringVar(&f.exploreSave, "explore-save", "", "with -explore: write each finding's shortest walk to this file, for -explore-replay")
	fs.StringVar(&f.exploreReplay, "explore-replay", "", "re-run the walks of this file (-explore-save's, or an -explore -json document) and judge them")
	return fs, f
}

func runProbe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, f := newProbeFlags()
	if code, done := fs.parse(args, 1, stdout, stderr); done {
		return code
	}
	if f.version {
		fmt.Fprintln(stdout, versionLine())
		return exitOK
	}
	onlyIDs, err := probe.ParseIDs(f.only)
	var skipIDs []string
	if err == nil {
		if skipIDs, err = probe.ParseIDs(f.skip); err == nil {
			_, err = probe.Select(onlyIDs, skipIDs)
		}
	}
	if err != nil {
		return fs.usageError(stderr, "%s", strings.TrimPrefix(err.Error(), "probe: "))
	}
	if f.md && (!f.list || len(onlyIDs)+len(skipIDs) > 0) {
		return fs.usageError(stderr, "-md prints the whole catalogue: give it with -list alone")
	}
	if f.md {
		if err := probe.WriteMarkdown(stdout); err != nil {
			fmt.Fprintln(stderr, "rawmcp probe:", err)
			return exitFail
		}
		return exitOK
	}
	if f.list {
		return probeList(stdout, onlyIDs)
	}
	in, code := f.inputs(fs, stderr)
	if in == nil {
		return code
	}
	in.opts.Only, in.opts.Skip = onlyIDs, skipIDs
	if f.explore != 0 || f.exploreReplay != "" {
		x := probe.ExploreOptions{Walks: f.explore, Seed: f.seed, Steps: f.exploreSteps}
		return runExplore(ctx, in.target, in.opts, x, exploreFlags{url: in.target.URL, resolves: f.resolves, cacert: f.cacert, token: f.token != "", token2: f.token2 != "",
			save: f.exploreSave, replay: f.exploreReplay, asJSON: f.asJSON, progress: !f.quiet && !f.trace}, stdout, stderr)
	}
	return f.run(ctx, in, stdout, stderr)
}

// probeInputs is what a run takes from the command line, checked.
type probeInputs struct {
	target   probe.Target
	opts     probe.Options
	known    *probe.Baseline
	location string // the SARIF results' artifact URI
}

// inputs checks everything the command line gives before a byte is
// sent: the URL, the values, the files read and the files to write. On
// a usage error it returns nil and exitUsage.
func (f *probeFlags) inputs(fs *flagSet, stderr io.Writer) (*probeInputs, int) {
	fail := func(format string, args ...any) (*probeInputs, int) {
		return nil, fs.usageError(stderr, format, args...)
	}
	rawURL := f.url
	switch {
	case len(fs.args) == 1 && f.url != "" && fs.args[0] != f.url:
		return fail("the URL is given twice: as -url and as the argument")
	case len(fs.args) == 1:
		rawURL = fs.args[0]
	case rawURL == "":
		return fail("give the endpoint's URL: rawmcp probe http://127.0.0.1:PORT/mcp")
	}
	if f.timeout <= 0 || f.budget < 0 {
		return fail("-timeout must be positive and -budget not negative")
	}
	if f.token != "" && f.token == f.token2 {
		return fail("-token2 is -token: SE-07 needs another principal's token, or leave -token2 out")
	}
	exploring := f.explore != 0 || f.exploreReplay != ""
	if exploring && (f.html != "" || f.sarif != "" || f.baseline != "" || f.writeBaseline != "") {
		return fail("-explore writes its own report (text or -json): -html, -sarif, -baseline and -write-baseline are the checks'")
	}
	in := &probeInputs{}
	var err error
	if in.target, err = probe.ParseTarget(rawURL, f.resolves...); err != nil {
		return fail("%s", strings.TrimPrefix(err.Error(), "probe: "))
	}
	if in.location, err = probe.SARIFLocation(f.sarifLocation); err != nil {
		return fail("%s", strings.TrimPrefix(err.Error(), "probe: "))
	}
	in.opts = probe.Options{Token: f.token, Token2: f.token2, Strict: f.strict, Slow: f.slow, Timeout: f.timeout, Budget: f.budget}
	if f.cacert != "" {
		if in.opts.RootCAs, err = loadRoots(f.cacert); err != nil {
			return fail("-cacert: %v", err)
		}
	}
	if f.baseline != "" {
		if in.known, err = readJSONFile(f.baseline, probe.ParseBaseline); err != nil {
			return fail("-baseline: %v", err)
		}
	}
	if f.tokens != "" {
		if in.opts.Named, err = readJSONFile(f.tokens, probe.ParseNamedTokens); err != nil {
			return fail("-tokens: %v", err)
		}
	}
	outputs := map[string]string{}
	for _, out := range []struct{ flag, path string }{{"-html", f.html}, {"-sarif", f.sarif}, {"-write-baseline", f.writeBaseline}, {"-explore-save", f.exploreSave}} {
		if out.path == "" {
			continue
		}
		if other, same := outputs[out.path]; same {
			return fail("%s and %s name the same file %s", other, out.flag, out.path)
		}
		outputs[out.path] = out.flag
		if err := writable(out.path); err != nil {
			return fail("%s: %v", out.flag, err)
		}
	}
	if f.trace {
		in.opts.Trace = stderr
	}
	return in, exitOK
}

// readJSONFile reads a JSON input file and parses it; a syntax error
// says where it is.
func readJSONFile[T any](path string, parse func([]byte) (T, error)) (T, error) {
	var zero T
	data, err := os.ReadFile(path)
	if err != nil {
		return zero, err
	}
	if err := probe.JSONSyntax(data); err != nil {
		return zero, fmt.Errorf("%s is %v", path, err)
	}
	return parse(data)
}

// writable checks, before the run, that path can be written: a file that
// does not exist yet is created and removed again.
func writable(path string) error {
	_, statErr := os.Stat(path)
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	out.Close()
	if errors.Is(statErr, os.ErrNotExist) {
		return os.Remove(path)
	}
	return nil
}

// run runs the checks and writes every report; the exit status follows
// probeExits.
func (f *probeFlags) run(ctx context.Context, in *probeInputs, stdout, stderr io.Writer) int {
	var progress *probe.ProgressLine
	if !f.quiet && !f.trace {
		progress = probe.NewProgressLine(stderr, probe.Planned(in.opts), isTerminal(stderr), time.Now)
		in.opts.Progress = progress.Step
		stop := ticking(progress)
		defer stop()
	}
	rep, err := probe.Run(ctx, in.target, in.opts)
	if progress != nil {
		progress.Close()
	}
	if rep == nil {
		// A token for cleartext http to a host that is not loopback:
		// refused before a byte was sent.
		fmt.Fprintln(stderr, "rawmcp", err)
		return exitUsage
	}
	judged := err == nil
	if judged && in.known != nil {
		rep.Baseline = rep.Compare(in.known, time.Now())
	}
	if f.asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteTextWith(stdout, probe.TextOptions{Quiet: f.quiet, Terminal: isTerminal(stdout) && os.Getenv("NO_COLOR") == ""})
	}
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{
		{f.html, rep.WriteHTML},
		{f.sarif, func(w io.Writer) error { return rep.WriteSARIF(w, in.location) }},
	} {
		if err == nil && out.path != "" {
			err = writeFile(out.path, out.write)
		}
	}
	if err == nil && f.writeBaseline != "" && judged {
		err = writeFile(f.writeBaseline, func(w io.Writer) error { return rep.WriteBaseline(w, time.Now()) })
	}
	if err != nil {
		// Not 1: the server may have passed; what failed is this
		// machine's disk or pipe.
		fmt.Fprintln(stderr, "rawmcp probe: a report could not be written:", err)
		return exitUnwritten
	}
	if !judged {
		fmt.Fprintln(stderr, "rawmcp probe: PRE-01:", rep.Results[0].Reason)
		if hint := probe.Hint(ctx, in.target, in.opts, rep); hint != "" {
			fmt.Fprintln(stderr, "rawmcp probe: hint:", hint)
		}
		if f.writeBaseline != "" {
			fmt.Fprintln(stderr, "rawmcp probe: -write-baseline: nothing written: the target was not judged")
		}
		return exitUnjudged
	}
	return probeStatus(rep, f.requireAll, stderr)
}

// probeStatus is the exit status of a judged run (probeExits).
func probeStatus(rep *probe.Report, requireAll bool, stderr io.Writer) int {
	if c := rep.Baseline; c != nil && len(c.Regressions) > 0 {
		fmt.Fprintln(stderr, "rawmcp probe:", c.Line())
		return exitFail
	}
	if must := rep.MustIDs(probe.Fail); rep.Baseline == nil && len(must) > 0 {
		fmt.Fprintln(stderr, "rawmcp probe: MUST failed:", strings.Join(must, ", "))
		return exitFail
	}
	if rep.Incomplete {
		why := "the budget ran out before every check finished"
		if rep.Stopped != "" {
			why = rep.Stopped
		}
		fmt.Fprintln(stderr, "rawmcp probe: the run is incomplete:", why)
		return exitIncomplete
	}
	if notRun := append(rep.MustIDs(probe.Skip), rep.MustIDs(probe.Error)...); requireAll && len(notRun) > 0 {
		fmt.Fprintln(stderr, "rawmcp probe: -require-all: MUST checks not run:", strings.Join(notRun, ", "))
		return exitFail
	}
	return exitOK
}

// ticking redraws a live progress line four times a second, so its time
// moves while a long check waits; the returned func stops it.
func ticking(l *probe.ProgressLine) (stop func()) {
	l.Tick()
	done := make(chan struct{})
	ticker := time.NewTicker(250 * time.Millisecond)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				l.Tick()
			}
		}
	}()
	return func() {
		ticker.Stop()
		close(done)
	}
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
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
	progress      bool
}

// runExplore runs rawmcp probe -explore or -explore-replay: the report,
// the saved walks, and the exit status (1 when a MUST rule broke, 4 when
// the target is not an MCP endpoint).
func runExplore(ctx context.Context, target probe.Target, opts probe.Options, x probe.ExploreOptions, f exploreFlags, stdout, stderr io.Writer) int {
	if x.Walks < 0 || (x.Walks > 0 && f.replay != "") {
		fmt.Fprintln(stderr, "rawmcp probe: give -explore N (N > 0) or -explore-replay FILE, not both")
		return exitUsage
	}
	if f.replay != "" {
		var err error
		if x.Replay, err = readJSONFile(f.replay, probe.ParseWalks); err != nil {
			fmt.Fprintf(stderr, "rawmcp probe: -explore-replay: %v\n", err)
			return exitUsage
		}
	} else if x.Seed == 0 {
		x.Seed = rand.Uint64()
	}
	if f.progress {
		progress := probe.NewProgressLine(stderr, 1, isTerminal(stderr), time.Now)
		opts.Progress, x.Progress = progress.Step, progress.Walk
		stop := ticking(progress)
		defer progress.Close()
		defer stop()
	}
	e, rep, err := probe.Explore(ctx, target, opts, x)
	if e == nil {
		if rep != nil && len(rep.Results) > 0 && rep.Results[0].Verdict != probe.Pass {
			fmt.Fprintln(stderr, "rawmcp probe: PRE-01:", rep.Results[0].Reason)
			return exitUnjudged
		}
		fmt.Fprintln(stderr, "rawmcp", err)
		if errors.Is(err, probe.ErrExploreNeedsLegacy) {
			return exitUnjudged
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
