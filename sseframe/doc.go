// Package sseframe writes and reads server-sent events (WHATWG HTML
// §9.2.5 "Parsing an event stream", §9.2.6 "Interpreting an event stream")
// the way rawmcp's Streamable HTTP transport uses them (MCP 2025-11-25
// Transports §2.1 item 6, §2.4).
//
// The encoder, AppendEvent, appends to a caller-owned buffer and refuses
// any value that would change the framing or that a reader drops: a CR or
// LF in an id or type, or a CR in data, would end the line early and let
// the value forge fields of its own (S-14); a reader ignores an id with a
// NUL, and no JSON rawmcp sends holds one in data. Data may hold LF: each
// line of it becomes a data line of its own. Ids are further held to the
// profile's visible-ASCII rule (S-P01) so that a client can echo them back
// in a Last-Event-ID header unchanged; ValidID is that rule, for the server
// to check an incoming header with.
//
// The decoder, Decode, reads a complete event stream (the whole body of an
// SSE response) for the callers that hold a stream to rawmcp's profile:
// the tests, and the answer checks of the scenarios and of the load
// generator. (The raw client reads other servers' streams leniently, as a
// browser does: wire/client's Events.) It follows §9.2.6 and is stricter
// where a lenient reader would hide a server bug: an unknown field, an id
// or event type outside the encoder's alphabet, a non-numeric retry, a NUL
// in data, invalid UTF-8 and an event cut off at the end of the stream
// are errors instead of being ignored, repaired or discarded. Whatever
// AppendEvent writes, Decode reads back to the same Event.
//
// Every error is one of the exported sentinels (Decode wraps it in a
// *SyntaxError that adds the offset), so callers compare with errors.Is and
// no error text ever carries stream bytes.
//
// Not supported:
//   - incremental or streaming decoding: Decode needs the complete stream,
//     which fits rawmcp, whose SSE responses end after their event set
//     (T-P12); a held-open stream must be buffered by the caller;
//   - reconnection (the reconnection time, Last-Event-ID resend, §9.2.3):
//     Decode only reports the id and retry values, the raw client decides;
//   - the lenient §9.2.6 readings: unknown fields, ids with NUL and
//     non-numeric retry values are errors, not ignored; invalid UTF-8 is an
//     error, not replaced with U+FFFD; an unterminated final event is an
//     error, not silently discarded;
//   - ids or event types outside 0x21-0x7E, even though §9.2.6 allows any
//     scalar value other than CR and LF (S-P01);
//   - a retry set in a block that dispatches nothing: Decode returns events,
//     so such a retry (like one of 0) is not reported;
//   - the EventSource API (readyState, MessageEvent origin, CORS).
package sseframe
