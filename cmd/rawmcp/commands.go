package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"rawmcp/policy"
	"rawmcp/wire"
	"rawmcp/wire/client/loadgen"
	"rawmcp/wire/scenario"
)

// traceFlag adds -trace; the trace goes to stderr with the other details.
// ruleAnnotated is what -trace puts after each response of a server
// driven from the inside: the rule that decided it.
const ruleAnnotated = "each response annotated with its rule"

// traceFlag declares -trace; annotated says what follows each response.
func traceFlag(fs *flagSet, stderr io.Writer, annotated string) func() io.Writer {
	trace := fs.Bool("trace", false, "print every raw exchange like curl -v, tokens and session ids redacted, "+annotated+" (stderr)")
	return func() io.Writer {
		if *trace {
			return stderr
		}
		return nil
	}
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("demo",
		"Starts a server on a random 127.0.0.1 port, drives the whole happy path over real\n"+
			"sockets and checks every status, header field and body byte. Prints the verdict.", "demo [-trace]")
	trace := traceFlag(fs, stderr, ruleAnnotated)
	if code, done := fs.parse(args, 0, stdout, stderr); done {
		return code
	}
	v := scenario.Demo(ctx, scenario.RunOptions{Trace: trace()})
	v.Report(stderr)
	if err := printJSON(stdout, v); err != nil || v.Verdict != scenario.Pass {
		return exitFail
	}
	return exitOK
}

// attackProbe is the probe command whose checks attack runs.
func attackProbe() string {
	return "rawmcp probe -strict -skip " + strings.Join(scenario.ProbeSkipped(), ",")
}

func runAttack(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("attack",
		"Runs the probe's catalogue as "+attackProbe()+" does (with every kind of\n"+
			"token) against a fresh server, then each attack that needs the fixture's powers\n"+
			"(revocation, a revision change, tokens for other resources) against a server of\n"+
			"its own with the exact status and rule that block it, then scans every response\n"+
			"for tokens and session ids. BLOCK means everything was blocked; what got through\n"+
			"is listed on stderr.", "attack [-v] [-trace]")
	verbose := fs.Bool("v", false, "list every attack with its expected and observed status (stderr)")
	trace := traceFlag(fs, stderr, "each of the attacks' responses annotated with its rule, each probe check's exchanges followed by its verdict")
	if code, done := fs.parse(args, 0, stdout, stderr); done {
		return code
	}
	v := scenario.RunAttacks(ctx, scenario.RunOptions{Trace: trace()}, scenario.Attacks())
	v.Report(stderr, *verbose)
	if err := printJSON(stdout, v); err != nil || v.Verdict != scenario.Block {
		return exitFail
	}
	return exitOK
}

