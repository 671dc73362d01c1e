package probe

import (
	"bytes"
	"encoding/json"
	"strconv"

	"rawmcp/wire/rule"
)

// auGroup is the AU group: each check is declared right above its run
// function; a check is in the catalogue when it is in this list.
var auGroup = group{Group{"AU", "Authorization (resource server)"}, eraBoundary, []*Check{&au01, &au02, &au03, &au04, &au05, &au06, &au07, &au08, &au09, &au10, &au11}}

// AU-01: a request without a token gets 401 and a Bearer challenge.
var au01 = Check{asks: askEither, ID: "AU-01", Level: Must, Source: "MCP Authorization §Error handling; RFC 9110 §11.6.1", Rule: rule.ChallengeOn401,
	Section: "RFC 9110 §11.6.1; MCP Authorization 2025-11-25 §Error Handling", Keyword: "MUST", Binds: Server,
	Title:    "A missing token gets a challenge",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) without Authorization",
	Passes:   "401 with a WWW-Authenticate Bearer challenge; on a target that needs no token, fails with -token, skips without",
	Fix:      "Answer a request without a token with 401 and a WWW-Authenticate: Bearer challenge that names resource_metadata. The Go SDK's auth.RequireBearerToken sends the challenge only when RequireBearerTokenOptions.ResourceMetadataURL (or Scopes) is set, the TypeScript SDK's requireBearerAuth names it with resourceMetadataUrl; a hand-written 401 with only a JSON body lacks it.",
	Link:     "https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1",
	Sessions: 1, run: runAU01}

func runAU01(t *checkRun) outcome {
	if !t.p.auth {
		if t.p.opts.Token != "" {
			return t.unmet("served %s without any token although -token was given: nothing is protected", t.openingName()).with("401", "a result without a token")
		}
		return t.skip("the target serves requests without a token: no authorization to check")
	}
	req, _ := t.opening(drop("Authorization"))
	r := t.send(t.openingName()+" without a token", req.Bytes(), toResponse, 0)
	switch {
	case r.resp == nil:
		return t.errored("%s", r.describe())
	case r.status() != 401:
		return t.unmet("%s without a token, not 401", r.describe()).with("401 with a Bearer challenge", r.actual())
	case r.header("WWW-Authenticate") == "":
		return t.unmet("401 without WWW-Authenticate (RFC 9110 §11.6.1)").with("401 with a Bearer challenge", "401 without WWW-Authenticate")
	}
	if _, ok := r.bearer(); !ok {
		return t.unmet("401, but WWW-Authenticate has no Bearer challenge").with("401 with a Bearer challenge", "401 without a Bearer challenge")
	}
	return t.pass("401 with a Bearer challenge")
}

// AU-02: the metadata is discoverable and names this endpoint.
var au02 = Check{asks: askEither, ID: "AU-02", Level: Must, Source: "MCP Authorization §PRM discovery; RFC 9728 §3, §3.3", Rule: rule.MetadataResource, Needs: NeedAuth, Since: "2025-06-18",
	Section: "MCP Authorization 2025-11-25 §Protected Resource Metadata Discovery Requirements", Keyword: "MUST", Binds: Server,
	Title:    "Metadata is discoverable",
	Sends:    "without a token: the challenge's resource_metadata on the target's origin, then the well-known paths with and without the endpoint's path",
	Passes:   "200 JSON whose resource is the -url and whose authorization_servers is non-empty",
	Fix:      "Serve Protected Resource Metadata (RFC 9728) without a token at /.well-known/oauth-protected-resource followed by the MCP path, or at the URL the challenge's resource_metadata names, with resource equal to the MCP URL and a non-empty authorization_servers. The Go SDK has auth.ProtectedResourceMetadataHandler, the TypeScript SDK mcpAuthMetadataRouter, mcp-go WithProtectedResourceMetadata.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#protected-resource-metadata-discovery-requirements",
	Sessions: 1, After: []string{"AU-11"}, run: runAU02}

