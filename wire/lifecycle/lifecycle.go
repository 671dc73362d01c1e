// Package lifecycle is a model of the profile's session lifecycle: what a
// rawmcp server must answer to each event, given every earlier one. It is a
// table, in the manner of h11's state machine, not a second server: it
// knows no HTTP bytes, only the receive order's outcome of each step (the
// README's receive order and statuses). The explorer in package wire walks
// its states breadth first and replays every path against a real server.
//
// The world is small on purpose: two principals (A and B), two session
// slots the client holds, a table of Capacity sessions, a clock that moves
// in whole TTLs. Each principal holds one token at a time, first issued
// under revision 1; revoking it or moving its subject's revision kills it,
// and Mint gives the principal a fresh one under the current revision. A
// revoked token's sessions live until it names them again; a revision
// change ends its subject's sessions at once, since no token can own them
// any more.
package lifecycle

import (
	"fmt"
	"strconv"
	"strings"

	"rawmcp/wire/rule"
)

// Principal is one of the two token holders.
type Principal uint8

const (
	A Principal = iota
	B
)

// Other is the principal that is not p.
func (p Principal) Other() Principal { return 1 - p }

func (p Principal) String() string { return string("AB"[p]) }

// Identity is who a principal is; with the revision its token was issued
// under, it is what a session is bound to (state.Owner's fields).
type Identity struct{ Subject, Tenant string }

// Identities are the principals': two subjects in two tenants, so a
// crossed answer shows in the resource URI as well as in the status.
var Identities = [2]Identity{
	A: {Subject: "alice", Tenant: "acme"},
	B: {Subject: "bob", Tenant: "beta"},
}

// FirstRevision is the revision the first tokens are issued under, and
// each subject's revision at the start.
const FirstRevision = 1

// Phase is a slot's session phase, from the client's side: Never (the
// slot holds no id the server issued), the two live phases of
// state.Phase, and Ended (the id was issued and is dead: deleted, expired
// or ended by a dead token).
type Phase uint8

const (
	Never Phase = iota
	Initializing
	Operating
	Ended
)

func (p Phase) String() string {
	return [...]string{"never", "initializing", "operating", "ended"}[p]
}

// live says the server's table holds the session.
func (p Phase) live() bool { return p == Initializing || p == Operating }

// Session is one slot: the session whose id the client holds there.
type Session struct {
	Phase Phase
	Owner Principal // for Never, A: the nominal owner whose token is used
	// OwnerRevision is the revision of the token that created it: a
	// token of its owner issued under another revision does not own it.
	OwnerRevision uint64
	Created       int // the clock when initialize created it
	// Delivered holds the labels of the notifications the GET stream
	// delivered, in order; Pending those queued and not yet delivered.
	Delivered, Pending []string
	// First and Last are the resume points of the first event of the
	// stream's first answer (its priming event) and of the last event of
	// its latest answer: how many delivered notifications a resume from
	// that id skips. Valid only when HasGet.
	HasGet      bool
	First, Last int
	// PostEvents counts the SSE event ids POST answers carried.
	PostEvents int
}

// Model is the whole world the server's answers depend on.
type Model struct {
	Sessions [2]Session
	// TokenRevision is the revision each principal's current token was
	// issued under. Revoked and Revision are the policy: whether that
	// token is revoked, and each principal's subject's current revision.
	TokenRevision [2]uint64
	Revoked       [2]bool
	Revision      [2]uint64
	// Clock counts TTLs: Advance moves it by one, so every session
	// created before is expired.
	Clock    int
	Capacity int
	// Notes counts Notify events, to label each notification uniquely.
	Notes int
}

// Bounds the server runs with, as the model assumes them.
const (
	MaxEventsPerSet = 16
	MaxQueued       = 16
	// ListChanged labels the notification initialize queues on every new
	// session (notifications/resources/list_changed).
	ListChanged = "list_changed"
)

// New returns the initial world: no session, both tokens good.
func New(capacity int) Model {
	if capacity < 1 || capacity > len(Model{}.Sessions) {
		panic("lifecycle: capacity must be 1 or 2, the slots the client holds")
	}
	first := [2]uint64{FirstRevision, FirstRevision}
	return Model{TokenRevision: first, Revision: first, Capacity: capacity}
}

// Kind is an event of the alphabet.
type Kind uint8

