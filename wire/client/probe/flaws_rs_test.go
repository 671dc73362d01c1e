package probe_test

import (
	"bytes"
	"strings"

	"rawmcp/wire/client/probe"
)

var rsFlaws = []flawCase{
	// Without a length the body ends at the close, and the proxy keeps
	// the connection: the stream stays open after its response. DP-07,
	// with nothing to judge on rawmcp's GET streams (they end at once),
	// judges the POST stream, open and on time.
	{check: "RS-01", name: "a POST stream stays open after its response", want: probe.Warn, says: "the stream was still open",
		also: map[string]probe.Verdict{"DP-07": probe.Pass},
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if r.method == "POST" && field(ans, "Content-Type") == "text/event-stream" {
				return withoutField(ans, "Content-Length")
			}
			return ans
		}}},
	{check: "RS-02", name: "any session's event id replays its stream", want: probe.Fail, says: "session B's stream replayed", flaw: replaysAnyStream()},
	{check: "RS-03", name: "a malformed cursor replays a response", want: probe.Fail, says: "replayed a JSON-RPC response",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "GET" && r.get("Last-Event-ID") == "x" {
				return answer("200 OK", "text/event-stream", "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
			}
			return nil
		}}},
}

// replaysAnyStream is a server that keeps every event stream it sent, by
// the ids of its events, and answers a GET whose Last-Event-ID is one of
// them with that stream, whichever session asks.
func replaysAnyStream() flaw {
	return flaw{
		request: func(p *flawProxy, r *proxied) []byte {
			cursor := r.get("Last-Event-ID")
			if r.method != "GET" || cursor == "" {
				return nil
			}
			if stream, ok := stateOf[memo[[]byte]](p, "streams").get(cursor); ok {
				return answer("200 OK", "text/event-stream", string(stream))
			}
			return nil
		},
		response: func(p *flawProxy, _ *proxied, ans []byte) []byte {
			if field(ans, "Content-Type") != "text/event-stream" {
				return ans
			}
			_, body, _ := bytes.Cut(ans, []byte("\r\n\r\n"))
			for _, line := range strings.Split(string(body), "\n") {
				if id, ok := strings.CutPrefix(line, "id: "); ok {
					stateOf[memo[[]byte]](p, "streams").put(id, body)
				}
			}
			return ans
		},
	}
}
