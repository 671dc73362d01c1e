// Package wire is rawmcp's server: the listener (Listen, on 127.0.0.1
// only), one loop per connection over its socket (Server.Serve and
// ServeConn), the receive order, the table that turns each decision into a
// status and a rule, and the writer of every answer's bytes. It is the one
// server package that touches a socket, and it sets every socket deadline;
// the packages it calls decide and return.
//
// A POST goes down the imports and every verdict comes back as a return
// value (a GET or a DELETE has no body to decode, and reaches state's Poll or
// Step where a POST reaches wire/mcp):
//
//	socket → wire         the connection's loop reads the bytes (conn.go, socket.go, poller_unix.go)
//	       → wire/h1      the connection's HTTP/1.1 rules, which parse with
//	       → httpparse    bytes to a request head, or a status
//	       → wire         the in-flight gate; Host and Origin (policy's allowlists), path, method, Accept,
//	                      Content-Type; the body (route.go)
//	       → wire/jsonrpc strict JSON, then one JSON-RPC message
//	       → policy       the bearer token (401)
//	       → state        the session and its lifecycle, asked, not applied (400, 404)
//	       → policy       tenant, then scope (403)
//	       → wire/mcp     the method, which applies the lifecycle step in state; an outcome, never a status
//	       → wire         outcome to status and rule (decisions.go, wire/rule), the answer's bytes
//	                      (response.go; sseframe for an event stream) → socket
//
// The top README's "Follow one POST" names the function of each hop, and
// its receive order each step's statuses and rules.
//
// What the server answered it tells its caller in two ways, neither a hook
// into the connection: the log (Config.Logger: every answer, refusals at
// Info, with its status and rule; each connection's end and the rule that
// closed it; each session opened and ended; tokens and session ids only as
// policy.Correlate ids), and, if Config.Record is set, a Record to which
// each answer is added before it is written (its connection, its Decision:
// status, rule and closing rule; with bytes, copies of the request and the
// answer), for the caller to Take. The demo, the attacks and serve -trace
// (wire/scenario) read the Record. The caller's own code that a connection
// runs is the clock (Config.Now), the log's handler and, inside state, the
// session table's source of random ids.
//
// A subject's authorization revision changes outside any request:
// wire/assemble's Server.SetRevision sets it in policy, ends the subject's
// stale sessions in state and logs them through Server.LogEnded.
package wire