const (
	// Initialize: initialize as Principal, with no session id.
	Initialize Kind = iota
	// Initialized .. GetWrongVersion are requests on Slot's session id
	// (or, for a Never slot, a well-formed id the server never issued),
	// with the slot owner's token unless named "AsOther".
	Initialized
	Ping
	List // resources/list, answered as SSE
	Get  // GET without Last-Event-ID
	GetFirst
	GetLast
	GetPostCursor  // Last-Event-ID: the slot's latest POST SSE event id
	GetOtherCursor // Last-Event-ID: an event id of the other slot's session
	GetMalformed   // Last-Event-ID of 129 bytes: no event id is that long
	Delete
	PingAsOther
	GetAsOther
	DeleteAsOther
	PingNoVersion   // ping on the session without MCP-Protocol-Version
	GetWrongVersion // GET with MCP-Protocol-Version: 2025-03-26
	// ListNoSession: resources/list as Principal, no Mcp-Session-Id.
	ListNoSession
	// PingNeverIssued: ping as Principal on a well-formed id never issued.
	PingNeverIssued
	// Revoke revokes Principal's token; ChangeRevision moves its
	// subject's revision one up and ends the subject's sessions of older
	// revisions, freeing their slots; Mint gives it a fresh token under
	// the current revision, which it uses from then on. None is a request.
	Revoke
	ChangeRevision
	Mint
	// Advance moves the clock one TTL.
	Advance
	// Notify queues a server notification for Slot's session.
	Notify
)

var kindNames = [...]string{
	Initialize: "initialize", Initialized: "initialized", Ping: "ping", List: "resources/list",
	Get: "GET", GetFirst: "GET(first)", GetLast: "GET(last)", GetPostCursor: "GET(post-id)",
	GetOtherCursor: "GET(other-session-id)", GetMalformed: "GET(malformed-id)", Delete: "DELETE",
	PingAsOther: "ping-as-other", GetAsOther: "GET-as-other", DeleteAsOther: "DELETE-as-other",
	PingNoVersion: "ping-no-version", GetWrongVersion: "GET-wrong-version",
	ListNoSession: "resources/list-no-session", PingNeverIssued: "ping-never-issued",
	Revoke: "revoke", ChangeRevision: "change-revision", Mint: "mint-token", Advance: "advance-TTL", Notify: "notify",
}

func (k Kind) String() string { return kindNames[k] }

// Event is one letter of the alphabet: a kind and, as the kind needs it,
// a principal or a slot.
type Event struct {
	Kind Kind
	P    Principal
	Slot int
}

func (e Event) String() string {
	switch e.Kind {
	case Initialize, ListNoSession, PingNeverIssued, Revoke, ChangeRevision, Mint:
		return e.Kind.String() + " " + e.P.String()
	case Advance:
		return e.Kind.String()
	}
	return e.Kind.String() + " s" + strconv.Itoa(e.Slot)
}

// perPrincipal and perSlot sort the kinds by what they take.
var (
	perPrincipal = []Kind{Initialize, ListNoSession, PingNeverIssued, Revoke, ChangeRevision, Mint}
	perSlot      = []Kind{Initialized, Ping, List, Get, GetFirst, GetLast, GetPostCursor, GetOtherCursor,
		GetMalformed, Delete, PingAsOther, GetAsOther, DeleteAsOther, PingNoVersion, GetWrongVersion, Notify}
)

// Alphabet is every event, in a fixed order.
func Alphabet() []Event {
	var out []Event
	for _, k := range perPrincipal {
		for p := A; p <= B; p++ {
			out = append(out, Event{Kind: k, P: p})
		}
	}
	out = append(out, Event{Kind: Advance})
	for _, k := range perSlot {
		for s := range len(Model{}.Sessions) {
			out = append(out, Event{Kind: k, Slot: s})
		}
	}
	return out
}

// Body is the class of an answer's body.
type Body uint8

const (
	// NoBody: 202 or 204, nothing.
	NoBody Body = iota
	// ErrorBody: the constant JSON-RPC error of a refusal, Code its code.
	ErrorBody
	// ResultJSON: a JSON-RPC result as application/json.
	ResultJSON
	// ResultSSE: a JSON-RPC result as one text/event-stream event with an
	// id; the result lists the owner's tenant's resource only.
	ResultSSE
	// Stream: a GET stream: a priming event, then exactly Events.
	Stream
)

func (b Body) String() string {
	return [...]string{"none", "error", "json-result", "sse-result", "stream"}[b]
}

// JSON-RPC codes of the error bodies.
const (
	CodeHTTPError       = -32000
	CodeSessionNotFound = -32001
	CodeInvalidRequest  = -32600
)

// Answer is the model's prediction for one event. Status 0 means the event
// is no request (Revoke, ChangeRevision, Mint, Advance, Notify).
type Answer struct {
	Status int
	Rule   rule.ID
	Body   Body
	Code   int // for ErrorBody
	// NewSession: the answer carries Mcp-Session-Id, a session for Slot.
	NewSession bool
	Slot       int
	// Tenant is whose resource a ResultSSE lists.
	Tenant string
	// Events are the notification labels a Stream carries, in order.
	Events []string
	// Queued says a Notify was taken (false: the table refused it).
	Queued bool
}

