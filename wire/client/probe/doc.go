// Package probe is rawmcp probe: a black-box check catalogue (MCP
// 2025-11-25 Streamable HTTP, its protected-resource boundary, and the
// HTTP/1.1 framing under them; MCP 2026-07-28 in the V2 group, and the
// fallback between the two revisions in the L group) run against any MCP
// endpoint, over http or https.
// CHECKS.md, generated from the code (rawmcp probe -list -md), lists it.
//
// How a check is declared: as data right above its run function, in the
// file of its group (pre.go, ho.go, mm.go, pv.go, se.go, jr.go, au.go,
// rs.go, lf.go, eh.go, dp.go, v2.go, l.go) or a topic file of the group
// (jr_schema.go, rs_aborted.go, v2_params.go, v2_requests.go,
// v2_results.go):
//
//	// HO-02: a foreign Origin on POST gets 403.
//	var ho02 = Check{asks: askEither, ID: "HO-02", Level: Must, Source: "...", Rule: rule.OriginRefused,
//		Title:  "Foreign Origin refused",
//		Sends:  "initialize (server/discover to a 2026-07-28-only target) with Origin: http://evil.example and the run's token",
//		Passes: "403 only",
//		Sessions: 1, run: runHO02}
//
//	func runHO02(t *checkRun) outcome { ... }
//
// Each group file lists its checks and says the MCP revision they are
// judged on, once for all of them (var hoGroup = group{..., eraBoundary,
// []*Check{&ho01, ...}}: a boundary check declares asks, the request it
// needs of either revision), and catalogue.go lists the groups; the
// catalogue is assembled from them in group order, then id order, and
// nothing else counts the checks. A new check is its var, its run function, its entry in the
// group's list and its flaw: a case in flaws_<group>_test.go (or in a
// flaws file of its own, flaws_suite_test.go, whose cases join the group
// tables) that breaks rawmcp, or for V2 the 2026-07-28 reference
// (modernref_test.go), behind a proxy in the one way the check must
// notice, so the check is seen to fail, and for that reason alone; a
// boundary check with a modern form has a row in flaws_modern_test.go too,
// its flaw in front of the modern-only reference. A new group is its
// file and one line in groups. Tests find a Check declared but not
// listed, and a check without a flaw.
//
// A run function writes requests with the raw client alone (checkrun.go:
// send, sendKeep, feed, readOn, waitClose; rpc.go: initialize, open, ping,
// request, and for either revision opening and postRPC) and returns an outcome (outcome.go): t.pass, t.unmet (not met
// at the check's level), t.unmetAt, t.skip, t.errored (the Error verdict:
// the check could not run), t.info, each with a one-line reason, and
// .with(expected, actual) for the evidence a reason rests on. So the same
// check runs against rawmcp, an SDK server, a deployment behind a proxy
// or anything else.
// Run takes a Target and Options (tokens, a subset by id or group,
// strictness) and returns a Report with every check's verdict, reason,
// expected and actual, and exchanges; WriteText (findings first),
// WriteJSON, WriteHTML (a verdict banner, then the findings) and
// WriteSARIF (for code scanning) render it, and Compare sets it against
// a Baseline (WriteBaseline writes one).
//
// How a run behaves:
//   - Reaching the target: https is crypto/tls, TLS 1.2 or later,
//     verified against the URL's host (Options.RootCAs or the system
//     roots; nothing turns verification off); a Resolve entry (curl's
//     --resolve) changes the address dialled, never the name. A token is
//     never sent over http to a host that is not loopback, as decided
//     from the URL (ErrCleartextToken, before a byte is sent). A failed
//     handshake or a redirect is PRE-01's error; redirects are never
//     followed. The Report's Reached says what answered.
//   - PRE-01 runs first and gates the rest: no MCP endpoint, or a refused
//     token, ends the run with ErrNotMCP. A run without -token against a
//     target that asks for one goes on: it judges what needs no token
//     (Host, Origin, methods, framing, the 401 and its challenge, the
//     metadata) and skips the rest with "needs -token".
//   - A target is judged by the version it negotiated: a check whose rule
//     arrived in a later revision (Check.Since) skips on a 2025-03-26
//     server, and one whose rule changed applies the negotiated one's
//     (JR-01's batches, the 403 for a foreign Origin). Report.Negotiated
//     says which versions the run's sessions negotiated.
//   - The other checks run concurrently (4 at a time), each on fresh
//     connections, within a budget of sessions held at once (6, under
//     rawmcp serve's 8); beside them, from the start, each check that
//     waits on purpose runs in a goroutine of its own (the long lane:
//     DP-07, DP-08, LF-07); SE-09, which fills the session table on purpose,
//     runs alone after them (phaseAlone); the checks that read the answers
//     of the whole run (phaseScan: DP-03, DP-10, DP-11, EH-02, JR-10,
//     JR-11, MM-07, V2-28), and then EH-01, which reads theirs too
//     (phaseEchoScan), run after that, reading what the long lane has
//     finished by then; JR-11 reads the JSON-RPC messages the
//     runner noted as it recorded each exchange (wireLog), the preflight's
//     included. PRE-03, whether the target still answers, is last of all
//     (phaseLast).
//   - Every session a check causes, even one the target should have
//     refused to open, is deleted when the check ends.
//   - Every exchange and the whole check are bounded in time; a read of an
//     event stream stops at what the check needs or when its window ends:
//     2 s for a GET stream and for a POST stream past its response (RS-01),
//     1.5 s for a 2026-07-28 subscriptions/listen stream, the run's
//     -timeout for any other answer, 500 ms for a GET in an -explore
//     walk; DP-07 watches its streams 5 s, and DP-08 (with -slow only)
//     holds one up to 130 s.
//   - A verdict never rests on an answer that did not serve the request:
//     a 401 to the run's valid token, a 503, or no answer is an error,
//     never a pass.
//   - Rate limits and a dying target are facts of the run, decided by the
//     runner (halt.go), never a check's verdict: a 429 (or a 503 with
//     Retry-After) is waited out and sent again when its Retry-After is
//     short and the budget covers it; otherwise the run stops, each check
//     not finished saying "rate limited (Retry-After: N s)". A request
//     that gets no answer because its connection was refused, reset or
//     closed makes the runner ask the target itself; when that gets none
//     either, the run stops, no check passes on what the dying target
//     seemed to show, and PRE-03, run last of all, fails naming the last
//     request answered and the first that was not. Either way the report
//     is incomplete and Report.Stopped says why.
//   - The token goes only to the endpoint's path, never to the metadata
//     paths, and never into a query (AU-05 sends a decoy there). Reports
//     and traces show tokens and session ids as correlation ids
//     (client.Correlate), the ids a rawmcp server log prints.
//
// Not supported:
//   - HTTP/2 and HTTP/3: the probe offers http/1.1 alone (ALPN), so a
//     front that speaks only h2 is not reached.
//   - What sits behind a proxy, or the address a server binds, beyond
//     what the hop answers.
//   - Revocation, token expiry mid-session and other checks that need a
//     hook into the authorization server.
//   - Server-initiated requests (sampling, elicitation) and what a feature
//     returns (a tool's output, a resource's text): the catalogue is about
//     the transport and its boundary, and calls a tool, reads a resource
//     or listens only to judge the headers, caching hints and errors the
//     revision puts on them.
//   - Sessionless (stateless) servers are probed, but the session checks
//     skip on them.
package probe