func runAU02(t *checkRun) outcome {
	doc, where, tried, broke := t.metadata()
	switch {
	case broke != nil:
		return *broke
	case doc == nil:
		return t.unmet("no Protected Resource Metadata: %s", joinAnd(tried)).with("200 metadata at one of the places", joinAnd(tried))
	}
	var prm struct {
		Resource             *string         `json:"resource"`
		AuthorizationServers json.RawMessage `json:"authorization_servers"`
	}
	var servers []string
	switch {
	case json.Unmarshal(doc.resp.Body, &prm) != nil:
		return t.unmet("the metadata %s is not a JSON object", where).with("a JSON object", "not a JSON object at "+where)
	case prm.Resource == nil:
		return t.unmet("the metadata %s has no resource", where).with("a resource member", "no resource at "+where)
	case *prm.Resource != t.p.target.URL:
		return t.unmet("the metadata %s names resource %q, not the URL %q (RFC 9728 §3.3)", where, *prm.Resource, t.p.target.URL).with("resource "+strconv.Quote(t.p.target.URL), "resource "+strconv.Quote(*prm.Resource))
	case json.Unmarshal(prm.AuthorizationServers, &servers) != nil || len(servers) == 0:
		return t.unmet("the metadata %s lists no authorization_servers", where).with("a non-empty authorization_servers", "no authorization_servers at "+where)
	}
	return t.pass("found %s: resource is the URL, %s", where, plural(len(servers), "authorization server"))
}

// AU-03: a token the server never issued gets 401 invalid_token.
var au03 = Check{asks: askEither, ID: "AU-03", Level: Must, Source: "MCP Authorization; RFC 6750 §3.1 (error: SHOULD)", Rule: rule.InvalidToken, Needs: NeedAuth,
	Section: "MCP Authorization 2025-11-25 §Token Requirements", Keyword: "MUST", Binds: Server,
	Title:    "A garbage token refused",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with Bearer not-a-token",
	Passes:   "401 with error=\"invalid_token\" (401 without it warns)",
	Fix:      "Answer an invalid, unknown or malformed token with 401 and a Bearer challenge carrying error=\"invalid_token\" (a 403 is for a valid token without the rights). The Go SDK's auth.RequireBearerToken answers 401 without the error parameter, so add it to WWW-Authenticate in a wrapper of your own.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-handling",
	Sessions: 1, run: runAU03}

func runAU03(t *checkRun) outcome {
	req, _ := t.opening(set("Authorization", "Bearer not-a-token"))
	r := t.send(t.openingName()+" with Bearer not-a-token", req.Bytes(), toResponse, 0)
	if r.resp == nil {
		return t.errored("%s", r.describe())
	}
	if r.status() != 401 {
		return t.unmet("%s for a garbage token, not 401", r.describe()).with(`401 with error="invalid_token"`, r.actual())
	}
	if c, ok := r.bearer(); !ok || c.Params["error"] != "invalid_token" {
		return t.unmetAt(Should, `401 without error="invalid_token" (RFC 6750 §3.1)`).with(`401 with error="invalid_token"`, "401 without an error code")
	}
	return t.pass(`401 with error="invalid_token"`)
}

// AU-04: a request without a bearer credential gets the bare challenge:
// no error code, because there is no token to be wrong (RFC 6750 §3.1).
var au04 = Check{asks: askEither, ID: "AU-04", Level: Should, Source: "RFC 6750 §3.1 (SHOULD NOT)", Rule: rule.NoCredentials, Needs: NeedAuth,
	Section: "RFC 6750 §3.1", Keyword: "SHOULD", Binds: Server,
	Title:    "No error code without credentials",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) without Authorization, then with Authorization: Basic",
	Passes:   "401 to both, with a challenge that has no error parameter",
	Fix:      "Answer a request that carries no Bearer token (none at all, or another scheme such as Basic) with a challenge without an error parameter: error=\"invalid_token\" is for a token that was sent and failed. The TypeScript SDK's requireBearerAuth adds it for a missing token too; answer the missing-token case before it.",
	Link:     "https://www.rfc-editor.org/rfc/rfc6750#section-3.1",
	Sessions: 2, run: runAU04}

