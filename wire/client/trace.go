package client

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"rawmcp/httpparse"
)

// Correlate is the correlation id of a secret: the first 4 bytes of its
// SHA-256 in hex. It is computed exactly as the server's log computes it
// (policy.Correlate; a test in cmd/rawmcp keeps the two equal), so a
// client's trace and a rawmcp log name the same token the same way.
func Correlate(secret []byte) string {
	digest := sha256.Sum256(secret)
	return hex.EncodeToString(digest[:4])
}

// TokenLabel and SessionLabel are what a trace shows instead of a token or
// a session id.
func TokenLabel(token string) string { return "<token:" + Correlate([]byte(token)) + ">" }
func SessionLabel(id string) string  { return "<session:" + Correlate([]byte(id)) + ">" }

// Redactor knows the secrets a run has seen, tokens and the session ids
// servers issued, and replaces each with its label, so a trace or a report
// can say "the same token as before" without carrying it (MCP
// Authorization §11.2).
//
//	Authorization: Bearer <token:1a2b3c4d>
//	Mcp-Session-Id: <session:5e6f7a8b>
//
// A secret is replaced where it stands: in its own header field by
// position (RedactField, whatever its length), and elsewhere as a whole
// token when it is at least MinSecret bytes long. A shorter one (a server
// may issue the session id "1") is no pattern worth looking for in free
// text: its bytes occur by chance everywhere ("HTTP/1.1"), so it is left
// where it is not in its field.
//
// It is safe for concurrent use.
type Redactor struct {
	mu      sync.Mutex
	secrets []secret // longest first, so no secret is replaced inside another
}

// MinSecret is the length from which a known secret is looked for outside
// its header field: by Redact as a whole token, by Found anywhere.
const MinSecret = 8

type secret struct{ value, label string }

// AddToken and AddSession make a value known; "" is ignored.
func (r *Redactor) AddToken(token string) { r.add(token, TokenLabel(token)) }
func (r *Redactor) AddSession(id string)  { r.add(id, SessionLabel(id)) }

func (r *Redactor) add(value, label string) {
	if value == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.secrets {
		if s.value == value {
			return
		}
	}
	r.secrets = append(r.secrets, secret{value, label})
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i].value) > len(r.secrets[j].value) })
}

// Redact replaces every known secret of at least MinSecret bytes that
// stands in s as a whole token with its label. The longest secrets claim
// their places first, so a secret that is a prefix of another never
// breaks the longer one in two, and labels are put in only at the end, so
// none is searched again.
func (r *Redactor) Redact(s string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	type span struct {
		from, to int
		label    string
	}
	var spans []span
	var taken []bool // the bytes of s a span holds, once there is one
	for _, sec := range r.secrets {
		v := sec.value
		if len(v) < MinSecret {
			break // longest first: the rest are shorter still
		}
		for off := 0; ; {
			i := strings.Index(s[off:], v)
			if i < 0 {
				break
			}
			from, to := off+i, off+i+len(v)
			off = from + 1
			if !wholeToken(s, from, to) || taken != nil && slices.Contains(taken[from:to], true) {
				continue
			}
			if taken == nil {
				taken = make([]bool, len(s))
			}
			for j := from; j < to; j++ {
				taken[j] = true
			}
			spans = append(spans, span{from, to, sec.label})
		}
	}
	if len(spans) == 0 {
		return s
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var b strings.Builder
	done := 0
	for _, sp := range spans {
		b.WriteString(s[done:sp.from])
		b.WriteString(sp.label)
		done = sp.to
	}
	b.WriteString(s[done:])
	return b.String()
}

// wholeToken reports whether s[from:to] stands alone, splitting no token
// in two (RFC 6750 b64token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" /
// "+" / "/" ) *"="): no token character touches one at its start, and
// the byte after it continues no token, "=" being padding that may follow.
// So "session_id=" before a secret is a boundary, "==" after one is not.
func wholeToken(s string, from, to int) bool {
	if from > 0 && tokenChar(s[from]) && tokenChar(s[from-1]) {
		return false
	}
	if to < len(s) {
		last, next := s[to-1], s[to]
		if tokenChar(last) && tokenChar(next) || (tokenChar(last) || last == '=') && next == '=' {
			return false
		}
	}
	return true
}

func tokenChar(c byte) bool {
	switch {
	case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		return true
	}
	return c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
}

// Found returns the labels of the known secrets that occur in b anywhere,
// inside a longer token too: an echo check's question ("did a response
// give the secret back?"), answered without printing a secret. Only
// secrets of at least MinSecret bytes are looked for: whether a response
// holds the byte "1" says nothing about a session id "1", so a shorter
// secret is never reported found.
func (r *Redactor) Found(b []byte) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var labels []string
	for _, sec := range r.secrets {
		if len(sec.value) >= MinSecret && bytes.Contains(b, []byte(sec.value)) {
			labels = append(labels, sec.label)
		}
	}
	return labels
}

// RedactField hides the value of a field that carries a secret by its
// position, whether or not the value is known: a forged session id or
// another server's token is as unfit for a trace as a real one.
func RedactField(name, value string) string {
	switch {
	case strings.EqualFold(name, "Authorization"):
		scheme, credentials, ok := strings.Cut(value, " ")
		if !ok {
			return TokenLabel(value)
		}
		return scheme + " " + TokenLabel(strings.TrimLeft(credentials, " "))
	case strings.EqualFold(name, "Mcp-Session-Id"):
		return SessionLabel(value)
	}
	return value
}

