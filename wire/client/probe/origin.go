package probe

import (
	"strconv"
)

// foreignOrigin and foreignHost stand for a page and a name the attacker
// controls (a DNS-rebinding name resolves to 127.0.0.1 but keeps its own
// Host).
const (
	foreignOrigin = "http://evil.example"
	foreignHost   = "evil.example"
)

// unjudgeable is the outcome for an answer no check can judge: none at
// all, a 401 to the run's valid token, or load shedding. Checks that test
// a refusal call it first, so a target that refused for another reason is
// never counted as having refused for the right one.
func (t *checkRun) unjudgeable(r *reply) *outcome {
	var o outcome
	switch {
	case r.resp == nil:
		o = t.broken("%s", r.describe())
	case r.status() == 401 && t.p.auth:
		o = t.broken("answered 401 to a request with the run's valid token: the check cannot see its own refusal behind the token's")
	case r.status() == 429 || r.status() == 503:
		o = t.broken("answered %d: the target is shedding load, so the answer says nothing about this check", r.status())
	default:
		return nil
	}
	return &o
}

// HO-01: a foreign Host is refused before anything is created.
func runHO01(t *checkRun) outcome {
	req, _ := t.initialize(set("Host", foreignHost))
	r := t.send("initialize with Host: "+foreignHost, req.Bytes(), toResponse, 0)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	switch {
	case is2xx(r.status()):
		return t.unmet("%s for Host: %s: a page on a DNS-rebinding name reaches the server", r.describe(), foreignHost)
	case r.header("Mcp-Session-Id") != "":
		return t.unmet("answered %d but issued a session id", r.status())
	case is4xx(r.status()):
		return t.pass("answered %d", r.status())
	}
	return t.broken("%s: neither served nor refused", r.describe())
}

// HO-02: a foreign Origin on POST gets 403.
func runHO02(t *checkRun) outcome {
	return t.originRefused(foreignOrigin)
}

// HO-04: Origin: null (a sandboxed frame, a file: page, a redirect chain)
// is an origin no server can allow.
func runHO04(t *checkRun) outcome {
	return t.originRefused("null")
}

func (t *checkRun) originRefused(origin string) outcome {
	req, _ := t.initialize(set("Origin", origin))
	r := t.send("initialize with Origin: "+origin, req.Bytes(), toResponse, 0)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	switch {
	case r.status() == 403:
		return t.pass("answered 403")
	case is2xx(r.status()):
		return t.unmet("%s for Origin: %s: any web page can drive the server", r.describe(), origin)
	}
	return t.unmet("answered %d: a foreign Origin gets 403 Forbidden (Transports §2.0.1)", r.status())
}

// HO-03: the Origin check covers GET and DELETE too, and a refused DELETE
// leaves the session alive.
func runHO03(t *checkRun) outcome {
	s, o := t.openAny()
	if o != nil {
		return *o
	}
	var notes, faults []string
	get := t.send("GET with Origin: "+foreignOrigin, edit(t.request("GET", s, nil), set("Origin", foreignOrigin)).Bytes(), toHead, 0)
	del := t.send("DELETE with Origin: "+foreignOrigin, edit(t.request("DELETE", s, nil), set("Origin", foreignOrigin)).Bytes(), toHead, 0)
	for _, x := range []struct {
		method string
		r      *reply
	}{{"GET", get}, {"DELETE", del}} {
		if o := t.unjudgeable(x.r); o != nil {
			return *o
		}
		switch st := x.r.status(); {
		case st == 403:
		case st == 405:
			notes = append(notes, x.method+" answered 405 (not served at all)")
		default:
			faults = append(faults, x.method+" answered "+strconv.Itoa(st))
		}
	}
	alive, id := t.ping("ping: the session still works", s)
	if len(faults) > 0 {
		return t.unmet("with a foreign Origin %s, not 403", joinAnd(faults))
	}
	if !alive.isResult(id) {
		return t.unmet("the session did not survive the refused DELETE: ping %s", alive.describe())
	}
	if len(notes) > 0 {
		return t.pass("403 where served; %s; the session still works", joinAnd(notes))
	}
	return t.pass("GET and DELETE answered 403; the session still works")
}

// HO-05: the target's own origin, as a page it served would send it, is
// accepted, so the Origin check is not a refusal of everything.
func runHO05(t *checkRun) outcome {
	req, id := t.initialize(set("Origin", t.p.target.origin()))
	r := t.send("initialize with Origin: "+t.p.target.origin(), req.Bytes(), toResponse, 0)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	if r.isResult(id) {
		return t.pass("%s", r.describe())
	}
	return t.unmet("%s for its own origin %s: browser-based clients served from it cannot connect", r.describe(), t.p.target.origin())
}

// HO-06: the CORS "simple request" a page may send without a preflight,
// text/plain from a foreign origin (CVE-2026-33252), is not served.
func runHO06(t *checkRun) outcome {
	req, _ := t.initialize(set("Origin", foreignOrigin), set("Content-Type", "text/plain"))
	r := t.send("initialize as text/plain with Origin: "+foreignOrigin, req.Bytes(), toResponse, 0)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	if is2xx(r.status()) {
		return t.unmet("%s: a page on any site can send this without a CORS preflight", r.describe())
	}
	return t.pass("answered %d", r.status())
}
