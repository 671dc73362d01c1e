package wire_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rawmcp/httpparse"
	"rawmcp/policy"
	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/assemble"
	"rawmcp/wire/client"
	"rawmcp/wire/lifecycle"
)

// exploreDepth is the longest event path the explorer replays. The
// defaults keep `go test ./wire` and CI's `go test -race ./wire` within
// tens of seconds on a loaded 2-core machine: 4, and 3 under the race
// detector; depth 6 is a command of its own (README, Testing).
var exploreDepth = flag.Int("explore.depth", defaultExploreDepth(), "longest event path TestExploreLifecycle replays against the server (default 4, 3 with -race)")

func defaultExploreDepth() int {
	if raceDetector {
		return 3
	}
	return 4
}

// exploreTTL is the session lifetime of the explored server; Advance moves
// the fake clock by exactly this, which expires every session made before
// (real time only ever adds to it) and none made after, as long as one path
// takes less than a TTL of real time.
const exploreTTL = time.Minute

// neverIssued is a well-formed session id no server issues in practice (24
// zero bytes), and unknownCursor a well-formed event id of a stream no
// session has: the ids a client sends for a slot or a cursor it never got.
const (
	neverIssued   = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	unknownCursor = "gAAAAAAAAAAAAAAAA-1"
)

// pathTo is one path of the plan: the events from the initial world.
type pathTo []lifecycle.Event

func (p pathTo) String() string {
	var b strings.Builder
	for i, e := range p {
		fmt.Fprintf(&b, "  %d. %v\n", i+1, e)
	}
	return b.String()
}

// plan is the breadth-first walk of the model: every state reached within
// depth-1 events is expanded with every event, so each state is reached by a
// shortest path and every (state, event) pair is the last step of one path.
type plan struct {
	states      int // distinct states reached, at any depth up to depth
	expanded    int // states whose every event is tried
	pairs       int // (expanded state, event) pairs
	transitions int // pairs whose event moves to another state
	// replays are the paths to run: one per pair, except a pair whose path
	// is the whole prefix of a longer path in the list. That longer path
	// checks the same steps from the same fresh server against the same
	// deterministic model, so replaying the prefix alone would add nothing.
	replays []pathTo
}

func planExploration(depth, capacity int) plan {
	type node struct {
		m    lifecycle.Model
		path pathTo
	}
	start := lifecycle.New(capacity)
	seen := map[string]bool{start.Key(): true}
	frontier := []node{{m: start}}
	var p plan
	p.states = 1
	alphabet := lifecycle.Alphabet()
	for d := 0; d < depth; d++ {
		var next []node
		for _, n := range frontier {
			p.expanded++
			for _, e := range alphabet {
				m := n.m.Clone()
				m.Step(e)
				path := append(slices.Clip(n.path), e)
				p.pairs++
				if m.Key() != n.m.Key() {
					p.transitions++
				}
				if seen[m.Key()] {
					p.replays = append(p.replays, path)
					continue
				}
				seen[m.Key()] = true
				p.states++
				if d+1 < depth {
					// Expanded next round: its own paths extend this one.
					next = append(next, node{m: m, path: path})
				} else {
					p.replays = append(p.replays, path)
				}
			}
		}
		frontier = next
	}
	return p
}

// TestExploreLifecycle replays every path of the model's breadth-first walk
// against a fresh server over sockets and compares each answer with the
// model's, then checks the invariants after every step.
func TestExploreLifecycle(t *testing.T) {
	depth := *exploreDepth
	p := planExploration(depth, 2)
	baseline := runtime.NumGoroutine()
	start := time.Now()
	failures, passed := replayAll(p.replays)
	covered := coveredPairs(passed)
	t.Logf("depth %d: %d states (%d expanded), %d transitions, %d of %d (state, event) pairs covered by %d replayed paths, in %v",
		depth, p.states, p.expanded, p.transitions, covered, p.pairs, len(p.replays), time.Since(start).Round(time.Millisecond))
	if len(failures) > 0 {
		f := failures[0]
		t.Fatalf("%d path(s) disagree with the model; the shortest:\n%v\n%s\ntranscript:\n%s", len(failures), f.path, f.reason, f.transcript)
	}
	if covered != p.pairs {
		t.Fatalf("%d of %d (state, event) pairs covered by a path the server passed", covered, p.pairs)
	}
	// Every connection goroutine and every client is gone once the servers
	// have shut down; allow the runtime a moment to reap them.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > baseline && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > baseline {
		t.Errorf("%d goroutines after the exploration, %d before", n, baseline)
	}
}

