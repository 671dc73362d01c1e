package rule

// The rules the code, its tests and its documents cite that decide no
// answer of their own: what the parsers accept, how the writers frame an
// answer, what a client must do, and the receive order itself. A comment
// or test name that cites one of these ids finds its meaning here, as for
// the server's and the probe's (a test in fuzz keeps every cited id in
// the tables).
const (
	OriginErrorBody            ID = "T-05"
	LoopbackOnly               ID = "T-06"
	RefusalErrorBody           ID = "T-13"
	PostStreamPrimed           ID = "T-15"
	PostStreamCarriesResponse  ID = "T-19"
	GetStreamMessages          ID = "T-27"
	NoResponseOnGet            ID = "T-29"
	EventIDsUnique             ID = "T-33"
	EventIDNamesStream         ID = "T-34"
	ResumeReplays              ID = "T-36"
	SessionIDIssued            ID = "T-38"
	SessionIDSecure            ID = "T-39"
	ReinitializeOn404          ID = "T-44"
	InitializedSent            ID = "T-54"
	NegotiatedOnly             ID = "T-57"
	ResourcesCapability        ID = "T-58"
	JSONRPCVersion             ID = "T-60"
	ErrorEchoesID              ID = "T-63"
	NoReplyToNotification      ID = "T-64"
	StandardErrorCodes         ID = "T-65"
	ResourcesListShape         ID = "T-67"
	SessionIDRandom            ID = "T-71"
	RequestBeforeInitialize    ID = "T-P07"
	GetStreamEnds              ID = "T-P12"
	ReceiveOrder               ID = "T-P14"
	MetadataOriginChecked      ID = "T-P17"
	SSEContentType             ID = "S-01"
	SSELineEnds                ID = "S-02"
	SSELeadingBOM              ID = "S-03"
	SSEComment                 ID = "S-04"
	SSEFieldSplit              ID = "S-05"
	SSEFieldNames              ID = "S-06"
	SSEDataAndEvent            ID = "S-07"
	SSEIDField                 ID = "S-08"
	SSERetryField              ID = "S-09"
	SSEDispatch                ID = "S-10"
	SSEUnterminatedEvent       ID = "S-11"
	SSEKeepAliveComment        ID = "S-13"
	SSEEventEnds               ID = "S-14"
	SSEPrimingEvent            ID = "S-15"
	SSEOneMessagePerEvent      ID = "S-P02"
	SSEHeldOpenComment         ID = "S-P03"
	SSEFramedExplicitly        ID = "S-P04"
	SSEPrimingRetry            ID = "S-P05"
	MetadataPublished          ID = "A-01"
	MetadataNamesIssuer        ID = "A-02"
	ChallengeScope             ID = "A-04"
	ChallengeBearerParam       ID = "A-06"
	ChallengeNoRepeatedParam   ID = "A-07"
	TokenValidatedFirst        ID = "A-11"
	ScopeChallengeLists        ID = "A-15"
	AuthzStatusMapping         ID = "A-16"
	BearerEveryRequest         ID = "A-18"
	MetadataPathSuffixed       ID = "A-22"
	MetadataNoEmptyValues      ID = "A-25"
	MetadataScopesSupported    ID = "A-26"
	MetadataMinimalScopes      ID = "A-27"
	ResourceCanonical          ID = "A-28"
	ResourceCaseInsensitive    ID = "A-29"
	TokensNeverEchoed          ID = "A-33"
	MetadataURLQuoted          ID = "A-35"
	ChallengeMetadataURL       ID = "A-P03"
	AudienceExact              ID = "A-P04"
	ParsedAsOctets             ID = "H-01"
	BareCRInvalid              ID = "H-03"
	LeadingEmptyLine           ID = "H-04"
	WhitespaceAfterRequestLine ID = "H-05"
	VersionGrammar             ID = "H-07"
	UnknownMethod501           ID = "H-10"
	TargetTooLong              ID = "H-11"
	LongRequestLine            ID = "H-12"
	TargetWhitespace           ID = "H-13"
	HostOnceAndValid           ID = "H-16"
	ValueOWSStripped           ID = "H-18"
	ValueCRLFNUL               ID = "H-20"
	WholeHeadFirst             ID = "H-23"
	TENotChunked               ID = "H-27"
	UnknownCoding501           ID = "H-28"
	HTTP10TransferEncoding     ID = "H-29"
	ChunkedDecoded             ID = "H-30"
	TrailersNotMerged          ID = "H-31"
	BodyShortCloses            ID = "H-33"
	ContentTooLarge            ID = "H-36"
	ConnectionCloseHonoured    ID = "H-37"
	CloseAfterClose            ID = "H-38"
	HTTP10Closes               ID = "H-39"
	CloseOnEveryResponse       ID = "H-40"
	PipelinedInOrder           ID = "H-41"
	StatusLineSpace            ID = "H-42"
	DateOnEveryResponse        ID = "H-43"
	NotAcceptableLists         ID = "H-46"
	NoChunkedToHTTP10          ID = "H-48"
	NoLengthOn204              ID = "H-47"
	ContentLengthKnown         ID = "H-49"
	ContinueAtOnce             ID = "H-51"
	AcceptQuality              ID = "H-53"
	MediaTypeCase              ID = "H-54"
	QuotedPairUnescaped        ID = "H-56"
	ParseErrorCloses           ID = "H-P09"
	OneHeaderWriter            ID = "H-P10"
	ContinueAfterChecks        ID = "H-P13"
)