func runAU04(t *checkRun) outcome {
	none, _ := t.opening(drop("Authorization"))
	basic, _ := t.opening(set("Authorization", "Basic cHJvYmU6cHJvYmU="))
	for _, x := range []struct {
		what string
		r    *reply
	}{
		{"no Authorization", t.send(t.openingName()+" without a token", none.Bytes(), toResponse, 0)},
		{"Authorization: Basic", t.send(t.openingName()+" with Basic credentials", basic.Bytes(), toResponse, 0)},
	} {
		switch c, _ := x.r.bearer(); {
		case x.r.resp == nil:
			return t.errored("with %s: %s", x.what, x.r.describe())
		case is2xx(x.r.status()):
			return t.unmetAt(Must, "with %s: %s", x.what, x.r.describe()).with("401 with a bare challenge", x.r.actual()+" with "+x.what)
		case x.r.status() != 401:
			return t.unmet("with %s: answered %d, not 401 with a bare challenge", x.what, x.r.status()).with("401 with a bare challenge", x.r.actual()+" with "+x.what)
		case c.Params["error"] != "":
			return t.unmet(`with %s: 401 with error=%q: a request without a bearer token gets no error code`, x.what, c.Params["error"]).with("401 with a bare challenge", "401 with error="+strconv.Quote(c.Params["error"])+" with "+x.what)
		}
	}
	return t.pass("401 without error= for no token and for Basic")
}

// AU-05: a token in the query is never accepted. The query carries a
// decoy shaped like a token, never a real one: a query lands in access
// logs, the very leak RFC 6750 §2.3 forbids.
var au05 = Check{asks: askEither, ID: "AU-05", Level: Hardening, Source: "MCP Authorization §Access token usage; RFC 6750 §2.3", Rule: rule.NoTokenInQuery, Needs: NeedToken | NeedAuth,
	Section: "MCP Authorization 2025-11-25 §Access Token Usage (never in the URI query string)", Keyword: "MUST", Binds: Client,
	Title:    "A token in the query is not accepted",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with ?access_token=DECOY (random, never the real token) and no Authorization",
	Passes:   "a 4xx that does not echo the decoy",
	Fix:      "Read the token only from the Authorization header and refuse a request that carries access_token in the query (400 or 401), without echoing it. Tokens in URLs end up in proxy and server logs; a generic token extractor that also reads the query is the usual cause.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-requirements",
	Sessions: 1, run: runAU05}

func runAU05(t *checkRun) outcome {
	decoy := t.p.markers.query
	req, _ := t.opening(drop("Authorization"))
	req.Path += "?access_token=" + decoy
	r := t.send(t.openingName()+" with ?access_token=<decoy> and no header", req.Bytes(), toResponse, 0)
	switch {
	case r.resp == nil:
		return t.errored("%s", r.describe())
	case is2xx(r.status()):
		return t.unmet("%s with a token in the query and none in the header", r.describe()).with("a 4xx", r.actual()+" with the token in the query")
	case bytes.Contains(r.raw, []byte(decoy)):
		return t.unmet("answered %d and echoed the query's token", r.status()).with("a 4xx without the decoy", r.actual()+" echoing the decoy")
	case r.status() == 401 || r.status() == 400:
		return t.pass("answered %d; the query was not echoed", r.status())
	}
	return t.pass("answered %d (401 or 400 is the usual refusal); the query was not echoed", r.status())
}

// AU-06: the scheme is case-insensitive, and the credential is one
// b64token: "bearer T" is accepted, "Bearer a b" refused.
var au06 = Check{asks: askEither, ID: "AU-06", Level: Must, Source: "RFC 9110 §11.1; RFC 6750 §2.1", Rule: rule.BearerSyntax, Needs: NeedToken | NeedAuth,
	Section: "RFC 9110 §11.1 (the scheme is a case-insensitive token)", Keyword: "MUST", Binds: Server,
	Title:    "Authorization header syntax",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with \"bearer T\", then with \"Bearer a b\"",
	Passes:   "a result to the first, a 4xx to the second",
	Fix:      "Match the authentication scheme case-insensitively (bearer and Bearer are one scheme) and refuse a credential with extra parts (Bearer a b) with 400 or 401. A hand-written prefix test for \"Bearer \" fails the first; splitting on spaces and ignoring the rest fails the second.",
	Link:     "https://www.rfc-editor.org/rfc/rfc9110#section-11.1",
	Sessions: 2, run: runAU06}

