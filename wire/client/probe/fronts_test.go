package probe_test

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"rawmcp/wire/client/clienttest"
	"rawmcp/wire/client/probe"
)

// The fronts of the deployment group's flaws (flaws_dp_test.go) and of
// its detail tests (dp_test.go): hops in front of rawmcp that break one
// thing a real proxy or balancer is known to break, and their honest
// twins.

// upstreamOpen is how long the fronts' upstream keeps an event stream
// open: well past the tests' DP-07 bound (TestMain), within its watch.
const upstreamOpen = 6 * time.Second

// challengeNamesUpstream is nginx with proxy_set_header Host left at its
// default: the server names its own, internal address. Here the hop fixes
// up the metadata documents (a sub_filter) but not WWW-Authenticate, so
// only the challenge's resource_metadata names the upstream.
func challengeNamesUpstream(p *flawProxy, _ *proxied, answer []byte) []byte {
	head, body := splitAnswer(answer)
	lines := bytes.Split(head, []byte("\r\n"))
	for i, line := range lines {
		if bytes.HasPrefix(bytes.ToLower(line), []byte("www-authenticate:")) {
			lines[i] = bytes.ReplaceAll(line, []byte(p.ln.Addr().String()), []byte(p.upstream))
		}
	}
	return joinAnswer(bytes.Join(lines, []byte("\r\n")), body)
}

// trustsForwardedHost builds the answer's URLs from X-Forwarded-Host, as
// frameworks with "trust proxy" on do.
func trustsForwardedHost(p *flawProxy, r *proxied, answer []byte) []byte {
	forwarded := r.get("X-Forwarded-Host")
	if forwarded == "" {
		return answer
	}
	return rewriteAnswer(answer, p.ln.Addr().String(), forwarded)
}

// dropsLowerCaseSessionID passes header fields by a case-sensitive
// allowlist, so the lower-case spelling HTTP/2 clients send is dropped.
func dropsLowerCaseSessionID(_ *flawProxy, r *proxied) []byte {
	var kept [][2]string
	for _, h := range r.header {
		if h[0] != "mcp-session-id" {
			kept = append(kept, h)
		}
	}
	r.header = kept
	return nil
}

// holdsStreams stands for an upstream whose event streams stay open
// upstreamOpen behind a hop that buffers a response until it ends
// (nginx's proxy_buffering with TLS, a compressing hop): the client gets
// nothing, head included, until the upstream closes.
func holdsStreams(_ *flawProxy, r *proxied, answer []byte, nc net.Conn) bool {
	if isEventStream(answer) {
		time.Sleep(upstreamOpen)
	}
	_, err := nc.Write(answer)
	return err == nil
}

// keepsStreamsOpen is the honest hop in front of such an upstream: the
// head and the events at once, chunked, then the stream stays open.
func keepsStreamsOpen(_ *flawProxy, r *proxied, answer []byte, nc net.Conn) bool {
	if !isEventStream(answer) {
		_, err := nc.Write(answer)
		return err == nil
	}
	head, body := splitAnswer(answer)
	if _, err := nc.Write(append(chunkedHead(head), chunk(body)...)); err != nil {
		return false
	}
	time.Sleep(upstreamOpen)
	_, err := nc.Write([]byte("0\r\n\r\n"))
	return err == nil
}

// endsAMomentLater writes an event stream in three pieces a moment
// apart: the head, the events, the end. Whether a client reads the end
// with the events or after them is then the network's chance, and the
// stream ends long before a held one could be told from it.
func endsAMomentLater(_ *flawProxy, r *proxied, answer []byte, nc net.Conn) bool {
	if !isEventStream(answer) {
		_, err := nc.Write(answer)
		return err == nil
	}
	head, body := splitAnswer(answer)
	for i, part := range [][]byte{chunkedHead(head), chunk(body), []byte("0\r\n\r\n")} {
		if i > 0 {
			time.Sleep(momentApart)
		}
		if _, err := nc.Write(part); err != nil {
			return false
		}
	}
	return true
}

