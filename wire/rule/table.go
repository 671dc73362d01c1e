package rule

// The rules rawmcp's server applies, by what they mean. The Text of each
// is printed next to every answer it decides, so it says what the server
// did and why that status and not a neighbouring one.
const (
	// HTTP/1.1 framing and the parser (RFC 9112, RFC 9110).
	GrammarViolation     ID = "H-06"
	MethodNotToken       ID = "H-08"
	MethodTooLong        ID = "H-09"
	HostRequired         ID = "H-15"
	SpaceBeforeColon     ID = "H-17"
	FieldNameNotToken    ID = "H-21"
	ContentLengthSyntax  ID = "H-24"
	LengthRequired       ID = "H-35"
	VersionNotSupported  ID = "H-50"
	ExpectationFailed    ID = "H-52"
	BareLF               ID = "H-P01"
	RequestLineSyntax    ID = "H-P02"
	NeverRepaired        ID = "H-P03"
	ControlByteInValue   ID = "H-P04"
	DuplicateSingleton   ID = "H-P05"
	TransferEncoding     ID = "H-P06"
	FixedLimit           ID = "H-P07"
	ReadDeadline         ID = "H-P08"
	ExactRouting         ID = "H-P11"
	MethodNotServed      ID = "H-P12"
	InFlightGate         ID = "H-P14"
	ConnectionCap        ID = "H-P15"
	InternalError        ID = "H-P16"
	QueryRefused         ID = "A-P01"
	HostNotOurs          ID = "T-P15"
	OriginNotAllowed     ID = "T-P16"
	AcceptBothTypes      ID = "T-P02"
	ContentTypeJSON      ID = "T-P01"
	StrictJSON           ID = "T-P13"
	OneJSONRPCMessage    ID = "T-P03"
	InitializeVersion    ID = "T-P05"
	VersionRequired      ID = "T-P08"
	SessionRequired      ID = "T-42"
	SessionIDSyntax      ID = "T-P09"
	SessionNotFound      ID = "T-43"
	LifecycleOrder       ID = "T-P06"
	UnsolicitedResponse  ID = "T-P04"
	NotificationRefused  ID = "T-12"
	CursorUnknown        ID = "T-P11"
	EventIDSyntax        ID = "S-P01"
	SessionCapacity      ID = "T-P18"
	NotificationAccepted ID = "T-11"
	VersionCounterOffer  ID = "T-53"
	PingAnswered         ID = "T-59"
	RequestAnsweredSSE   ID = "T-14"
	MethodNotFound       ID = "T-66"
	InvalidCursor        ID = "T-68"
	InitializeParams     ID = "T-51"
	GetStream            ID = "T-25"
	DeleteEndsSession    ID = "T-45"
	NoCredentials        ID = "A-08"
	InvalidToken         ID = "A-10"
	MalformedAuthz       ID = "A-P02"
	InsufficientScope    ID = "A-14"
	TenantNotServed      ID = "A-P08"
	MetadataPublic       ID = "A-P06"
	MetadataServed       ID = "A-23"
	NoSecretsInOutput    ID = "A-P07"
	SessionBoundToOwner  ID = "T-P10"
	TokenLifetime        ID = "A-P05"
)

