// Package client is rawmcp's raw HTTP/1.1 client. A request is the bytes
// its caller wrote (Request renders a readable one; MCP the fields a
// 2025-11-25 client sends), and an answer is read by httpparse's response
// parser, so nothing between the caller and the wire adds, reorders or
// repairs a byte: a test can send a bare LF or a smuggled request, and a
// check can judge exactly what another server answered.
//
// Beside the round trip (Client.Do, or Send and Read), it holds what
// reading an MCP server over time takes: ReadStream and More for an answer
// that arrives in pieces, Feed for a request trickled in pieces, WaitClose
// for what a server does after it answered; Events, an event-stream reader
// as lenient as a browser's; Dialer, for TLS and curl's --resolve; and
// Redactor and Tracer, which keep tokens and session ids out of the
// traces and reports that use them (MCP Authorization §11.2).
//
// It never imports the server's packages (fuzz's TestImportRules holds
// this), so it works against any server by construction. It never follows
// a redirect, retries a request, keeps a cookie, decodes a content coding
// or speaks HTTP/2: what the server answered is what its caller sees.
//
// Every client rawmcp has is built on it: the probe (wire/client/probe),
// the load generator (wire/client/loadgen), the demo, the attacks, the
// experiments and serve -trace (wire/scenario), the probe command
// (cmd/rawmcp), and the tests.
package client