func runAU06(t *checkRun) outcome {
	lower, id := t.opening(set("Authorization", "bearer "+t.p.opts.Token))
	r := t.send(t.openingName()+" with the scheme in lower case", lower.Bytes(), toResponse, 0)
	if r.resp == nil {
		return t.errored("bearer (lower case): %s", r.describe())
	}
	if !r.isResult(id) {
		return t.unmet("bearer (lower case) %s: the scheme is case-insensitive (RFC 9110 §11.1)", r.describe()).with("a result", r.actual()+" for bearer (lower case)")
	}
	words, _ := t.opening(set("Authorization", "Bearer a b"))
	w := t.send(t.openingName()+" with Bearer a b", words.Bytes(), toResponse, 0)
	switch {
	case w.resp == nil:
		return t.errored("Bearer a b: %s", w.describe())
	case !is4xx(w.status()):
		return t.unmet("Bearer a b %s: a credential is one b64token (RFC 6750 §2.1)", w.describe()).with("a 4xx", w.actual()+" for Bearer a b")
	}
	return t.pass("bearer T accepted; Bearer a b answered %d", w.status())
}

// tokenRefused judges a named token the server must refuse with 401.
func (t *checkRun) tokenRefused(kind string) (outcome, bool) {
	token := t.p.opts.Named[kind]
	if token == "" {
		return t.skip("needs %s in -tokens", kind), false
	}
	req, _ := t.opening(set("Authorization", "Bearer "+token))
	r := t.send(t.openingName()+" with the "+kind+" token", req.Bytes(), toResponse, 0)
	switch {
	case r.resp == nil:
		return t.errored("the %s token: %s", kind, r.describe()), false
	case r.status() == 401:
		return t.pass("the %s token: 401", kind), true
	case is2xx(r.status()):
		return t.unmet("the %s token was accepted: %s", kind, r.describe()).with("401", r.actual()+" for the "+kind+" token"), false
	}
	return t.unmet("the %s token: answered %d, not 401", kind, r.status()).with("401", r.actual()+" for the "+kind+" token"), false
}

// AU-07: a token for another resource (audience) is refused.
var au07 = Check{asks: askEither, ID: "AU-07", Level: Must, Source: "MCP Authorization §Token handling; RFC 8707", Rule: rule.AudienceBound, Needs: NeedNamed | NeedAuth,
	Section: "MCP Authorization 2025-11-25 §Token Requirements", Keyword: "MUST", Binds: Server,
	Title:    "Tokens for another resource refused",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with the wrong_audience token",
	Passes:   "401",
	Fix:      "Validate the token's audience (aud, or the resource it was issued for under RFC 8707) against this server's own URL and answer 401 when it names another resource. With the Go and TypeScript SDKs that is the token verifier you pass to their bearer middleware, which must check aud as well as the signature.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-handling",
	Sessions: 1, run: runAU07}

func runAU07(t *checkRun) outcome {
	o, _ := t.tokenRefused("wrong_audience")
	return o
}

// AU-08: an expired token and one from a foreign issuer are refused. With
// one of the two missing the check says so and never passes on half the
// evidence.
var au08 = Check{asks: askEither, ID: "AU-08", Level: Must, Source: "MCP Authorization §Token handling", Rule: rule.InvalidToken, Needs: NeedNamed | NeedAuth,
	Section: "MCP Authorization 2025-11-25 §Token Requirements", Keyword: "MUST", Binds: Server,
	Title:    "Expired or foreign-issuer tokens refused",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with the expired token, then with the wrong_issuer token",
	Passes:   "401 to both; with only one of them, fails if it is accepted and skips otherwise",
	Fix:      "Refuse expired tokens, and tokens from an issuer other than the server's authorization server, with 401. The token verifier passed to the SDK's bearer middleware must check exp and iss; one that only checks the signature against a shared key accepts both.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-handling",
	Sessions: 2, run: runAU08}

func runAU08(t *checkRun) outcome {
	var missing []string
	for _, kind := range []string{"expired", "wrong_issuer"} {
		o, ok := t.tokenRefused(kind)
		switch {
		case o.verdict == Skip:
			missing = append(missing, kind)
		case !ok:
			return o
		}
	}
	switch len(missing) {
	case 0:
		return t.pass("expired and wrong_issuer: 401")
	case 2:
		return t.skip("needs expired and wrong_issuer in -tokens")
	}
	return t.skip("refused with 401, but needs %s in -tokens too", missing[0])
}

