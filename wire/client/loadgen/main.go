package loadgen

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"
)

// Exit statuses of Main.
const (
	ExitOK     = 0 // every answer passed its check, or -h printed the usage
	ExitErrors = 1 // the run finished, but some answers failed
	ExitUsage  = 2 // bad flags, a refused URL, or a refused handshake
)

// Main is rawmcp bench: args are the flags after the subcommand. It
// prints the result to stdout and progress and problems to stderr, and
// returns the exit status. An interrupt (Ctrl-C) ends the run early and
// still prints what was measured.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rawmcp bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rawURL := fs.String("url", "", "MCP endpoint on loopback, e.g. http://127.0.0.1:8080/mcp (required)")
	token := fs.String("token", "", "bearer token to send (none if empty)")
	conns := fs.Int("conns", 8, "keep-alive connections, each with one request outstanding")
	sessions := fs.Int("sessions", 1, "sessions shared round robin by the connections")
	duration := fs.Duration("duration", 10*time.Second, "how long to run (unless -requests is given)")
	requests := fs.Int("requests", 0, "total requests to make, instead of -duration")
	method := fs.String("method", "ping", "request to send: ping (answered as JSON by rawmcp) or resources (resources/list, SSE)")
	timeout := fs.Duration("timeout", 5*time.Second, "limit on each round trip")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	progress := fs.Duration("progress", time.Second, "interval of the progress line on stderr (0: none)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rawmcp bench -url http://127.0.0.1:PORT/mcp [-token T] [-conns 8] [-sessions 1] [-duration 10s | -requests N] [-method ping|resources] [-json]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK // -h asked for the usage, which is no usage error
		}
		return ExitUsage
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cfg, err := configFrom(*rawURL, *method, set["duration"] && set["requests"] || fs.NArg() > 0)
	if err != nil {
		fmt.Fprintln(stderr, "rawmcp bench:", err)
		return ExitUsage
	}
	cfg.Token, cfg.Conns, cfg.Sessions = *token, *conns, *sessions
	cfg.Requests, cfg.Duration, cfg.Timeout = *requests, *duration, *timeout
	cfg.Progress, cfg.ProgressEvery = stderr, *progress

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "rawmcp bench:", err)
		return ExitUsage
	}
	if *asJSON {
		err = res.WriteJSON(stdout)
	} else {
		err = res.WriteText(stdout)
	}
	if err != nil {
		return ExitErrors
	}
	if res.Failed > 0 {
		return ExitErrors
	}
	return ExitOK
}

// ErrUsage reports flags that contradict each other or a method this
// generator does not know.
var ErrUsage = errors.New("give -url, -method ping or resources, one of -duration and -requests, and no arguments")

func configFrom(rawURL, method string, conflicting bool) (Config, error) {
	if conflicting || rawURL == "" || Method(method) != MethodPing && Method(method) != MethodResources {
		return Config{}, ErrUsage
	}
	target, err := ParseTarget(rawURL)
	if err != nil {
		return Config{}, err
	}
	return Config{Target: target, Method: Method(method)}, nil
}
