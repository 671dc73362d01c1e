package probe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe"
)

// exploreOptions bounds a test's exploration: a short GET window (the
// servers here send their first event at once or never).
func exploreOptions(walks int, seed uint64) probe.ExploreOptions {
	return probe.ExploreOptions{Walks: walks, Seed: seed, Window: 300 * time.Millisecond}
}

func explore(t *testing.T, addr string, opts probe.Options, x probe.ExploreOptions) *probe.Exploration {
	t.Helper()
	target, err := probe.ParseTarget("http://" + addr + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := probe.Explore(context.Background(), target, opts, x)
	if err != nil {
		t.Fatalf("Explore: %v", err)
	}
	return e
}

func tokens() probe.Options {
	return probe.Options{Token: alice, Token2: bob, Timeout: 20 * time.Second}
}

// summary is a finding as a test compares it: rule, verdict, and the
// shrunk walk's steps, the last (the one that broke the rule, whichever
// request the walk drew) as "*" when it is any request on a session.
type summary struct {
	Rule    string
	Verdict probe.Verdict
	Shrunk  []string
}

func summaries(e *probe.Exploration, anyLast bool) []summary {
	var out []summary
	for _, f := range e.Findings {
		s := summary{Rule: f.Rule, Verdict: f.Verdict}
		if f.Shrunk != nil {
			for _, st := range f.Shrunk.Walk().Steps {
				s.Shrunk = append(s.Shrunk, stepClass(st))
			}
			if anyLast && len(s.Shrunk) > 1 {
				s.Shrunk[len(s.Shrunk)-1] = "*"
			}
		}
		out = append(out, s)
	}
	return out
}

// stepClass names a step, every GET op as "GET": a flaw that turns on
// any GET is shrunk to whichever GET the walk drew.
func stepClass(s probe.Step) string {
	if strings.HasPrefix(string(s.Op), "get") {
		return "GET on session " + strconv.Itoa(s.Session+1)
	}
	return s.String()
}

func transcript(e *probe.Exploration) string {
	var b strings.Builder
	e.WriteText(&b, "")
	return b.String()
}

// TestRandomWalkIsAFunctionOfTheSeed: the same seed draws the same walks,
// whatever the server; each starts with initialize, has 2 to 8 steps,
// names only sessions already opened, and uses the second token only
// when there is one.
func TestRandomWalkIsAFunctionOfTheSeed(t *testing.T) {
	for i := range 200 {
		a, b := probe.RandomWalk(7, i, 8, true), probe.RandomWalk(7, i, 8, true)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("walk %d differs for the same seed (-first +second):\n%s", i, diff)
		}
		if len(a.Steps) < 2 || len(a.Steps) > 8 || a.Steps[0].Op != probe.OpInitialize {
			t.Fatalf("walk %d: %v", i, a.Steps)
		}
		opened := 0
		for _, s := range a.Steps {
			if s.Op == probe.OpInitialize {
				opened++
			} else if s.Session >= opened {
				t.Fatalf("walk %d names session %d of %d opened: %v", i, s.Session+1, opened, a.Steps)
			}
		}
		if opened > 2 {
			t.Fatalf("walk %d opens %d sessions", i, opened)
		}
		for _, s := range probe.RandomWalk(7, i, 8, false).Steps {
			if s.Op == probe.OpOther {
				t.Fatalf("walk %d sends the second token without one", i)
			}
		}
	}
	if cmp.Equal(probe.RandomWalk(7, 0, 8, true), probe.RandomWalk(8, 0, 8, true)) {
		t.Error("seeds 7 and 8 drew the same first walk")
	}
}

// TestExploreRawmcpFindsNothing: rawmcp serve meets every rule over 50
// walks, and every session a walk opened is gone at its end.
func TestExploreRawmcpFindsNothing(t *testing.T) {
	srv := startRawmcp(t)
	e := explore(t, srv.Addr, tokens(), exploreOptions(50, 1))
	if len(e.Findings) > 0 || len(e.Walks) != 50 {
		t.Fatalf("%d walks, findings:\n%s", len(e.Walks), transcript(e))
	}
	if n := srv.Sessions.Len(time.Now()); n != 0 {
		t.Errorf("%d sessions live after the walks, want 0", n)
	}
}

