package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"rawmcp/httpparse"
	"rawmcp/sseframe"
	"rawmcp/state"
	"rawmcp/wire/client"
)

// The checks hold the server to the bytes the profile fixes. They are the
// client's own expectations, written independently of the server's code:
// a change on either side shows up as a difference.

// reasonPhrases are the reason phrases of RFC 9110 §15 for the statuses
// the scenarios expect.
var reasonPhrases = map[int]string{
	200: "OK", 202: "Accepted", 204: "No Content",
	400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
	406: "Not Acceptable", 415: "Unsupported Media Type",
	431: "Request Header Fields Too Large", 503: "Service Unavailable",
}

func statusLine(resp *httpparse.Response) string {
	return resp.Proto + " " + strconv.Itoa(resp.Status) + " " + resp.Reason
}

// wantStatus fails unless there is a response with status want.
func wantStatus(resp *httpparse.Response, err error, want int) error {
	if err != nil {
		return fmt.Errorf("want %d, got no response: %w", want, err)
	}
	if resp.Status != want {
		return fmt.Errorf("want %d %s, got %s", want, reasonPhrases[want], statusLine(resp))
	}
	return nil
}

// expectation is a whole response as the profile fixes it.
type expectation struct {
	status int
	// header lists every field the response must carry and no more, in
	// any order (RFC 9110 §5.3: the order of different fields carries no
	// meaning). Date and Mcp-Session-Id values are placeholders.
	header []httpparse.HeaderLine
	body   []byte
}

// Placeholders for values no client can predict, only validate.
const (
	anyDate      = "<IMF-fixdate>"
	anySessionID = "<a valid session id>"
)

// fields pairs up names and values.
func fields(nameValues ...string) []httpparse.HeaderLine {
	h := make([]httpparse.HeaderLine, 0, len(nameValues)/2)
	for i := 0; i+1 < len(nameValues); i += 2 {
		h = append(h, httpparse.HeaderLine{Name: nameValues[i], Value: nameValues[i+1]})
	}
	return h
}

// answer is a response with a body of the given type: Date (H-43),
// Cache-Control: no-store, Content-Type and Content-Length (H-49) on every
// one, X-Accel-Buffering: no on every event stream (so a buffering proxy
// passes it at once), and Connection: close on every 4xx/5xx (T-P14).
func answer(status int, contentType string, body []byte, extra ...string) expectation {
	h := fields("Date", anyDate, "Cache-Control", "no-store", "Content-Length", strconv.Itoa(len(body)))
	if contentType != "" {
		h = append(h, fields("Content-Type", contentType)...)
	}
	if contentType == acceptSSE {
		h = append(h, fields("X-Accel-Buffering", "no")...)
	}
	h = append(h, fields(extra...)...)
	if status >= 400 {
		h = append(h, fields("Connection", "close")...)
	}
	return expectation{status: status, header: h, body: body}
}

func jsonAnswer(status int, body string, extra ...string) expectation {
	return answer(status, contentJSON, []byte(body), extra...)
}

// JSON-RPC codes of the error bodies: -32000 for a refusal at the HTTP
// level, -32001 for a session not found (the TypeScript SDK's codes).
const (
	codeHTTPError       = -32000
	codeSessionNotFound = -32001
	codeParseError      = -32700
)

// refusal is an error answer: a constant JSON-RPC error without id
// (T-05, T-13) that never echoes a request byte.
func refusal(status, code int, extra ...string) expectation {
	message := reasonPhrases[status]
	switch {
	case status == 406:
		message = "Not Acceptable: use Accept: application/json, text/event-stream"
	case code == codeSessionNotFound:
		message = "Session not found"
	case code == codeParseError:
		message = "Parse error"
	}
	body := `{"jsonrpc":"2.0","error":{"code":` + strconv.Itoa(code) + `,"message":"` + message + `"}}`
	return jsonAnswer(status, body, extra...)
}

