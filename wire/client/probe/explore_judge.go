package probe

import (
	"strconv"
)

// exploreRule is one rule of the explore judge: what MCP 2025-11-25 or
// JSON-RPC 2.0 requires of any server, decided from the client's model
// and one answer. Nothing here is rawmcp's own hardening: where the spec
// lets a server choose (an answer before notifications/initialized, 403
// or 404 to another principal, a status for an unknown cursor, event ids
// or none), every choice passes.
type exploreRule struct {
	ID     string
	Level  Level
	Source string
	Line   string
	// breach says how o broke the rule, nil when it did not.
	breach func(m *walkModel, o *observation) *breach
}

type breach struct{ reason, expected, actual string }

var exploreRules = []exploreRule{
	{"EX-01", Must, "MCP Transports §2.5 item 3", "an ended session is never served again: 404", endedStaysEnded},
	{"EX-02", Must, "MCP Transports §2.7", "an unsupported MCP-Protocol-Version gets 400", unsupportedVersionRefused},
	{"EX-03", Must, "JSON-RPC 2.0 §5 (Response object); MCP Transports §2.3", "a POST's answer carries no response to another request", postAnswersItsOwn},
	{"EX-04", Must, "MCP Transports §2.2 item 4", "a GET stream without a cursor carries no JSON-RPC response", cursorlessGetNoResponse},
	{"EX-05", Must, "MCP Transports §2.4 (MUST NOT replay another stream's messages)", "a resumed GET delivers only its own stream's messages", resumedOwnStream},
	{"EX-06", Must, "MCP Transports §2.3, §2.4 item 1", "a message is delivered on one stream only: no event id of a session's messages comes again on a new stream", deliveredOnce},
	{"EX-07", Must, "MCP Ping (the receiver MUST respond)", "a ping on a live, initialized session gets a result", pingAnswered},
	{"EX-08", Should, "MCP Security Best Practices §2.4.4 (bind sessions to the user); Transports §2.5 item 3", "another principal on a session gets 404", otherPrincipalRefused},
}

// judge applies every rule to o, the walk's step-th step. An answer no
// rule can judge (none at all, a 401 to a valid token, load shedding)
// breaks none.
func judge(m *walkModel, o *observation, step int) []Finding {
	if st := o.r.status(); o.r.resp == nil || st == 401 || st == 429 || st == 503 {
		return nil
	}
	var out []Finding
	for _, r := range exploreRules {
		if b := r.breach(m, o); b != nil {
			out = append(out, Finding{Rule: r.ID, Level: r.Level, Verdict: verdictFor(r.Level, false), Source: r.Source,
				Step: step, Reason: b.reason, Expected: b.expected, Actual: b.actual})
		}
	}
	return out
}

// wellFormed reports a request as the client must send it: the session's
// own token and its negotiated MCP-Protocol-Version.
func (o *observation) wellFormed() bool { return o.own && o.version == "negotiated" }

func (o *observation) what() string {
	if o.method == "GET" {
		return string(o.step.Op)
	}
	return string(o.step.Op) + " (" + o.method + ")"
}

// refusedGet is 405 to a GET: no GET stream at this endpoint (§2.2 item
// 3), whatever the request.
func (o *observation) refusedGet() bool { return o.method == "GET" && o.r.status() == 405 }

func endedStaysEnded(m *walkModel, o *observation) *breach {
	x := o.x
	if x == nil || x.s.id == "" || x.ended == "" {
		return nil
	}
	st := o.r.status()
	switch {
	case is2xx(st) && o.r.isResult(o.id) || is2xx(st) && o.id == 0:
		return &breach{"after " + x.ended + " ended session " + strconv.Itoa(x.index+1) + ", " + o.what() + " was served", "404", o.r.actual()}
	case is2xx(st):
		return &breach{"after " + x.ended + " ended session " + strconv.Itoa(x.index+1) + ", " + o.what() + " " + o.r.describe(), "404", o.r.actual()}
	case o.wellFormed() && st != 404 && !o.refusedGet() && !(o.method == "DELETE" && st == 405):
		return &breach{"after " + x.ended + " ended session " + strconv.Itoa(x.index+1) + ", " + o.what() + " answered " + strconv.Itoa(st), "404", o.r.actual()}
	}
	return nil
}

func unsupportedVersionRefused(m *walkModel, o *observation) *breach {
	if o.x == nil || o.version != "unsupported" || o.x.ended != "" || !o.own {
		return nil
	}
	// 404: the server ended the session, which it may do at any time,
	// and checked that first (the order of checks is not specified).
	switch st := o.r.status(); {
	case st == 400 || st == 404 || o.refusedGet():
		return nil
	case is2xx(st):
		return &breach{o.what() + " with MCP-Protocol-Version: " + unsupportedVersion + " was served", "400", o.r.actual()}
	default:
		return &breach{o.what() + " with MCP-Protocol-Version: " + unsupportedVersion + " answered " + strconv.Itoa(st), "400", o.r.actual()}
	}
}