// servedAfterDeleteOnceGot is the planted failure of the shrinker's test:
// a session a DELETE ended is served again, but only if a GET came on it
// before the DELETE. Its shortest walk is initialize, a GET, DELETE and
// one request more.
func servedAfterDeleteOnceGot(p *flawProxy, r *proxied) []byte {
	got := stateOf[memo[bool]](p, "got")
	id := r.get("Mcp-Session-Id")
	p.mu.Lock()
	gone := p.deleted[id]
	p.mu.Unlock()
	if !gone {
		if r.method == "GET" {
			got.put(id, true)
		}
		return nil
	}
	if had, _ := got.get(id); !had || r.method == "DELETE" {
		return nil
	}
	return serveDeleted(p, r)
}

// noEventIDs answers every GET the server serves with a stream of two
// messages and no event id: a server that does not make streams
// resumable (Transports §2.4: MAY).
func noEventIDs(p *flawProxy, r *proxied, answer []byte) []byte {
	if r.method != "GET" || !isStatus(answer, "200") {
		return answer
	}
	note := `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}` + "\n\n"
	return withoutField([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: "+strconv.Itoa(2*len(note))+"\r\n\r\n"+note+note), "")
}

// forbidOther answers 403 to the second principal on any session: a
// server that tells it the session exists (SE-07 notes it; the spec's
// SHOULD is 404).
func forbidOther(p *flawProxy, r *proxied) []byte {
	if r.get("Mcp-Session-Id") != "" && r.get("Authorization") == "Bearer "+bob {
		return answer("403 Forbidden", "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"forbidden"}}`)
	}
	return nil
}

// anyVersion serves a request whatever MCP-Protocol-Version it names:
// the header goes to the server as the negotiated one.
func anyVersion(p *flawProxy, r *proxied) []byte {
	if r.get("MCP-Protocol-Version") == "2099-12-31" {
		r.set("MCP-Protocol-Version", "2025-11-25")
	}
	return nil
}

// pingAnswersAnother answers a ping with the response to another id.
func pingAnswersAnother(p *flawProxy, r *proxied, answer []byte) []byte {
	if !bytes.Contains(r.body, []byte(`"method":"ping"`)) {
		return answer
	}
	return served([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
}

// getReplays answers every GET on a live session with the same event,
// which is a response.
func getReplays(p *flawProxy, r *proxied) []byte {
	p.mu.Lock()
	gone := p.deleted[r.get("Mcp-Session-Id")]
	p.mu.Unlock()
	if r.method != "GET" || gone || r.get("Last-Event-ID") != "" || r.get("MCP-Protocol-Version") != "2025-11-25" {
		return nil
	}
	return answer("200 OK", "text/event-stream", "id: 7\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\n")
}

// resumeDeliversStranger answers a GET with any Last-Event-ID with a
// response to a request the client never sent.
func resumeDeliversStranger(p *flawProxy, r *proxied) []byte {
	p.mu.Lock()
	gone := p.deleted[r.get("Mcp-Session-Id")]
	p.mu.Unlock()
	if r.method != "GET" || gone || r.get("Last-Event-ID") == "" || r.get("MCP-Protocol-Version") != "2025-11-25" {
		return nil
	}
	return answer("200 OK", "text/event-stream", "id: 8\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\n")
}

// pingRefused answers a ping on a session with a JSON-RPC error.
func pingRefused(p *flawProxy, r *proxied) []byte {
	p.mu.Lock()
	gone := p.deleted[r.get("Mcp-Session-Id")]
	p.mu.Unlock()
	if gone || r.get("Mcp-Session-Id") == "" || !bytes.Contains(r.body, []byte(`"method":"ping"`)) {
		return nil
	}
	return answer("200 OK", "application/json", strings.Replace(result(r.body), `"result":{}`, `"error":{"code":-32603,"message":"no"}`, 1))
}

// TestExploreFindings: what -explore finds behind each flaw, and the
// shortest walk it shrinks each finding to.
func TestExploreFindings(t *testing.T) {
	srv := startRawmcp(t)
	for _, tc := range []struct {
		name    string
		flaw    flaw
		walks   int
		anyLast bool // the breaking step may be any request
		want    []summary
	}{
		{name: "EX-01: a session served after DELETE (mcp-go's)", flaw: flaw{request: serveDeleted}, walks: 20, anyLast: true,
			want: []summary{{Rule: "EX-01", Verdict: probe.Fail, Shrunk: []string{"initialize", "delete on session 1", "*"}}}},
		{name: "EX-01: served after DELETE only when a GET came first", flaw: flaw{request: servedAfterDeleteOnceGot}, walks: 200, anyLast: true,
			want: []summary{{Rule: "EX-01", Verdict: probe.Fail, Shrunk: []string{"initialize", "GET on session 1", "delete on session 1", "*"}}}},
		{name: "403 to another principal is a SHOULD: warn, never fail", flaw: flaw{request: forbidOther}, walks: 20,
			want: []summary{{Rule: "EX-08", Verdict: probe.Warn, Shrunk: []string{"initialize", "list-as-token2 on session 1"}}}},
		{name: "streams without event ids break nothing", flaw: flaw{response: noEventIDs}, walks: 30},
		{name: "EX-02: an unsupported MCP-Protocol-Version served", flaw: flaw{request: anyVersion}, walks: 20,
			want: []summary{{Rule: "EX-02", Verdict: probe.Fail, Shrunk: []string{"initialize", "GET on session 1"}}}},
		{name: "EX-03: a POST answered with another request's response", flaw: flaw{response: pingAnswersAnother}, walks: 20,
			want: []summary{{Rule: "EX-03", Verdict: probe.Fail, Shrunk: []string{"initialize", "ping on session 1"}}}},
		{name: "EX-04, EX-06: a cursorless GET carries a response, the same event every time", flaw: flaw{request: getReplays}, walks: 20,
			want: []summary{
				{Rule: "EX-04", Verdict: probe.Fail, Shrunk: []string{"initialize", "GET on session 1"}},
				{Rule: "EX-06", Verdict: probe.Fail, Shrunk: []string{"initialize", "GET on session 1", "GET on session 1"}},
			}},
		{name: "EX-05: a resumed GET delivers a response the session never asked for", flaw: flaw{request: resumeDeliversStranger}, walks: 20,
			want: []summary{{Rule: "EX-05", Verdict: probe.Fail, Shrunk: []string{"initialize", "GET on session 1"}}}},
		{name: "EX-07: ping answered with an error once initialized", flaw: flaw{request: pingRefused}, walks: 60,
			want: []summary{{Rule: "EX-07", Verdict: probe.Fail, Shrunk: []string{"initialize", "initialized on session 1", "ping on session 1"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := startProxy(t, srv.Addr, tc.flaw)
			e := explore(t, addr, tokens(), exploreOptions(tc.walks, 3))
			if diff := cmp.Diff(tc.want, summaries(e, tc.anyLast)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%s", diff, transcript(e))
			}
		})
	}
}

// TestReplayReproduces: the shortest walk of a finding, saved as JSON
// and read back, breaks the same rule again when replayed, unshrunk, with
// every step's exchanges; so does the -json document's.
func TestReplayReproduces(t *testing.T) {
	srv := startRawmcp(t)
	addr := startProxy(t, srv.Addr, flaw{request: serveDeleted})
	found := explore(t, addr, tokens(), exploreOptions(20, 3))
	saved, err := json.Marshal(found.SavedWalks())
	if err != nil {
		t.Fatal(err)
	}
	var doc strings.Builder
	if err := found.WriteJSON(&doc); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"-explore-save": saved, "-json": []byte(doc.String())} {
		t.Run(name, func(t *testing.T) {
			walks, err := probe.ParseWalks(data)
			if err != nil {
				t.Fatal(err)
			}
			x := exploreOptions(0, 0)
			x.Replay = walks
			again := explore(t, addr, tokens(), x)
			if diff := cmp.Diff(summaries(found, false), summaries(again, false)); diff != "" {
				t.Errorf("replayed findings (-found +replayed):\n%s", diff)
			}
			if len(again.Walks) != 1 || len(again.Walks[0].Steps[0].Exchanges) == 0 {
				t.Errorf("a replayed walk keeps its exchanges: %+v", again.Walks)
			}
		})
	}
}

// TestParseWalks: a replay file is a walk, a list of walks or an
// -explore -json document; anything else, an op outside the alphabet or
// a session past the walk's two, is refused.
func TestParseWalks(t *testing.T) {
	walk := probe.Walk{Steps: []probe.Step{{Op: probe.OpInitialize}, {Op: probe.OpDelete, Session: 1}}}
	for _, tc := range []struct {
		name, data string
		want       []probe.Walk
		err        error
	}{
		{name: "a walk", data: `{"steps":[{"op":"initialize"},{"op":"delete","session":1}]}`, want: []probe.Walk{walk}},
		{name: "a list of walks", data: `[{"steps":[{"op":"initialize"},{"op":"delete","session":1}]}]`, want: []probe.Walk{walk}},
		{name: "a -json document", data: `{"findings":[{"rule":"EX-01","shrunk":{"steps":[{"op":"initialize","actual":"200"},{"op":"delete","session":1}]}}]}`, want: []probe.Walk{walk}},
		{name: "no walk", data: `{"findings":[]}`, err: probe.ErrBadWalks},
		{name: "an empty walk", data: `[{"steps":[]}]`, err: probe.ErrBadWalks},
		{name: "an op outside the alphabet", data: `{"steps":[{"op":"initialise"}]}`, err: probe.ErrBadWalks},
		{name: "session 2 is the last a walk holds", data: `{"steps":[{"op":"ping","session":2}]}`, err: probe.ErrBadWalks},
		{name: "not JSON", data: `steps`, err: probe.ErrBadWalks},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := probe.ParseWalks([]byte(tc.data))
			if err != tc.err {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("walks (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExploreBounds: walks have 2 to 64 steps; the bounds are checked
// before any request (the URL here has no server).
func TestExploreBounds(t *testing.T) {
	target, err := probe.ParseTarget("http://127.0.0.1:1/mcp")
	if err != nil {
		t.Fatal(err)
	}
	long := probe.Walk{}
	for range 65 {
		long.Steps = append(long.Steps, probe.Step{Op: probe.OpPing})
	}
	for _, tc := range []struct {
		name  string
		x     probe.ExploreOptions
		bound bool
	}{
		{name: "1 step", x: probe.ExploreOptions{Walks: 1, Steps: 1}, bound: true},
		{name: "2 steps", x: probe.ExploreOptions{Walks: 1, Steps: 2}},
		{name: "64 steps", x: probe.ExploreOptions{Walks: 1, Steps: 64}},
		{name: "65 steps", x: probe.ExploreOptions{Walks: 1, Steps: 65}, bound: true},
		{name: "a replayed walk of 64 steps", x: probe.ExploreOptions{Replay: []probe.Walk{{Steps: long.Steps[:64]}}}},
		{name: "a replayed walk of 65 steps", x: probe.ExploreOptions{Replay: []probe.Walk{long}}, bound: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := probe.Explore(context.Background(), target, probe.Options{Timeout: time.Second}, tc.x)
			if got := err == probe.ErrExploreBounds; got != tc.bound {
				t.Errorf("err %v; want ErrExploreBounds: %v", err, tc.bound)
			}
		})
	}
}

// TestExploreRequestCap: walks that would pass the request cap are not
// run, and the exploration says how many.
func TestExploreRequestCap(t *testing.T) {
	srv := startRawmcp(t)
	x := exploreOptions(50, 1)
	x.MaxRequests = 60
	e := explore(t, srv.Addr, tokens(), x)
	if e.Requests > 60 || e.Capped == 0 || len(e.Walks)+e.Capped != 50 {
		t.Errorf("%d requests for a cap of 60; %d walks run, %d not run", e.Requests, len(e.Walks), e.Capped)
	}
}
