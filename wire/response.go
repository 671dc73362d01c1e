package wire

import (
	"rawmcp/wire/jsonrpc"
	"rawmcp/wire/rule"
	"strconv"
	"sync/atomic"
	"time"
)

// header is one response field. Only appendHead turns headers into
// bytes, and conn.finish passes every response through guarded first,
// which replaces one whose values hold CR, LF, NUL or another control byte
// with the constant 500 (H-P10), so nothing a handler computes can split a
// response.
type header struct{ name, value string }

// response is everything needed to write one answer.
type response struct {
	status      int
	contentType string
	headers     []header // extra fields: Allow, WWW-Authenticate, Mcp-Session-Id, ...
	body        []byte
	close       bool // Connection: close, then the connection is closed (h1.Conn.Answering's choice)
	headRequest bool // the request was HEAD: framing headers as for GET, no body (RFC 9110 §9.3.2)
	rule        rule.ID
	detail      string // why a policy denial refused, for the log only
	rpcCode     int    // JSON-RPC code of the constant error body; 0 means codeHTTPError
}

func (r *response) code() int {
	if r.rpcCode == 0 {
		return codeHTTPError
	}
	return r.rpcCode
}

// seal gives an error answer its constant body, here, the one place
// every answer passes, so no caller can forget it or put request bytes
// into one. That an error answer closes the connection (T-P14) is the
// connection's rules' (h1.Conn.Answering).
func seal(resp *response) {
	if resp.status >= 400 && resp.body == nil {
		resp.contentType = contentTypeJSON
		resp.body = errorBody(resp.status, resp.code())
	}
}

// statusText is the reason phrase of each status rawmcp emits, "" for
// any other. A switch, not a map: it is on every answer's path, and a
// map lookup hashes.
func statusText(status int) string {
	switch status {
	case 100:
		return "Continue"
	case 200:
		return "OK"
	case 202:
		return "Accepted"
	case 204:
		return "No Content"
	case 400:
		return "Bad Request"
	case 401:
		return "Unauthorized"
	case 403:
		return "Forbidden"
	case 404:
		return "Not Found"
	case 405:
		return "Method Not Allowed"
	case 406:
		return "Not Acceptable"
	case 408:
		return "Request Timeout"
	case 411:
		return "Length Required"
	case 413:
		return "Content Too Large"
	case 414:
		return "URI Too Long"
	case 415:
		return "Unsupported Media Type"
	case 417:
		return "Expectation Failed"
	case 431:
		return "Request Header Fields Too Large"
	case 500:
		return "Internal Server Error"
	case 501:
		return "Not Implemented"
	case 503:
		return "Service Unavailable"
	case 505:
		return "HTTP Version Not Supported"
	}
	return ""
}

// JSON-RPC codes of the constant error bodies beside jsonrpc.Code*: -32000
// is the implementation-defined range the TypeScript SDK also uses for
// HTTP-level refusals; -32001 is its "session not found".
const (
	codeHTTPError       = -32000
	codeSessionNotFound = -32001
)

// errorBody returns the constant body of an error answer: a JSON-RPC error
// without id (T-05, T-13). It never contains request bytes.
func errorBody(status, code int) []byte {
	msg := statusText(status)
	switch {
	case status == 406:
		// H-46: name the representations that are available.
		msg = "Not Acceptable: use Accept: application/json, text/event-stream"
	case code == codeSessionNotFound:
		msg = "Session not found"
	case code == jsonrpc.CodeParseError:
		msg = "Parse error"
	case code == jsonrpc.CodeInvalidRequest:
		msg = "Invalid Request"
	}
	return []byte(`{"jsonrpc":"2.0","error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `"}}`)
}

// validHeaderValue is the H-P10 guard: field-value bytes may be HTAB, SP,
// VCHAR or obs-text, never CR, LF, NUL or another control byte.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// internalError, the constant 500 (H-P16), is written instead of a
// response whose header values failed the H-P10 guard.
var internalError = response{status: 500, contentType: contentTypeJSON, body: errorBody(500, codeHTTPError), rule: rule.InternalError}

// guarded returns r, or the constant 500 (an error: it closes) if
// any of r's header values fails the H-P10 check. The caller writes, logs
// and closes by what it returns, so a refused response is refused whole.
func guarded(r *response) *response {
	for _, h := range r.headers {
		if !validHeaderValue(h.value) {
			internal := internalError
			return &internal
		}
	}
	return r
}

// appendHead serialises r's status line and fields, all but the
// Connection field, which waits for the rules' choice (appendEnd). r has
// passed guarded. Every response carries Date (H-43), Cache-Control:
// no-store, and explicit framing (never chunked, so an HTTP/1.0 client
// reads every answer, H-48): Content-Length, except on 1xx and 204
// (H-47); X-Accel-Buffering: no on every event stream.
func appendHead(dst []byte, r *response, date []byte) []byte {
	dst = append(dst, "HTTP/1.1 "...)
	dst = strconv.AppendInt(dst, int64(r.status), 10)
	dst = append(dst, ' ')
	dst = append(dst, statusText(r.status)...)
	dst = append(dst, "\r\nDate: "...)
	dst = append(dst, date...)
	dst = append(dst, "\r\nCache-Control: no-store\r\n"...)
	if r.contentType != "" {
		dst = append(dst, "Content-Type: "...)
		dst = append(dst, r.contentType...)
		dst = append(dst, "\r\n"...)
	}
	if r.contentType == contentTypeSSE {
		// A buffering reverse proxy (nginx by default) would hold an
		// event stream back; this asks it not to, whatever its config.
		dst = append(dst, "X-Accel-Buffering: no\r\n"...)
	}
	for _, h := range r.headers {
		dst = append(dst, h.name...)
		dst = append(dst, ": "...)
		dst = append(dst, h.value...)
		dst = append(dst, "\r\n"...)
	}
	if r.status >= 200 && r.status != 204 {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(r.body)), 10)
		dst = append(dst, "\r\n"...)
	}
	return dst
}

// appendEnd ends r's head, with Connection: close when the connection
// will close, and appends its body, none for HEAD or 204.
func appendEnd(dst []byte, r *response) []byte {
	if r.close {
		dst = append(dst, connectionClose...)
	}
	dst = append(dst, "\r\n"...)
	if writesBody(r) {
		dst = append(dst, r.body...)
	}
	return dst
}

// endLen is the most appendEnd adds: the Connection field, the blank line
// and the body.
func endLen(r *response) int {
	n := len(connectionClose) + len("\r\n")
	if writesBody(r) {
		n += len(r.body)
	}
	return n
}

func writesBody(r *response) bool { return !r.headRequest && r.status != 204 }

const connectionClose = "Connection: close\r\n"

// continueResponse is the interim answer to Expect: 100-continue (H-P13).
var continueResponse = []byte("HTTP/1.1 100 Continue\r\n\r\n")

// dateCache formats the IMF-fixdate (RFC 9110 §5.6.7) once per second
// instead of once per response.
type dateCache struct {
	v atomic.Pointer[dateStamp]
}

type dateStamp struct {
	unix int64
	text []byte
}

func (d *dateCache) get(now time.Time) []byte {
	sec := now.Unix()
	if s := d.v.Load(); s != nil && s.unix == sec {
		return s.text
	}
	s := &dateStamp{unix: sec, text: now.UTC().AppendFormat(nil, "Mon, 02 Jan 2006 15:04:05 GMT")}
	d.v.Store(s)
	return s.text
}
