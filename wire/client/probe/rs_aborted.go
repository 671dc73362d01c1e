package probe

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
)

// abortedStreams is how many streams RS-04 opens at once and abandons.
const abortedStreams = 16

// RS-04: streams a client abandons leave the server serving.
var rs04 = Check{ID: "RS-04", Level: Must, Source: "MCP 2025-11-25 Transports §Sending Messages 5 (a request MUST be answered), 6 (disconnection MAY occur at any time), §Multiple Connections; 2026-07-28 Transports §Cancellation (closing the stream cancels its request)",
	Section: "MCP 2025-11-25 Transports §Sending Messages to the Server", Keyword: "MUST", Binds: Server,
	Title:    "Aborted streams leave the server serving",
	Sends:    "three requests at once; 16 streams (subscriptions/listen or tools/list; 2025-11-25: GET), each closed once its head came; one more request",
	Passes:   "the three and the last answered with a result (server/discover, or ping on a session); the streams' answers not judged (the suite sends the three in server-sse-multiple-streams)",
	Fix:      "Treat a client that closes a response stream as having cancelled it: end the work, free the stream's resources and keep serving; a handler that blocks on a write to a gone client, or a per-session lock held by an abandoned stream, is the usual cause.",
	Link:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server",
	Sessions: 1, run: runRS04}

func runRS04(t *checkRun) outcome {
	var health func() ([]byte, int64)
	var stream []byte
	var what string
	if t.p.modern {
		health = func() ([]byte, int64) {
			req, id := t.modernRequest("server/discover", "")
			return req.Bytes(), id
		}
		stream, what = t.modernStreamToAbort()
	} else {
		s, o := t.open(t.p.authorization(), false)
		if o != nil {
			return *o
		}
		health = func() ([]byte, int64) {
			body, id := rpc("ping", "")
			return t.request("POST", s, body).Bytes(), id
		}
		stream, what = t.request("GET", s, nil).Bytes(), "GET streams on the session"
	}
	var raws [][]byte
	var ids []int64
	for range 3 {
		raw, id := health()
		raws, ids = append(raws, raw), append(ids, id)
	}
	var unserved []string
	for i, r := range t.sendAll("three requests at once", raws) {
		t.must(r)
		if !r.isResult(ids[i]) {
			unserved = append(unserved, r.describe())
		}
	}
	if len(unserved) > 0 {
		return t.unmet("of three requests sent at once, %s", joinAnd(unserved)).with("each answered with a result", strings.Join(unserved, "; "))
	}
	opened := t.abandon(what, stream)
	raw, id := health()
	r := t.must(t.send("after the abandoned streams", raw, toResponse, 0))
	if !r.isResult(id) {
		return t.unmet("after %d %s were abandoned, a request %s", abortedStreams, what, r.describe()).with("a result", r.said())
	}
	return t.pass("three requests at once served; after %d %s abandoned (%s), a request was still served", abortedStreams, what, opened)
}

// modernStreamToAbort is the request whose streams RS-04 abandons on a
// 2026-07-28 target: a subscription when server/discover advertises a
// list change to listen for, else tools/list, else server/discover.
func (t *checkRun) modernStreamToAbort() ([]byte, string) {
	caps, _ := t.discoverCapabilities()
	for _, f := range listenFilters {
		var c map[string]json.RawMessage
		if json.Unmarshal(caps[f.capability], &c) == nil && string(c[f.flag]) == "true" {
			req, _ := t.modernRequest("subscriptions/listen", `{"notifications":{"`+f.filter+`":true}}`)
			return req.Bytes(), "subscriptions/listen streams"
		}
	}
	if _, ok := caps["tools"]; ok {
		req, _ := t.modernRequest("tools/list", "")
		return req.Bytes(), "tools/list answers"
	}
	req, _ := t.modernRequest("server/discover", "")
	return req.Bytes(), "server/discover answers"
}

// abandon sends raw abortedStreams times at once, each on its own
// connection closed as soon as the answer's head came, and records them;
// it says what the heads were.
func (t *checkRun) abandon(what string, raw []byte) string {
	replies := make([]*reply, abortedStreams)
	var wg sync.WaitGroup
	for i := range replies {
		wg.Go(func() { replies[i] = t.p.roundTrip(t.ctx, raw, toHead, 0) })
	}
	wg.Wait()
	statuses := map[string]int{}
	var order []string
	for i, r := range replies {
		r.close()
		t.record(what+" "+strconv.Itoa(i+1)+", closed after its head", raw, r)
		s := "no answer"
		if r.resp != nil {
			s = strconv.Itoa(r.status())
			if mt := r.mediaType(); mt != "" {
				s += " " + mt
			}
		}
		if statuses[s] == 0 {
			order = append(order, s)
		}
		statuses[s]++
	}
	var parts []string
	for _, s := range order {
		parts = append(parts, strconv.Itoa(statuses[s])+"× "+s)
	}
	return strings.Join(parts, ", ")
}
