package fuzz

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rawmcp/httpparse"
	"rawmcp/wire"
)

// FuzzServer feeds raw bytes to the whole server through one socket pair
// (sockConn), so the server runs its production socket code, written in
// fuzzer-chosen chunk sizes, and checks what comes back. Invariant:
//
//   - no panic, and the connection is closed within hangTimeout of the
//     input ending (no hang);
//   - the output is a sequence of well-formed HTTP/1.1 responses with
//     nothing left over;
//   - every final response has one Date, Cache-Control: no-store and
//     exactly one framing: Content-Length, none on 204 (RFC 9112 §6.3,
//     H-43, H-47); never Transfer-Encoding;
//   - a 100 Continue comes only before a final response (never two in a
//     row), and never more often than the input asked for 100-continue
//     (H-P13);
//   - every 4xx/5xx carries Connection: close and its constant JSON-RPC
//     error body, and nothing follows any response that said
//     Connection: close: nothing is answered after a close (T-P14, H-P09,
//     H-38);
//   - no response carries a bearer token, no error response carries a
//     session id (A-33, T-05);
//   - every status is one rawmcp emits, and never 500: an internal error
//     means a broken invariant inside;
//   - there are never more final responses than the input could hold
//     requests: one per CRLF CRLF, plus one refusal of a partial request.
func FuzzServer(f *testing.F) {
	for _, s := range serverSeeds(learnHappyPath(f)) {
		f.Add(s.input, s.chunk)
	}
	f.Fuzz(func(t *testing.T, input []byte, chunk uint16) {
		srv := newFuzzServer(t)
		defer shutdown(t, srv)
		out := serve(t, srv, input, int(chunk))
		if err := serverOutputFault(input, out); err != nil {
			t.Fatal(err)
		}
	})
}

// shutdown ends srv after its connection closed, so no goroutine outlives
// the input; it fails if one does not end.
func shutdown(tb testing.TB, srv *wire.Server) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangTimeout)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		tb.Fatalf("connection goroutines still running after close: %v", err)
	}
}

// happyPath holds what a fresh server issues on the happy path, which
// is the same on every fresh server: seeds that name these ids reach the
// session's branches.
type happyPath struct {
	session string
	postID  string // the resources/list answer's event id (a POST stream)
	priming string // the first GET's priming id
}

// learnHappyPath serves initialize, notifications/initialized, ping,
// resources/list and a GET on a fresh server, the prefix of the happy
// path seed, and returns the ids they issue.
func learnHappyPath(tb testing.TB) happyPath {
	tb.Helper()
	srv := newFuzzServer(tb)
	defer shutdown(tb, srv)
	var h happyPath
	resps, _ := serveExpecting(tb, srv, postRequest(tokenAlice, "", initializeBody(1)), 200)
	h.session, _ = resps[0].Get("Mcp-Session-Id")
	resps, _ = serveExpecting(tb, srv, concat(
		postRequest(tokenAlice, h.session, initializedBody),
		postRequest(tokenAlice, h.session, pingBody),
		postRequest(tokenAlice, h.session, listResourcesBody),
		getRequest(tokenAlice, h.session, "")), 202, 200, 200, 200)
	h.postID = decodeStream(tb, resps[2].Body)[0].ID
	h.priming = decodeStream(tb, resps[3].Body)[0].ID
	return h
}

// serveExpecting serves input on a new connection to srv and fails unless
// the answers have exactly the given statuses. It returns them and the
// raw output.
func serveExpecting(tb testing.TB, srv *wire.Server, input []byte, statuses ...int) ([]httpparse.Response, []byte) {
	tb.Helper()
	out := serve(tb, srv, input, 0)
	resps, _, _, err := parseAll(out)
	if err != nil {
		tb.Fatalf("setup: malformed response: %v", err)
	}
	var got []int
	for _, r := range resps {
		got = append(got, r.Status)
	}
	if !slices.Equal(got, statuses) {
		tb.Fatalf("setup: statuses %v, want %v", got, statuses)
	}
	return resps, out
}

type serverSeed struct {
	name  string
	input []byte
	chunk uint16
}

