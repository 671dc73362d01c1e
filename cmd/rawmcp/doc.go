// Command rawmcp shows the MCP 2025-11-25 Streamable HTTP transport and its
// OAuth resource-server boundary on a raw socket: every byte net/http
// would hide, and the rule behind it.
//
// Usage:
//
//	rawmcp demo [-trace]             the happy path, checked byte for byte: PASS or FAIL
//	rawmcp attack [-v] [-trace]      the probe's catalogue but DP and V2, and the fixture's attacks: BLOCK or PENETRATED
//	rawmcp experiments [-trace] [N]  the profile's ten step-by-step experiments, or one
//	rawmcp serve [flags]             /mcp on 127.0.0.1 for real MCP clients and curl
//	rawmcp bench -url URL [flags]    load a Streamable HTTP server on loopback (package wire/client/loadgen)
//	rawmcp probe [flags] URL         run the check catalogue against any MCP endpoint, http or https
//	rawmcp version                   the release and the check catalogue's edition (also --version)
//	rawmcp help
//
// Verdicts are one JSON line on stdout, members in alphabetical order;
// details, traces and logs go to stderr. `serve` prints one JSON line
// first, {"metadata_url": …, "token": …, "url": …} (no "token" with
// -tokens FILE; "local_url" too with -public-url), then serves until
// SIGINT or SIGTERM and shuts down gracefully.
//
// Exit status: 0 for PASS, BLOCK and a serve that stopped cleanly; 1 for
// FAIL, PENETRATED and a serve that could not run; 2 for a usage error
// (an unknown command or flag, a bad flag value, an address other than
// 127.0.0.1). bench keeps its own: 0 when every answer passed, 1 when some
// failed, 2 for a usage error or a refused initialize. probe too (its
// table, probeExits, is what -h and the top README print): 0 when no MUST
// check failed (with -baseline, no regression), 1 when one did (or a
// regression; with -require-all, a MUST check skipped), 2 for a usage
// error, 3 when the budget ran out or a rate limit stopped the run first,
// 4 when the target could not be judged (not reached, TLS, no MCP
// endpoint, a refused token), 5 when a report could not be written after
// the run. -h prints a command's help on stdout; a
// usage error is one line, the short usage and where the rest is, on
// stderr.
//
// This package holds flags and subcommands only; what they run lives in
// package rawmcp/wire/scenario (probe: rawmcp/wire/client/probe).
//
// Not supported:
//   - listening anywhere but 127.0.0.1, or TLS (behind a proxy that
//     terminates TLS, serve -public-url names the public URL and its path);
//   - reading tokens from the environment or prompting for them: a token
//     file or the generated demo token;
//   - running the demo, attacks or experiments against another server
//     (probe does run against other servers, over http or https).
package main