// check compares resp with want: status line, every field, every body byte.
func check(resp *httpparse.Response, err error, want expectation) error {
	if err := wantStatus(resp, err, want.status); err != nil {
		return err
	}
	if line := "HTTP/1.1 " + strconv.Itoa(want.status) + " " + reasonPhrases[want.status]; statusLine(resp) != line {
		return fmt.Errorf("status line: want %q, got %q", line, statusLine(resp))
	}
	if diff := headerDiff(want.header, resp.Header); diff != "" {
		return errors.New("header fields: " + diff)
	}
	if !bytes.Equal(resp.Body, want.body) {
		return fmt.Errorf("body: want %q, got %q", want.body, resp.Body)
	}
	return nil
}

// headerDiff lists the fields missing from got and the fields got has
// beyond want, or returns "".
func headerDiff(want, got []httpparse.HeaderLine) string {
	count := map[string]int{}
	for _, h := range want {
		count[h.Name+": "+h.Value]++
	}
	for _, h := range normalized(got) {
		count[h.Name+": "+h.Value]--
	}
	var missing, unexpected []string
	for line, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, strconv.Quote(line))
		}
		for ; n < 0; n++ {
			unexpected = append(unexpected, strconv.Quote(line))
		}
	}
	slices.Sort(missing)
	slices.Sort(unexpected)
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "missing "+strings.Join(missing, ", "))
	}
	if len(unexpected) > 0 {
		parts = append(parts, "unexpected "+strings.Join(unexpected, ", "))
	}
	return strings.Join(parts, "; ")
}

// normalized replaces the values a client can only validate with their
// placeholders; an invalid session id is redacted, never shown.
func normalized(h []httpparse.HeaderLine) []httpparse.HeaderLine {
	out := slices.Clone(h)
	for i := range out {
		switch {
		case strings.EqualFold(out[i].Name, "Date") && isIMFFixdate(out[i].Value):
			out[i].Value = anyDate
		case strings.EqualFold(out[i].Name, "Mcp-Session-Id"):
			if state.ValidSessionID([]byte(out[i].Value)) {
				out[i].Value = anySessionID
			} else {
				out[i].Value = client.SessionLabel(out[i].Value)
			}
		}
	}
	return out
}

// imfFixdate is RFC 9110 §5.6.7's preferred date format.
const imfFixdate = "Mon, 02 Jan 2006 15:04:05 GMT"

func isIMFFixdate(v string) bool {
	t, err := time.Parse(imfFixdate, v)
	return err == nil && t.Format(imfFixdate) == v
}

// errNotCanonical: an SSE body that decodes, but not as the profile
// writes it.
var errNotCanonical = errors.New("SSE body not framed as the profile writes it")

// events decodes an SSE body strictly and insists that it is exactly the
// encoding of its events: no comment, BOM, CRLF or field the decoder would
// pass over (S-14, S-P02).
func events(body []byte) ([]sseframe.Event, error) {
	evs, err := sseframe.Decode(body, sseframe.DefaultLimits())
	if err != nil {
		return nil, fmt.Errorf("SSE body: %w", err)
	}
	var canonical []byte
	for _, ev := range evs {
		if canonical, err = sseframe.AppendEvent(canonical, ev); err != nil {
			return nil, fmt.Errorf("SSE body: %w", err)
		}
	}
	if !bytes.Equal(canonical, body) {
		return nil, fmt.Errorf("%w: want exactly %q, got %q", errNotCanonical, canonical, body)
	}
	return evs, nil
}

// wantField fails unless resp carries name with exactly value.
func wantField(resp *httpparse.Response, name, value string) error {
	got, ok := resp.Get(name)
	if !ok {
		return fmt.Errorf("want %s: %q, got none", name, value)
	}
	if got != value {
		return fmt.Errorf("want %s: %q, got %q", name, value, got)
	}
	return nil
}