// serverSeeds are realistic requests and the attack shapes, alone and
// pipelined, naming the ids fresh servers issue.
func serverSeeds(h happyPath) []serverSeed {
	const host = "Host: " + fuzzHost + "\r\n"
	const auth = "Authorization: Bearer " + tokenAlice + "\r\n"
	const mcpHeads = host + "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n" + auth
	raw := func(s string) []byte { return []byte(s) }
	a, session := tokenAlice, h.session
	initialize := postRequest(a, "", initializeBody(1))
	handshake := concat(initialize, postRequest(a, session, initializedBody))
	ping := postRequest(a, "", pingBody)
	happy := concat(handshake,
		postRequest(a, session, pingBody),
		postRequest(a, session, listResourcesBody),
		getRequest(a, session, ""),
		getRequest(a, session, h.priming),
		deleteRequest(a, session),
		postRequest(a, session, pingBody))
	pingHead := "POST /mcp HTTP/1.1\r\n" + mcpHeads
	pingLength := "Content-Length: " + strconv.Itoa(len(pingBody)) + "\r\n"
	duplicateKey := `{"jsonrpc":"2.0","id":2,"method":"ping","id":3}`
	hugeValue := strings.Repeat("a", 2048)
	var huge strings.Builder
	huge.WriteString("GET /mcp HTTP/1.1\r\n" + host)
	for range 6 {
		huge.WriteString("X-Fill: " + hugeValue + "\r\n")
	}
	huge.WriteString("\r\n")
	var many strings.Builder
	many.WriteString("GET /mcp HTTP/1.1\r\n" + host)
	for i := range 32 {
		many.WriteString("X-" + strconv.Itoa(i) + ": v\r\n")
	}
	many.WriteString("\r\n")
	return []serverSeed{
		{"happy path pipelined", happy, 0},
		{"happy path one byte per read", happy, 1},
		{"happy path in 13-byte reads", happy, 13},
		{"initialize", initialize, 0},
		{"ping before any session", ping, 0},
		{"second initialize on the session", concat(handshake, postRequest(a, session, initializeBody(4))), 0},
		{"bob on alice's session", concat(handshake, postRequest(tokenBob, session, listResourcesBody)), 0},
		{"GET with a priming id before any GET", concat(handshake, getRequest(a, session, h.priming)), 0},
		{"nine initializes: capacity", bytes.Repeat(initialize, 9), 0},
		{"metadata then ping", concat(raw("GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\n"+host+"Accept: application/json\r\n\r\n"), ping), 0},
		{"metadata root with Authorization", raw("GET /.well-known/oauth-protected-resource HTTP/1.1\r\n" + host + auth + "\r\n"), 0},
		{"CL and TE", raw("POST /mcp HTTP/1.1\r\n" + host + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /mcp HTTP/1.1\r\n" + host + "\r\n"), 0},
		{"TE chunked alone", raw("POST /mcp HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"), 0},
		{"duplicate Content-Length", raw(pingHead + pingLength + pingLength + "\r\n" + pingBody), 0},
		{"obs-fold", raw("GET /mcp HTTP/1.1\r\n" + host + "Accept: text/event-stream,\r\n application/json\r\n\r\n"), 0},
		{"bare LF", raw("GET /mcp HTTP/1.1\n" + "Host: " + fuzzHost + "\n\n"), 0},
		{"bare CR", raw("GET /mcp HTTP/1.1\r" + host + "\r\n"), 0},
		{"pipelined pings then a refusal then a ping", concat(ping, ping, raw("GET /mcp HTTP/1.1\r\nHost: evil.example\r\n\r\n"), ping), 3},
		{"huge header section", raw(huge.String()), 0},
		{"33 fields", raw(many.String()), 0},
		{"Expect 100-continue, body in a later read", raw(pingHead + "Expect: 100-continue\r\n" + pingLength + "\r\n" + pingBody), 16},
		{"Expect 100-continue, body never sent", raw(pingHead + "Expect: 100-continue\r\n" + pingLength + "\r\n"), 0},
		{"Expect 100-continue refused before the body", raw("POST /mcp HTTP/1.1\r\n" + host + "Accept: application/json, text/event-stream\r\nContent-Type: text/plain\r\nExpect: 100-continue\r\n" + pingLength + "\r\n" + pingBody), 8},
		{"Expect other", raw(pingHead + "Expect: 200-ok\r\n" + pingLength + "\r\n" + pingBody), 0},
		{"HTTP/1.0", raw("GET /mcp HTTP/1.0\r\n\r\n"), 0},
		{"absolute-form", raw("GET http://" + fuzzHost + "/mcp HTTP/1.1\r\n" + host + "\r\n"), 0},
		{"query", raw("GET /mcp?sessionId=x HTTP/1.1\r\n" + host + "\r\n"), 0},
		{"HEAD", raw("HEAD /mcp HTTP/1.1\r\n" + host + "\r\n"), 0},
		{"PUT", raw("PUT /mcp HTTP/1.1\r\n" + host + "Content-Length: 0\r\n\r\n"), 0},
		{"unknown method", raw("BREW /mcp HTTP/1.1\r\n" + host + "\r\n"), 0},
		{"unknown path", raw("GET /MCP HTTP/1.1\r\n" + host + "\r\n"), 0},
		{"foreign Host", raw("GET /mcp HTTP/1.1\r\nHost: attacker.example:8080\r\n\r\n"), 0},
		{"foreign Origin", raw(pingHead + "Origin: http://attacker.example\r\n" + pingLength + "\r\n" + pingBody), 0},
		{"no Authorization", raw("POST /mcp HTTP/1.1\r\n" + host + "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n" + pingLength + "\r\n" + pingBody), 0},
		{"Basic credentials", raw("POST /mcp HTTP/1.1\r\n" + host + "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\nAuthorization: Basic YWxpY2U6cHc=\r\n" + pingLength + "\r\n" + pingBody), 0},
		{"Content-Length over the limit", raw(pingHead + "Content-Length: 16385\r\n\r\n"), 0},
		{"body cut short", raw(pingHead + pingLength + "\r\n{\"jsonrpc\""), 0},
		{"Connection: close then another request", concat(raw(pingHead+"Connection: close\r\n"+pingLength+"\r\n"+pingBody), ping), 0},
		{"one leading CRLF", concat(raw("\r\n"), ping), 0},
		{"two leading CRLFs", concat(raw("\r\n\r\n"), ping), 0},
		{"duplicate JSON key", raw(pingHead + "Content-Length: " + strconv.Itoa(len(duplicateKey)) + "\r\n\r\n" + duplicateKey), 0},
		{"batch array", raw(pingHead + "Content-Length: " + strconv.Itoa(len(pingBody)+2) + "\r\n\r\n[" + pingBody + "]"), 0},
		{"malformed session id", raw(pingHead + "Mcp-Session-Id: short\r\nMCP-Protocol-Version: 2025-11-25\r\n" + pingLength + "\r\n" + pingBody), 0},
		{"Last-Event-ID of a POST stream", concat(handshake, postRequest(a, session, listResourcesBody), getRequest(a, session, ""), getRequest(a, session, h.postID)), 0},
		{"DELETE then GET", concat(handshake, deleteRequest(a, session), getRequest(a, session, "")), 0},
	}
}