func (a Answer) String() string {
	if a.Status == 0 {
		return fmt.Sprintf("queued=%v", a.Queued)
	}
	s := fmt.Sprintf("%d %s %s", a.Status, a.Rule, a.Body)
	if a.Body == ErrorBody {
		s += " " + strconv.Itoa(a.Code)
	}
	if a.Body == Stream {
		s += " [" + strings.Join(a.Events, " ") + "]"
	}
	return s
}

// The refusals, as the README's statuses table gives them.
var (
	unauthorized    = Answer{Status: 401, Rule: rule.InvalidToken, Body: ErrorBody, Code: CodeHTTPError}
	notFound        = Answer{Status: 404, Rule: rule.SessionNotFound, Body: ErrorBody, Code: CodeSessionNotFound}
	outOfOrder      = Answer{Status: 400, Rule: rule.LifecycleOrder, Body: ErrorBody, Code: CodeInvalidRequest}
	versionRequired = Answer{Status: 400, Rule: rule.VersionRequired, Body: ErrorBody, Code: CodeHTTPError}
	sessionRequired = Answer{Status: 400, Rule: rule.SessionRequired, Body: ErrorBody, Code: CodeHTTPError}
	cursorUnknown   = Answer{Status: 400, Rule: rule.CursorUnknown, Body: ErrorBody, Code: CodeHTTPError}
	cursorSyntax    = Answer{Status: 400, Rule: rule.EventIDSyntax, Body: ErrorBody, Code: CodeHTTPError}
	full            = Answer{Status: 503, Rule: rule.SessionCapacity, Body: ErrorBody, Code: CodeHTTPError}
)

// Clone returns a copy that shares no slice with m.
func (m Model) Clone() Model {
	for i := range m.Sessions {
		s := &m.Sessions[i]
		s.Delivered = append([]string(nil), s.Delivered...)
		s.Pending = append([]string(nil), s.Pending...)
	}
	return m
}

// Dead says p's token is refused: revoked, or its subject's revision moved.
func (m *Model) Dead(p Principal) bool { return m.Revoked[p] || m.Revision[p] != m.TokenRevision[p] }

// owns says p's current token owns s: same subject and tenant, issued
// under the same revision.
func (m *Model) owns(p Principal, s *Session) bool {
	return s.Owner == p && s.OwnerRevision == m.TokenRevision[p]
}

// Live counts the sessions the server's table holds.
func (m *Model) Live() int {
	n := 0
	for _, s := range m.Sessions {
		if s.Phase.live() {
			n++
		}
	}
	return n
}

// Step applies e to m and returns what the server must answer.
func (m *Model) Step(e Event) Answer {
	switch e.Kind {
	case Initialize:
		return m.initialize(e.P)
	case ListNoSession:
		if m.Dead(e.P) {
			return unauthorized
		}
		return sessionRequired
	case PingNeverIssued:
		if m.Dead(e.P) {
			return unauthorized
		}
		return notFound
	case Revoke:
		m.Revoked[e.P] = true
		return Answer{}
	case ChangeRevision:
		m.Revision[e.P]++
		for i := range m.Sessions {
			if s := &m.Sessions[i]; s.Phase.live() && s.Owner == e.P && s.OwnerRevision != m.Revision[e.P] {
				m.end(i)
			}
		}
		return Answer{}
	case Mint:
		m.TokenRevision[e.P], m.Revoked[e.P] = m.Revision[e.P], false
		return Answer{}
	case Advance:
		m.Clock++
		for i := range m.Sessions {
			if s := &m.Sessions[i]; s.Phase.live() && m.Clock-s.Created >= 1 {
				m.end(i)
			}
		}
		return Answer{}
	case Notify:
		s := &m.Sessions[e.Slot]
		if !s.Phase.live() || len(s.Pending) >= MaxQueued {
			return Answer{}
		}
		m.Notes++
		s.Pending = append(s.Pending, "s"+strconv.Itoa(e.Slot)+"-note"+strconv.Itoa(m.Notes))
		return Answer{Queued: true}
	}
	return m.onSession(e)
}

func (m *Model) initialize(p Principal) Answer {
	if m.Dead(p) {
		return unauthorized
	}
	if m.Live() >= m.Capacity {
		return full
	}
	for i := range m.Sessions {
		if !m.Sessions[i].Phase.live() {
			m.Sessions[i] = Session{Phase: Initializing, Owner: p, OwnerRevision: m.TokenRevision[p], Created: m.Clock, Pending: []string{ListChanged}}
			return Answer{Status: 200, Rule: rule.VersionCounterOffer, Body: ResultJSON, NewSession: true, Slot: i}
		}
	}
	panic("lifecycle: capacity exceeds the slots")
}

