package fuzz

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rawmcp/httpparse"
)

// emittedStatuses are the statuses rawmcp writes; anything else is a bug.
// 500 is left out on purpose: an internal error means an invariant inside
// the server broke, which is what fuzzing is for.
var emittedStatuses = []int{100, 200, 202, 204, 400, 401, 403, 404, 405, 406, 408, 411, 413, 414, 415, 417, 431, 501, 503, 505}

// The clauses of FuzzServer's invariant, one error each, so a test can
// tell which clause an output broke.
var (
	errMalformed     = errors.New("not a well-formed HTTP/1.1 response")
	errStatus        = errors.New("a status rawmcp never emits")
	errTooManyFinals = errors.New("more final responses than the input holds requests")
	errToken         = errors.New("a response carries a bearer token")
	errContinue      = errors.New("a 100 Continue out of place")
	errAfterClose    = errors.New("a response after Connection: close")
	errDate          = errors.New("not exactly one Date of the server's clock")
	errCacheControl  = errors.New("not exactly Cache-Control: no-store")
	errFraming       = errors.New("not exactly one Content-Length framing")
	errNoClose       = errors.New("an error response without Connection: close")
	errSessionLeak   = errors.New("an error response carries a session id")
	errErrorBody     = errors.New("not the constant JSON-RPC error body")
)

// serverOutputFault returns the first way out, the server's whole output
// for input, breaks FuzzServer's invariant, or nil. Its messages name
// response numbers, statuses and header values the server wrote, never
// request bytes.
func serverOutputFault(input, out []byte) error {
	resps, raws, headReads, err := parseAll(out)
	if err != nil {
		return fmt.Errorf("response %d: %w: %w", len(resps)+1, errMalformed, err)
	}
	var sessions []string
	for _, r := range resps {
		if r.Status < 300 {
			sessions = append(sessions, r.Values("Mcp-Session-Id")...)
		}
	}
	if finals, limit := countFinal(resps), requestLimit(input); finals > limit {
		return fmt.Errorf("%w: %d, at most %d", errTooManyFinals, finals, limit)
	}
	continues := 0
	for i, r := range resps {
		n, last := i+1, i == len(resps)-1
		if !slices.Contains(emittedStatuses, r.Status) {
			return fmt.Errorf("response %d: %w: %d", n, errStatus, r.Status)
		}
		if r.Proto != "HTTP/1.1" {
			return fmt.Errorf("response %d: %w: protocol %q", n, errMalformed, r.Proto)
		}
		for _, token := range []string{tokenAlice, tokenBob} {
			if bytes.Contains(raws[i], []byte(token)) {
				return fmt.Errorf("response %d: %w", n, errToken)
			}
		}
		if r.Status == 100 {
			continues++
			if !last && resps[i+1].Status == 100 {
				return fmt.Errorf("response %d: %w: after another", n+1, errContinue)
			}
			continue
		}
		if err := finalResponseFault(r, raws[i], headReads[i], sessions, input); err != nil {
			return fmt.Errorf("response %d: %w", n, err)
		}
		if r.Close && !last {
			return fmt.Errorf("response %d: %w: %d more follow", n, errAfterClose, len(resps)-n)
		}
	}
	if asked := bytes.Count(bytes.ToLower(input), []byte("100-continue")); continues > asked {
		return fmt.Errorf("%w: %d, asked for at most %d times", errContinue, continues, asked)
	}
	return nil
}

// finalResponseFault checks one final (non-1xx) response. headRead says
// it was read as the answer to HEAD: its Content-Length without a body.
func finalResponseFault(r httpparse.Response, raw []byte, headRead bool, sessions []string, input []byte) error {
	if got, want := r.Values("Date"), []string{fuzzNow.Format(http.TimeFormat)}; !slices.Equal(got, want) {
		return fmt.Errorf("%w: %q, want %q", errDate, got, want)
	}
	if got := r.Values("Cache-Control"); !slices.Equal(got, []string{"no-store"}) {
		return fmt.Errorf("%w: %q", errCacheControl, got)
	}
	if got := r.Values("Transfer-Encoding"); len(got) > 0 {
		return fmt.Errorf("%w: Transfer-Encoding %q", errFraming, got)
	}
	lengths := r.Values("Content-Length")
	switch {
	case r.Status == 204 && (len(lengths) != 0 || r.Framing != httpparse.FramingNone):
		return fmt.Errorf("%w: 204 with Content-Length %q or a body", errFraming, lengths)
	case r.Status != 204 && len(lengths) != 1:
		return fmt.Errorf("%w: %d Content-Length fields", errFraming, len(lengths))
	case r.Status != 204 && !headRead && r.Framing != httpparse.FramingLength:
		return fmt.Errorf("%w: %v", errFraming, r.Framing)
	}
	if headRead && (r.Status < 400 || !bytes.Contains(input, []byte("HEAD "))) {
		// Only a HEAD may get a Content-Length without the body; rawmcp
		// serves no HEAD, so only refusals of one.
		return fmt.Errorf("%w: %d without the body its Content-Length announces", errFraming, r.Status)
	}
	if r.Status < 400 {
		return nil
	}
	if conn, _ := r.Get("Connection"); !r.Close || !strings.EqualFold(conn, "close") {
		return fmt.Errorf("%w: %d", errNoClose, r.Status)
	}
	if _, ok := r.Get("Mcp-Session-Id"); ok {
		return fmt.Errorf("%w: %d with Mcp-Session-Id", errSessionLeak, r.Status)
	}
	for _, id := range sessions {
		if bytes.Contains(raw, []byte(id)) {
			return fmt.Errorf("%w: %d", errSessionLeak, r.Status)
		}
	}
	if headRead {
		return nil
	}
	return errorBodyFault(r)
}