// momentApart is the pause between endsAMomentLater's pieces.
const momentApart = 20 * time.Millisecond

// slowEverywhere is a target slow at everything, more so at a stream for
// a client that accepts gzip: every answer comes slowAnswer late, such a
// stream's head slowStream late (later than heldAfter, within the slow
// answer and heldAfter together); streams then stay open.
func slowEverywhere(_ *flawProxy, r *proxied, answer []byte, nc net.Conn) bool {
	if !isEventStream(answer) {
		time.Sleep(slowAnswer)
		_, err := nc.Write(answer)
		return err == nil
	}
	if r.get("Accept-Encoding") != "" {
		time.Sleep(slowStream)
	} else {
		time.Sleep(slowAnswer)
	}
	return keepsStreamsOpen(nil, r, answer, nc)
}

// With the tests' heldAfter of 3 s (TestMain): a slow stream's head is
// late, and within the 4.5 s a target that takes 1.5 s over everything is
// allowed.
const (
	slowAnswer = 1500 * time.Millisecond
	slowStream = 3500 * time.Millisecond
)

// compressesStreams is nginx with gzip on and gzip_types
// text/event-stream: for a client that accepts gzip, the stream is
// compressed and held until it ends; without, it passes at once.
func compressesStreams(p *flawProxy, r *proxied, answer []byte, nc net.Conn) bool {
	if !isEventStream(answer) || !strings.Contains(r.get("Accept-Encoding"), "gzip") {
		return keepsStreamsOpen(p, r, answer, nc)
	}
	time.Sleep(upstreamOpen)
	head, body := splitAnswer(answer)
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(body)
	w.Close()
	_, err := nc.Write(joinAnswer(append(head, "\r\nContent-Encoding: gzip"...), z.Bytes()))
	return err == nil
}

// stripsRetry drops the retry field from event streams, so a client whose
// stream ends is not told when to come back.
func stripsRetry(_ *flawProxy, _ *proxied, answer []byte) []byte {
	if !isEventStream(answer) {
		return answer
	}
	head, body := splitAnswer(answer)
	return joinAnswer(head, regexp.MustCompile(`(?m)^retry: [0-9]+\n`).ReplaceAll(body, nil))
}

// cutsIdleStreams passes an event stream's head and first events and then
// cuts the connection, without retry: an idle timeout in the hop, run out
// at once, so the cut comes on that event and not on a timer a loaded
// machine could stretch past the probe's hold.
func cutsIdleStreams(p *flawProxy, r *proxied, answer []byte, nc net.Conn) bool {
	return keepAlive(p, r, stripsRetry(p, r, answer), nc, 0, false)
}

// keepsSilentStreams keeps an event stream open without a byte after its
// first events, and without retry: only an open stream can pass DP-08.
func keepsSilentStreams(p *flawProxy, r *proxied, answer []byte, nc net.Conn) bool {
	return keepsStreamsOpen(p, r, stripsRetry(p, r, answer), nc)
}

// keepsIdleStreams keeps an event stream open with keep-alive comments
// past the tests' DP-08 hold, then ends it.
func keepsIdleStreams(p *flawProxy, r *proxied, answer []byte, nc net.Conn) bool {
	return keepAlive(p, r, stripsRetry(p, r, answer), nc, upstreamOpen, true)
}

func keepAlive(_ *flawProxy, _ *proxied, answer []byte, nc net.Conn, open time.Duration, end bool) bool {
	if !isEventStream(answer) {
		_, err := nc.Write(answer)
		return err == nil
	}
	head, body := splitAnswer(answer)
	if _, err := nc.Write(append(chunkedHead(head), chunk(body)...)); err != nil {
		return false
	}
	for start := time.Now(); time.Since(start) < open; {
		time.Sleep(400 * time.Millisecond)
		if _, err := nc.Write(chunk([]byte(": keep-alive\n\n"))); err != nil {
			return false
		}
	}
	if !end {
		return false
	}
	_, err := nc.Write([]byte("0\r\n\r\n"))
	return err == nil
}

