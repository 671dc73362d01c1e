package rule

// The rules rawmcp probe cites that the server's table does not name: the
// black-box checks of wire/client/probe/CHECKS.md judge any server, so some
// rest on a client's MUST (one message per POST, no token in a query)
// that a careful server polices, and the Text says what the probe expects
// of the server it is pointed at.
const (
	UTF8Body                  ID = "T-02"
	OriginEveryRequest        ID = "T-03"
	OriginRefused             ID = "T-04"
	OneMessagePerPost         ID = "T-10"
	PostStreamEnds            ID = "T-22"
	NoForeignReplay           ID = "T-37"
	SessionIDVisibleASCII     ID = "T-40"
	VersionAssumed            ID = "T-49"
	VersionUnsupported        ID = "T-50"
	InitializeResultShape     ID = "T-52"
	InitializedFirst          ID = "T-55"
	RequestIDNotNull          ID = "T-61"
	ResponseEchoesID          ID = "T-62"
	SessionNotCredential      ID = "T-72"
	SessionBoundToUser        ID = "T-73"
	ChallengeOn401            ID = "A-05"
	AudienceBound             ID = "A-12"
	NoTokenInQuery            ID = "A-19"
	BearerSyntax              ID = "A-21"
	MetadataResource          ID = "A-24"
	EveryRequestAuthenticated ID = "A-32"
	ObsFoldRefused            ID = "H-19"
	OversizedHead             ID = "H-22"
	InvalidContentLength      ID = "H-25"
	TEWithCLCloses            ID = "H-26"
	BodyReadOrClosed          ID = "H-34"
	AllowOn405                ID = "H-44"

	// Deployment: what a hop in front of the server (TLS, a reverse proxy,
	// a load balancer) must keep. No requirement of the server's table
	// names them: rawmcp listens on loopback and terminates no TLS.
	TLSForProtected     ID = "D-01"
	LegacyTLSRefused    ID = "D-02"
	NoCleartextTwin     ID = "D-03"
	ForwardedNotTrusted ID = "D-04"
	HeadersCrossHop     ID = "D-05"
	EventsNotHeld       ID = "D-06"
	IdleStreamKept      ID = "D-07"
	SessionAffinity     ID = "D-08"
	StreamNotBuffered   ID = "D-09"
	NoVersionBanner     ID = "D-10"
	CORSForOwnOrigin    ID = "D-11"
)

