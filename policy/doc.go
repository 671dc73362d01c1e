// Package policy is rawmcp's OAuth protected-resource boundary: the Host and
// Origin allowlists, an offline token table standing in for an authorization
// server, the WWW-Authenticate challenges, and the Protected Resource
// Metadata (PRM) document. It does no I/O and reads no clock: the caller
// passes header bytes and `now`, and gets back a Principal or a Denial.
//
// MCP 2025-11-25 Authorization §9.2, §10, §10.1.1; RFC 6750 §2.1, §3;
// RFC 8707 §2; RFC 9728 §2, §3, §5.1.
// https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
//
// # Scopes per operation
//
// op is the JSON-RPC method of a POST, or the HTTP method for the GET
// notification stream and the DELETE that ends a session:
//
//	op                          scopes
//	initialize                  mcp:connect
//	notifications/initialized   mcp:connect
//	ping                        mcp:connect
//	resources/list              mcp:connect resources:read
//	GET                         mcp:connect
//	DELETE                      mcp:connect
//	any other method            mcp:connect (the MCP layer then refuses it)
//
// The PRM scopes_supported lists exactly these two scopes.
//
// # Decision order
//
// Three layers, split where the server puts the session checks:
//
//	layer 1, AuthenticateRemembered, every request to the MCP endpoint:
//	  Authorization header absent, or its scheme
//	    (the value up to the first SP) not Bearer       → 401, bare challenge
//	  Bearer, then an empty token or several words      → 400 invalid_request
//	  token outside b64token                            → 401 invalid_token
//	  SHA-256(token) not in the table                   → 401 invalid_token
//	  inactive, revoked, now < nbf, now >= expiry       → 401 invalid_token
//	  issuer, audience, resource, authorization
//	    resource, token resource not exactly ours       → 401 invalid_token
//	  minted under another revision than the
//	    subject's current one                           → 401 invalid_token
//	  else                                              → Principal
//	layer 2, the state package: session and lifecycle (400, 404)
//	layer 3, Authorize:
//	  tenant not in AllowedTenants                      → 403, no challenge
//	  a scope op needs is not held                      → 403 insufficient_scope
//
// The server checks Host and Origin (HostAllowed, OriginAllowed) before all
// of this, on the PRM paths too (T-P14, T-P17).
//
// # 401 or 403
//
//	condition                          status  WWW-Authenticate
//	no Authorization header, or
//	  another scheme than Bearer       401     Bearer resource_metadata="…", scope="…"
//	empty token, extra words           400     Bearer error="invalid_request", resource_metadata="…", scope="…"
//	token malformed, unknown,
//	  inactive, expired, revoked,
//	  not yet valid, wrong issuer,
//	  audience or resource, stale
//	  revision                         401     Bearer error="invalid_token", resource_metadata="…", scope="…"
//	scope missing                      403     Bearer error="insufficient_scope", resource_metadata="…", scope="…"
//	tenant not allowed                 403     (none: a scope step-up cannot help)
//	Host or Origin not allowed         403     (none; decided by the caller)
//
// scope names what the current op needs, held scopes included;
// resource_metadata is MetadataURL. Parameters keep this order, appear once
// and are always quoted-strings. A value of another scheme
// (Basic, Digest, a bare word) carries no bearer credential, so RFC 6750
// §3.1 has it answered like no header at all: no error code, and the same
// Reason, ReasonMissingToken. Every 401 for a presented token looks
// the same on the wire; Denial.Detail tells the server log which check
// failed (DetailAbsent or DetailNotBearer for the bare 401).
//
// # Secrets
//
// The table is keyed by SHA-256(token) and never holds the token, so a
// lookup compares digests, whose timing reveals nothing about a stored
// token. Principals carry Correlate(token), the
// first 8 hex digits of that digest, instead of the token. Errors, Reasons
// and Details are constants, so nothing this package returns can echo a
// token (A-33, A-P07). The one copy of a token outside the request bytes is
// a connection's Remembered: the token that connection itself presented
// last, kept only if the table knows it, compared in constant time, never
// returned or logged.
//
// # Not RFC 9728 conformance
//
// The resource identifier is http://127.0.0.1:<port>/mcp, because the
// server is offline and loopback-only, unless the server is configured
// with the https URL a TLS-terminating proxy serves it at. RFC 9728 §1.2
// requires an https identifier, so on loopback the PRM here checks the
// path, the fields and the challenge linkage only; it is not RFC 9728
// conformance evidence. The same document is served at the path-suffixed
// and the root well-known URL, both naming the resource.
//
// Not supported:
//   - a real authorization server: no authorization code, PKCE, client
//     registration, AS metadata or issuer discovery; Issuer is a
//     placeholder nothing fetches;
//   - JWT/JWS signatures, JWKS, token introspection: tokens are opaque
//     strings looked up in a preset table;
//   - DPoP, mTLS-bound tokens, refresh tokens, clock-skew leeway;
//   - TLS: the resource identifier is plain http on loopback;
//   - URI canonicalization: audiences and resources are compared byte for
//     byte with the one canonical URI, so uppercase scheme or host variants
//     are refused although MCP §8.1 says they SHOULD be accepted;
//   - case-insensitive Host or Origin matching, default ports;
//   - tokens in a form body or the query string (the parser refuses any
//     query, A-P01), several challenges, realm, error_description;
//   - Unicode normalization of subjects and tenants.
package policy
