package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit statuses (documented in doc.go and the README).
const (
	exitOK    = 0 // PASS, BLOCK, a clean serve
	exitFail  = 1 // FAIL, PENETRATED, a serve that could not run
	exitUsage = 2 // unknown command or flag, bad flag value
)

// command is one subcommand: its name, a line for the help, and its run
// function, which gets the arguments after its name.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

var commands = []command{
	{"demo", "drive the happy path against a fresh server: PASS or FAIL", runDemo},
	{"attack", "run the probe's catalogue and the fixture's attacks against fresh servers: BLOCK or PENETRATED", runAttack},
	{"experiments", "run the profile's ten step-by-step experiments, or experiment N", runExperiments},
	{"serve", "serve /mcp on 127.0.0.1 for real MCP clients and curl", runServe},
	{"bench", "load any Streamable HTTP server on loopback: requests/s, latency percentiles, errors", runBench},
	{"probe", "check any MCP endpoint, http or https, against the catalogue: Origin, sessions, tokens, framing", runProbe},
}

func main() {
	// SIGINT and SIGTERM end serve gracefully, and cut a demo short.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return run(ctx, []string{args[1], "-h"}, stdout, stderr)
		}
		usage(stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "rawmcp: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `rawmcp shows the MCP 2025-11-25 Streamable HTTP transport and its OAuth
resource-server boundary on a raw socket, and the rule behind every byte.

Usage:
  rawmcp <command> [flags]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `  help         print this help; "rawmcp help <command>" for a command's flags

Verdicts are one JSON line on stdout; details, traces and logs go to stderr.
Exit status: 0 PASS, BLOCK or a clean serve; 1 FAIL, PENETRATED or a serve
that could not run; 2 a usage error. bench and probe print their own reports
and keep their own exit statuses ("rawmcp help bench", "rawmcp help probe").
`)
}

// newFlags returns a flag set that reports to stderr and describes the
// command in its -h output.
func newFlags(name, synopsis, about string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: rawmcp %s\n\n%s\n", synopsis, about)
		if hasFlags(fs) {
			fmt.Fprintln(stderr, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parse parses args; done reports that the command should end with code
// (after -h, exitOK; after a bad flag or stray argument, exitUsage).
func parse(fs *flag.FlagSet, args []string, maxArgs int) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK, true
		}
		return exitUsage, true
	}
	if fs.NArg() > maxArgs {
		fmt.Fprintf(fs.Output(), "rawmcp %s: unexpected argument %q\n", fs.Name(), fs.Arg(maxArgs))
		fs.Usage()
		return exitUsage, true
	}
	return exitOK, false
}

// printJSON writes v as one line of JSON.
func printJSON(w io.Writer, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(line, '\n'))
	return err
}