// lapsingAffinity is a balancer whose affinity lapses after 8 requests
// naming a session: the later ones reach a replica that never saw it,
// played here by the same server asked for a session it never issued.
func lapsingAffinity(p *flawProxy, r *proxied) []byte {
	id := r.get("Mcp-Session-Id")
	if id == "" {
		return nil
	}
	seen := stateOf[memo[int]](p, "affinity")
	seen.mu.Lock()
	if seen.m == nil {
		seen.m = map[string]int{}
	}
	seen.m[id]++
	n := seen.m[id]
	seen.mu.Unlock()
	if n > 8 {
		r.set("Mcp-Session-Id", "replica-b-"+id)
	}
	return nil
}

// namesVersion is a hop that announces itself with its version, as
// Apache's ServerTokens Full does (not nginx: its name changes DP-10).
func namesVersion(_ *flawProxy, _ *proxied, answer []byte) []byte {
	return withField(answer, "Server", "Apache/2.4.57 (Debian)")
}

// corsForAnyOrigin answers every preflight itself, echoing the Origin: a
// CORS module configured to reflect whatever it is sent.
func corsForAnyOrigin(_ *flawProxy, r *proxied) []byte {
	if r.method != "OPTIONS" || r.get("Origin") == "" {
		return nil
	}
	return []byte("HTTP/1.1 204 No Content\r\nAccess-Control-Allow-Origin: " + r.get("Origin") +
		"\r\nAccess-Control-Allow-Methods: GET, POST, DELETE\r\nAccess-Control-Allow-Headers: " + r.get("Access-Control-Request-Headers") +
		"\r\nAccess-Control-Expose-Headers: Mcp-Session-Id\r\n\r\n")
}

// fromCache marks every SSE answer as a cache's: a proxy cache that
// stores event streams replays an old one.
func fromCache(_ *flawProxy, _ *proxied, answer []byte) []byte {
	if !isEventStream(answer) {
		return answer
	}
	return withField(withField(answer, "Age", "30"), "X-Cache", "HIT")
}

// stripsAccelBuffering drops X-Accel-Buffering from every answer, as
// nginx does (it reads the field and passes it on to nobody); with
// server, the hop names itself in Server.
func stripsAccelBuffering(server string) func(*flawProxy, *proxied, []byte) []byte {
	return func(_ *flawProxy, _ *proxied, answer []byte) []byte {
		answer = withoutField(answer, "X-Accel-Buffering")
		if server != "" {
			answer = withField(answer, "Server", server)
		}
		return answer
	}
}

// addsHeader adds one field to every answer.
func addsHeader(name, value string) func(*flawProxy, *proxied, []byte) []byte {
	return func(_ *flawProxy, _ *proxied, answer []byte) []byte { return withField(answer, name, value) }
}

// servesPublicName is a front that answers for a.example, a name of the
// upstream's authority length (9 bytes, as 127.0.0.1): the probe is aimed
// at the front with Host a.example:PORT, and the front maps that name to
// the upstream and back, as a proxy serving a public name does.
func servesPublicName() flaw {
	return flaw{request: func(p *flawProxy, r *proxied) []byte {
		public := publicAuthority(p)
		for i, h := range r.header {
			r.header[i][1] = strings.ReplaceAll(h[1], public, p.upstream)
		}
		r.body = bytes.ReplaceAll(r.body, []byte(public), []byte(p.upstream))
		return nil
	}, response: func(p *flawProxy, _ *proxied, answer []byte) []byte {
		return bytes.ReplaceAll(answer, []byte(p.ln.Addr().String()), []byte(publicAuthority(p)))
	}}
}

func publicAuthority(p *flawProxy) string {
	_, port, _ := net.SplitHostPort(p.ln.Addr().String())
	return "a.example:" + port
}

// isEventStream reports a 200 answer of type text/event-stream.
func isEventStream(answer []byte) bool {
	head, _ := splitAnswer(answer)
	return bytes.HasPrefix(head, []byte("HTTP/1.1 200")) && bytes.Contains(bytes.ToLower(head), []byte("\r\ncontent-type: text/event-stream"))
}