// AU-09: a valid token lacking a scope gets the step-up challenge: 403
// insufficient_scope naming the scope and the metadata. The low_scope
// token opens a session (or is refused at initialize), then tries each
// list method the server declares until one is refused.
var au09 = Check{asks: askEither, ID: "AU-09", Level: Should, Source: "MCP Authorization §Scope challenge", Rule: rule.InsufficientScope, Needs: NeedNamed | NeedAuth, Since: "2025-11-25",
	Section: "MCP Authorization 2025-11-25 §Scope Challenge Handling", Keyword: "SHOULD", Binds: Server,
	Title:    "Insufficient scope gets a step-up challenge",
	Sends:    "with the low_scope token: initialize (server/discover to a 2026-07-28-only target), then each declared list method until one gets 403",
	Passes:   "a 403 with a Bearer challenge carrying error=\"insufficient_scope\", scope and resource_metadata; every method served warns",
	Fix:      "Answer a token that lacks the scope a method needs with 403 and a Bearer challenge carrying error=\"insufficient_scope\", the scope needed and resource_metadata. The Go SDK's auth.RequireBearerToken answers 403 without the error parameter, so add it in a wrapper; a server that checks no scope at all serves every method.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#runtime-insufficient-scope-errors",
	Sessions: 1, run: runAU09}

func runAU09(t *checkRun) outcome {
	token := t.p.opts.Named["low_scope"]
	if token == "" {
		return t.skip("needs low_scope in -tokens")
	}
	auth := "Bearer " + token
	opening := t.openingName()
	req, id := t.opening(set("Authorization", auth))
	r := t.send(opening+" with the low_scope token", req.Bytes(), toResponse, 0)
	switch {
	case r.status() == 403:
		return t.stepUp(r, opening)
	case r.status() == 401:
		return t.errored("the low_scope token was refused outright (401): it must be valid, with fewer scopes")
	case !r.isResult(id):
		return t.errored("%s with the low_scope token %s", opening, r.describe())
	}
	var s *session
	if !t.p.modernOnly() {
		s = t.issued(r, auth)
		t.initialized(s)
	}
	for _, method := range t.p.listMethods {
		var r *reply
		var id int64
		if s != nil {
			var body []byte
			body, id = rpc(method, "")
			r = t.postOn(method+" with the low_scope token", s, body)
		} else {
			var body []byte
			body, id = rpc(method, t.plainParams(""))
			r = t.postRPC(method+" with the low_scope token", method, body, set("Authorization", auth))
		}
		switch {
		case r.status() == 403:
			return t.stepUp(r, method)
		case !r.isResult(id):
			return t.errored("%s with the low_scope token %s", method, r.describe())
		}
	}
	// A server may enforce scope on methods the probe does not try
	// (tools/call, which AU-09 does not send): the finding is about these.
	tried := joinAnd(append([]string{opening}, t.p.listMethods...))
	return t.unmet("the low_scope token was served every method tried (%s): scope is not enforced on these methods, or the token is not low", tried).with(`403 with error="insufficient_scope"`, "every method served: "+tried)
}

// stepUp judges a 403 as the scope challenge of Authorization §10.1.1.
func (t *checkRun) stepUp(r *reply, method string) outcome {
	c, ok := r.bearer()
	var missing []string
	if !ok || c.Params["error"] != "insufficient_scope" {
		missing = append(missing, `error="insufficient_scope"`)
	}
	for _, param := range []string{"scope", "resource_metadata"} {
		if c.Params[param] == "" {
			missing = append(missing, param)
		}
	}
	if len(missing) > 0 {
		return t.unmet("%s answered 403 without %s", method, joinAnd(missing)).with("403 with error, scope and resource_metadata", "403 without "+joinAnd(missing))
	}
	return t.pass("%s answered 403 insufficient_scope, scope %q", method, c.Params["scope"])
}

