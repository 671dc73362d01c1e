package probe

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"rawmcp/wire/client"
	"rawmcp/wire/rule"
)

// lfGroup is the LF group: each check is declared right above its run
// function; a check is in the catalogue when it is in this list.
var lfGroup = group{Group{"LF", "HTTP framing and limits"}, eraBoundary, []*Check{&lf01, &lf02, &lf03, &lf04, &lf05, &lf06, &lf07, &lf08}}

// closeWindow is how long a framing check waits, after the answer, for
// the server to close the connection or send what it should not.
const closeWindow = 2 * time.Second

// answersBehind reports bytes after an answer that are a second response:
// the server read on and answered a request it should never have seen.
func answersBehind(extra []byte) bool { return bytes.HasPrefix(extra, []byte("HTTP/")) }

// behind is a request whose answer must never come: its path exists on
// no server, so any answer at all proves it was parsed.
func (t *checkRun) behind() string {
	return "GET /rawmcp-probe-behind HTTP/1.1\r\nHost: " + t.p.target.Host + "\r\n\r\n"
}

// bigBody is LF-01's body: a ping padded to 8 MiB, far over any JSON-RPC
// message an MCP server needs to read.
const bigBody = 8 << 20

// LF-01: a body past a limit is refused by its size (413) or the
// connection is closed before the body is read. A server that serves 8 MiB
// is asked once more with twice that, so a limit above 8 MiB is reported
// as measured, between the size served and the size refused. A server
// that answers 413 and resets the connection races the upload: the probe
// may see the 413, or only a close after the whole body went out. So a
// close without an answer is judged by a smaller body on the same
// session: served, the close was the limit's, whichever won the race.
var lf01 = Check{asks: askEither, ID: "LF-01", Level: Hardening, Source: "resource exhaustion", Rule: rule.FixedLimit,
	Section: "resource exhaustion (a body limit)", Keyword: "", Binds: Profile,
	Title:    "Body size limited",
	Sends:    "ping (2026-07-28 only: server/discover) padded to 8 MiB in 64 KiB writes, 20 s (or twice -timeout); served, 16 MiB; closed unanswered, 1 MiB, 64 KiB, 1 KiB till one is served",
	Passes:   "413, another 4xx before the whole body, or a close a smaller body does not get, to 8 MiB or to 16 MiB (the limit reported as between the two)",
	Fix:      "Limit the request body (a few MiB at most) and answer 413 as soon as Content-Length or the bytes read pass the limit. Go SDK: StreamableHTTPOptions.MaxRequestBodyBytes; Express: express.json with limit (the TypeScript SDK v2's createMcpExpressApp takes jsonLimit); nginx: client_max_body_size.",
	Link:     "https://owasp.org/API-Security/editions/2023/en/0xa4-unrestricted-resource-consumption/",
	Sessions: 1, Opens: 1, run: runLF01}

func runLF01(t *checkRun) outcome {
	first := t.bigPing(bigBody)
	switch first.kind {
	case bodyClosedWhole:
		return t.closedWhole(first, "", controlSizes)
	case bodyServed:
	default:
		return first.judge(t, "")
	}
	second := t.bigPing(2 * bigBody)
	switch second.kind {
	case bodyServed:
		return t.unmet("read and served bodies of 8 MiB and 16 MiB: no limit seen up to 16 MiB").
			with("413, or a refusal or close before the whole body", second.r.actual()+" after 16 MiB")
	case bodyClosedWhole:
		return t.pass("served 8 MiB; took the whole 16 MiB, then closed without an answer: a limit between 8 MiB and 16 MiB")
	}
	return second.judge(t, "served 8 MiB; ")
}

// controlSizes are the smaller bodies LF-01 sends after a close without
// an answer, largest first, to find one the server serves.
var controlSizes = []int{1 << 20, 64 << 10, 1 << 10}

