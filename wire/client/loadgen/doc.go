// Package loadgen is rawmcp bench: an MCP-aware load generator for any
// MCP 2025-11-25 Streamable HTTP server on the loopback interface.
//
// It initializes sessions the way a client does (initialize, then
// notifications/initialized; one session shared by every connection by
// default, since a server may hold few live sessions, as rawmcp does),
// then sends ping or resources/list requests on raw keep-alive
// connections, one request outstanding per connection, and checks every
// answer: status 200, and one JSON-RPC response with the request's id and
// a result, as application/json or inside a text/event-stream body. A 404
// means the session is gone (its TTL ended, or the server restarted): the
// session is initialized again and the request retried once, as MCP
// 2025-11-25 Transports §2.5 item 4 requires of a client:
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
//
// It builds requests with wire/client's MCP builder, the probe's own,
// writes them with its raw client and reads answers with httpparse's
// response parser, which reads Content-Length, chunked and close-delimited
// bodies, so it can measure other servers too. It reports requests per
// second, latency percentiles (p50, p90, p99, max) and errors by kind, as
// text or JSON, with a progress line on stderr while it runs. Nothing it
// prints carries a token, a session id or response bytes.
//
// Not supported:
//   - any host but the loopback interface (127.0.0.0/8, ::1, localhost):
//     a load generator pointed elsewhere is a denial-of-service tool;
//   - https, HTTP/2, proxies, redirects;
//   - pipelining: each connection has one request outstanding;
//   - methods other than ping and resources/list, server-to-client
//     requests, and the GET notification stream;
//   - OAuth flows: the bearer token is given, never obtained;
//   - open-loop (fixed-rate) load: connections send as fast as answers
//     come, so latency under overload is what the server makes clients wait.
package loadgen