// AU-10: GET and DELETE are authenticated too, and a tokenless DELETE
// ends nothing.
var au10 = Check{asks: askEither, ID: "AU-10", Level: Must, Source: "MCP Authorization (\"every HTTP request\")", Rule: rule.EveryRequestAuthenticated, Needs: NeedToken | NeedAuth,
	Section: "MCP Authorization 2025-11-25 §Token Requirements", Keyword: "MUST", Binds: Server,
	Title:    "Every method is authenticated",
	Sends:    "GET and DELETE on a live session without Authorization, then a ping with the token (2026-07-28 only: GET and DELETE with its version header)",
	Passes:   "401 to both (405 accepted: not served) and the session survives",
	Fix:      "Require the token on GET and DELETE of the MCP endpoint as on POST, answering 401 without one. A bearer middleware mounted only on the POST route (app.post in Express) leaves the other methods open: mount it on the path for every method.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-requirements",
	Sessions: 1, Opens: 1, run: runAU10}

func runAU10(t *checkRun) outcome {
	get := t.send("GET without a token", edit(t.onSession("GET"), drop("Authorization")).Bytes(), toHead, getWindow)
	del := t.send("DELETE without a token", edit(t.onSession("DELETE"), drop("Authorization")).Bytes(), toHead, 0)
	var faults, notes []string
	for _, x := range []struct {
		method string
		r      *reply
	}{{"GET", get}, {"DELETE", del}} {
		switch st := x.r.status(); {
		case x.r.resp == nil:
			return t.errored("%s without a token: %s", x.method, x.r.describe())
		case st == 401:
		case st == 405:
			notes = append(notes, x.method+" answered 405 (not served at all)")
		default:
			faults = append(faults, x.method+" "+x.r.describe())
		}
	}
	if t.p.modernOnly() {
		// No session for the DELETE to end: the refusals are all.
		switch {
		case len(faults) > 0:
			return t.unmet("without a token, %s, not 401", joinAnd(faults)).with("401 (or 405) to GET and DELETE", joinAnd(faults))
		case len(notes) > 0:
			return t.pass("401 where served; %s", joinAnd(notes))
		}
		return t.pass("GET and DELETE answered 401")
	}
	alive, id := t.ping("ping with the token: the session survives", t.session)
	switch {
	case alive.resp == nil:
		return t.errored("ping with the token %s", alive.describe())
	case len(faults) > 0:
		return t.unmet("without a token, %s, not 401", joinAnd(faults)).with("401 (or 405) to GET and DELETE", joinAnd(faults))
	case !alive.isResult(id):
		return t.unmet("a DELETE without a token ended the session: ping %s", alive.describe()).with("a result to ping after the tokenless DELETE", alive.actual())
	case len(notes) > 0:
		return t.pass("401 where served; %s", joinAnd(notes))
	}
	return t.pass("GET and DELETE answered 401")
}

// AU-11: the metadata needs no token. It runs where there is metadata,
// served or refused for the lack of a token (NeedMetadata): a target with
// none at all has one defect, AU-02's. AU-02 runs after it, so a document
// behind a token is reported here once, not again as "no metadata".
var au11 = Check{asks: askEither, ID: "AU-11", Level: Must, Source: "RFC 9728 §3", Rule: rule.MetadataServed, Needs: NeedAuth | NeedMetadata, Since: "2025-06-18",
	Section: "RFC 9728 §3 (the metadata is fetched without a token)", Keyword: "MUST", Binds: Server,
	Title:    "The metadata endpoint needs no token",
	Sends:    "the metadata requests of AU-02, without a token",
	Passes:   "200 from one of them",
	Fix:      "Serve the Protected Resource Metadata document without requiring a token, since a client fetches it before it has one. Mount the metadata route beside the bearer middleware, not behind it (the Go SDK's auth.ProtectedResourceMetadataHandler, the TypeScript SDK's mcpAuthMetadataRouter).",
	Link:     "https://www.rfc-editor.org/rfc/rfc9728#section-3",
	Sessions: 1, run: runAU11}

func runAU11(t *checkRun) outcome {
	doc, where, tried, broke := t.metadata()
	switch {
	case broke != nil:
		return *broke
	case doc == nil:
		return t.unmet("no metadata answered 200 without a token: %s", joinAnd(tried)).with("200 without a token", joinAnd(tried))
	}
	return t.pass("200 without a token %s", where)
}