// closedWhole judges a close without an answer after the whole body a:
// a smaller body served shows the close was the size's (a limit whose 413
// the reset took); a server that closes every size says nothing of one.
func (t *checkRun) closedWhole(a bodyAnswer, before string, sizes []int) outcome {
	for _, size := range sizes {
		c := t.bigPing(size)
		switch c.kind {
		case bodyServed:
			return t.pass("%stook the whole %s, then closed without an answer, while %s was served: a limit between %s and %s (its answer lost to the close)", before, a.size, c.size, c.size, a.size)
		case bodyRefused, bodyClosedWhole:
			continue
		}
		return t.errored("%stook the whole %s, then closed without an answer; a %s ping %s: nothing to compare the close with", before, a.size, c.size, c.r.describe())
	}
	return t.errored("%stook the whole %s, then closed without an answer, and refused every smaller ping down to 1 KiB: the server serves no padded ping, nothing to judge", before, a.size)
}

// bodyAnswer is how a server met one big body.
type bodyAnswer struct {
	kind   bodyAnswerKind
	size   string // "8 MiB"
	r      *reply
	f      client.Feeding
	all    bool // the whole request was written
	length int
}

type bodyAnswerKind uint8

const (
	bodyRefused     bodyAnswerKind = iota // 413, another 4xx before the whole body, or a close before it
	bodyServed                            // a 2xx
	bodyClosedWhole                       // a close without an answer after the whole body: a limit, or none
	bodyUnmet                             // anything else: no sign of a limit
)

