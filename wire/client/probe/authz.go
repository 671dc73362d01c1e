package probe

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	"rawmcp/wire/client"
)

// AU-01: a request without a token gets 401 and a Bearer challenge.
func runAU01(t *checkRun) outcome {
	if !t.p.auth {
		if t.p.opts.Token != "" {
			return t.unmet("served initialize without any token although -token was given: nothing is protected")
		}
		return t.skip("the target serves requests without a token: no authorization to check")
	}
	req, _ := t.initialize(drop("Authorization"))
	r := t.send("initialize without a token", req.Bytes(), toResponse, 0)
	switch {
	case r.resp == nil:
		return t.broken("%s", r.describe())
	case r.status() != 401:
		return t.unmet("%s without a token, not 401", r.describe())
	case r.header("WWW-Authenticate") == "":
		return t.unmet("401 without WWW-Authenticate (RFC 9110 §11.6.1)")
	}
	if _, ok := r.bearer(); !ok {
		return t.unmet("401, but WWW-Authenticate has no Bearer challenge")
	}
	return t.pass("401 with a Bearer challenge")
}

// wellKnownPRM is RFC 9728 §3.1's well-known path prefix.
const wellKnownPRM = "/.well-known/oauth-protected-resource"

// metadata finds the Protected Resource Metadata as a client would
// (Authorization §4.2): the challenge's resource_metadata when it names
// this target, then the path-inserted and the root well-known paths. It
// sends no token there (RFC 9728 §3: the metadata is public) and never
// dials another host. It returns the answer that served a document (nil:
// none) and what was tried, for the reason.
func (t *checkRun) metadata() (doc *reply, where string, tried []string) {
	req, _ := t.initialize(drop("Authorization"))
	r := t.send("initialize without a token, for the challenge", req.Bytes(), toResponse, 0)
	var paths []string
	if c, ok := r.bearer(); ok && c.Params["resource_metadata"] != "" {
		u, err := url.Parse(c.Params["resource_metadata"])
		switch {
		case err != nil || u.Scheme != "http" || !strings.EqualFold(u.Host, t.p.target.Host) || u.RawQuery != "" || u.Fragment != "":
			tried = append(tried, "the challenge's resource_metadata (on another origin, not fetched)")
		default:
			paths = append(paths, u.EscapedPath())
			where = "at the challenge's resource_metadata"
		}
	}
	if t.p.target.Path != "/" {
		paths = append(paths, wellKnownPRM+t.p.target.Path)
	}
	paths = append(paths, wellKnownPRM)
	for i, path := range paths {
		get := client.Request{Method: "GET", Path: path, Header: [][2]string{{"Host", t.p.target.Host}, {"Accept", "application/json"}}}
		m := t.send("GET the metadata, no token", get.Bytes(), toEnd, 0)
		if m.status() == 200 {
			if where == "" || i > 0 {
				where = "at " + path
			}
			return m, where, tried
		}
		tried = append(tried, path+" "+m.describe())
	}
	return nil, "", tried
}

// AU-02: the metadata is discoverable and names this endpoint.
func runAU02(t *checkRun) outcome {
	if o, skip := t.skipWithoutAuth(); skip {
		return o
	}
	doc, where, tried := t.metadata()
	if doc == nil {
		return t.unmet("no Protected Resource Metadata: %s", joinAnd(tried))
	}
	var prm struct {
		Resource             *string         `json:"resource"`
		AuthorizationServers json.RawMessage `json:"authorization_servers"`
	}
	var servers []string
	switch {
	case json.Unmarshal(doc.resp.Body, &prm) != nil:
		return t.unmet("the metadata %s is not a JSON object", where)
	case prm.Resource == nil:
		return t.unmet("the metadata %s has no resource", where)
	case *prm.Resource != t.p.target.URL:
		return t.unmet("the metadata %s names resource %q, not the URL %q (RFC 9728 §3.3)", where, *prm.Resource, t.p.target.URL)
	case json.Unmarshal(prm.AuthorizationServers, &servers) != nil || len(servers) == 0:
		return t.unmet("the metadata %s lists no authorization_servers", where)
	}
	return t.pass("found %s: resource is the URL, %s", where, plural(len(servers), "authorization server"))
}

