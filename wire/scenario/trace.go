package scenario

import (
	"fmt"
	"io"
	"strings"

	"rawmcp/httpparse"
	"rawmcp/wire"
	"rawmcp/wire/client"
)

// tracer prints every exchange the way curl -v does (client.Tracer: every
// token and session id as its correlation id, bare CR, LF and NUL shown,
// long lines cut), and adds what curl cannot know and a client-side trace
// cannot either: the rule the server named for the response.
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
// An answer after which the server closes the connection is followed by
// the rule that closed it: "= closed: H-39".
type tracer struct {
	w      io.Writer
	secret *client.Redactor
}

// note prints a "*" line: what the next exchange is for.
func (t *tracer) note(format string, args ...any) {
	if t == nil {
		return
	}
	io.WriteString(t.w, t.secret.Redact("* "+fmt.Sprintf(format, args...))+"\n")
}

// exchange prints one request, its response (or why there is none) and
// the server's decision.
func (t *tracer) exchange(step string, raw []byte, resp *httpparse.Response, err error, d *wire.Decision) {
	if t == nil {
		return
	}
	var b strings.Builder
	client.Tracer{Secrets: t.secret}.Exchange(&b, step, raw, resp, err)
	switch {
	case d != nil:
		b.WriteString("= " + string(d.Rule) + ": " + d.Rule.Text() + "\n")
		if d.Closed != "" {
			b.WriteString("= closed: " + string(d.Closed) + "\n")
		}
	case resp != nil:
		b.WriteString("= (the server recorded no decision)\n")
	}
	b.WriteString("\n")
	io.WriteString(t.w, b.String())
}
