// Command rawmcp shows the MCP 2025-11-25 Streamable HTTP transport and its
// OAuth resource-server boundary on a raw socket: every byte net/http
// would hide, and the rule behind it.
//
// Usage:
//
//	rawmcp demo [-trace]             the happy path, checked byte for byte: PASS or FAIL
//	rawmcp attack [-v] [-trace]      the probe's catalogue and the fixture's attacks: BLOCK or PENETRATED
//	rawmcp experiments [-trace] [N]  the profile's ten step-by-step experiments, or one
//	rawmcp serve [flags]             /mcp on 127.0.0.1 for real MCP clients and curl
//	rawmcp bench -url URL [flags]    load a Streamable HTTP server on loopback (package wire/client/loadgen)
//	rawmcp probe -url URL [flags]    run the check catalogue against any MCP endpoint, http or https
//	rawmcp help
//
// Verdicts are one JSON line on stdout, members in alphabetical order;
// details, traces and logs go to stderr. `serve` prints one JSON line
// first, {"metadata_url": …, "token": …, "url": …}, then serves until
// SIGINT or SIGTERM and shuts down gracefully.
//
// Exit status: 0 for PASS, BLOCK and a serve that stopped cleanly; 1 for
// FAIL, PENETRATED and a serve that could not run; 2 for a usage error
// (an unknown command or flag, a bad flag value, an address other than
// 127.0.0.1). bench keeps its own: 0 when every answer passed, 1 when some
// failed, 2 for a usage error or a refused initialize. probe too: 0 when no
// MUST check failed, 1 when one did (or a MUST check was skipped, with
// -require-all), 2 for a usage error or a URL with no MCP endpoint.
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