// AU-03: a token the server never issued gets 401 invalid_token.
func runAU03(t *checkRun) outcome {
	if o, skip := t.skipWithoutAuth(); skip {
		return o
	}
	req, _ := t.initialize(set("Authorization", "Bearer not-a-token"))
	r := t.send("initialize with Bearer not-a-token", req.Bytes(), toResponse, 0)
	if r.status() != 401 {
		return t.unmet("%s for a garbage token, not 401", r.describe())
	}
	if c, ok := r.bearer(); !ok || c.Params["error"] != "invalid_token" {
		return t.unmetAt(Should, `401 without error="invalid_token" (RFC 6750 §3.1)`)
	}
	return t.pass(`401 with error="invalid_token"`)
}

// AU-04: a request without a bearer credential gets the bare challenge:
// no error code, because there is no token to be wrong (RFC 6750 §3.1).
func runAU04(t *checkRun) outcome {
	if o, skip := t.skipWithoutAuth(); skip {
		return o
	}
	none, _ := t.initialize(drop("Authorization"))
	basic, _ := t.initialize(set("Authorization", "Basic cHJvYmU6cHJvYmU="))
	for _, x := range []struct {
		what string
		r    *reply
	}{
		{"no Authorization", t.send("initialize without a token", none.Bytes(), toResponse, 0)},
		{"Authorization: Basic", t.send("initialize with Basic credentials", basic.Bytes(), toResponse, 0)},
	} {
		switch c, _ := x.r.bearer(); {
		case x.r.resp == nil:
			return t.broken("with %s: %s", x.what, x.r.describe())
		case is2xx(x.r.status()):
			return t.unmetAt(Must, "with %s: %s", x.what, x.r.describe())
		case x.r.status() != 401:
			return t.unmet("with %s: answered %d, not 401 with a bare challenge", x.what, x.r.status())
		case c.Params["error"] != "":
			return t.unmet(`with %s: 401 with error=%q: a request without a bearer token gets no error code`, x.what, c.Params["error"])
		}
	}
	return t.pass("401 without error= for no token and for Basic")
}

// AU-05: a token in the query is never accepted. The query carries a
// decoy shaped like a token, never a real one: a query lands in access
// logs, the very leak RFC 6750 §2.3 forbids.
func runAU05(t *checkRun) outcome {
	if o, skip := t.skipWithoutAuth(); skip {
		return o
	}
	decoy := t.p.markers.query
	req, _ := t.initialize(drop("Authorization"))
	req.Path += "?access_token=" + decoy
	r := t.send("initialize with ?access_token=<decoy> and no header", req.Bytes(), toResponse, 0)
	switch {
	case r.resp == nil:
		return t.broken("%s", r.describe())
	case is2xx(r.status()):
		return t.unmet("%s with a token in the query and none in the header", r.describe())
	case bytes.Contains(r.raw, []byte(decoy)):
		return t.unmet("answered %d and echoed the query's token", r.status())
	case r.status() == 401 || r.status() == 400:
		return t.pass("answered %d; the query was not echoed", r.status())
	}
	return t.pass("answered %d (401 or 400 is the usual refusal); the query was not echoed", r.status())
}

// AU-06: the scheme is case-insensitive, and the credential is one
// b64token: "bearer T" is accepted, "Bearer a b" refused.
func runAU06(t *checkRun) outcome {
	if o, skip := t.skipWithoutAuth(); skip {
		return o
	}
	lower, id := t.initialize(set("Authorization", "bearer "+t.p.opts.Token))
	r := t.send("initialize with the scheme in lower case", lower.Bytes(), toResponse, 0)
	if !r.isResult(id) {
		return t.unmet("bearer (lower case) %s: the scheme is case-insensitive (RFC 9110 §11.1)", r.describe())
	}
	words, _ := t.initialize(set("Authorization", "Bearer a b"))
	w := t.send("initialize with Bearer a b", words.Bytes(), toResponse, 0)
	switch {
	case w.resp == nil:
		return t.broken("Bearer a b: %s", w.describe())
	case !is4xx(w.status()):
		return t.unmet("Bearer a b %s: a credential is one b64token (RFC 6750 §2.1)", w.describe())
	}
	return t.pass("bearer T accepted; Bearer a b answered %d", w.status())
}

