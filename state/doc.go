// Package state keeps rawmcp's MCP sessions: whom each one belongs to,
// where it stands in the MCP lifecycle, and the notifications waiting on its
// GET stream. It knows no JSON and no HTTP: messages are opaque bytes, and
// the server maps the errors to statuses (ErrFull 503, ErrNotFound 404,
// ErrLifecycle and ErrCursor 400, ErrEntropy 500).
//
// # Sessions
//
// A session is made when initialize is answered (MCP 2025-11-25 Transports
// §2.5 item 1). Its id is 24 bytes from the table's random source in
// base64url, SessionIDLen bytes in 0x21–0x7E (T-39, T-40, T-71, T-P09).
// The session is bound to an Owner, the subject, tenant and authorization
// revision of the token that created it (T-73, T-P10): a lookup by anyone
// else fails exactly like a lookup of an unknown id, so a session id proves
// nothing on its own (T-72) and reveals nothing about whose it is. A session
// lives Config.TTL from creation; the table holds at most
// Config.MaxSessions and refuses more rather than evicting anyone.
// The table runs no code of its caller's but its random source's Read (when
// it makes a session), and reports by return values only: every call that
// can end a session (a DELETE, a TTL found run out, a revoked token or a
// changed revision, the sweep of expired sessions an initialize makes)
// returns the sessions it ended, as Ended values beside its result, for the
// caller to log. Len only counts.
//
// # Lifecycle
//
// transitions.go holds the whole lifecycle as one table (Lifecycle §1.1):
// initialize answered → notifications/initialized → operating → DELETE.
// A message on a session meets the table twice: the server asks it
// (Table.Check, then Allows) before its tenant and scope checks, and
// applies it when it dispatches the message (Table.Step, or Table.Poll
// for a GET), under the same lock as the lookup. An initialize makes its
// session with Table.Create; a ping sent without a session touches no
// table.
//
// # GET stream
//
// Each session has one GET notification stream (Transports §2.2). A GET
// answer is a complete event set, a priming id plus up to
// Config.MaxEventsPerSet queued notifications, after which the server ends
// the stream (T-P12). Event ids encode the stream kind, a per-session handle
// and a sequence number shared by all the session's streams (T-33, T-34,
// T-P11). A Last-Event-ID must name an event this session's GET stream
// delivered and still keeps; the answer replays only later events of that
// stream (T-36, T-37), and anything else is ErrCursor.
//
// The table never reads the clock: every call takes now.
//
// Not supported:
//   - persistence: sessions and events live in memory and end with the
//     process;
//   - sessions shared between processes or tables;
//   - renewing a session's TTL by using it;
//   - evicting a live session to make room for a new one;
//   - resuming POST response streams: their event ids are never cursors;
//   - more than one GET stream per session, and GET streams held open
//     (so no 409 for a concurrent GET);
//   - delivery acknowledgements: a cursorless GET is at-most-once, and a
//     notification lost in a failed write is gone;
//   - server-to-client requests, hence no JSON-RPC responses on the GET
//     stream (T-29);
//   - Unicode normalization or case folding of owners: subjects and tenants
//     compare byte for byte.
package state