// redactFieldLine redacts one raw "name: value" line by position; a line
// that is no field line is left to the known-secret pass.
func redactFieldLine(line []byte) []byte {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok {
		return line
	}
	v := strings.Trim(string(value), " \t")
	redacted := RedactField(string(name), v)
	if redacted == v {
		return line
	}
	return []byte(string(name) + ": " + redacted)
}

// Wire renders a raw request or response as text that is safe to keep: the
// secrets replaced (fields by position, known secrets as Redact does), control
// bytes other than CR, LF and HTAB and invalid UTF-8 shown as \xNN, and at
// most limit bytes of the message kept, the rest counted.
func (r *Redactor) Wire(raw []byte, limit int) string {
	var b bytes.Buffer
	rest := raw
	for first := true; len(rest) > 0; first = false {
		line, after, found := bytes.Cut(rest, []byte("\n"))
		if !found {
			break
		}
		bare := bytes.TrimSuffix(line, []byte("\r"))
		if !first {
			line = append(redactFieldLine(bare), line[len(bare):]...)
		}
		b.Write(line)
		b.WriteByte('\n')
		rest = after
		if len(bare) == 0 {
			break // the body follows
		}
	}
	b.Write(rest)
	// Redact before cutting, so a cut never leaves half a secret behind.
	s := r.Redact(b.String())
	if len(s) <= limit {
		return escapeBinary(s, true)
	}
	keep := limit
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return escapeBinary(s[:keep], true) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Tracer prints exchanges the way curl -v does: "* " before the step,
// "> " before each request head line, "< " before each response head line,
// bodies as they are. A check of rawmcp probe -trace:
//
//	$ rawmcp probe -trace -only HO-02 …
//	* HO-02: initialize with Origin: http://evil.example
//	> POST /mcp HTTP/1.1
//	> Authorization: Bearer <token:1a2b3c4d>
//	>
//	{"jsonrpc":"2.0","id":1,"method":"initialize",...}
//	< HTTP/1.1 403 Forbidden
//	<
//
// Request bytes are shown as sent: a bare CR, a bare LF or a NUL appears
// escaped (\r, \n, \x00) instead of disappearing into the terminal. Every
// token and session id is replaced with its correlation id, in its header
// field always and elsewhere as Redact does, and long lines are cut.
type Tracer struct {
	Secrets *Redactor
}

// Lines longer than this are cut in a trace: an oversized-head check
// would otherwise print 64 KiB of padding.
const (
	traceLineLimit = 240
	traceLineKeep  = 120
)

// Exchange writes one exchange: the step, the request, the response (or
// why there is none).
func (t Tracer) Exchange(b *strings.Builder, step string, raw []byte, resp *httpparse.Response, err error) {
	b.WriteString("* " + t.Secrets.Redact(step) + "\n")
	t.Request(b, raw)
	if resp != nil {
		t.Response(b, resp)
	}
	if err != nil {
		b.WriteString("! no response: " + t.Secrets.Redact(err.Error()) + "\n")
	}
}

// Request writes raw request bytes, one "> " line per head line.
func (t Tracer) Request(b *strings.Builder, raw []byte) {
	rest := raw
	for first := true; len(rest) > 0; first = false {
		line, after, found := bytes.Cut(rest, []byte("\n"))
		if !found {
			// The head stops mid-line: show what there is.
			t.Line(b, "> ", string(rest))
			return
		}
		rest = after
		crlf := bytes.HasSuffix(line, []byte("\r"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			if crlf {
				b.WriteString(">\n")
			} else {
				b.WriteString(`> \n` + "\n")
			}
			t.body(b, rest)
			return
		}
		if !first {
			line = redactFieldLine(line)
		}
		text := string(line)
		if !crlf {
			// A bare LF is the point of some checks: keep it visible.
			text += "\n"
		}
		t.Line(b, "> ", text)
	}
}

// body shows a request body: JSON, or a request smuggled inside it, split
// on CRLF so that one reads as lines too.
func (t Tracer) body(b *strings.Builder, body []byte) {
	if len(body) == 0 {
		return
	}
	for _, line := range bytes.Split(bytes.TrimSuffix(body, []byte("\r\n")), []byte("\r\n")) {
		t.Line(b, "", string(line))
	}
}

// Response writes a parsed response, one "< " line per head line.
func (t Tracer) Response(b *strings.Builder, resp *httpparse.Response) {
	t.Line(b, "< ", resp.Proto+" "+strconv.Itoa(resp.Status)+" "+resp.Reason)
	for _, h := range resp.Header {
		t.Line(b, "< ", h.Name+": "+RedactField(h.Name, h.Value))
	}
	b.WriteString("<\n")
	if len(resp.Body) == 0 {
		return
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(resp.Body), "\n"), "\n") {
		t.Line(b, "", line)
	}
}

// Line writes prefix and s, redacted, escaped and cut to length. The
// redaction runs first, so a cut never leaves half a secret behind.
func (t Tracer) Line(b *strings.Builder, prefix, s string) {
	s = escapeBinary(t.Secrets.Redact(s), false)
	if len(s) > traceLineLimit {
		keep := traceLineKeep
		for keep > 0 && !utf8.RuneStart(s[keep]) {
			keep--
		}
		s = s[:keep] + "… (" + strconv.Itoa(len(s)) + " bytes)"
	}
	b.WriteString(prefix + s + "\n")
}

// escapeBinary shows control bytes and invalid UTF-8 as Go escapes; with
// keepLines, CR and LF stay as they are (a rendered message keeps its
// lines), else they show as \r and \n (a trace line must stay one line).
func escapeBinary(s string, keepLines bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\t':
			b.WriteByte('\t')
		case (r == '\r' || r == '\n') && keepLines:
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == utf8.RuneError && size == 1, r < 0x20, r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
