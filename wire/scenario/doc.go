// Package scenario drives rawmcp's server over real sockets with the raw
// client, the way a 2025-11-25 MCP client would and the way an attacker
// would, and says what it saw. It is what `rawmcp demo`, `rawmcp attack`,
// `rawmcp experiments` and `rawmcp serve` run.
//
//   - Demo walks the happy path (metadata, initialize proposing the Draft
//     2026-07-28, initialized, ping as JSON, resources/list as SSE, GET,
//     GET with Last-Event-ID, DELETE, 404) and checks every status line,
//     every header field and every body byte against the profile.
//   - RunAttacks runs the probe's catalogue, less the groups ProbeSkipped
//     names, strict and with every kind of token, against one fixture
//     server; then the attack table, each attack against a fresh server
//     with the exact status that blocks it and the rule it must rest on;
//     then scans every response of the attacks for fixture tokens and
//     session ids (the probe's EH-01 scans its own).
//   - RunExperiments runs the profile document's ten step-by-step
//     experiments: one change each, a predicted status and rule, the
//     observed status line, the fields that matter and the rule that
//     decided.
//   - Serve starts a server put together by package assemble (policy,
//     session table, wire.Server) for real clients, and logs and traces it.
//
// Requests are built by wire/client's MCP builder (client.MCP, used in
// steps.go), a step changing exactly one field with Set or Drop, and
// checked independently of the server's code (check.go): the expected
// bodies and fields are the client's own, so a change on either side
// shows.
//
// With RunOptions.Trace every exchange is printed like curl -v, bytes as
// sent (a bare LF or an obs-fold stays visible), each response annotated
// with the rule the server named (RunAttacks' probe checks as the probe
// traces them: each check's exchanges, then its verdict), and every token and session id replaced
// with a correlation id (policy.Correlate): in its own header field always,
// elsewhere as a whole token of 8 bytes or more (client.Redactor).
//
// Not supported:
//   - driving another server: the scenarios start their own fixtures and
//     use the policy's token table and revocation directly;
//   - concurrency scenarios (32-way pings and the like): the load belongs
//     to the wire tests, the scenarios are sequential and readable;
//   - session expiry by TTL, which would need a 60 s wait or a fake clock
//     (the state tests cover it);
//   - server-to-client requests and held-open streams: rawmcp has neither;
//   - traces of requests the client never got an answer to, beyond the
//     request bytes and the client's error.
package scenario
