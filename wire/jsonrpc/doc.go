// Package jsonrpc checks a request body byte by byte and reads it as one JSON-RPC 2.0
// message, as MCP 2025-11-25 profiles JSON-RPC (Base overview §1 and schema.json).
//
// encoding/json is lenient where a security boundary must not be: it keeps the last of two
// duplicate member names, matches member names to struct fields case-insensitively, and
// replaces invalid UTF-8 and lone surrogates with U+FFFD. Two components reading the same
// body could then act on different values. Decode therefore runs the strict check first, in one UTF-8
// pass and one iterative grammar pass without recursion, and refuses (CodeParseError,
// requirements T-02 and T-P13):
//
//   - invalid UTF-8 anywhere, and a leading byte order mark;
//   - anything outside the RFC 8259 grammar: NaN and Infinity (their own reason),
//     comments, single quotes, leading zeros, "+" signs, trailing commas, raw control
//     characters in strings, unknown escapes;
//   - \u escapes that encode a lone surrogate;
//   - two member names of one object that are equal after unescaping and simple case
//     folding ("id" and "ID", "a" and "\u0061", "k" and U+212A KELVIN SIGN), at any depth;
//   - numbers beyond the float64 range (1e309);
//   - objects and arrays nested deeper than the budget (MaxDepth = 64 for Decode);
//   - any byte but whitespace after the one value.
//
// Decode then applies the envelope rules (CodeInvalidRequest, T-10, T-60..T-64, T-P03):
// exactly one object, "jsonrpc" equal to "2.0", an id that is a string or an integer
// within int64, a string method, params that are an object, responses with exactly one
// of result and error, no other top-level member. Each refusal is a sentinel *Error with a
// constant message that never echoes input bytes, so it can go into a response body as it
// is; compare with errors.Is.
//
// The writers (AppendRequest, AppendNotification, AppendResult, AppendError, AppendString)
// produce compact JSON on one line, ready for an SSE data field (S-P02). A request id is
// kept as the token the client sent and echoed verbatim.
//
// Not supported:
//   - batches (JSON arrays of messages): MCP 2025-11-25 sends one message per POST (T-P03);
//   - null ids, and ids with a fraction or exponent or beyond int64 (T-61);
//   - params arrays (by-position parameters): MCP params are objects;
//   - error responses with "id": null (MCP omits the id instead, T-63);
//   - members other than jsonrpc, id, method, params, result and error, including
//     case variants of those names;
//   - JSON texts with a byte order mark, in UTF-16 or UTF-32, or spanning several values
//     (JSON Lines);
//   - streaming: the whole body is checked at once (the HTTP layer bounds its size).
package jsonrpc