// tokenRefused judges a named token the server must refuse with 401.
func (t *checkRun) tokenRefused(kind string) (outcome, bool) {
	token := t.p.opts.Named[kind]
	if token == "" {
		return t.skip("needs %s in -tokens", kind), false
	}
	req, _ := t.initialize(set("Authorization", "Bearer "+token))
	r := t.send("initialize with the "+kind+" token", req.Bytes(), toResponse, 0)
	switch {
	case r.resp == nil:
		return t.broken("the %s token: %s", kind, r.describe()), false
	case r.status() == 401:
		return t.pass("the %s token: 401", kind), true
	case is2xx(r.status()):
		return t.unmet("the %s token was accepted: %s", kind, r.describe()), false
	}
	return t.unmet("the %s token: answered %d, not 401", kind, r.status()), false
}

// AU-07: a token for another resource (audience) is refused.
func runAU07(t *checkRun) outcome {
	if o, skip := t.skipWithoutAuth(); skip {
		return o
	}
	o, _ := t.tokenRefused("wrong_audience")
	return o
}

// AU-08: an expired token and one from a foreign issuer are refused. With
// one of the two missing the check says so and never passes on half the
// evidence.
func runAU08(t *checkRun) outcome {
	if o, skip := t.skipWithoutAuth(); skip {
		return o
	}
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
func runAU09(t *checkRun) outcome {
	if o, skip := t.skipWithoutAuth(); skip {
		return o
	}
	token := t.p.opts.Named["low_scope"]
	if token == "" {
		return t.skip("needs low_scope in -tokens")
	}
	auth := "Bearer " + token
	req, id := t.initialize(set("Authorization", auth))
	r := t.send("initialize with the low_scope token", req.Bytes(), toResponse, 0)
	switch {
	case r.status() == 403:
		return t.stepUp(r, "initialize")
	case r.status() == 401:
		return t.broken("the low_scope token was refused outright (401): it must be valid, with fewer scopes")
	case !r.isResult(id):
		return t.broken("initialize with the low_scope token %s", r.describe())
	}
	s := t.issued(r, auth)
	t.initialized(s)
	for _, method := range t.p.listMethods {
		body, id := rpc(method, "")
		r := t.postOn(method+" with the low_scope token", s, body)
		switch {
		case r.status() == 403:
			return t.stepUp(r, method)
		case !r.isResult(id):
			return t.broken("%s with the low_scope token %s", method, r.describe())
		}
	}
	tried := joinAnd(append([]string{"initialize"}, t.p.listMethods...))
	return t.unmet("the low_scope token was served every method tried (%s): no scope is enforced, or the token is not low", tried)
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
		return t.unmet("%s answered 403 without %s", method, joinAnd(missing))
	}
	return t.pass("%s answered 403 insufficient_scope, scope %q", method, c.Params["scope"])
}

// AU-10: GET and DELETE are authenticated too, and a tokenless DELETE
// ends nothing.
func runAU10(t *checkRun) outcome {
	if o, skip := t.skipWithoutAuth(); skip {
		return o
	}
	s, o := t.openAny()
	if o != nil {
		return *o
	}
	get := t.send("GET without a token", edit(t.request("GET", s, nil), drop("Authorization")).Bytes(), toHead, getWindow)
	del := t.send("DELETE without a token", edit(t.request("DELETE", s, nil), drop("Authorization")).Bytes(), toHead, 0)
	var faults, notes []string
	for _, x := range []struct {
		method string
		r      *reply
	}{{"GET", get}, {"DELETE", del}} {
		switch st := x.r.status(); {
		case x.r.resp == nil:
			return t.broken("%s without a token: %s", x.method, x.r.describe())
		case st == 401:
		case st == 405:
			notes = append(notes, x.method+" answered 405 (not served at all)")
		default:
			faults = append(faults, x.method+" "+x.r.describe())
		}
	}
	alive, id := t.ping("ping with the token: the session survives", s)
	switch {
	case len(faults) > 0:
		return t.unmet("without a token, %s, not 401", joinAnd(faults))
	case !alive.isResult(id):
		return t.unmet("a DELETE without a token ended the session: ping %s", alive.describe())
	case len(notes) > 0:
		return t.pass("401 where served; %s", joinAnd(notes))
	}
	return t.pass("GET and DELETE answered 401")
}

// AU-11: the metadata needs no token.
func runAU11(t *checkRun) outcome {
	if o, skip := t.skipWithoutAuth(); skip {
		return o
	}
	doc, where, tried := t.metadata()
	if doc == nil {
		return t.unmet("no metadata answered 200 without a token: %s", joinAnd(tried))
	}
	return t.pass("200 without a token %s", where)
}