var citedTable = []Rule{
	// Transport, lifecycle, JSON-RPC.
	{OriginErrorBody, MAY, "Transports §2.0.1", "The Origin-403 body is a JSON-RPC error response without id"},
	{LoopbackOnly, SHOULD, "Transports §2.0.1", "Bind to 127.0.0.1 only"},
	{RefusalErrorBody, MAY, "Transports §2.1 item 4", "That error body is a JSON-RPC error response without id"},
	{PostStreamPrimed, SHOULD, "Transports §2.1 item 6", "A POST SSE stream begins with a priming event: id plus empty data"},
	{PostStreamCarriesResponse, SHOULD, "Transports §2.1 item 6", "The POST SSE stream eventually carries the JSON-RPC response to the POSTed request"},
	{GetStreamMessages, MAY, "Transports §2.2 item 4", "Server sends JSON-RPC requests/notifications on the GET stream"},
	{NoResponseOnGet, MUST, "Transports §2.2 item 4", "No JSON-RPC response on a GET stream, except on a resumed request stream"},
	{EventIDsUnique, MUST, "Transports §2.4 item 1", "Event ids are unique across all streams of the session (or of the client when sessionless)"},
	{EventIDNamesStream, SHOULD, "Transports §2.4 item 1", "An event id identifies its originating stream"},
	{ResumeReplays, MAY, "Transports §2.4 item 2", "On resume, replay messages after the given id on that same stream and continue it (POST-born streams included)"},
	{SessionIDIssued, MAY, "Transports §2.5 item 1", "Session id issued in MCP-Session-Id on the response carrying InitializeResult"},
	{SessionIDSecure, SHOULD, "Transports §2.5 item 1", "Session ids are globally unique and cryptographically secure"},
	{ReinitializeOn404, MUST, "Transports §2.5 item 4", "On 404 to a session-bearing request, re-initialize without a session id"},
	{InitializedSent, MUST, "Lifecycle §1.1; Transports §2.1 item 4", "notifications/initialized sent after a successful initialize (server answers that POST 202)"},
	{NegotiatedOnly, MUST, "Lifecycle §1.2", "Only negotiated version and capabilities are used (e.g. no list_changed unless declared)"},
	{ResourcesCapability, MUST, "Resources §2", "Server offering resources declares capabilities.resources"},
	{JSONRPCVersion, MUST, "Base §1", "Every message is JSON-RPC 2.0 with \"jsonrpc\":\"2.0\""},
	{ErrorEchoesID, MUST, "Base §1.2.2", "Error response echoes the id (omitted only if unreadable); error.code integer, error.message string"},
	{NoReplyToNotification, MUST, "Base §1.3", "No reply to a notification; notifications carry no id"},
	{StandardErrorCodes, MUST, "JSON-RPC 2.0 §5.1; schema", "Standard codes used: -32700 parse, -32600 invalid request, -32601 method not found, -32602 invalid params, -32603 internal"},
	{ResourcesListShape, MUST, "Resources §3.1, §5.1; schema ListResourcesResult", "resources/list result: resources array required; each item has uri and name; nextCursor optional string"},
	{SessionIDRandom, MUST, "SBP §2.4.4", "Session ids are non-deterministic (secure RNG SHOULD)"},
	{RequestBeforeInitialize, PROFILE, "unspecified in Lifecycle §1.1", "Non-initialize, non-ping request before initialize (no session) → 400"},
	{GetStreamEnds, PROFILE, "unspecified in Transports §2.3", "GET streams end after their event set (priming event + queued notifications), so a second GET simply gets the next set; if a stream is ever held open, a second concurrent GET on the same session → 409"},
	{ReceiveOrder, PROFILE, "order unspecified by the specs", "the fixed receive order of wire/route.go: framing and size, the in-flight gate, Host, Origin, path and method, Accept and Content-Type, the body and strict JSON, the bearer token, protocol version, session and lifecycle, tenant and scope, dispatch; the first failing step answers with its own rule, and every 4xx/5xx carries Connection: close and closes"},
	{MetadataOriginChecked, PROFILE, "Transports §2.0.1 \"all incoming connections\"", "The Origin/Host checks also apply to the well-known PRM paths"},
	// Server-sent events.
	{SSEContentType, MUST, "HTML §9.2.5", "SSE responses use Content-Type: text/event-stream, UTF-8"},
	{SSELineEnds, MUST, "HTML §9.2.5", "CRLF, CR and LF all end a line"},
	{SSELeadingBOM, MUST, "HTML §9.2.5, §9.2.6", "One leading BOM ignored"},
	{SSEComment, MUST, "HTML §9.2.6", "Lines starting with : are comments and ignored"},
	{SSEFieldSplit, MUST, "HTML §9.2.6", "Field split at the first colon; one leading space dropped from the value; colon-less line = name with empty value"},
	{SSEFieldNames, MUST, "HTML §9.2.6", "Field names compared case-sensitively; unknown names ignored"},
	{SSEDataAndEvent, MUST, "HTML §9.2.6", "data appends value + LF; event sets the type"},
	{SSEIDField, MUST, "HTML §9.2.6", "id containing NUL is ignored; otherwise it sets the last event id (empty value resets)"},
	{SSERetryField, MUST, "HTML §9.2.6", "retry with only ASCII digits sets reconnection time (ms); otherwise ignored"},
	{SSEDispatch, MUST, "HTML §9.2.6", "Blank line dispatches: last event id updated even if nothing dispatched; empty data buffer → no event; one trailing LF removed; default type message"},
	{SSEUnterminatedEvent, MUST, "HTML §9.2.6", "Unterminated event at end of stream discarded"},
	{SSEKeepAliveComment, MAY, "HTML §9.2.7", "Comment line roughly every 15 s keeps idle streams alive (authoring advice)"},
	{SSEEventEnds, MUST, "HTML §9.2.5 grammar, §9.2.6", "Every event ends with a blank line; data values carry no raw CR/LF; ids carry no CR/LF/NUL"},
	{SSEPrimingEvent, SHOULD, "Transports §2.1 item 6; HTML §9.2.6", "MCP priming event = id: <id>, empty data:, blank line (a WHATWG parser dispatches it as an empty-data message; clients must skip it)"},
	{SSEOneMessagePerEvent, PROFILE, "HTML §9.2.5", "One JSON-RPC message per event, compact JSON on a single data: line"},
	{SSEHeldOpenComment, PROFILE, "HTML §9.2.7 (advice)", "A stream held open with nothing to send gets a comment line at least every 15 s (the default profile closes its GET stream after one event, so this applies only where a stream is held open)"},
	{SSEFramedExplicitly, PROFILE, "RFC 9112 §6.1, §6.3, §9.3", "SSE responses are always framed explicitly: Content-Length when the whole event set is written at once, chunked (one chunk per event, flushed) when events are written over time, or close-delimited only with Connection: close; never Transfer-Encoding to an HTTP/1.0 client"},
	{SSEPrimingRetry, PROFILE, "Transports §2.1 item 6 (SHOULD only before closing)", "Priming event also carries retry: (a fixed value in ms)"},
	// Authorization.
	{MetadataPublished, MUST, "MCP Auth §3 item 4, §4.1", "Publish RFC 9728 Protected Resource Metadata"},
	{MetadataNamesIssuer, MUST, "MCP Auth §4.1", "PRM authorization_servers lists at least one issuer"},
	{ChallengeScope, SHOULD, "MCP Auth §4.2", "401 challenge includes scope"},
	{ChallengeBearerParam, MUST, "RFC 6750 §3", "Missing/insufficient token → challenge with scheme Bearer followed by ≥1 auth-param"},
	{ChallengeNoRepeatedParam, MUST, "RFC 6750 §3; RFC 9110 §11.2", "No auth-param (realm, scope, error, error_description, error_uri, resource_metadata) repeated in one challenge"},
	{TokenValidatedFirst, MUST, "MCP Auth §9.2, §11.8; OAuth 2.1 §5.2", "Token validated (existence, validity period, scope coverage) before the request is processed"},
	{ScopeChallengeLists, SHOULD, "MCP Auth §10.1.1", "The 403 scope lists what the current request needs (keeping still-needed held scopes)"},
	{AuthzStatusMapping, MUST, "MCP Auth §10", "Status mapping: 401 missing/invalid authorization, 403 insufficient scope/permission, 400 malformed authorization request"},
	{BearerEveryRequest, MUST, "MCP Auth §9.1", "Token sent as Authorization: Bearer on every request, including GET and DELETE"},
	{MetadataPathSuffixed, MUST, "RFC 9728 §3, §3.1; MCP Auth §4.2", "PRM for resource …/mcp served at /.well-known/oauth-protected-resource/mcp (suffix inserted after the authority)"},
	{MetadataNoEmptyValues, MUST, "RFC 9728 §3.2", "PRM omits parameters with zero values (no empty arrays, no nulls)"},
	{MetadataScopesSupported, SHOULD, "RFC 9728 §2", "PRM includes scopes_supported and resource_name"},
	{MetadataMinimalScopes, SHOULD, "MCP Auth §6; SBP §2.8.3", "scopes_supported is a minimal baseline, not the whole catalogue"},
	{ResourceCanonical, MUST, "RFC 9728 §1.2; RFC 8707 §2; MCP Auth §8.1", "Resource identifier has no fragment (SHOULD NOT have a query); canonical: lowercase scheme/host, no trailing slash (SHOULD)"},
	{ResourceCaseInsensitive, SHOULD, "MCP Auth §8.1", "Uppercase scheme/host accepted when comparing resource URIs"},
	{TokensNeverEchoed, MUST, "MCP Auth §11.2", "Tokens stored securely; never logged or echoed"},
	{MetadataURLQuoted, MUST, "RFC 9728 §5.1; RFC 9110 §11.2, §5.6.4", "resource_metadata value is an absolute URL sent as a quoted-string"},
	{ChallengeMetadataURL, PROFILE, "MCP Auth §4.2 needs only one discovery route", "Every 401 and 403-insufficient_scope challenge carries resource_metadata = absolute URL of the path-suffixed PRM, all values quoted"},
	{AudienceExact, PROFILE, "MCP Auth §8.1, §11.8", "Audience check = exact match with the one canonical URI (scheme/host lowercased), no prefix or origin-only matching"},
	// HTTP/1.1.
	{ParsedAsOctets, MUST, "RFC 9112 §2.2", "Requests parsed as octets, not decoded text"},
	{BareCRInvalid, MUST, "RFC 9112 §2.2", "Bare CR outside the body → element invalid (or replaced by SP)"},
	{LeadingEmptyLine, SHOULD, "RFC 9112 §2.2", "At least one empty line before the request-line is ignored"},
	{WhitespaceAfterRequestLine, MUST, "RFC 9112 §2.2", "Whitespace-prefixed line right after the request-line → reject (or ignore such lines)"},
	{VersionGrammar, MUST, "RFC 9112 §2.3", "Version matches HTTP/ DIGIT . DIGIT, case-sensitive"},
	{UnknownMethod501, SHOULD, "RFC 9110 §9.1", "Unknown/unimplemented method → 501; known but not allowed on the target → 405"},
	{TargetTooLong, MUST, "RFC 9112 §3", "Request-target longer than the server will parse → 414"},
	{LongRequestLine, SHOULD, "RFC 9112 §3", "Request-lines of at least 8000 octets supported"},
	{TargetWhitespace, SHOULD, "RFC 9112 §3.2", "Whitespace in the target / invalid request-line → 400, no silent correction"},
	{HostOnceAndValid, MUST, "RFC 9112 §3.2", "Any request with more than one Host line or an invalid Host value → 400"},
	{ValueOWSStripped, MUST, "RFC 9112 §5.1; RFC 9110 §5.5", "Leading/trailing OWS stripped from field values"},
	{ValueCRLFNUL, MUST, "RFC 9110 §5.5", "CR, LF or NUL inside a field value → reject (or replace with SP)"},
	{WholeHeadFirst, MUST, "RFC 9110 §5.3", "No request processing before the full header section is received"},
	{TENotChunked, MUST, "RFC 9112 §6.3", "TE in a request without chunked as final coding → 400 and close"},
	{UnknownCoding501, SHOULD, "RFC 9112 §6.1", "Unknown transfer coding → 501"},
	{HTTP10TransferEncoding, MUST, "RFC 9112 §6.1", "HTTP/1.0 request with Transfer-Encoding → framing faulty; close after handling"},
	{ChunkedDecoded, MUST, "RFC 9112 §7.1, §7.1.1", "Chunked bodies decoded; chunk-size overflow guarded; unknown chunk extensions ignored"},
	{TrailersNotMerged, MUST, "RFC 9112 §7.1.2", "Trailer fields not merged into the header section"},
	{BodyShortCloses, MUST, "RFC 9112 §6.3", "Body shorter than Content-Length at close/timeout → incomplete; connection closed"},
	{ContentTooLarge, MAY, "RFC 9110 §15.5.14", "Content over the limit → 413 (then MAY close); Retry-After SHOULD if temporary"},
	{ConnectionCloseHonoured, MUST, "RFC 9112 §9.6", "Connection: close in a request → close after that response; no further requests processed"},
	{CloseAfterClose, MUST, "RFC 9112 §9.6", "After the server sends Connection: close it closes and processes nothing more"},
	{HTTP10Closes, MUST, "RFC 9112 §9.3; RFC 9110 §6.2", "an HTTP/1.0 request is answered once, as HTTP/1.1 with Connection: close, never chunked, and the connection closed: keep-alive is not honoured"},
	{CloseOnEveryResponse, MUST, "RFC 9112 §9.3", "A server not keeping connections sends Connection: close on every non-1xx response"},
	{PipelinedInOrder, MUST, "RFC 9112 §9.3.2", "Pipelined requests answered in order"},
	{StatusLineSpace, MUST, "RFC 9112 §4", "Status line always has the SP after the status code"},
	{DateOnEveryResponse, MUST, "RFC 9110 §6.6.1, §5.6.7", "Date (IMF-fixdate) on every 2xx, 3xx, 4xx response"},
	{NotAcceptableLists, SHOULD, "RFC 9110 §15.5.7", "406 body lists available representations"},
	{NoLengthOn204, MUST, "RFC 9110 §8.6; RFC 9112 §6.1", "No Content-Length or Transfer-Encoding on 1xx/204"},
	{NoChunkedToHTTP10, MUST, "RFC 9112 §6.1", "No Transfer-Encoding in a response to an HTTP/1.0 request"},
	{ContentLengthKnown, SHOULD, "RFC 9110 §8.6", "Content-Length sent when the size is known (Content-Length: 0 on 202)"},
	{ContinueAtOnce, MUST, "RFC 9110 §10.1.1", "Expect: 100-continue (1.1) → immediate final status or immediate 100, never wait for the body first; ignored on 1.0"},
	{AcceptQuality, MUST, "RFC 9110 §12.4.2, §12.5.1", "In Accept, q=0 means not acceptable; no Accept means anything acceptable; most specific range wins"},
	{MediaTypeCase, MUST, "RFC 9110 §8.3.1", "Media type/subtype, parameter names and charset values compared case-insensitively"},
	{QuotedPairUnescaped, MUST, "RFC 9110 §5.6.4", "quoted-pairs inside quoted-strings unescaped"},
	{ParseErrorCloses, PROFILE, "RFC 9112 §2.2 (SHOULD)", "Every refusal of the request parser, whatever its status, is sent with Connection: close and the connection is closed"},
	{OneHeaderWriter, PROFILE, "RFC 9112 §11.1", "Only the core writer emits header bytes; any header value containing CR, LF or NUL is refused (response splitting)"},
	{ContinueAfterChecks, PROFILE, "RFC 9110 §10.1.1", "Expect: 100-continue: run header-only checks first and answer the error immediately; send 100 only when the body will be read"},
}