// splitAnswer cuts an answer into its head (without the blank line) and
// its body.
func splitAnswer(answer []byte) (head, body []byte) {
	head, body, _ = bytes.Cut(answer, []byte("\r\n\r\n"))
	return append([]byte(nil), head...), append([]byte(nil), body...)
}

// joinAnswer puts a head and a body together with the body's
// Content-Length.
func joinAnswer(head, body []byte) []byte {
	lines := bytes.Split(head, []byte("\r\n"))
	out := [][]byte{}
	for _, line := range lines {
		if !bytes.HasPrefix(bytes.ToLower(line), []byte("content-length:")) {
			out = append(out, line)
		}
	}
	out = append(out, []byte("Content-Length: "+strconv.Itoa(len(body))))
	return append(append(bytes.Join(out, []byte("\r\n")), "\r\n\r\n"...), body...)
}

// rewriteAnswer replaces old by new in the head and the body, keeping
// Content-Length right.
func rewriteAnswer(answer []byte, old, new string) []byte {
	head, body := splitAnswer(answer)
	return joinAnswer(bytes.ReplaceAll(head, []byte(old), []byte(new)), bytes.ReplaceAll(body, []byte(old), []byte(new)))
}

// chunkedHead turns a Content-Length head into a chunked one, with the
// blank line.
func chunkedHead(head []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(head, []byte("\r\n")) {
		if !bytes.HasPrefix(bytes.ToLower(line), []byte("content-length:")) {
			out = append(out, line)
		}
	}
	out = append(out, []byte("Transfer-Encoding: chunked"))
	return append(bytes.Join(out, []byte("\r\n")), "\r\n\r\n"...)
}

func chunk(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append(append([]byte(strconv.FormatInt(int64(len(b)), 16)+"\r\n"), b...), "\r\n"...)
}

// modernOverTLS is the modern-only reference at upstream behind a TLS
// front for mcp.example.test that sends Strict-Transport-Security, with
// the cleartext twin twin starts (nil leaves the refusing one), and the
// options of a strict run with alice's token that trusts the front's CA.
func modernOverTLS(t *testing.T, upstream string, twin func(t *testing.T, upstream, httpsURL string) string) (probe.Target, probe.Options) {
	t.Helper()
	pki := clienttest.NewCA(t, "rawmcp test CA")
	cert := pki.Leaf(t, publicName, time.Now().Add(24*time.Hour))
	port := startTLSFrontWith(t, upstream, cert, &tls.Config{}, hsts)
	target := aimed(t, publicName, port)
	if twin != nil {
		twins.Store("127.0.0.1:"+port, twin(t, upstream, target.URL))
	}
	return target, probe.Options{Token: alice, Named: named, Strict: true, RootCAs: pki.Roots, Timeout: 20 * time.Second}
}

// gatewayTwin is a cleartext twin that relays every request to upstream
// with its own credential (alice's token), as a gateway that
// authenticates for its clients does: it serves MCP to whoever asks.
func gatewayTwin(t *testing.T, upstream, _ string) string {
	return startProxy(t, upstream, flaw{request: func(p *flawProxy, r *proxied) []byte {
		r.set("Host", p.upstream)
		r.set("Authorization", "Bearer "+alice)
		return nil
	}})
}

// relayTwin is a cleartext twin that relays every request to upstream
// as it came: a protected server answers its challenge in cleartext.
func relayTwin(t *testing.T, upstream, _ string) string {
	return startProxy(t, upstream, flaw{request: func(p *flawProxy, r *proxied) []byte {
		r.set("Host", p.upstream)
		return nil
	}})
}

// answeringTwin is a cleartext twin that gives every request answer,
// with %URL% standing for the https URL.
func answeringTwin(answer string) func(t *testing.T, upstream, httpsURL string) string {
	return func(t *testing.T, _, httpsURL string) string {
		return fakeServer(t, strings.ReplaceAll(answer, "%URL%", httpsURL))
	}
}
