package scenario

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"rawmcp/httpparse"
	"rawmcp/wire"
)

// serveTracer prints the exchanges of `serve -trace`: every connection's
// requests and answers, curl -v style, the token and session ids as
// correlation ids, each line prefixed with its connection so interleaved
// clients stay readable. One goroutine prints (follower), so each
// exchange is written whole.
type serveTracer struct {
	t tracer
}

func (s *serveTracer) exchange(x wire.Exchange) {
	resp, _, err := httpparse.ParseResponse(x.Response, isHead(x.Request), true, httpparse.DefaultResponseLimits())
	var parsed *httpparse.Response
	if err == nil {
		parsed = &resp
		if id, ok := resp.Get("Mcp-Session-Id"); ok {
			s.t.secret.AddSession(id)
		}
	}
	var b bytes.Buffer
	inner := tracer{w: &b, secret: s.t.secret}
	inner.exchange("connection "+strconv.FormatUint(x.Conn, 10), x.Request, parsed, err, &x.Decision)
	prefix := "[c" + strconv.FormatUint(x.Conn, 10) + "] "
	var out strings.Builder
	lines := strings.SplitAfter(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) > maxExchangeLines {
		// Keep the head and the rule line; a body of many short lines is
		// shortened like a long one.
		cut := len(lines) - maxExchangeLines
		lines = append(append(lines[:maxExchangeLines-2:maxExchangeLines-2], "… ("+strconv.Itoa(cut+1)+" lines)\n"), lines[len(lines)-1])
	}
	for _, line := range lines {
		out.WriteString(prefix + line)
	}
	out.WriteString("\n\n")
	io.WriteString(s.t.w, out.String())
}

// maxExchangeLines bounds one traced exchange: a head has at most 32
// fields, so this shows every field of both heads and a screen of body.
const maxExchangeLines = 96

func isHead(request []byte) bool { return bytes.HasPrefix(request, []byte("HEAD ")) }

// refusals counts what `serve` refused, by status and rule, for the summary
// it prints when it stops (follower counts, then write prints).
type refusals struct {
	counts map[wire.Decision]int
}

func (r *refusals) add(d wire.Decision) {
	if d.Status < 400 {
		return
	}
	if r.counts == nil {
		r.counts = map[wire.Decision]int{}
	}
	r.counts[wire.Decision{Status: d.Status, Rule: d.Rule}]++
}

// write prints one line per status and rule, most frequent first:
// "  401 A-08 ×1  no bearer credential …".
func (r *refusals) write(w io.Writer) {
	total := 0
	var ds []wire.Decision
	for d, n := range r.counts {
		ds = append(ds, d)
		total += n
	}
	if total == 0 {
		fmt.Fprintln(w, "serve: no request was refused")
		return
	}
	slices.SortFunc(ds, func(a, b wire.Decision) int {
		if r.counts[a] != r.counts[b] {
			return r.counts[b] - r.counts[a]
		}
		if a.Status != b.Status {
			return a.Status - b.Status
		}
		return strings.Compare(string(a.Rule), string(b.Rule))
	})
	fmt.Fprintf(w, "serve: refused %d request%s, by rule:\n", total, plural(total))
	for _, d := range ds {
		fmt.Fprintf(w, "  %d %s ×%d  %s\n", d.Status, d.Rule, r.counts[d], d.Rule.Text())
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