func runExperiments(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	list := scenario.Experiments()
	fs := newFlags("experiments",
		"Runs the profile document's step-by-step experiments, or only experiment N (1-"+
			strconv.Itoa(len(list))+"):\neach changes one thing, predicts the status and shows what came back.", "experiments [-trace] [N]")
	trace := traceFlag(fs, stderr, ruleAnnotated)
	if code, done := fs.parse(args, 1, stdout, stderr); done {
		return code
	}
	if len(fs.args) == 1 {
		n, err := strconv.Atoi(fs.args[0])
		if err != nil || n < 1 || n > len(list) {
			return fs.usageError(stderr, "N must be a number from 1 to %d", len(list))
		}
		list = list[n-1 : n]
	}
	v := scenario.RunExperiments(ctx, scenario.RunOptions{Trace: trace()}, list)
	v.Report(stderr)
	if err := printJSON(stdout, v); err != nil || v.Verdict != scenario.Pass {
		return exitFail
	}
	return exitOK
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	opts := scenario.DefaultServeOptions()
	fs := newFlags("serve",
		"Serves /mcp (or -public-url's path) on 127.0.0.1 until SIGINT or SIGTERM, then shuts down\ngracefully. "+
			"The first stdout line is {\"metadata_url\": ..., \"token\": ..., \"url\": ...}; \"token\"\n"+
			"is the generated demo token (every scope, valid for a day), absent with -tokens.\n"+
			"With -public-url, \"url\" and \"metadata_url\" are the public ones and \"local_url\"\n"+
			"is where the listener serves the endpoint (the proxy's upstream).\n"+
			"The log goes to stderr and never carries a token or a session id.\n\n"+
			"Token file (-tokens FILE): a JSON list of token records, every member required but\n"+
			"not_before, times in RFC 3339; \"self\" as audience, resource, authorization_resource\n"+
			"or token_resource means this server's URL:\n\n"+
			"  [{\"token\": \"tok-alice-3fQ9zW\", \"token_id\": \"alice-1\", \"issuer\": \"https://as.rawmcp.invalid\",\n"+
			"    \"audience\": \"self\", \"resource\": \"self\", \"authorization_resource\": \"self\",\n"+
			"    \"token_resource\": \"self\", \"subject\": \"alice\", \"tenant\": \"acme\",\n"+
			"    \"scopes\": [\"mcp:connect\", \"resources:read\"], \"revision\": 1, \"active\": true,\n"+
			"    \"not_before\": \"2026-01-01T00:00:00Z\", \"expiry\": \"2099-01-01T00:00:00Z\"}]\n\n"+
			"A token naming another issuer than -issuer gets 401. cmd/rawmcp/testdata/probe-tokens.json is a\nwhole file.", "serve [flags]")
	fs.StringVar(&opts.Addr, "addr", opts.Addr, "listen address, 127.0.0.1:port only (port 0: a free one)")
	fs.StringVar(&opts.PublicURL, "public-url", "", "the URL clients use when a reverse proxy fronts this server, e.g. https://mcp.example.test/mcp: "+
		"the resource identifier (the metadata's resource, the 401's resource_metadata, \"self\" in -tokens); its origin is an own Origin and its "+
		"authority an allowed Host, beside 127.0.0.1:PORT and localhost:PORT. The endpoint is served at the URL's path and the metadata at the "+
		"path RFC 9728 §3.1 derives from it, so the proxy forwards paths unchanged and the URL the client uses is the URL the server names; the "+
		"listener stays on -addr. Lowercase http or https, no default port, userinfo, query, fragment or trailing slash")
	var origins, tenants listFlag
	fs.Var(&origins, "origin", "another allowed Origin, exactly as browsers send it (repeatable); http://127.0.0.1:PORT and http://localhost:PORT, the server's own, are always allowed, and so is a request with no Origin")
	tokens := fs.String("tokens", "", "a JSON list of token records (the format above); \"self\" in audience, resource, authorization_resource or token_resource means this server")
	fs.Var(&tenants, "tenant", "tenant on the ACL (repeatable; default: every tenant a token names)")
	fs.StringVar(&opts.Issuer, "issuer", opts.Issuer, "the one accepted token issuer")
	fs.IntVar(&opts.MaxSessions, "sessions", opts.MaxSessions, "most live sessions; one more initialize gets 503")
	fs.DurationVar(&opts.SessionTTL, "session-ttl", opts.SessionTTL, "session lifetime from initialize, never renewed")
	fs.IntVar(&opts.MaxInFlight, "inflight", opts.MaxInFlight, "most requests in processing; one more gets 503 at once")
	verbose := fs.Bool("v", false, "log every answer with its rule, not only refusals")
	trace := fs.Bool("trace", false, "print every exchange on every connection like curl -v, prefixed with its connection, tokens and session ids redacted, each answer with its rule (stderr)")
	if code, done := fs.parse(args, 0, stdout, stderr); done {
		return code
	}
	opts.Origins, opts.Tenants = origins, tenants
	if opts.PublicURL != "" {
		if _, err := policy.ParseResourceURL(opts.PublicURL); err != nil {
			var fe *policy.FieldError
			errors.As(err, &fe)
			// The URL itself is not echoed: userinfo could hold a password.
			fmt.Fprintf(stderr, "rawmcp serve: -public-url: %s\n", publicURLProblems[fe.Field])
			return exitUsage
		}
	}
	if *tokens != "" {
		data, err := os.ReadFile(*tokens)
		if err != nil {
			fmt.Fprintf(stderr, "rawmcp serve: %v\n", err)
			return exitFail
		}
		opts.TokenFile = data
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	opts.Summary = stderr
	if *trace {
		opts.Trace = stderr
	}
	err := scenario.Serve(ctx, opts, func(e scenario.Endpoint) error { return printJSON(stdout, e) })
	switch {
	case errors.Is(err, wire.ErrNotLoopback), errors.Is(err, scenario.ErrServeOptions):
		fmt.Fprintf(stderr, "rawmcp serve: %v\n", err)
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "rawmcp serve: %v\n", err)
		return exitFail
	}
	return exitOK
}

// publicURLProblems says, for each part policy.ParseResourceURL refuses,
// what is wrong with a -public-url.
var publicURLProblems = map[string]string{
	policy.PartScheme:   "not an absolute URL starting with http:// or https:// (lowercase)",
	policy.PartUserinfo: "userinfo (user@) is not allowed: a resource identifier carries no credentials",
	policy.PartHost:     "the host is empty or not a lowercase DNS name, IPv4 address or [IPv6] literal",
	policy.PartPort:     "the port must be 1-65535 without a leading zero, and the scheme's default (443, 80) left out",
	policy.PartPath:     "the path must be one or more /segments of letters, digits and - . _ ~, without a trailing slash, outside /.well-known/ (e.g. /mcp)",
	policy.PartQuery:    "a query is not allowed in a resource identifier (RFC 8707 §2)",
	policy.PartFragment: "a fragment is not allowed in a resource identifier (RFC 8707 §2)",
}

// runBench is `rawmcp bench`: the load generator keeps its own flags and
// exit statuses (0 every answer passed, 1 some failed, 2 usage).
func runBench(_ context.Context, args []string, stdout, stderr io.Writer) int {
	return loadgen.Main(args, stdout, stderr)
}