// TestExplorePlanCoversEveryPair: the plan itself, whatever the server does:
// each (expanded state, event) pair ends exactly one replayed path or is
// the prefix of one, so no pair goes unchecked.
func TestExplorePlanCoversEveryPair(t *testing.T) {
	for depth := 1; depth <= 4; depth++ {
		p := planExploration(depth, 2)
		if covered := coveredPairs(p.replays); covered != p.pairs {
			t.Errorf("depth %d: %d pairs covered, plan has %d", depth, covered, p.pairs)
		}
		if want := p.expanded * len(lifecycle.Alphabet()); p.pairs != want {
			t.Errorf("depth %d: %d pairs, want expanded × alphabet = %d", depth, p.pairs, want)
		}
	}
}

// coveredPairs counts the distinct (state, event) pairs along the paths.
func coveredPairs(paths []pathTo) int {
	covered := map[string]bool{}
	for _, path := range paths {
		m := lifecycle.New(2)
		for _, e := range path {
			covered[m.Key()+"|"+e.String()] = true
			m.Step(e)
		}
	}
	return len(covered)
}

type failure struct {
	index      int // in the plan: among the shortest, the first is printed
	path       pathTo
	reason     string
	transcript string
}

// replayAll runs the paths in bounded parallel workers, a fresh server per
// path, and returns the failures, shortest first, and the paths that
// passed. Paths come in breadth-first order, so once one fails no longer
// path is started.
func replayAll(paths []pathTo) ([]failure, []pathTo) {
	var (
		mu       sync.Mutex
		failures []failure
		passed   []pathTo
		shortest atomic.Int64
		next     atomic.Int64
		wg       sync.WaitGroup
	)
	shortest.Store(1 << 30)
	workers := 2 * runtime.GOMAXPROCS(0)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(paths) || int64(len(paths[i])) > shortest.Load() {
					return
				}
				f := replay(paths[i])
				if f != nil {
					f.index = i
				}
				if f == nil {
					mu.Lock()
					passed = append(passed, paths[i])
					mu.Unlock()
				} else {
					mu.Lock()
					failures = append(failures, *f)
					if int64(len(f.path)) < shortest.Load() {
						shortest.Store(int64(len(f.path)))
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	sort.Slice(failures, func(i, j int) bool {
		a, b := failures[i], failures[j]
		return len(a.path) < len(b.path) || len(a.path) == len(b.path) && a.index < b.index
	})
	return failures, passed
}

// rig is one path's server and client, and what the client knows.
type rig struct {
	srv      *assemble.Server
	offset   atomic.Int64 // the fake clock's lead on real time
	tokens   [2]string    // each principal's current token
	tokenIDs [2]string
	minted   []string // every token of this rig, current or not
	c        *client.Client
	secrets  client.Redactor
	trace    strings.Builder

	mu        sync.Mutex
	exchanges []wire.Exchange // this client's, in the order answered

	model lifecycle.Model
	slots [2]slotView
}

// slotView is the client's record of one slot's session, from the answers.
type slotView struct {
	id                string            // "" while the slot was never issued one
	firstGet, lastGet string            // cursors: the stream's first event, its latest answer's last
	post              string            // the latest POST SSE event id
	getIDs            map[string]bool   // every id its GET answers carried
	deliveredAs       map[string]string // notification label → the id it was first delivered under
}

func newSlotView(id string) slotView {
	return slotView{id: id, getIDs: map[string]bool{}, deliveredAs: map[string]string{}}
}

// newToken makes p's current token a fresh one; record describes it.
func (r *rig) newToken(p lifecycle.Principal) error {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	token := base64.RawURLEncoding.EncodeToString(b[:])
	r.mu.Lock()
	r.minted = append(r.minted, token)
	r.tokens[p] = token
	r.tokenIDs[p] = "explore-" + p.String() + "-" + strconv.Itoa(len(r.minted))
	r.mu.Unlock()
	r.secrets.AddToken(token)
	return nil
}

// record is p's current token's record, under the model's revision for it.
func (r *rig) record(p lifecycle.Principal, canonical string) policy.TokenRecord {
	id := lifecycle.Identities[p]
	return policy.TokenRecord{
		TokenID: r.tokenIDs[p], Issuer: "https://as.rawmcp.invalid",
		Audience: canonical, Resource: canonical, AuthorizationResource: canonical, TokenResource: canonical,
		Subject: id.Subject, Tenant: id.Tenant, Revision: r.model.TokenRevision[p],
		Scopes: []string{policy.ScopeConnect, policy.ScopeResourcesRead},
		Active: true, Expiry: time.Now().Add(24 * time.Hour),
	}
}

func (r *rig) now() time.Time { return time.Now().Add(time.Duration(r.offset.Load())) }

func newRig() (*rig, error) {
	r := &rig{model: lifecycle.New(2)}
	for p := range r.tokens {
		if err := r.newToken(lifecycle.Principal(p)); err != nil {
			return nil, err
		}
	}
	// The never-issued id is a session id too: no answer may echo it.
	r.secrets.AddSession(neverIssued)
	srv, err := assemble.Start("127.0.0.1:0", assemble.Config{
		Issuer:  "https://as.rawmcp.invalid",
		Tenants: []string{lifecycle.Identities[lifecycle.A].Tenant, lifecycle.Identities[lifecycle.B].Tenant},
		Tokens: func(canonical string) ([]policy.TokenFileEntry, error) {
			var out []policy.TokenFileEntry
			for p := range r.tokens {
				out = append(out, policy.TokenFileEntry{Token: r.tokens[p], Record: r.record(lifecycle.Principal(p), canonical)})
			}
			return out, nil
		},
		Table: state.Config{MaxSessions: 2, TTL: exploreTTL, MaxEventsPerSet: lifecycle.MaxEventsPerSet, KeepDelivered: 16, MaxQueued: lifecycle.MaxQueued},
		Configure: func(c *wire.Config) {
			// The fake clock runs at or ahead of real time, so socket
			// deadlines computed from it never lie in the past.
			c.Now = r.now
			// The decisions are taken with the request bytes, so that
			// only this client's count: the port may have served another
			// program's test before, whose clients can still knock.
			c.OnExchange = func(x wire.Exchange) {
				r.mu.Lock()
				defer r.mu.Unlock()
				if !slices.ContainsFunc(r.minted, func(token string) bool { return bytes.Contains(x.Request, []byte(token)) }) {
					return
				}
				r.exchanges = append(r.exchanges, x)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	r.srv = srv
	r.c = client.New(srv.Addr)
	for i := range r.slots {
		r.slots[i] = newSlotView("")
	}
	return r, nil
}

// replay runs one path on a fresh server, then ends every session the
// model holds with its owner's DELETE (checked like any step) and shuts
// the server down; nil means everything agreed.
func replay(path pathTo) *failure {
	r, err := newRig()
	if err != nil {
		return &failure{path: path, reason: "rig: " + err.Error()}
	}
	fail := func(where, why string) *failure {
		r.c.Close()
		r.srv.Close()
		return &failure{path: path, reason: where + ": " + r.secrets.Redact(why), transcript: r.trace.String()}
	}
	for i, e := range path {
		if why := r.step(i+1, e); why != "" {
			return fail(fmt.Sprintf("step %d (%v)", i+1, e), why)
		}
	}
	// Clean up through the front door: a DELETE ends a live session, and
	// a dead token's DELETE ends its holder's session too. A session
	// orphaned by a revision change (its owner's fresh token is of
	// another revision) answers nobody and waits for its TTL.
	cleanup := []lifecycle.Event{{Kind: lifecycle.Delete, Slot: 0}, {Kind: lifecycle.Delete, Slot: 1}, {Kind: lifecycle.Advance}}
	for i, e := range cleanup {
		if r.model.Live() == 0 {
			break
		}
		if e.Kind == lifecycle.Delete && !live(r.model.Sessions[e.Slot].Phase) {
			continue
		}
		if why := r.step(len(path)+1+i, e); why != "" {
			return fail(fmt.Sprintf("after the path, cleanup %v", e), why)
		}
	}
	if n := r.srv.Sessions.Len(r.now()); n != 0 {
		return fail("after the cleanup", fmt.Sprintf("%d session(s) left", n))
	}
	r.c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.srv.Shutdown(ctx); err != nil {
		return &failure{path: path, reason: "shutdown: a connection was left: " + err.Error(), transcript: r.trace.String()}
	}
	return nil
}

// step applies e to the model and the server alike and returns why they
// differ, or "".
func (r *rig) step(n int, e lifecycle.Event) string {
	want := r.model.Step(e)
	fmt.Fprintf(&r.trace, "--- %d. %v: want %v\n", n, e, want)
	var why string
	switch e.Kind {
	case lifecycle.Revoke:
		r.srv.Revoke(r.tokenIDs[e.P])
	case lifecycle.ChangeRevision:
		r.srv.SetRevision(lifecycle.Identities[e.P].Subject, r.model.Revision[e.P])
	case lifecycle.Mint:
		if err := r.newToken(e.P); err != nil {
			return err.Error()
		}
		if err := r.srv.AddToken(r.tokens[e.P], r.record(e.P, r.srv.URL)); err != nil {
			return "minting: " + err.Error()
		}
	case lifecycle.Advance:
		r.offset.Add(int64(exploreTTL))
	case lifecycle.Notify:
		label := r.model.Sessions[e.Slot].Pending
		data := noteData("refused")
		if want.Queued {
			data = noteData(label[len(label)-1])
		}
		ended, err := r.srv.Sessions.Notify(r.sessionID(e.Slot), data, r.now())
		r.srv.Server.LogEnded(ended) // as the server logs what its own calls end
		if got := err == nil; got != want.Queued {
			why = fmt.Sprintf("Notify queued = %v (%v), want %v", got, err, want.Queued)
		}
	default:
		why = r.exchange(e, want)
	}
	if why != "" {
		return why
	}
	return r.invariants()
}

func noteData(label string) []byte {
	return []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + label + `"}}`)
}

// sessionID is the id the client sends for a slot: the one it was issued,
// or a never-issued one.
func (r *rig) sessionID(slot int) string {
	if id := r.slots[slot].id; id != "" {
		return id
	}
	return neverIssued
}

// request builds the bytes of a request event.
func (r *rig) request(e lifecycle.Event) (raw []byte, method string) {
	const version = "2025-11-25"
	s := r.model.Sessions[e.Slot] // after Step: the owner stays
	token := r.tokens[s.Owner]
	sid := r.sessionID(e.Slot)
	header := func(h ...[2]string) [][2]string {
		return append([][2]string{{"Host", r.srv.Addr}}, h...)
	}
	postTo := func(token, body string, h ...[2]string) []byte {
		hs := header(append([][2]string{{"Accept", "application/json, text/event-stream"}, {"Content-Type", "application/json"}, {"Authorization", "Bearer " + token}}, h...)...)
		return client.Request{Method: "POST", Path: "/mcp", Header: hs, Body: []byte(body)}.Bytes()
	}
	onSession := func(token string, h ...[2]string) [][2]string {
		return header(append([][2]string{{"Authorization", "Bearer " + token}, {"MCP-Protocol-Version", version}, {"Mcp-Session-Id", sid}}, h...)...)
	}
	get := func(token string, h ...[2]string) []byte {
		return client.Request{Method: "GET", Path: "/mcp", Header: onSession(token, append([][2]string{{"Accept", "text/event-stream"}}, h...)...)}.Bytes()
	}
	cursor := func(c string) [2]string { return [2]string{"Last-Event-ID", c} }
	other := r.tokens[s.Owner.Other()]
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	inSession := [][2]string{{"MCP-Protocol-Version", version}, {"Mcp-Session-Id", sid}}
	switch e.Kind {
	case lifecycle.Initialize:
		return postTo(r.tokens[e.P], initializeBody), "POST"
	case lifecycle.ListNoSession:
		return postTo(r.tokens[e.P], `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, [2]string{"MCP-Protocol-Version", version}), "POST"
	case lifecycle.PingNeverIssued:
		return postTo(r.tokens[e.P], ping, [2]string{"MCP-Protocol-Version", version}, [2]string{"Mcp-Session-Id", neverIssued}), "POST"
	case lifecycle.Initialized:
		return postTo(token, initializedBody, inSession...), "POST"
	case lifecycle.Ping:
		return postTo(token, ping, inSession...), "POST"
	case lifecycle.PingAsOther:
		return postTo(other, ping, inSession...), "POST"
	case lifecycle.PingNoVersion:
		return postTo(token, ping, [2]string{"Mcp-Session-Id", sid}), "POST"
	case lifecycle.List:
		return postTo(token, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, inSession...), "POST"
	case lifecycle.Get:
		return get(token), "GET"
	case lifecycle.GetAsOther:
		return get(other), "GET"
	case lifecycle.GetFirst:
		return get(token, cursor(orUnknown(r.slots[e.Slot].firstGet))), "GET"
	case lifecycle.GetLast:
		return get(token, cursor(orUnknown(r.slots[e.Slot].lastGet))), "GET"
	case lifecycle.GetPostCursor:
		return get(token, cursor(orUnknown(r.slots[e.Slot].post))), "GET"
	case lifecycle.GetOtherCursor:
		o := r.slots[1-e.Slot]
		c := o.lastGet
		if c == "" {
			c = o.post
		}
		return get(token, cursor(orUnknown(c))), "GET"
	case lifecycle.GetMalformed:
		return get(token, cursor(strings.Repeat("g", 129))), "GET"
	case lifecycle.GetWrongVersion:
		h := onSession(token, [2]string{"Accept", "text/event-stream"})
		h[2][1] = "2025-03-26"
		return client.Request{Method: "GET", Path: "/mcp", Header: h}.Bytes(), "GET"
	case lifecycle.Delete:
		return client.Request{Method: "DELETE", Path: "/mcp", Header: onSession(token)}.Bytes(), "DELETE"
	case lifecycle.DeleteAsOther:
		return client.Request{Method: "DELETE", Path: "/mcp", Header: onSession(other)}.Bytes(), "DELETE"
	}
	panic("explore: no request for " + e.String())
}

func live(p lifecycle.Phase) bool { return p == lifecycle.Initializing || p == lifecycle.Operating }

func orUnknown(id string) string {
	if id == "" {
		return unknownCursor
	}
	return id
}

// exchange sends e's request and compares the answer with want.
func (r *rig) exchange(e lifecycle.Event, want lifecycle.Answer) string {
	raw, method := r.request(e)
	r.mu.Lock()
	r.exchanges = nil
	r.mu.Unlock()
	resp, err := r.c.Do(raw, false)
	client.Tracer{Secrets: &r.secrets}.Exchange(&r.trace, e.String(), raw, resp, err)
	if err != nil {
		return "no answer: " + err.Error()
	}
	r.mu.Lock()
	exchanges := r.exchanges
	r.mu.Unlock()
	var decisions []wire.Decision
	for _, x := range exchanges {
		decisions = append(decisions, x.Decision)
	}
	if len(decisions) != 1 || decisions[0] != (wire.Decision{Status: want.Status, Rule: want.Rule}) {
		var read strings.Builder
		for _, x := range exchanges {
			client.Tracer{Secrets: &r.secrets}.Request(&read, x.Request)
		}
		return fmt.Sprintf("status %d, decisions %v; want %d %s; the server read:\n%s", resp.Status, decisions, want.Status, want.Rule, read.String())
	}
	if resp.Status != want.Status {
		return fmt.Sprintf("status %d, want %d", resp.Status, want.Status)
	}
	// Nothing echoed: no token and no session id the client holds, in
	// any header or body (a new session's own header aside, which the
	// redactor learns only below).
	var seen []byte
	for _, h := range resp.Header {
		seen = append(append(seen, h.Value...), '\n')
	}
	seen = append(seen, resp.Body...)
	if found := r.secrets.Found(seen); len(found) > 0 {
		return fmt.Sprintf("the answer carries %v", found)
	}
	if why := headersMatter(resp, want); why != "" {
		return why
	}
	return r.body(e, method, resp, want)
}

// headersMatter checks the fields an answer's class implies.
func headersMatter(resp *httpparse.Response, want lifecycle.Answer) string {
	ct, _ := resp.Get("Content-Type")
	wantCT := map[lifecycle.Body]string{lifecycle.ErrorBody: "application/json", lifecycle.ResultJSON: "application/json", lifecycle.ResultSSE: "text/event-stream", lifecycle.Stream: "text/event-stream"}[want.Body]
	if ct != wantCT {
		return fmt.Sprintf("Content-Type %q, want %q", ct, wantCT)
	}
	present := func(name string) bool { _, ok := resp.Get(name); return ok }
	for _, c := range []struct {
		name string
		want bool
	}{
		{"Mcp-Session-Id", want.NewSession},
		{"WWW-Authenticate", want.Status == 401},
		{"Retry-After", want.Status == 503},
	} {
		if present(c.name) != c.want {
			return fmt.Sprintf("%s present = %v, want %v", c.name, !c.want, c.want)
		}
	}
	return ""
}

// body checks the answer's body class and what it must (not) contain, and
// records the ids the client learns.
func (r *rig) body(e lifecycle.Event, method string, resp *httpparse.Response, want lifecycle.Answer) string {
	view := &r.slots[e.Slot]
	switch want.Body {
	case lifecycle.NoBody:
		if len(resp.Body) != 0 {
			return fmt.Sprintf("body of %d bytes, want none", len(resp.Body))
		}
	case lifecycle.ErrorBody:
		var body struct {
			JSONRPC string `json:"jsonrpc"`
			Error   struct {
				Code int `json:"code"`
			} `json:"error"`
			ID *json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(resp.Body, &body); err != nil || body.JSONRPC != "2.0" || body.ID != nil || body.Error.Code != want.Code {
			return fmt.Sprintf("error body %q, want a JSON-RPC error without id, code %d", resp.Body, want.Code)
		}
	case lifecycle.ResultJSON:
		var body struct {
			ID     int              `json:"id"`
			Result *json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(resp.Body, &body); err != nil || body.ID != 1 || body.Result == nil {
			return fmt.Sprintf("body %q, want the result of request 1", resp.Body)
		}
		if want.NewSession {
			sid, _ := resp.Get("Mcp-Session-Id")
			r.secrets.AddSession(sid)
			r.slots[want.Slot] = newSlotView(sid)
		}
	case lifecycle.ResultSSE:
		events := client.Events(resp.Body)
		if len(events) != 1 || events[0].ID == "" {
			return fmt.Sprintf("%d events, want one with an id", len(events))
		}
		uri := `"kb://tenant/` + want.Tenant + `"`
		otherURI := `"kb://tenant/` + lifecycle.Identities[r.model.Sessions[e.Slot].Owner.Other()].Tenant + `"`
		if !strings.Contains(events[0].Data, uri) || strings.Contains(events[0].Data, otherURI) {
			return fmt.Sprintf("resources/list result %q, want %s only", events[0].Data, uri)
		}
		view.post = events[0].ID
	case lifecycle.Stream:
		return r.stream(e, resp, want)
	}
	return ""
}

// stream checks a GET answer: a priming event with an id and no data, then
// exactly the predicted notifications, none from another session; a
// cursorless GET repeats none; a cursor GET replays a notification under
// the id it was first delivered with; nothing new reuses an id.
func (r *rig) stream(e lifecycle.Event, resp *httpparse.Response, want lifecycle.Answer) string {
	view := &r.slots[e.Slot]
	other := &r.slots[1-e.Slot]
	events := client.Events(resp.Body)
	if len(events) == 0 || events[0].ID == "" || events[0].Data != "" {
		return "the stream does not start with a priming event"
	}
	var labels []string
	for _, ev := range events[1:] {
		labels = append(labels, label(ev.Data))
	}
	if !slices.Equal(labels, want.Events) {
		return fmt.Sprintf("stream events %v, want %v", labels, want.Events)
	}
	cursorless := e.Kind == lifecycle.Get
	for i, ev := range events {
		if other.getIDs[ev.ID] {
			return "an event id of the other session's stream"
		}
		if i == 0 {
			if view.getIDs[ev.ID] {
				return "a priming id used before"
			}
			continue
		}
		l := labels[i-1]
		if l != lifecycle.ListChanged && !strings.HasPrefix(l, "s"+strconv.Itoa(e.Slot)+"-") {
			return "a notification queued for the other session: " + l
		}
		first, again := view.deliveredAs[l]
		switch {
		case again && cursorless:
			return "a cursorless GET delivered " + l + " again"
		case again && ev.ID != first:
			return "a replay of " + l + " under another id than its first delivery's"
		case !again && view.getIDs[ev.ID]:
			return "a new notification under an id used before: " + l
		case !again:
			view.deliveredAs[l] = ev.ID
		}
	}
	for _, ev := range events {
		view.getIDs[ev.ID] = true
	}
	if view.firstGet == "" {
		view.firstGet = events[0].ID
	}
	view.lastGet = events[len(events)-1].ID
	return ""
}

// label names a notification by its data: list_changed, or the label a
// Notify step put in it.
func label(data string) string {
	var n struct {
		Method string `json:"method"`
		Params struct {
			Data string `json:"data"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(data), &n); err != nil {
		return "undecodable:" + data
	}
	switch n.Method {
	case "notifications/resources/list_changed":
		return lifecycle.ListChanged
	case "notifications/message":
		return n.Params.Data
	}
	return "unexpected:" + n.Method
}

// invariants are checked after every step: the table holds exactly the
// model's live sessions, never more than its capacity.
func (r *rig) invariants() string {
	n := r.srv.Sessions.Len(r.now())
	if n > r.model.Capacity {
		return fmt.Sprintf("%d live session(s), capacity %d", n, r.model.Capacity)
	}
	if n != r.model.Live() {
		return fmt.Sprintf("%d live session(s), the model has %d", n, r.model.Live())
	}
	return ""
}