// end forgets slot i's session: its id stays with the client, dead.
func (m *Model) end(i int) {
	s := &m.Sessions[i]
	*s = Session{Phase: Ended, Owner: s.Owner}
}

// onSession walks the receive order for a request naming a slot's
// session id: token (9), version (10), session (11), lifecycle, then the
// method's own checks.
func (m *Model) onSession(e Event) Answer {
	s := &m.Sessions[e.Slot]
	as := s.Owner
	switch e.Kind {
	case PingAsOther, GetAsOther, DeleteAsOther:
		as = as.Other()
	}
	// 9. A dead token is refused, and ends the session it names if that
	// session is its holder's.
	if m.Dead(as) {
		if s.Phase.live() && m.owns(as, s) {
			m.end(e.Slot)
		}
		return unauthorized
	}
	// 10. The version.
	if e.Kind == PingNoVersion || e.Kind == GetWrongVersion {
		return versionRequired
	}
	// 11. The session: live and the caller's, else one 404 for all.
	if !s.Phase.live() || !m.owns(as, s) {
		return notFound
	}
	switch e.Kind {
	case Initialized:
		if s.Phase != Initializing {
			return outOfOrder
		}
		s.Phase = Operating
		return Answer{Status: 202, Rule: rule.NotificationAccepted, Body: NoBody}
	case Ping:
		return Answer{Status: 200, Rule: rule.PingAnswered, Body: ResultJSON}
	case List:
		if s.Phase != Operating {
			return outOfOrder
		}
		s.PostEvents++
		return Answer{Status: 200, Rule: rule.RequestAnsweredSSE, Body: ResultSSE, Tenant: Identities[as].Tenant}
	case Delete:
		m.end(e.Slot)
		return Answer{Status: 204, Rule: rule.DeleteEndsSession, Body: NoBody}
	case GetMalformed:
		return cursorSyntax
	case Get:
		return s.poll(len(s.Delivered), false)
	case GetFirst, GetLast:
		if !s.HasGet {
			return cursorUnknown
		}
		point := s.First
		if e.Kind == GetLast {
			point = s.Last
		}
		return s.poll(point, true)
	case GetPostCursor, GetOtherCursor:
		// Neither a POST stream's id nor another session's resumes
		// anything here.
		return cursorUnknown
	}
	panic("lifecycle: unhandled event " + e.String())
}

// poll answers a GET resuming after `point` delivered notifications:
// with a cursor, the delivered ones after it are replayed first; then
// pending ones are delivered, at most MaxEventsPerSet in all.
func (s *Session) poll(point int, resume bool) Answer {
	var events []string
	if resume {
		events = append(events, s.Delivered[point:min(len(s.Delivered), point+MaxEventsPerSet)]...)
	}
	take := min(len(s.Pending), MaxEventsPerSet-len(events))
	events = append(events, s.Pending[:take]...)
	s.Delivered = append(s.Delivered, s.Pending[:take]...)
	s.Pending = append([]string(nil), s.Pending[take:]...)
	// The priming event resumes from point; the answer's last event is
	// its last notification, or the priming event when it carries none.
	last := point
	if len(events) > 0 {
		last = len(s.Delivered)
		if take == 0 {
			// Only replayed events: the last is the last replayed one.
			last = point + len(events)
		}
	}
	if !s.HasGet {
		s.HasGet, s.First = true, point
	}
	s.Last = last
	return Answer{Status: 200, Rule: rule.GetStream, Body: Stream, Events: events}
}

// Key names m's equivalence class: two models with equal keys answer every
// event sequence alike (labels aside), so the explorer visits one of them.
// Positions count notifications; labels and the clock's absolute value do
// not matter, nor revisions, nor why a token died.
func (m *Model) Key() string {
	var b strings.Builder
	for p := A; p <= B; p++ {
		// A revision change ends the subject's sessions, and a dead token
		// makes none, so a dead token with live sessions is a revoked one
		// of their revision, and a fresh token owns them whichever way its
		// predecessor died.
		if m.Dead(p) {
			b.WriteString(p.String() + "dead ")
		}
	}
	for i, s := range m.Sessions {
		fmt.Fprintf(&b, "s%d:%s", i, s.Phase)
		if s.Phase != Never {
			b.WriteString("/" + s.Owner.String())
		}
		if s.Phase.live() {
			fmt.Fprintf(&b, " age%d d%d p%d", m.Clock-s.Created, len(s.Delivered), len(s.Pending))
			if s.HasGet {
				fmt.Fprintf(&b, " first%d last%d", s.First, s.Last)
			}
		}
		b.WriteString(" ")
	}
	return b.String()
}