// responseIDs are the ids of the JSON-RPC responses an answer carries;
// null or absent ids (errors about unreadable requests) aside.
func responseIDs(r *reply) []string {
	var out []string
	for _, msg := range r.messages() {
		if msg.isResponse() && len(msg.ID) > 0 && string(msg.ID) != "null" {
			out = append(out, string(msg.ID))
		}
	}
	return out
}

// whose says whose request a response id answers: "session 2's request"
// or "a request the client never sent".
func (m *walkModel) whose(id string, x *walkSession) (desc string, ownSession bool) {
	n, err := strconv.ParseInt(id, 10, 64)
	at, sent := m.sentOn[n]
	switch {
	case err != nil || !sent:
		return "a request the client never sent", false
	case x != nil && at == x.index:
		return "another request of session " + strconv.Itoa(at+1), true
	}
	return "a request of session " + strconv.Itoa(at+1), false
}

func postAnswersItsOwn(m *walkModel, o *observation) *breach {
	if o.method != "POST" {
		return nil
	}
	for _, id := range responseIDs(o.r) {
		if id != strconv.FormatInt(o.id, 10) || o.id == 0 {
			desc, _ := m.whose(id, o.x)
			return &breach{o.what() + " was answered with the response to " + desc, "the response to its own request only", o.r.actual()}
		}
	}
	return nil
}

func cursorlessGetNoResponse(m *walkModel, o *observation) *breach {
	if o.method != "GET" || o.cursor != "" || !is2xx(o.r.status()) {
		return nil
	}
	if ids := responseIDs(o.r); len(ids) > 0 {
		desc, _ := m.whose(ids[0], o.x)
		return &breach{o.what() + " without Last-Event-ID delivered the response to " + desc, "requests and notifications only", o.r.actual()}
	}
	return nil
}

func resumedOwnStream(m *walkModel, o *observation) *breach {
	if o.method != "GET" || o.cursor == "" || o.x == nil || o.x.s.id == "" || !is2xx(o.r.status()) {
		return nil
	}
	for _, id := range responseIDs(o.r) {
		desc, ownSession := m.whose(id, o.x)
		// Only a POST stream carries responses, so only resuming one of
		// this session's may deliver one (§2.2 item 4's exception).
		if o.cursor == "post" && ownSession && o.own {
			continue
		}
		if ownSession && o.cursor == "post" {
			desc = "a request of session " + strconv.Itoa(o.x.index+1) + ", for another principal"
		}
		return &breach{o.what() + " (Last-Event-ID: " + map[string]string{"get": "its last GET event", "post": "its last POST stream event",
			"foreign": "another session's event", "malformed": "a malformed id"}[o.cursor] + ") delivered the response to " + desc,
			"only the later events of the session's own stream", o.r.actual()}
	}
	return nil
}

func deliveredOnce(m *walkModel, o *observation) *breach {
	x := o.x
	if x == nil || x.s.id == "" || o.cursor != "" || !o.own || !is2xx(o.r.status()) {
		return nil
	}
	for _, ev := range streamEvents(o.r) {
		if ev.message && ev.own != "" && x.seen[ev.own] {
			return &breach{o.what() + " delivered again a message event an earlier stream of session " + strconv.Itoa(x.index+1) + " had delivered (same event id)",
				"each message on one stream, each event id once", o.r.actual()}
		}
	}
	return nil
}

func pingAnswered(m *walkModel, o *observation) *breach {
	x := o.x
	if o.step.Op != OpPing || x == nil || !x.initialized || x.ended != "" {
		return nil
	}
	if o.r.isResult(o.id) || o.r.status() == 404 {
		return nil
	}
	return &breach{"ping on live session " + strconv.Itoa(x.index+1) + " " + o.r.describe(), "200 with an empty result", o.r.actual()}
}

func otherPrincipalRefused(m *walkModel, o *observation) *breach {
	x := o.x
	if o.step.Op != OpOther || x == nil || x.s.id == "" || x.ended != "" {
		return nil
	}
	switch st := o.r.status(); {
	case st == 404:
		return nil
	case is2xx(st):
		return &breach{"the second principal was served on session " + strconv.Itoa(x.index+1) + ", opened by the first", "404", o.r.actual()}
	default:
		return &breach{"the second principal got " + strconv.Itoa(st) + " on session " + strconv.Itoa(x.index+1) + ": 404 would not tell it the session exists", "404", o.r.actual()}
	}
}
