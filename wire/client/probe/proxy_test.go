package probe_test

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"rawmcp/httpparse"
	"rawmcp/wire/client"
)

// flawProxy stands in front of a server and forwards each request and
// its answer, with exactly one flaw: a broken server built from a correct
// one, so a test can show that one check, and only it, notices.
//
// It parses a request only when the head is plain (CRLF lines, one
// Content-Length, no Transfer-Encoding, a complete head within 100 ms);
// anything else (the framing checks' malformed or slow requests) is
// piped through byte for byte, so the server's own framing answers.
// Authorities are rewritten both ways, the proxy's to the server's in
// requests and back in answers, so the server sees its own Host and the
// probe its own URL; both are 127.0.0.1 with a five-digit port, so the
// rewrite never changes a length.
type flawProxy struct {
	ln       net.Listener
	upstream string // the server's authority
	flaw     flaw
	// toServer and toCaller are the rewrites of requests and of answers,
	// old → new, the longer forms first.
	toServer, toCaller [][2]string

	mu      sync.Mutex
	deleted map[string]bool   // sessions a DELETE ended, for serveDeleted
	conns   map[net.Conn]bool // the connections being served, for die

	state sync.Map // what a stateful flaw remembers, under its own key (stateOf)
}

// flaw is what the proxy breaks.
type flaw struct {
	// request may change a parsed request, or answer it itself (a non-nil
	// answer is sent instead of forwarding).
	request func(p *flawProxy, r *proxied) (answer []byte)
	// response may change the server's answer.
	response func(p *flawProxy, r *proxied, answer []byte) []byte
	// dechunk frames a request with Transfer-Encoding: chunked by its
	// chunks (ignoring Content-Length), forwards it as one with the
	// decoded Content-Length, and keeps the connection after the answer:
	// a server that processes CL+TE by TE alone and does not close.
	dechunk bool
	// raw may take over a connection whose request the proxy would pipe
	// to the server unparsed (pending is what was read so far): for the
	// framing flaws. It reports whether it did.
	raw func(p *flawProxy, nc net.Conn, pending []byte) bool
	// deliver, if set, writes the answer in its own time (a stream held
	// open, or held back) instead of at once; it reports whether the
	// connection may go on.
	deliver func(p *flawProxy, r *proxied, answer []byte, nc net.Conn) bool
}

// proxied is a parsed request.
type proxied struct {
	method, path string
	header       [][2]string
	body         []byte
	head         string // the head as it came, authorities rewritten: values untrimmed
}

func (r *proxied) get(name string) string {
	for _, h := range r.header {
		if strings.EqualFold(h[0], name) {
			return h[1]
		}
	}
	return ""
}

func (r *proxied) set(name, value string) {
	for i, h := range r.header {
		if strings.EqualFold(h[0], name) {
			r.header[i][1] = value
			return
		}
	}
	r.header = append(r.header, [2]string{name, value})
}

func (r *proxied) drop(name string) {
	var out [][2]string
	for _, h := range r.header {
		if !strings.EqualFold(h[0], name) {
			out = append(out, h)
		}
	}
	r.header = out
}

func (r *proxied) bytes() []byte {
	req := client.Request{Method: r.method, Path: r.path, Body: r.body}
	for _, h := range r.header {
		if !strings.EqualFold(h[0], "Content-Length") {
			req.Header = append(req.Header, h)
		}
	}
	if r.body == nil && (r.method == "POST" || r.method == "PUT") {
		req.Body = []byte{}
	}
	return req.Bytes()
}

func startProxy(t *testing.T, upstream string, f flaw) string {
	t.Helper()
	var ln net.Listener
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Addr().String()) == len(upstream) {
			ln = l
			break
		}
		l.Close()
	}
	if ln == nil {
		t.Fatal("no proxy port of the server's port length")
	}
	p := &flawProxy{ln: ln, upstream: upstream, flaw: f, deleted: map[string]bool{},
		toServer: [][2]string{{ln.Addr().String(), upstream}}, toCaller: [][2]string{{upstream, ln.Addr().String()}}}
	p.start(t)
	return ln.Addr().String()
}

