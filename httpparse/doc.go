// Package httpparse parses HTTP/1.1 request heads (and, for the raw
// client, response heads) from a byte buffer. It is sans-I/O, like h11's
// readers: it never sees a socket, never imports net, and answers each
// call with a parsed head, ErrNeedMore, or an *Error carrying the status
// the server should answer with and a constant Reason.
//
// # Requests
//
// [Parse] reads one request head at the start of a buffer into a
// caller-owned [Request] without allocating; field names and values alias
// the buffer. Called again on a longer buffer with scanned set to the
// previous length, it resumes where it stopped, so a head trickling in one
// byte at a time costs linear work (picohttpparser's last_len). The body
// is not read: it is the ContentLength bytes after the head.
//
// The grammar is RFC 9112 §2-§6 and RFC 9110 §5, with the strict choice
// wherever the RFCs allow leniency (requirements H-P01..H-P07):
//
//   - the request line is exactly "method SP origin-form SP HTTP/1.1
//     CRLF", or HTTP/1.0 (H-P02); one empty line before it is skipped
//     (H-04), a second is a 400;
//   - the method is a token, case-sensitive; longer than Limits.MaxMethod
//     is 501; a valid token that names no known method parses as
//     MethodUnknown, for the server to answer 501;
//   - the target is origin-form only (absolute-, authority- and
//     asterisk-form are 400): "/" and pchar with valid %HH escapes, no
//     query, no fragment (400); longer than Limits.MaxTarget is 414;
//   - HTTP/1.1 and HTTP/1.0 only: another well-formed version is 505,
//     anything else 400; an HTTP/1.0 request sets Request.HTTP10 and
//     meets every other rule unchanged (Host required, Transfer-Encoding
//     refused), except that Expect: 100-continue is ignored;
//   - every line ends in CRLF: a bare LF anywhere in the head is 400
//     (H-P01), and so is a bare CR (H-P03, or inside a method, target or
//     field name the rule of the element it breaks); so are obs-fold and
//     any whitespace-prefixed line (H-P03), whitespace before a colon
//     (H-17), a name that is not a token (H-21), a line without a colon
//     (H-06) and any control byte but HTAB in a value (H-P04); obs-text
//     passes as opaque bytes;
//   - more than Limits.MaxFields lines, a header section over
//     Limits.MaxHeaderBytes, or a value over Limits.MaxValue is 431;
//   - Host must appear exactly once with a valid uri-host [":" port]
//     (H-15, H-16); Host, Content-Length, Content-Type, Authorization,
//     Origin, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID and
//     Expect may not repeat, even with equal values (H-P05);
//   - Content-Length is 1*DIGIT within int64 (else 400) and at most
//     Limits.MaxBody (else 413, decided before any body byte is read);
//   - any Transfer-Encoding is refused: 400 with Content-Length, or when
//     the list is malformed, names chunked twice or does not end in a bare
//     chunked; 501 otherwise (H-P06);
//   - Expect: 100-continue sets ExpectContinue, other expectations are 417;
//     Connection is a list of tokens, "close" sets Close.
//
// Limits are detected as soon as the offending byte arrives: a target,
// header section or value that has grown past its limit is refused
// without waiting for the line's end, and a bare LF without waiting for a
// terminator that may never come.
//
// # Which fault is reported
//
// A head with several faults reports one, always the same one however the
// bytes were split across calls:
//
//  1. faults found while scanning, in byte order: the request line, then
//     each field line in turn (a repeated singleton is reported at the
//     second line's name); a byte past a limit is refused for the limit
//     (414 or 431) whatever it is, unless it ends the element right there
//     (the SP after a target of exactly MaxTarget bytes, the CR after a
//     value of exactly MaxValue bytes, the empty line after a full header
//     section);
//  2. then, once the head is complete: Host missing or invalid (400),
//     Transfer-Encoding (400 or 501), Content-Length syntax (400),
//     Connection syntax (400), Expect (417), and last the body size (413).
//
// This matches the receive order of the profile (T-P14): framing and size
// first, everything the server checks afterwards (Origin, path, method,
// Accept, Content-Type) is outside the parser. [Request.AcceptsBoth] (the
// server's two media types in one pass), [Request.Accepts] and
// [ContentTypeIs] are the helpers for the Accept (T-P02) and Content-Type
// (T-P01) checks.
//
// Not supported:
//   - request bodies in any Transfer-Encoding (chunked included): this
//     server frames requests by Content-Length only;
//   - HTTP/0.9 requests (no version: 400), and any version but HTTP/1.1
//     and HTTP/1.0 (505); HTTP/1.0 requests without Host (400);
//   - absolute-form, authority-form (CONNECT) and asterisk-form (OPTIONS *)
//     targets, queries and fragments;
//   - lone LF line ends, obs-fold and bare CR, which RFC 9112 lets a
//     recipient repair: all are refused;
//   - comma-lists or repeats of Content-Length, even of equal values;
//   - IPv6 zone identifiers (RFC 6874) in Host;
//   - more than MaxFieldsCap field lines, whatever Limits.MaxFields
//     says;
//   - trailers, upgrades (Upgrade, h2c) and the PRI preface of HTTP/2.
package httpparse
