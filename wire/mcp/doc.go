// Package mcp is the MCP 2025-11-25 subset rawmcp speaks on /mcp: initialize
// (with version negotiation), notifications/initialized, ping and
// resources/list. It turns one strictly decoded JSON-RPC message, already
// authenticated by the caller, into a Reply (its Outcome, the JSON-RPC
// message when answered, and whether that goes out as JSON or as one SSE
// event), applying the lifecycle through the state package's transition
// table. The wire package picks the status for each Outcome.
//
// [MCP 2025-11-25 Lifecycle §1.1] and [Transports §2.1]:
// https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle
//
// The wire package owns every HTTP decision (headers, auth, session header
// syntax); this package owns the JSON-RPC level: which method does what,
// which result shape, which JSON-RPC error code.
//
// Not supported:
//   - any protocol version but 2025-11-25: every other proposal, the
//     2026-07-28 revision included, is answered with 2025-11-25 (T-53);
//   - server/discover and the stateless 2026 model: no initialize-free
//     requests, no per-request capabilities;
//   - tools, prompts, resources/read, subscriptions, completions, logging;
//   - server-to-client requests (so a POSTed JSON-RPC response is always
//     unsolicited and refused, T-P04);
//   - pagination beyond one page (any cursor is invalid, T-68);
//   - notifications other than notifications/initialized.
package mcp