// start serves the proxy's listener until the test ends.
func (p *flawProxy) start(t *testing.T) {
	ln := p.ln
	var wg sync.WaitGroup
	// The accept loop is in the group too, so a connection it takes as
	// the test ends is added while the count is above zero, not beside
	// the cleanup's Wait (the race detector's complaint).
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			if p.conns == nil {
				p.conns = map[net.Conn]bool{}
			}
			p.conns[nc] = true
			p.mu.Unlock()
			wg.Go(func() {
				p.serve(nc)
				p.mu.Lock()
				delete(p.conns, nc)
				p.mu.Unlock()
			})
		}
	})
	t.Cleanup(func() { ln.Close(); wg.Wait() })
}

// die is the process exiting: the listener closes, so new connections
// are refused, and so does every connection being served. A flaw that
// dies after an answer closes the listener first (stopListening), so no
// request sent once that answer arrived is served.
func (p *flawProxy) die() {
	p.stopListening()
	p.mu.Lock()
	defer p.mu.Unlock()
	for nc := range p.conns {
		nc.Close()
	}
}

// stopListening closes the listener: new connections are refused.
func (p *flawProxy) stopListening() { p.ln.Close() }

func (p *flawProxy) toUpstream(b []byte) []byte { return rewrite(b, p.toServer) }

func (p *flawProxy) toClient(b []byte) []byte { return rewrite(b, p.toCaller) }

func rewrite(b []byte, pairs [][2]string) []byte {
	for _, r := range pairs {
		b = bytes.ReplaceAll(b, []byte(r[0]), []byte(r[1]))
	}
	return b
}

// fixLength sets a whole answer's Content-Length to its body after a
// rewrite that changed the body's length.
func fixLength(answer []byte) []byte {
	head, body, ok := bytes.Cut(answer, []byte("\r\n\r\n"))
	if !ok {
		return answer
	}
	lines := strings.Split(string(head), "\r\n")
	for i, line := range lines {
		if name, _, ok := strings.Cut(line, ":"); ok && strings.EqualFold(name, "Content-Length") {
			lines[i] = name + ": " + strconv.Itoa(len(body))
		}
	}
	return append([]byte(strings.Join(lines, "\r\n")+"\r\n\r\n"), body...)
}

func (p *flawProxy) serve(nc net.Conn) {
	defer nc.Close()
	var buf []byte
	chunk := make([]byte, 64<<10)
	for {
		req, rest, plain := p.readRequest(nc, &buf, chunk)
		if req == nil {
			if plain || len(buf) == 0 {
				return
			}
			if p.flaw.raw != nil && p.flaw.raw(p, nc, buf) {
				return
			}
			p.pipe(nc, buf)
			return
		}
		buf = rest
		answer, keep := p.answer(req)
		if p.flaw.deliver != nil {
			keep = p.flaw.deliver(p, req, answer, nc) && keep
		} else if _, err := nc.Write(answer); err != nil {
			return
		}
		if !keep {
			return
		}
	}
}

// readRequest reads one plain request; it returns nil with plain false
// when the bytes are for the server's own parser to judge.
func (p *flawProxy) readRequest(nc net.Conn, buf *[]byte, chunk []byte) (req *proxied, rest []byte, plain bool) {
	started := time.Time{}
	for {
		if end := bytes.Index(*buf, []byte("\r\n\r\n")); end >= 0 {
			return p.parse(nc, buf, chunk, end)
		}
		if len(*buf) > 16<<10 || bytes.Contains(*buf, []byte("\n\n")) {
			return nil, nil, false
		}
		if len(*buf) > 0 && started.IsZero() {
			started = time.Now()
		}
		deadline := time.Now().Add(30 * time.Second)
		if !started.IsZero() {
			deadline = started.Add(100 * time.Millisecond)
		}
		nc.SetReadDeadline(deadline)
		n, err := nc.Read(chunk)
		*buf = append(*buf, chunk[:n]...)
		if err != nil {
			return nil, nil, len(*buf) == 0
		}
	}
}

