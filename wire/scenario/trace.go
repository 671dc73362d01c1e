package scenario

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"rawmcp/httpparse"
	"rawmcp/wire"
)

// tracer prints every exchange the way curl -v does, and adds what curl
// cannot know: the rule that decided the response.
//
//   - initialize: proposes the Draft 2026-07-28
//     > POST /mcp HTTP/1.1
//     > Authorization: Bearer <token:1a2b3c4d>
//     >
//     {"jsonrpc":"2.0","id":1,"method":"initialize",...}
//     < HTTP/1.1 200 OK
//     < Mcp-Session-Id: <session:5e6f7a8b>
//     <
//     {"jsonrpc":"2.0","id":1,"result":{...}}
//     = T-53: initialize answers with 2025-11-25 whatever version was proposed: ...
//
// Request bytes are shown as sent: a bare CR, a bare LF or a NUL appears
// escaped (\r, \n, \x00) instead of disappearing into the terminal. Every
// token and session id is replaced with its correlation id, in heads and
// bodies alike.
type tracer struct {
	w      io.Writer
	secret *redactor
}

// Lines longer than this are cut in a trace: an oversized-head attack
// would otherwise print 14 KiB of padding.
const (
	traceLineLimit = 240
	traceLineKeep  = 120
)

// note prints a "*" line: what the next exchange is for.
func (t *tracer) note(format string, args ...any) {
	if t == nil {
		return
	}
	io.WriteString(t.w, t.secret.redact("* "+fmt.Sprintf(format, args...))+"\n")
}

// exchange prints one request, its response (or why there is none) and
// the server's decision.
func (t *tracer) exchange(step string, raw []byte, resp *httpparse.Response, err error, d *wire.Decision) {
	if t == nil {
		return
	}
	var b strings.Builder
	b.WriteString("* " + step + "\n")
	t.request(&b, raw)
	if resp != nil {
		t.response(&b, resp)
	}
	if err != nil {
		b.WriteString("! no response: " + err.Error() + "\n")
	}
	switch {
	case d != nil:
		b.WriteString("= " + string(d.Rule) + ": " + d.Rule.Text() + "\n")
	case resp != nil:
		b.WriteString("= (the server recorded no decision)\n")
	}
	b.WriteString("\n")
	io.WriteString(t.w, b.String())
}

func (t *tracer) request(b *strings.Builder, raw []byte) {
	rest := raw
	for first := true; len(rest) > 0; first = false {
		line, after, found := bytes.Cut(rest, []byte("\n"))
		if !found {
			// The head stops mid-line: show what there is.
			t.line(b, "> ", string(rest))
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
			line = redactRawField(line)
		}
		text := string(line)
		if !crlf {
			// A bare LF is the point of some attacks: keep it visible.
			text += "\n"
		}
		t.line(b, "> ", text)
	}
}

// body shows a request body. It is JSON, or, in the smuggling attack, a
// second request: split on CRLF so that one reads as lines too.
func (t *tracer) body(b *strings.Builder, body []byte) {
	if len(body) == 0 {
		return
	}
	for _, line := range bytes.Split(bytes.TrimSuffix(body, []byte("\r\n")), []byte("\r\n")) {
		t.line(b, "", string(line))
	}
}

// redactRawField redacts a header line of a raw request by position; a
// line that is not "name: value" is left for the known-secret pass.
func redactRawField(line []byte) []byte {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok {
		return line
	}
	v := strings.Trim(string(value), " \t")
	redacted := redactField(string(name), v)
	if redacted == v {
		return line
	}
	return []byte(string(name) + ": " + redacted)
}

func (t *tracer) response(b *strings.Builder, resp *httpparse.Response) {
	t.line(b, "< ", resp.Proto+" "+strconv.Itoa(resp.Status)+" "+resp.Reason)
	for _, h := range resp.Header {
		t.line(b, "< ", h.Name+": "+redactField(h.Name, h.Value))
	}
	b.WriteString("<\n")
	if len(resp.Body) == 0 {
		return
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(resp.Body), "\n"), "\n") {
		t.line(b, "", line)
	}
}

// line writes prefix and s, redacted, escaped and cut to length. The
// redaction runs first, so a cut can never leave half a secret behind.
func (t *tracer) line(b *strings.Builder, prefix, s string) {
	s = escapeControls(t.secret.redact(s))
	if len(s) > traceLineLimit {
		keep := traceLineKeep
		for keep > 0 && !utf8.RuneStart(s[keep]) {
			keep--
		}
		s = s[:keep] + "… (" + strconv.Itoa(len(s)) + " bytes)"
	}
	b.WriteString(prefix + s + "\n")
}

// escapeControls shows control bytes and invalid UTF-8 as Go escapes, so a
// trace shows a bare CR or an obs-fold as what it is.
func escapeControls(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteByte('\t')
		case r == utf8.RuneError && size == 1, r < 0x20, r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