// bigPing sends a ping padded to size bytes in 64 KiB writes and says how
// it was met.
func (t *checkRun) bigPing(size int) bodyAnswer {
	id := strconv.FormatInt(newID(), 10)
	method := t.plainMethod()
	// The pad is the first member of the params, so what follows it (the
	// modern _meta) is the suffix.
	params := t.plainParams(`"pad":""`)
	prefix, suffix := `{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`","params":{"pad":"`, params[len(`{"pad":"`):]+`}`
	body := make([]byte, 0, size)
	body = append(body, prefix...)
	body = append(body, bytes.Repeat([]byte("x"), size-len(prefix)-len(suffix))...)
	body = append(body, suffix...)
	raw := t.rpcRequest(method, body).Bytes()
	a := bodyAnswer{size: sizeName(size), length: len(raw)}
	a.r, a.f = t.feed(method+" with a "+a.size+" body", raw, 64<<10, 0, t.bodyWindow())
	a.r.close()
	a.all = a.f.Written == len(raw)
	switch {
	case a.f.Stream != nil && a.r.status() == 413,
		a.f.Stream != nil && is4xx(a.r.status()) && !a.all,
		a.f.Stream == nil && a.f.Err == client.ErrClosed && !a.all:
		a.kind = bodyRefused
	case a.f.Stream != nil && is2xx(a.r.status()):
		a.kind = bodyServed
	case a.f.Stream == nil && a.f.Err == client.ErrClosed:
		a.kind = bodyClosedWhole
	default:
		a.kind = bodyUnmet
	}
	return a
}

// bodyWindow is how long LF-01 feeds a body and waits for its answer:
// 20 s, or twice -timeout when that is longer, so a slow target still
// reading a body it took whole is not read as no limit. A server that
// refuses or serves answers long before; only one that does neither
// waits this long.
func (t *checkRun) bodyWindow() time.Duration {
	return max(20*time.Second, 2*t.p.timeout())
}

// sizeName writes a body size as LF-01 reports it: "8 MiB", "64 KiB".
func sizeName(size int) string {
	if size >= 1<<20 {
		return strconv.Itoa(size>>20) + " MiB"
	}
	return strconv.Itoa(size>>10) + " KiB"
}

// judge is LF-01's verdict on a body that was not served; before says
// what a smaller body got.
func (a bodyAnswer) judge(t *checkRun, before string) outcome {
	expected := "413, or a refusal or close before the whole body"
	switch {
	case a.kind == bodyRefused && a.f.Stream != nil && a.r.status() == 413:
		return t.pass("%srefused %s with 413 after %d of %d bytes", before, a.size, a.f.Written, a.length)
	case a.kind == bodyRefused && a.f.Stream != nil:
		return t.pass("%srefused %s with %d before the body was read (%d of %d bytes)", before, a.size, a.r.status(), a.f.Written, a.length)
	case a.kind == bodyRefused:
		return t.pass("%sclosed the connection after %d of %d bytes of %s", before, a.f.Written, a.length, a.size)
	case a.f.Stream != nil && !a.all:
		// An answer that is no refusal (a 502 from a hop whose upstream
		// refused and closed mid-upload) before the whole body went.
		return t.unmet("%s%s after %d of %d bytes of the %s body, not 413 or another 4xx", before, a.r.describe(), a.f.Written, a.length, a.size).
			with(expected, fmt.Sprintf("%s after %d of %d bytes", a.r.actual(), a.f.Written, a.length))
	case a.f.Stream != nil:
		return t.unmet("%s%s after reading the whole %s body, not 413", before, a.r.describe(), a.size).with(expected, a.r.actual()+" after "+a.size)
	case a.f.Written == 0:
		// No byte went out: nothing was asked of the server's limit.
		return t.errored("%sthe connection took no byte of the %s body within %s (%s)", before, a.size, t.bodyWindow(), t.p.secrets.Redact(errText(a.f.Err)))
	}
	return t.unmet("%sneither refused nor closed within %s of a %s body (%d bytes taken)", before, t.bodyWindow(), a.size, a.f.Written).with(expected, "no answer and no close within "+t.bodyWindow().String())
}

// LF-02: Content-Length and Transfer-Encoding together never let a
// request through behind the body: the classic CL.TE smuggle. A server
// framing by TE reads an empty chunked body and then the request behind
// it; one framing by CL reads it as body.
var lf02 = Check{ID: "LF-02", Level: Must, Source: "RFC 9112 §6.1", Rule: rule.TEWithCLCloses,
	Section: "RFC 9112 §6.1", Keyword: "MUST", Binds: Server,
	Title:    "CL+TE never smuggles",
	Sends:    "a POST with Content-Length and Transfer-Encoding: chunked, an empty chunked body and GET /rawmcp-probe-behind after it",
	Passes:   "a 4xx and a close, or a close; an answer to the GET or an open connection 2 s later fails",
	Fix:      "Refuse a request that has both Content-Length and Transfer-Encoding with 400 and close the connection. Go's net/http, and so the Go SDK, mcp-go and Caddy, reads such a request as chunked and keeps the connection open, with no setting to change that: put nginx or HAProxy, which pass this check, in front.",
	Link:     "https://www.rfc-editor.org/rfc/rfc9112#section-6.1",
	Sessions: 0, run: runLF02}

func runLF02(t *checkRun) outcome {
	chunked := "0\r\n\r\n" + t.behind()
	req := t.request("POST", nil, nil)
	req = edit(req, set("Content-Length", strconv.Itoa(len(chunked))), set("Transfer-Encoding", "chunked"))
	raw := append(req.Bytes(), chunked...)
	r := t.sendKeep("POST with Content-Length and Transfer-Encoding, a request behind the body", raw, toEnd, 0)
	if r.resp == nil {
		r.close()
		if r.err == client.ErrClosed {
			return t.pass("closed the connection without answering")
		}
		return t.errored("%s", r.describe())
	}
	closed, extra := t.waitClose(r, closeWindow)
	switch {
	case answersBehind(extra):
		return t.unmet("answered the request smuggled behind the body").with("no answer to the smuggled GET", "an answer to GET /rawmcp-probe-behind")
	case !closed:
		return t.unmet("answered %d and kept the connection open: after Content-Length with Transfer-Encoding it must close (RFC 9112 §6.1)", r.status()).with("a 4xx and a close", r.actual()+", connection kept open")
	case is2xx(r.status()):
		return t.unmetAt(Should, "answered %d, framing by Transfer-Encoding alone, then closed; refusing (400) is safer", r.status()).with("a 4xx and a close", r.actual()+", then a close")
	}
	return t.pass("answered %d and closed; the request behind was never answered", r.status())
}

// LF-03: two different Content-Length values are unrecoverable: 400, then
// close.
var lf03 = Check{ID: "LF-03", Level: Must, Source: "RFC 9112 §6.3", Rule: rule.InvalidContentLength,
	Section: "RFC 9112 §6.3", Keyword: "MUST", Binds: Server,
	Title:    "Conflicting Content-Length refused",
	Sends:    "a POST with Content-Length: 2 and Content-Length: 3",
	Passes:   "400 and a close within 2 s",
	Fix:      "Answer a request with two different Content-Length values with 400 and close the connection. This is the HTTP server's parser (or the proxy in front), not MCP code: upgrade it, or put a proxy in front that refuses such requests.",
	Link:     "https://www.rfc-editor.org/rfc/rfc9112#section-6.3",
	Sessions: 0, run: runLF03}

func runLF03(t *checkRun) outcome {
	req := t.request("POST", nil, nil).Add("Content-Length", "2").Add("Content-Length", "3")
	raw := append(req.Bytes(), "{} "...)
	r := t.sendKeep("POST with Content-Length: 2 and Content-Length: 3", raw, toEnd, 0)
	if r.resp == nil {
		r.close()
		if r.err == client.ErrClosed {
			return t.unmet("closed without the 400 (RFC 9112 §6.3)").with("400 and a close", "a close without an answer")
		}
		return t.errored("%s", r.describe())
	}
	closed, extra := t.waitClose(r, closeWindow)
	switch {
	case r.status() != 400:
		return t.unmet("%s, not 400", r.describe()).with("400 and a close", r.actual())
	case answersBehind(extra):
		return t.unmet("answered 400, then answered again on the same connection").with("400 and a close", "400, then another answer")
	case !closed:
		return t.unmet("answered 400 but kept the connection open (RFC 9112 §6.3)").with("400 and a close", "400, connection kept open")
	}
	return t.pass("answered 400 and closed")
}

// refusedHead judges a request whose head is malformed or oversized: the
// answer must refuse it (4xx; precise is the best status) and, with
// mustClose, the connection must close.
func (t *checkRun) refusedHead(r *reply, precise int, mustClose bool, what string) outcome {
	if r.resp == nil {
		r.close()
		if r.err == client.ErrClosed {
			return t.pass("closed the connection without answering")
		}
		return t.errored("%s", r.describe())
	}
	closed := true
	if mustClose {
		closed, _ = t.waitClose(r, closeWindow)
	}
	r.close()
	switch st := r.status(); {
	case is2xx(st):
		return t.unmet("%s: %s", r.describe(), what).with(fmt.Sprintf("a 4xx (%d) or a close", precise), r.actual())
	case !is4xx(st):
		return t.unmet("%s, not a 4xx refusal", r.describe()).with(fmt.Sprintf("a 4xx (%d) or a close", precise), r.actual())
	case !closed:
		return t.unmet("answered %d but kept the connection open", st).with(fmt.Sprintf("a 4xx (%d) and a close", precise), strconv.Itoa(st)+", connection kept open")
	case st != precise:
		return t.pass("answered %d (%d is the precise status)", st, precise)
	}
	return t.pass("answered %d", r.status())
}

// LF-04: a folded header line (obs-fold) is refused, not unfolded.
var lf04 = Check{asks: askEither, ID: "LF-04", Level: Hardening, Source: "RFC 9112 §5.2", Rule: rule.ObsFoldRefused,
	Section: "RFC 9112 §5.2 (refusing rather than unfolding)", Keyword: "", Binds: Profile,
	Title:    "obs-fold refused",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with a header field folded onto a line starting with a space",
	Passes:   "a 4xx (400 noted otherwise) or a close",
	Fix:      "Refuse a header line folded onto the next line (obs-fold) with 400 rather than joining it. Go's net/http (and so Caddy) and HAProxy accept it while nginx refuses it, so nginx in front changes this without touching the server.",
	Link:     "https://www.rfc-editor.org/rfc/rfc9112#section-5.2",
	Sessions: 1, run: runLF04}

func runLF04(t *checkRun) outcome {
	req, _ := t.opening(set("X-Probe-Folded", "a\r\n b"))
	r := t.sendKeep(t.openingName()+" with a folded header line", req.Bytes(), toResponse, 0)
	return t.refusedHead(r, 400, false, "the folded line was taken as part of the header and the request served")
}

// LF-05: line ends of LF alone are refused. RFC 9112 §2.2 lets a server
// accept them, so a served request is a warn even with -strict.
var lf05 = Check{asks: askEither, ID: "LF-05", Level: Hardening, Source: "RFC 9112 §2.2", Rule: rule.BareLF,
	Section: "RFC 9112 §2.2 (refusing a bare LF a recipient MAY accept)", Keyword: "", Binds: Profile,
	Title:    "Bare LF refused",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with every line ended by a bare LF",
	Passes:   "a 4xx (400 noted otherwise) or a close; a served request warns even with -strict",
	Fix:      "Refuse request and header lines that end in a bare LF instead of CRLF (400). RFC 9112 lets a recipient accept them and net/http, nginx, Caddy and HAProxy all do, so only a stricter front end changes this; most teams accept this warning in a baseline.",
	Link:     "https://www.rfc-editor.org/rfc/rfc9112#section-2.2",
	Sessions: 1, run: runLF05}

func runLF05(t *checkRun) outcome {
	req, _ := t.opening()
	raw := bytes.ReplaceAll(req.Bytes(), []byte("\r\n"), []byte("\n"))
	r := t.sendKeep(t.openingName()+" with bare LF line ends", raw, toResponse, 0)
	if is2xx(r.status()) {
		r.close()
		return t.unmetAt(Should, "%s with bare LF line ends (RFC 9112 §2.2 allows it; a stricter parser refuses)", r.describe()).with("a 4xx or a close", r.actual())
	}
	return t.refusedHead(r, 400, false, "")
}

// floodFields and floodBytes are LF-06's two floods: more field lines than
// any client sends, and a header section far over the 8-16 KiB common
// servers allow.
const (
	floodFields = 200
	floodBytes  = 64 << 10
)

// LF-06: too many header fields, and too large a header section, get 431
// (or 400) and a close.
var lf06 = Check{asks: askEither, ID: "LF-06", Level: Hardening, Source: "RFC 6585 §5", Rule: rule.OversizedHead,
	Section: "RFC 6585 §5 (a header limit)", Keyword: "", Binds: Profile,
	Title:    "Header flood refused",
	Sends:    "initialize (server/discover to a 2026-07-28-only target) with 200 header fields, then with a 64 KiB header section",
	Passes:   "a 4xx (431 noted otherwise) and a close within 2 s, both times",
	Fix:      "Refuse a head with too many fields or too many bytes with 431, and close the connection. Go's http.Server limits only bytes (MaxHeaderBytes, 1 MiB by default), so add a middleware that answers 431 with Connection: close past a field count; HAProxy in front refuses both and closes, nginx and Caddy keep the connection.",
	Link:     "https://www.rfc-editor.org/rfc/rfc6585#section-5",
	Sessions: 2, run: runLF06}

func runLF06(t *checkRun) outcome {
	many, _ := t.opening()
	for i := range floodFields {
		many.Header = append(many.Header, [2]string{fmt.Sprintf("X-Probe-%03d", i), "v"})
	}
	big, _ := t.opening()
	value := strings.Repeat("a", 1000)
	for i := range floodBytes / 1024 {
		big.Header = append(big.Header, [2]string{fmt.Sprintf("X-Probe-Big-%02d", i), value})
	}
	for _, x := range []struct {
		what string
		raw  []byte
	}{{strconv.Itoa(floodFields) + " header fields", many.Bytes()}, {"a 64 KiB header section", big.Bytes()}} {
		r, _ := t.feed(t.openingName()+" with "+x.what, x.raw, len(x.raw), 0, t.p.timeout())
		if o := t.refusedHead(r, 431, true, "served"); o.verdict != Pass {
			o.reason = x.what + ": " + o.reason
			return o
		}
	}
	return t.pass("both floods refused, and the connection closed")
}

// Slowloris: LF-07 sends a head a byte at a time and waits this long for
// the server to give up on it: above the 5 s the recommended proxy configs
// set (nginx client_header_timeout, Caddy read_header, HAProxy timeout
// http-request), and short enough that the whole run against a
// responsive server stays within 8 s, LF-07 running beside the others.
const (
	trickleEvery = 300 * time.Millisecond
	trickleLimit = 7 * time.Second
)

// LF-07: a head trickled in a byte at a time is cut off: one connection
// per 300 ms byte would otherwise hold a server's slot forever.
var lf07 = Check{ID: "LF-07", Level: Hardening, Source: "slowloris", Rule: rule.ReadDeadline,
	Section: "slowloris (a read deadline on the head)", Keyword: "", Binds: Profile,
	Title:    "A slow head is cut",
	Sends:    "an initialize head, one byte every 300 ms",
	Passes:   "an answer (408) or a close within 7 s",
	Fix:      "Put a deadline of a few seconds on reading the request head and close the connection when it passes. Go: an http.Server with ReadHeaderTimeout instead of http.ListenAndServe; Node: server.headersTimeout; nginx: client_header_timeout 5s; Caddy: timeouts read_header 5s; HAProxy: timeout http-request 5s.",
	Link:     "https://www.cve.org/CVERecord?id=CVE-2007-6750",
	Sessions: 0, long: true, run: runLF07}

func runLF07(t *checkRun) outcome {
	req, _ := t.initialize()
	r, f := t.feed("initialize, one byte every 300 ms", req.Bytes(), 1, trickleEvery, trickleLimit)
	r.close()
	switch {
	case f.Stream != nil:
		return t.pass("answered %d after %s (%d bytes in)", r.status(), f.Elapsed.Round(100*time.Millisecond), f.Written)
	case f.Err == client.ErrClosed:
		return t.pass("closed after %s (%d bytes in)", f.Elapsed.Round(100*time.Millisecond), f.Written)
	}
	waited := trickleLimit.String()
	if t.outOfTime() {
		// The run's budget ended the wait before trickleLimit did.
		waited = f.Elapsed.Round(100 * time.Millisecond).String()
	}
	return t.unmet("still open after %s with %d bytes of a head", waited, f.Written).with("408 or a close within "+trickleLimit.String(), fmt.Sprintf("still open after %d bytes", f.Written))
}

// LF-08: a POST refused before its body is read (here by Accept) must not
// leave the body to be parsed as the next request: the server reads it or
// closes the connection.
var lf08 = Check{ID: "LF-08", Level: Must, Source: "RFC 9112 §9.3", Rule: rule.BodyReadOrClosed,
	Section: "RFC 9112 §9.3 (read the whole body or close after the answer)", Keyword: "MUST", Binds: Server,
	Title:    "An error answer closes",
	Sends:    "a POST refused before its body is read (Accept: text/html), whose body is GET /rawmcp-probe-behind",
	Passes:   "no answer to the request in the body",
	Fix:      "When the server answers before reading the whole body (an early 4xx), either read and discard the rest or close the connection after the answer. Go's net/http does this; a custom server or proxy that answers early and keeps the connection reads the rest of the body as the next request.",
	Link:     "https://www.rfc-editor.org/rfc/rfc9112#section-9.3",
	Sessions: 0, run: runLF08}

func runLF08(t *checkRun) outcome {
	body := []byte(t.behind())
	req := edit(t.request("POST", nil, body), set("Accept", "text/html"))
	r := t.sendKeep("POST refused by Accept, whose body is a request", req.Bytes(), toEnd, 0)
	if r.resp == nil {
		r.close()
		if r.err == client.ErrClosed {
			return t.pass("closed the connection without answering")
		}
		return t.errored("%s", r.describe())
	}
	if is2xx(r.status()) {
		r.close()
		return t.errored("the POST was not refused (%s): the check needs a refusal that leaves the body unread", r.describe())
	}
	_, extra := t.waitClose(r, closeWindow)
	if answersBehind(extra) {
		return t.unmet("answered %d, then answered the request inside the unread body", r.status()).with("no answer to the request inside the body", "an answer to GET /rawmcp-probe-behind")
	}
	return t.pass("answered %d; the body was never parsed as a request", r.status())
}