func (p *flawProxy) parse(nc net.Conn, buf *[]byte, chunk []byte, end int) (*proxied, []byte, bool) {
	head := string(p.toUpstream((*buf)[:end]))
	lines := strings.Split(head, "\r\n")
	first := strings.Split(lines[0], " ")
	if len(first) != 3 || strings.Contains(head, "\n ") || strings.Contains(head, "\n\t") || strings.Contains(strings.ReplaceAll(head, "\r\n", ""), "\n") {
		return nil, nil, false
	}
	r := &proxied{method: first[0], path: first[1], head: head}
	lengths, chunked := 0, false
	length := 0
	for _, line := range lines[1:] {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, nil, false
		}
		value = strings.TrimSpace(value)
		switch {
		case strings.EqualFold(name, "Content-Length"):
			lengths++
			n, err := strconv.Atoi(value)
			if err != nil || n > 1<<20 {
				return nil, nil, false
			}
			length = n
		case strings.EqualFold(name, "Transfer-Encoding"):
			chunked = true
		}
		r.header = append(r.header, [2]string{name, value})
	}
	if lengths > 1 || chunked && !p.flaw.dechunk {
		return nil, nil, false
	}
	body := (*buf)[end+4:]
	if chunked {
		r.drop("Transfer-Encoding")
		last := bytes.Index(body, []byte("0\r\n\r\n"))
		if last < 0 {
			return nil, nil, false
		}
		r.body, r.header = []byte{}, append(r.header, [2]string{"X-Dechunked", "1"})
		return r, append([]byte(nil), body[last+5:]...), true
	}
	for len(body) < length {
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := nc.Read(chunk)
		if err != nil {
			return nil, nil, false
		}
		*buf = append(*buf, chunk[:n]...)
		body = (*buf)[end+4:]
	}
	if length > 0 {
		r.body = append([]byte(nil), body[:length]...)
	}
	return r, append([]byte(nil), body[length:]...), true
}

// answer forwards r (or lets the flaw answer) and says whether the
// connection goes on.
// upstreamWait bounds the proxy's round trip to the server.
const upstreamWait = 30 * time.Second

func (p *flawProxy) answer(r *proxied) ([]byte, bool) {
	dechunked := r.get("X-Dechunked") != ""
	r.drop("X-Dechunked")
	if p.flaw.request != nil {
		if answer := p.flaw.request(p, r); answer != nil {
			return answer, true
		}
	}
	// The proxy waits for the server longer than the probe waits for the
	// proxy (fullOptions: 20 s), so on a loaded machine a slow answer
	// reaches the probe as slow, never as a proxy that hung up.
	c := client.New(p.upstream)
	c.Timeout = upstreamWait
	defer c.Close()
	if err := c.Send(r.bytes()); err != nil {
		return nil, false
	}
	s, err := c.ReadStream(r.method == "HEAD", time.Now().Add(upstreamWait), nil)
	if err != nil {
		return nil, false
	}
	if r.method == "DELETE" && s.Response.Status < 300 {
		p.mu.Lock()
		p.deleted[r.get("Mcp-Session-Id")] = true
		p.mu.Unlock()
	}
	answer := p.toClient(s.Raw)
	if len(answer) != len(s.Raw) && s.Ended && s.Response.Framing == httpparse.FramingLength {
		answer = fixLength(answer)
	}
	if p.flaw.response != nil {
		answer = p.flaw.response(p, r, answer)
	}
	return answer, !s.Response.Close || dechunked
}

// pipe hands the connection to the server byte for byte.
func (p *flawProxy) pipe(nc net.Conn, pending []byte) {
	up, err := net.Dial("tcp", p.upstream)
	if err != nil {
		return
	}
	defer up.Close()
	nc.SetReadDeadline(time.Time{})
	up.Write(p.toUpstream(pending))
	done := make(chan struct{})
	go func() {
		copyRewriting(nc, up, p.toClient)
		nc.(interface{ CloseWrite() error }).CloseWrite()
		close(done)
	}()
	copyRewriting(up, nc, p.toUpstream)
	up.(*net.TCPConn).CloseWrite()
	<-done
}

func copyRewriting(dst io.Writer, src io.Reader, rewrite func([]byte) []byte) {
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(rewrite(buf[:n])); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