var table = []Rule{
	// HTTP core.
	{BareLF, PROFILE, "RFC 9112 §2.2 (allows bare LF)", "a bare LF ended a line: the profile accepts CRLF only (400, close)"},
	{RequestLineSyntax, PROFILE, "RFC 9112 §3 (allows leniency)", "the request line must be exactly METHOD SP target SP HTTP/1.1 or HTTP/1.0 (400, close; another well-formed version is 505 by H-50)"},
	{NeverRepaired, PROFILE, "RFC 9112 §2.2, §5.2 (allow repair)", "obs-fold, bare CR or whitespace after the request line is never repaired (400, close)"},
	{ControlByteInValue, PROFILE, "RFC 9110 §5.5", "a control byte other than HTAB in a field value (400, close)"},
	{DuplicateSingleton, PROFILE, "RFC 9110 §5.3, §8.6", "a singleton field appeared twice, even with equal values (400, close)"},
	{TransferEncoding, PROFILE, "RFC 9112 §6.1, §6.3", "Transfer-Encoding is refused: framing is by Content-Length only (400/501, close)"},
	{FixedLimit, PROFILE, "RFC 9110 §5.4; RFC 6585 §5", "a fixed limit was crossed (413/414/431, close)"},
	{ReadDeadline, PROFILE, "RFC 9112 §9.5", "the whole request did not arrive within the read deadline (408, close)"},
	{ExactRouting, PROFILE, "choice", "routing is an exact, case-sensitive match on the raw path (404)"},
	{MethodNotServed, PROFILE, "RFC 9110 §9.1, §15.5.6", "a standard method that /mcp does not serve: 405 with Allow; an unknown method is 501"},
	{HostRequired, MUST, "RFC 9112 §3.2", "a request needs exactly one valid Host (400); HTTP/1.0 too, by the profile's choice: without Host the DNS-rebinding check has nothing to judge"},
	{SpaceBeforeColon, MUST, "RFC 9112 §5.1", "whitespace between a field name and its colon is refused, never stripped (400, close)"},
	{FieldNameNotToken, MUST, "RFC 9110 §5.1, §5.6.2", "a field name must be a non-empty token (400, close)"},
	{GrammarViolation, SHOULD, "RFC 9112 §2.2; RFC 9110 §7.6.1", "a field line without a colon or a Connection option that is not a token breaks the grammar (400, close)"},
	{LengthRequired, MAY, "RFC 9112 §6.3", "a POST needs Content-Length: requests are never close-delimited (411)"},
	{VersionNotSupported, SHOULD, "RFC 9110 §6.2, §15.6.6", "only HTTP/1.1 and HTTP/1.0 are served; other versions get 505"},
	{ExpectationFailed, MAY, "RFC 9110 §10.1.1", "an expectation other than 100-continue (417)"},
	{MethodNotToken, MUST, "RFC 9112 §3.1; RFC 9110 §9.1", "the method is not a token (400)"},
	{MethodTooLong, SHOULD, "RFC 9112 §3", "a method longer than any this server implements (501)"},
	{ContentLengthSyntax, MUST, "RFC 9110 §8.6", "Content-Length must be 1*DIGIT, one line, no list (400, close)"},
	{QueryRefused, PROFILE, "MCP Auth §9.1; RFC 6750 §2", "a query or fragment in the target: refused by the parser, plain 400, never echoed (a token there is never used)"},
	{InFlightGate, PROFILE, "RFC 9110 §15.6.4, §10.2.3", "64 requests are already in processing: 503 with Retry-After at once, never a wait"},
	{ConnectionCap, PROFILE, "RFC 9110 §15.6.4, §10.2.3", "the open-connection cap is reached: 503 with Retry-After, then close"},
	{InternalError, PROFILE, "RFC 9110 §15.6.1", "an internal error (500)"},
	// Transport.
	{HostNotOurs, PROFILE, "MCP Transports §2.0.1 (DNS rebinding)", "Host is not one of this server's loopback authorities: DNS rebinding (403, no challenge)"},
	{OriginNotAllowed, PROFILE, "MCP Transports §2.0.1", "Origin is present and not exactly on the allowlist (403, no OAuth challenge)"},
	{AcceptBothTypes, PROFILE, "MCP Transports §2.1 item 2, §2.2 item 2", "Accept must admit application/json and text/event-stream on POST, text/event-stream on GET (406, not 415)"},
	{ContentTypeJSON, PROFILE, "MCP Transports §2.1; RFC 9110 §15.5.16", "a POST body must be Content-Type: application/json, charset utf-8 if given (415, not 406)"},
	{StrictJSON, PROFILE, "RFC 8259 §4, §8.1", "the body is not one strict UTF-8 JSON value: duplicate keys, BOM, NaN, depth, trailing bytes (400, -32700)"},
	{OneJSONRPCMessage, PROFILE, "MCP Transports §2.1 item 3", "the body is valid JSON but not one JSON-RPC message (400, -32600)"},
	{InitializeVersion, PROFILE, "MCP Transports §2.7", "initialize carried an MCP-Protocol-Version other than its params.protocolVersion or 2025-11-25 (400)"},
	{VersionRequired, PROFILE, "MCP Transports §2.7", "after initialize every request carries MCP-Protocol-Version: 2025-11-25 (400)"},
	{SessionRequired, SHOULD, "MCP Transports §2.5 item 2", "a request other than initialize needs Mcp-Session-Id (400, not 404)"},
	{SessionIDSyntax, PROFILE, "MCP Transports §2.5 item 1", "the Mcp-Session-Id has a length or byte this server never issues (400, not 404)"},
	{SessionNotFound, MUST, "MCP Transports §2.5 item 3; Security Best Practices §2.4.4", "the session is unknown, expired, ended, or bound to another principal: all the same 404"},
	{LifecycleOrder, PROFILE, "MCP Lifecycle §1.1; Transports §2.5", "initialize on a session, or a lifecycle step out of order (400, -32600)"},
	{UnsolicitedResponse, PROFILE, "MCP Transports §2.1 item 4", "a POSTed JSON-RPC response answers no request this server sent (400, not 202)"},
	{NotificationRefused, MUST, "MCP Transports §2.1 item 4", "a notification this server does not accept (400)"},
	{CursorUnknown, PROFILE, "MCP Transports §2.4", "Last-Event-ID names no event this session's GET stream delivered (400, not 404)"},
	{EventIDSyntax, PROFILE, "HTML §9.2.4", "event ids are 0x21-0x7E only, at most 128 bytes (400)"},
	{SessionCapacity, PROFILE, "MCP Security Best Practices (resource exhaustion)", "8 live sessions: a new initialize fails closed (503) and nobody is evicted"},
	{NotificationAccepted, MUST, "MCP Transports §2.1 item 4", "an accepted notification gets 202 with an empty body and Content-Length: 0"},
	{VersionCounterOffer, MUST, "MCP Lifecycle §1.1.1", "initialize answers with 2025-11-25 whatever version was proposed: a counter-offer, not an error"},
	{PingAnswered, MUST, "MCP Ping §3", "ping is answered at once with an empty result, as application/json"},
	{RequestAnsweredSSE, MUST, "MCP Transports §2.1 item 5", "resources/list is answered as text/event-stream: one event holding the response"},
	{MethodNotFound, MUST, "JSON-RPC 2.0 §5.1; MCP Transports §2.1 item 5", "an unknown method is a JSON-RPC error (-32601) inside a normal 200 response"},
	{InvalidCursor, SHOULD, "MCP Pagination §7", "resources/list has one page: any cursor is invalid (-32602)"},
	{InitializeParams, MUST, "MCP Lifecycle §1.1; schema", "initialize params lack protocolVersion, capabilities or clientInfo (-32602)"},
	{GetStream, MUST, "MCP Transports §2.2 item 3", "GET opens the session's notification stream: priming event with retry, queued notifications, end"},
	{DeleteEndsSession, MAY, "MCP Transports §2.5 item 5", "DELETE ends the session (204); every later request with its id is 404"},
	// Authorization.
	{NoCredentials, SHOULD, "RFC 6750 §3.1; MCP Auth §4.2", "no bearer credential (no Authorization header, or another scheme than Bearer): 401 with resource_metadata and scope, and no error code"},
	{InvalidToken, MUST, "MCP Auth §9.2; RFC 6750 §3.1", "the token is unknown, inactive, expired, revoked or bound elsewhere: one 401 invalid_token, no hint which"},
	{MalformedAuthz, PROFILE, "RFC 6750 §2.1, §3.1 (classification is a choice)", "Bearer with no token, an empty one, more than one or one that is not a b64token (400 invalid_request)"},
	{InsufficientScope, SHOULD, "MCP Auth §10.1.1; RFC 6750 §3.1", "the token is valid but lacks a scope this request needs (403 insufficient_scope, step-up)"},
	{TenantNotServed, PROFILE, "MCP Auth §10 (403 for a permission the token cannot gain)", "the token is valid but its tenant is not served here (403, no challenge: no step-up helps)"},
	{MetadataPublic, PROFILE, "RFC 9728 §3; MCP Auth §4.2", "metadata is public: a request carrying Authorization is refused (400)"},
	{MetadataServed, MUST, "RFC 9728 §3.1, §3.2", "Protected Resource Metadata: 200 application/json, resource = the canonical /mcp URI"},
	{SessionBoundToOwner, PROFILE, "MCP Security Best Practices §2.4.4", "a session is bound to (subject, tenant, revision): another principal's valid token on it gets the same 404 as an unknown id"},
	{TokenLifetime, PROFILE, "OAuth 2.1 §5.2", "nbf, expiry and revocation are checked on every request, so a token that dies mid-session gets 401 on its next use"},
	{NoSecretsInOutput, PROFILE, "MCP Auth §11.2", "error answers and logs never contain token material or session ids"},
}
