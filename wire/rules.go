package wire

// Rule names the requirement that decided a response, with one line on why
// it is that status and not a neighbouring one. Traces print it next to the
// response (the point of rawmcp: show why each byte is what it is). IDs are
// those of shared/spec/requirements.md; P-rules are the profile's own,
// stricter choices.
type Rule struct {
	ID  string
	Why string
}

var rules = map[string]string{
	// HTTP core.
	"H-P01":   "a bare LF ended a line: the profile accepts CRLF only (400, close)",
	"H-P02":   "the request line must be exactly METHOD SP target SP HTTP/1.1 (400, close)",
	"H-P03":   "obs-fold, bare CR or whitespace after the request line is never repaired (400, close)",
	"H-P04":   "a control byte other than HTAB in a field value (400, close)",
	"H-P05":   "a singleton field appeared twice, even with equal values (400, close)",
	"H-P06":   "Transfer-Encoding is refused: framing is by Content-Length only (400/501, close)",
	"H-P07":   "a fixed limit was crossed (413/414/431, close)",
	"H-P08":   "the whole request did not arrive within the read deadline (408, close)",
	"H-P11":   "routing is an exact, case-sensitive match on the raw path (404)",
	"H-P12":   "a standard method that /mcp does not serve: 405 with Allow; an unknown method is 501",
	"H-15":    "an HTTP/1.1 request needs exactly one valid Host (400)",
	"H-35":    "a POST needs Content-Length: requests are never close-delimited (411)",
	"H-50":    "only HTTP/1.1 is served; other versions get 505",
	"H-52":    "an expectation other than 100-continue (417)",
	"H-08":    "the method is not a token (400)",
	"H-09":    "a method longer than any this server implements (501)",
	"H-24":    "Content-Length must be 1*DIGIT, one line, no list (400, close)",
	"A-P01":   "a query or fragment in the target: refused by the parser, plain 400, never echoed (a token there is never used)",
	"H-gate":  "64 requests are already in processing: 503 with Retry-After at once, never a wait",
	"H-conns": "the open-connection cap is reached: 503 with Retry-After, then close",
	// Transport.
	"T-P15":        "Host is not one of this server's loopback authorities: DNS rebinding (403, no challenge)",
	"T-P16":        "Origin is present and not exactly on the allowlist (403, no OAuth challenge)",
	"T-P02":        "Accept must admit application/json and text/event-stream on POST, text/event-stream on GET (406, not 415)",
	"T-P01":        "a POST body must be Content-Type: application/json, charset utf-8 if given (415, not 406)",
	"T-P13":        "the body is not one strict UTF-8 JSON value: duplicate keys, BOM, NaN, depth, trailing bytes (400, -32700)",
	"T-P03":        "the body is valid JSON but not one JSON-RPC message (400, -32600)",
	"T-P05":        "initialize carried an MCP-Protocol-Version other than its params.protocolVersion or 2025-11-25 (400)",
	"T-P08":        "after initialize every request carries MCP-Protocol-Version: 2025-11-25 (400)",
	"T-42":         "a request other than initialize needs Mcp-Session-Id (400, not 404)",
	"T-P09":        "the Mcp-Session-Id has a length or byte this server never issues (400, not 404)",
	"T-43":         "the session is unknown, expired, ended, or bound to another principal: all the same 404",
	"T-P06":        "initialize on a session, or a lifecycle step out of order (400, -32600)",
	"T-P07":        "a request other than initialize or ping before any session exists (400)",
	"T-P04":        "a POSTed JSON-RPC response answers no request this server sent (400, not 202)",
	"T-12":         "a notification this server does not accept (400)",
	"T-P11":        "Last-Event-ID names no event this session's GET stream delivered (400, not 404)",
	"S-P01":        "event ids are 0x21-0x7E only, at most 128 bytes (400)",
	"T-P-capacity": "8 live sessions: a new initialize fails closed (503) and nobody is evicted",
	"T-11":         "an accepted notification gets 202 with an empty body and Content-Length: 0",
	"T-53":         "initialize answers with 2025-11-25 whatever version was proposed: a counter-offer, not an error",
	"T-59":         "ping is answered at once with an empty result, as application/json",
	"T-14":         "resources/list is answered as text/event-stream: one event holding the response",
	"T-66":         "an unknown method is a JSON-RPC error (-32601) inside a normal 200 response",
	"T-68":         "resources/list has one page: any cursor is invalid (-32602)",
	"T-51":         "initialize params lack protocolVersion, capabilities or clientInfo (-32602)",
	"T-25":         "GET opens the session's notification stream: priming event with retry, queued notifications, end",
	"T-45":         "DELETE ends the session (204); every later request with its id is 404",
	// Authorization.
	"A-08":     "no Authorization header: 401 with resource_metadata and scope, and no error code",
	"A-10":     "the token is unknown, inactive, expired, revoked or bound elsewhere: one 401 invalid_token, no hint which",
	"A-P02":    "the Authorization header is not 'Bearer <b64token>' (400 invalid_request)",
	"A-14":     "the token is valid but lacks a scope this request needs (403 insufficient_scope, step-up)",
	"A-tenant": "the token is valid but its tenant is not served here (403, no challenge: no step-up helps)",
	"A-P06":    "metadata is public: a request carrying Authorization is refused (400)",
	"A-23":     "Protected Resource Metadata: 200 application/json, resource = the canonical /mcp URI",
	"internal": "an internal error (500)",
}

// RuleFor returns the Rule with its explanation; unknown IDs come back
// with an empty Why (a test keeps the table complete).
func RuleFor(id string) Rule { return Rule{ID: id, Why: rules[id]} }