var clientTable = []Rule{
	// Transport, lifecycle, JSON-RPC.
	{UTF8Body, MUST, "MCP Transports (UTF-8 JSON-RPC)", "a POST body that is not valid UTF-8 JSON cannot be parsed: 400, never served"},
	{OriginEveryRequest, MUST, "MCP Transports §2.0.1", "Origin is validated on every incoming request, GET and DELETE included"},
	{OriginRefused, MUST, "MCP Transports §2.0.1", "an Origin that is present and not allowed gets 403 Forbidden"},
	{OneMessagePerPost, MUST, "MCP Transports §2.1 item 3", "a POST body is exactly one JSON-RPC message: a batch array is refused (400)"},
	{PostStreamEnds, SHOULD, "MCP Transports §2.1 item 6", "once a POST's SSE stream has carried the response, the server ends the stream"},
	{NoForeignReplay, MUST, "MCP Transports §2.4 item 2", "a resumed stream never replays messages that belonged to another stream"},
	{SessionIDVisibleASCII, MUST, "MCP Transports §2.5 item 1", "a session id holds only visible ASCII, 0x21-0x7E"},
	{VersionAssumed, SHOULD, "MCP Transports §2.7", "without MCP-Protocol-Version and no other way to know, the server assumes 2025-03-26"},
	{VersionUnsupported, MUST, "MCP Transports §2.7", "an invalid or unsupported MCP-Protocol-Version gets 400"},
	{InitializeResultShape, MUST, "MCP Lifecycle §1.1; schema", "InitializeResult carries protocolVersion, capabilities and serverInfo{name,version}"},
	{InitializedFirst, SHOULD, "MCP Lifecycle §1.1", "no request but ping or logging is served before notifications/initialized"},
	{RequestIDNotNull, MUST, "MCP Base §1.1; schema RequestId", "a request id is a string or an integer, never null"},
	{ResponseEchoesID, MUST, "MCP Base §1.2.1", "each response echoes the id of its own request, however many requests share it"},
	{SessionNotCredential, MUST, "MCP Security Best Practices §2.4.4", "a session id is never proof of identity: a request without a token gets 401"},
	{SessionBoundToUser, SHOULD, "MCP Security Best Practices §2.4.4", "a session is bound to the user who opened it; another user's token on it is refused"},
	// Authorization.
	{ChallengeOn401, MUST, "RFC 9110 §11.6.1, §15.5.2", "every 401 carries WWW-Authenticate with at least one challenge"},
	{AudienceBound, MUST, "MCP Auth §9.2, §11.8; RFC 8707 §2", "a token whose audience is not this server is refused with 401"},
	{NoTokenInQuery, MUST, "MCP Auth §9.1; RFC 6750 §2.3", "a token in the query string is never accepted and never echoed"},
	{BearerSyntax, MUST, "RFC 6750 §2.1; RFC 9110 §11.1", "Authorization is Bearer 1*SP b64token, the scheme case-insensitive"},
	{MetadataResource, MUST, "RFC 9728 §3.3", "Protected Resource Metadata names as resource exactly the URL the client used"},
	{EveryRequestAuthenticated, MUST, "MCP Security Best Practices §2.4.4; MCP Auth §9.1", "every request to the MCP endpoint is authenticated, GET and DELETE included (the metadata is public)"},
	// HTTP/1.1.
	{ObsFoldRefused, MUST, "RFC 9112 §5.2", "a folded header line is refused (400) or replaced by a space, never taken as a new field"},
	{OversizedHead, MUST, "RFC 9110 §5.4; RFC 6585 §5", "a header section over the server's limit gets 431 (or 400), never silently cut"},
	{InvalidContentLength, MUST, "RFC 9112 §6.3; RFC 9110 §8.6", "conflicting Content-Length values are unrecoverable: 400, then close"},
	{TEWithCLCloses, MUST, "RFC 9112 §6.1", "a request with both Transfer-Encoding and Content-Length is refused or framed by TE alone, and the connection closes"},
	{BodyReadOrClosed, MUST, "RFC 9112 §9.3", "after a response the whole request body has been read, or the connection is closed"},
	{AllowOn405, MUST, "RFC 9110 §15.5.6, §10.2.1", "a 405 carries Allow, listing the methods the target serves"},
	// Deployment.
	{TLSForProtected, MUST, "RFC 6750 §5.3; RFC 9728 §1.2; OAuth 2.1 §1.5", "an endpoint that takes bearer tokens is served over https, unless it is on loopback"},
	{LegacyTLSRefused, MUST, "RFC 8996; RFC 9325 §3.1.1", "a handshake offering only TLS 1.0 or 1.1 is refused"},
	{NoCleartextTwin, SHOULD, "RFC 6797 §7.2; RFC 9325 §3.2", "the http twin of an https endpoint serves no MCP: it refuses, or redirects to the https URL"},
	{ForwardedNotTrusted, MUST, "RFC 9728 §3.3, §7.3", "X-Forwarded-Host, X-Forwarded-Proto and Forwarded never steer the resource identifier, resource_metadata or a Location"},
	{HeadersCrossHop, MUST, "MCP Transports §2.5, §2.7; RFC 9110 §11.6.1", "MCP-Protocol-Version and Mcp-Session-Id reach the server, however spelled, and WWW-Authenticate reaches the client"},
	{EventsNotHeld, SHOULD, "MCP Transports §2.1 item 6", "an event stream's head and each event reach the client when they are written: no hop buffers or compresses them until the stream ends"},
	{IdleStreamKept, SHOULD, "MCP Transports §2.2 item 4", "an idle event stream stays open (keep-alive comments), or ends with a retry the client can follow"},
	{SessionAffinity, SHOULD, "MCP Transports §2.5 (interoperability)", "every request of a session, on any connection, reaches a server that knows the session"},
	{StreamNotBuffered, SHOULD, "MCP 2026-07-28 Transports; RFC 9111 §5.2.2", "an SSE answer carries X-Accel-Buffering: no and Cache-Control no-cache or no-store, and no cache serves it"},
	{NoVersionBanner, SHOULD, "OWASP ASVS V14.3.3", "Server and X-Powered-By name no version a scanner can match to advisories"},
	{CORSForOwnOrigin, SHOULD, "Fetch §3.2 (CORS protocol); MCP Transports §2.0.1", "no CORS grant to a foreign origin; a grant to the own origin allows MCP's request headers and exposes Mcp-Session-Id"},
}
