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

	"rawmcp/wire/client"
	"rawmcp/wire/client/probe"
)

// Exit statuses (documented in doc.go and the README; probe's own in
// probeExits).
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
	{"attack", "run the probe's catalogue but DP and V2, and the fixture's attacks, against fresh servers: BLOCK or PENETRATED", runAttack},
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
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, versionLine())
		return exitOK
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
  version      print the version and the check catalogue's edition (also --version)

Verdicts are one JSON line on stdout; details, traces and logs go to stderr.
Exit status: 0 PASS, BLOCK or a clean serve; 1 FAIL, PENETRATED or a serve
that could not run; 2 a usage error. bench and probe print their own reports
and keep their own exit statuses ("rawmcp help bench", "rawmcp help probe").
`)
}

// flagSet is a command's flags and what its help says of it. Help
// (-h) goes to stdout and exits 0; a usage error is one line saying what
// is wrong, the short usage and where the rest is, on stderr, exit 2.
type flagSet struct {
	*flag.FlagSet
	usage []string // the usage lines, after "rawmcp "
	about string
	// args are the arguments that are no flags, wherever they stood.
	args []string
}

func newFlags(name, about string, usage ...string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, usage: usage, about: about}
}

// help writes the whole help: the usage, what the command does, its
// flags.
func (f *flagSet) help(w io.Writer) {
	f.writeUsage(w)
	fmt.Fprintf(w, "\n%s\n", f.about)
	if hasFlags(f.FlagSet) {
		fmt.Fprintln(w, "\nFlags:")
		f.SetOutput(w)
		f.PrintDefaults()
		f.SetOutput(io.Discard)
	}
}

func (f *flagSet) writeUsage(w io.Writer) {
	for i, line := range f.usage {
		prefix := "       rawmcp "
		if i == 0 {
			prefix = "usage: rawmcp "
		}
		fmt.Fprintln(w, prefix+line)
	}
}

// usageError says what is wrong in one line, then the short usage and
// where the rest is; it returns exitUsage.
func (f *flagSet) usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "rawmcp %s: %s\n", f.Name(), fmt.Sprintf(format, args...))
	f.writeUsage(stderr)
	fmt.Fprintf(stderr, "rawmcp %s -h for all flags\n", f.Name())
	return exitUsage
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parse parses args, flags and other arguments in any order (rawmcp
// probe URL -token T, as curl takes them); done reports that the command
// should end with code: after -h, exitOK; after a bad flag or more than
// maxArgs other arguments, exitUsage.
func (f *flagSet) parse(args []string, maxArgs int, stdout, stderr io.Writer) (code int, done bool) {
	for {
		if err := f.Parse(args); err != nil {
			if err == flag.ErrHelp {
				f.help(stdout)
				return exitOK, true
			}
			return f.usageError(stderr, "%v", err), true
		}
		if f.NArg() == 0 {
			break
		}
		f.args = append(f.args, f.Arg(0))
		args = f.Args()[1:]
	}
	if len(f.args) > maxArgs {
		return f.usageError(stderr, "unexpected argument %q", f.args[maxArgs]), true
	}
	return exitOK, false
}

// versionLine is what rawmcp version prints: the release and the check
// catalogue's edition.
func versionLine() string {
	return "rawmcp " + client.Version + " (" + probe.CatalogueLine() + ")"
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