// errorBodyFault checks the constant body of an error answer: a JSON-RPC
// error object without id (T-05, T-13), so no request byte can be in it.
func errorBodyFault(r httpparse.Response) error {
	if ct, _ := r.Get("Content-Type"); ct != "application/json" {
		return fmt.Errorf("%w: Content-Type %q", errErrorBody, ct)
	}
	var body struct {
		JSONRPC string `json:"jsonrpc"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || dec.More() {
		return errErrorBody
	}
	if body.JSONRPC != "2.0" || body.Error.Code == 0 || body.Error.Message == "" {
		return errErrorBody
	}
	return nil
}

func countFinal(resps []httpparse.Response) int {
	n := 0
	for _, r := range resps {
		if r.Status >= 200 {
			n++
		}
	}
	return n
}

// requestLimit is the most requests input could hold: every request head
// ends in its own CRLF CRLF, and at most one refusal answers a request
// that never completed.
func requestLimit(input []byte) int {
	return bytes.Count(input, []byte("\r\n\r\n")) + 1
}

// TestServerOutputFaults shows that each clause of FuzzServer's invariant
// can fail: fault-free outputs pass, and each other case breaks one clause.
func TestServerOutputFaults(t *testing.T) {
	date := "Date: " + fuzzNow.Format(http.TimeFormat) + "\r\n"
	const errBody = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request"}}`
	ok := "HTTP/1.1 200 OK\r\n" + date + "Cache-Control: no-store\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	refusalWith := func(body string) string {
		return "HTTP/1.1 400 Bad Request\r\n" + date + "Cache-Control: no-store\r\nContent-Type: application/json\r\nContent-Length: " +
			strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n" + body
	}
	refusal := refusalWith(errBody)
	withField := func(resp, field string) string { return strings.Replace(resp, "\r\n\r\n", "\r\n"+field+"\r\n\r\n", 1) }
	twoRequests := "GET /mcp HTTP/1.1\r\n\r\nGET /mcp HTTP/1.1\r\n\r\n"
	tests := []struct {
		name   string
		input  string
		output string
		want   error
	}{
		{"H-P09/a 2xx then a refusal passes", twoRequests, ok + refusal, nil},
		{"H-P13/100 Continue then the answer passes", "Expect: 100-continue\r\n\r\n", "HTTP/1.1 100 Continue\r\n\r\n" + ok, nil},
		{"H-P13/an unanswered 100 Continue passes", "Expect: 100-continue\r\n\r\n", "HTTP/1.1 100 Continue\r\n\r\n", nil},
		{"H-P12/a refusal of HEAD without its body passes", "HEAD /mcp HTTP/1.1\r\n\r\n", strings.TrimSuffix(refusal, errBody), nil},
		{"H-P09/nothing after a refusal", twoRequests, refusal + ok, errAfterClose},
		{"H-38/nothing after a 2xx with Connection: close", twoRequests, withField(ok, "Connection: close") + ok, errAfterClose},
		{"T-P14/a refusal without Connection: close", twoRequests, strings.Replace(refusal, "Connection: close\r\n", "", 1), errNoClose},
		{"more answers than requests", "GET /mcp HTTP/1.1\r\n\r\n", ok + ok + ok, errTooManyFinals},
		{"H-43/a final response without Date", twoRequests, strings.Replace(ok, date, "", 1), errDate},
		{"H-43/Cache-Control other than no-store", twoRequests, strings.Replace(ok, "no-store", "no-cache", 1), errCacheControl},
		{"H-47/a 204 with Content-Length", twoRequests, "HTTP/1.1 204 No Content\r\n" + date + "Cache-Control: no-store\r\nContent-Length: 0\r\n\r\n", errFraming},
		{"H-47/chunked framing", twoRequests, "HTTP/1.1 200 OK\r\n" + date + "Cache-Control: no-store\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", errFraming},
		{"H-47/a 2xx without its body", twoRequests, strings.TrimSuffix(ok, "{}"), errFraming},
		{"H-47/bytes that are no response", twoRequests, ok + "garbage\r\n\r\n", errMalformed},
		{"H-P13/two 100 Continue in a row", "100-continue 100-continue", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n" + ok, errContinue},
		{"H-P13/100 Continue unasked", twoRequests, "HTTP/1.1 100 Continue\r\n\r\n" + ok, errContinue},
		{"T-05/an error body with an id", twoRequests, refusalWith(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Bad Request"}}`), errErrorBody},
		{"T-05/an error body echoing request bytes", twoRequests, refusalWith(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request","data":"GET /mcp"}}`), errErrorBody},
		{"A-33/a bearer token in a response", twoRequests, withField(ok, "X-Echo: "+tokenAlice), errToken},
		{"T-05/a session id in a refusal", twoRequests, withField(ok, "Mcp-Session-Id: S3ss10n") + withField(refusal, "X-Echo: S3ss10n"), errSessionLeak},
		{"internal/a 500", twoRequests, strings.Replace(refusal, "400 Bad Request", "500 Internal Server Error", 1), errStatus},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := serverOutputFault([]byte(tc.input), []byte(tc.output))
			if tc.want == nil && err != nil || !errors.Is(err, tc.want) {
				t.Fatalf("serverOutputFault = %v, want %v", err, tc.want)
			}
		})
	}
}
