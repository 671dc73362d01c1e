package loadgen_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/loadgen"
)

// stubServer is a minimal MCP endpoint on net/http, standing for the
// other servers rawmcp bench measures. answer writes the reply to one
// ping or resources/list request with the given raw JSON id.
func stubServer(t *testing.T, answer func(w http.ResponseWriter, id json.RawMessage)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if r.Method == http.MethodDelete {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		switch msg.Method {
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "stub-session")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"stub","version":"1"}}}`, msg.ID)
		case "notifications/initialized":
			w.WriteHeader(http.StatusAccepted)
		default:
			answer(w, msg.ID)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// chunked flushes before the handler ends, so net/http frames the body
// with Transfer-Encoding: chunked.
func chunked(contentType, body string) func(http.ResponseWriter, json.RawMessage) {
	return func(w http.ResponseWriter, id json.RawMessage) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, fmt.Sprintf(body, id)[:10])
		w.(http.Flusher).Flush()
		io.WriteString(w, fmt.Sprintf(body, id)[10:])
	}
}

// closeDelimited writes a response with neither Content-Length nor
// chunked: its body ends when the connection closes (RFC 9112 §6.3 item 8).
func closeDelimited(contentType, body string) func(http.ResponseWriter, json.RawMessage) {
	return func(w http.ResponseWriter, id json.RawMessage) {
		nc, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer nc.Close()
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nConnection: close\r\n\r\n"+body, contentType, id)
		buf.Flush()
	}
}

// rawResponse writes bytes that are no valid HTTP/1.1 response and closes.
func rawResponse(raw string) func(http.ResponseWriter, json.RawMessage) {
	return func(w http.ResponseWriter, _ json.RawMessage) {
		nc, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer nc.Close()
		buf.WriteString(raw)
		buf.Flush()
	}
}

func lengthFramed(status int, contentType, body string) func(http.ResponseWriter, json.RawMessage) {
	return func(w http.ResponseWriter, id json.RawMessage) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		fmt.Fprintf(w, body, id)
	}
}

const (
	pingResult = `{"jsonrpc":"2.0","id":%s,"result":{}}`
	listEvents = "event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n" +
		"event: message\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"resources\":[]}}\n\n"
)

// TestOtherServers runs rawmcp bench against answers framed and shaped
// the other ways HTTP/1.1 and MCP allow, and against wrong answers, which
// it must count by fault.
func TestOtherServers(t *testing.T) {
	const requests = 20
	for _, tc := range []struct {
		name   string
		method string
		answer func(http.ResponseWriter, json.RawMessage)
		want   map[loadgen.Fault]int64
	}{
		{"a chunked JSON body", "ping", chunked("application/json", pingResult), nil},
		{"a chunked event stream with a notification before the response", "resources", chunked("text/event-stream", listEvents), nil},
		{"close/a close-delimited JSON body, the connection dialled anew each time", "ping", closeDelimited("application/json", pingResult), nil},
		{"close/a close-delimited event stream, the connection dialled anew each time", "resources", closeDelimited("text/event-stream", listEvents), nil},
		{"resources/list answered as JSON", "resources", lengthFramed(200, "application/json; charset=utf-8", `{"jsonrpc":"2.0","id":%s,"result":{"resources":[]}}`), nil},
		{"a status other than 200", "ping", lengthFramed(503, "application/json", pingResult),
			map[loadgen.Fault]int64{loadgen.FaultStatus: requests}},
		{"another request's id", "ping", lengthFramed(200, "application/json", `{"jsonrpc":"2.0","id":"x%s","result":{}}`),
			map[loadgen.Fault]int64{loadgen.FaultNoResponse: requests}},
		{"a JSON-RPC error", "ping", lengthFramed(200, "application/json", `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`),
			map[loadgen.Fault]int64{loadgen.FaultRPCError: requests}},
		{"a result without resources", "resources", lengthFramed(200, "application/json", `{"jsonrpc":"2.0","id":%s,"result":{}}`),
			map[loadgen.Fault]int64{loadgen.FaultResult: requests}},
		{"duplicate keys are not strict JSON", "ping", lengthFramed(200, "application/json", `{"jsonrpc":"2.0","id":%s,"result":{},"result":{}}`),
			map[loadgen.Fault]int64{loadgen.FaultJSON: requests}},
		{"a text/html body", "ping", lengthFramed(200, "text/html", pingResult),
			map[loadgen.Fault]int64{loadgen.FaultContentType: requests}},
		{"an event stream cut before its blank line", "resources", lengthFramed(200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"resources\":[]}}\n"),
			map[loadgen.Fault]int64{loadgen.FaultSSE: requests}},
		{"close/bare LF line ends are not HTTP/1.1", "ping", rawResponse("HTTP/1.1 200 OK\nContent-Length: 2\n\n{}"),
			map[loadgen.Fault]int64{loadgen.FaultFraming: requests}},
		{"T-44/a 404 again after initializing anew", "ping", lengthFramed(404, "application/json", pingResult),
			map[loadgen.Fault]int64{loadgen.FaultSessionLost: requests}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := stubServer(t, tc.answer)
			wantCode := loadgen.ExitOK
			var failed int64
			for _, n := range tc.want {
				failed += n
				wantCode = loadgen.ExitErrors
			}
			code, res, _, stderr := runMain(t, "-url", srv.URL+"/mcp", "-json", "-conns", "2", "-requests", fmt.Sprint(requests), "-method", tc.method)
			want := summary{wantCode, tc.method, 2, 1, requests, failed, tc.want}
			if diff := cmp.Diff(want, summarize(code, res)); diff != "" {
				t.Errorf("result (-want +got):\n%s\nstderr: %s", diff, stderr)
			}
			// Every request after a connection's first comes on a new
			// connection when the server closes each: at least 18 of 20.
			if closes := strings.HasPrefix(tc.name, "close/"); closes && res.Reconnects < requests-2 || !closes && res.Reconnects != 0 {
				t.Errorf("%d reconnects", res.Reconnects)
			}
		})
	}
}

// TestTimeouts: an answer slower than -timeout counts as a transport fault,
// and the next request goes out on a new connection.
func TestTimeouts(t *testing.T) {
	srv := stubServer(t, func(w http.ResponseWriter, id json.RawMessage) {
		time.Sleep(300 * time.Millisecond)
		lengthFramed(200, "application/json", pingResult)(w, id)
	})
	code, res, _, stderr := runMain(t, "-url", srv.URL+"/mcp", "-json", "-conns", "2", "-requests", "4", "-timeout", "50ms")
	want := summary{loadgen.ExitErrors, "ping", 2, 1, 4, 4, map[loadgen.Fault]int64{loadgen.FaultTransport: 4}}
	if diff := cmp.Diff(want, summarize(code, res)); diff != "" {
		t.Errorf("result (-want +got):\n%s\nstderr: %s", diff, stderr)
	}
	if res.Reconnects < 2 {
		t.Errorf("%d reconnects, want at least 2: a connection that timed out is not reused", res.Reconnects)
	}
}
