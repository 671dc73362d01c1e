package probe_test

import (
	"context"
	"crypto/tls"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/clienttest"
	"rawmcp/wire/client/probe"
)

// TestMain shortens the deployment group's waits before any run starts:
// DP-08 holds its stream 3 s, not 130 s, and DP-07's bound is 3 s, not
// 1 s, so a loaded machine running twenty probes at once under the race
// detector is not taken for a hop that holds streams. The fronts' upstream
// keeps its streams open upstreamOpen (6 s), past both. DP-03's
// cleartext twins are the tests' own listeners, never port 80.
func TestMain(m *testing.M) {
	probe.SetIdleHold(3 * time.Second)
	probe.SetHeldAfter(3 * time.Second)
	stop := startRefusingTwin()
	code := m.Run()
	stop()
	os.Exit(code)
}

// resultThrough is one check's verdict and reason in a run through a front.
func resultThrough(t *testing.T, f flaw, opts probe.Options, id string) probe.Result {
	t.Helper()
	srv := startRawmcp(t)
	opts.Only = []string{id}
	rep := run(t, startProxy(t, srv.Addr, f), opts)
	for _, res := range rep.Results {
		if res.Check.ID == id {
			return res
		}
	}
	t.Fatalf("%s did not run", id)
	return probe.Result{}
}

// TestDP07: an open stream passed at once passes; one that ends a moment
// after its first bytes skips, however the reads fall, and so does one
// late by no more than the target is at everything; one held until it
// ends fails (TestEachFlawFailsItsCheck), and so does one held only for
// clients that accept gzip. The verdict and the reason's words are exact;
// the time the reason reports is only checked against what the front
// guarantees (a held head comes no sooner than upstreamOpen), since a
// loaded machine makes every measured time longer, never shorter.
func TestDP07(t *testing.T) {
	for _, tt := range []struct {
		name    string
		deliver func(*flawProxy, *proxied, []byte, net.Conn) bool
		want    probe.Verdict
		reason  timedReason
	}{
		{"an open stream passed at once", keepsStreamsOpen, probe.Pass,
			timedReason{`^GET: the head after (\S+?),`, 0, 3 * time.Second}},
		{"a stream that ends a moment after its first bytes", endsAMomentLater, probe.Skip,
			timedReason{`^GET: the whole stream ended within (\S+?); with the encodings, the whole stream ended within \S+?: a stream that ends this soon`, 2 * momentApart, 0}},
		{"a target slow at everything, at a gzip client's stream a little more", slowEverywhere, probe.Skip,
			timedReason{`^GET with Accept-Encoding: gzip, deflate, br: the head after (\S+?), .*: a slow server, no sign of a hop holding the stream$`, slowStream, 0}},
		{"a stream compressed and held for gzip clients", compressesStreams, probe.Warn,
			timedReason{`^twice: GET with Accept-Encoding: gzip, deflate, br: the head after (\S+?),`, upstreamOpen, 0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := resultThrough(t, flaw{deliver: tt.deliver}, fullOptions(), "DP-07")
			if res.Verdict != tt.want {
				t.Errorf("DP-07 %s: %s; want %s", res.Verdict, res.Reason, tt.want)
			}
			tt.reason.check(t, "DP-07 reason", res.Reason)
		})
	}
}

// TestDP08: a stream kept open past the hold passes, one cut without
// retry is not met and says when it was cut and how often bytes came;
// rawmcp's stream, ended at once with retry, passes
// (TestRawmcpPassesEveryCheck), and without -slow the check skips. The
// times reported are checked against what the front and the hold
// guarantee: held at least the 3 s hold; cut within it. The front cuts as
// soon as it has passed the head and the first events, so the whole hold
// is the margin a loaded machine has for that, not a timer's head start.
func TestDP08(t *testing.T) {
	for _, tt := range []struct {
		name    string
		deliver func(*flawProxy, *proxied, []byte, net.Conn) bool
		slow    bool
		want    probe.Verdict
		reason  timedReason
		note    timedReason // in the held GET's exchange
	}{
		{"kept open with keep-alive comments", keepsIdleStreams, true, probe.Pass,
			timedReason{`^still open after (\S+?); bytes came \d+ times`, 3 * time.Second, 0},
			timedReason{`the stream was still open after (\S+?); the probe stopped reading`, 3 * time.Second, 0}},
		{"kept open and silent", keepsSilentStreams, true, probe.Pass,
			timedReason{`^still open after (\S+?); bytes came once`, 3 * time.Second, 0},
			timedReason{`the stream was still open after (\S+?); the probe stopped reading`, 3 * time.Second, 0}},
		{"cut without retry once its first events are through", cutsIdleStreams, true, probe.Warn,
			timedReason{`^cut after (\d+ s) without retry; bytes came`, 0, 3 * time.Second},
			timedReason{`the stream broke off after (\S+?), before its end`, 0, 3 * time.Second}},
		{"without -slow", cutsIdleStreams, false, probe.Skip,
			timedReason{`^needs -slow \(it holds a stream up to (3s)\)`, 3 * time.Second, 3 * time.Second}, timedReason{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := fullOptions()
			opts.Slow = tt.slow
			res := resultThrough(t, flaw{deliver: tt.deliver}, opts, "DP-08")
			if res.Verdict != tt.want {
				t.Errorf("DP-08 %s: %s; want %s", res.Verdict, res.Reason, tt.want)
			}
			tt.reason.check(t, "DP-08 reason", res.Reason)
			if tt.note.pattern == "" {
				return
			}
			var notes []string
			for _, x := range res.Exchanges {
				notes = append(notes, x.Response)
			}
			tt.note.check(t, "the held GET's exchange", strings.Join(notes, "\n"))
		})
	}
}

// timedReason is a reason (or note) that reports one measured time, in
// the pattern's first group: a Go duration, or whole seconds as "N s".
// The time must lie in [atLeast, atMost]; atMost 0 has no upper bound.
type timedReason struct {
	pattern         string
	atLeast, atMost time.Duration
}

func (r timedReason) check(t *testing.T, what, got string) {
	t.Helper()
	m := regexp.MustCompile(r.pattern).FindStringSubmatch(got)
	if m == nil {
		t.Errorf("%s = %q, want a match of %q", what, got, r.pattern)
		return
	}
	d, err := time.ParseDuration(strings.ReplaceAll(m[1], " ", ""))
	if err != nil {
		t.Errorf("%s = %q: %q is no time: %v", what, got, m[1], err)
		return
	}
	if d < r.atLeast || r.atMost > 0 && d > r.atMost {
		t.Errorf("%s = %q: %v is outside [%v, %v]", what, got, d, r.atLeast, r.atMost)
	}
}

// TestDP10: rawmcp's SSE answers say X-Accel-Buffering: no and pass
// (rawmcpVerdicts); without it they fail, unless the hop is nginx, which
// strips it and then only gets a note. A cache is TestEachFlawFailsItsCheck's.
func TestDP10(t *testing.T) {
	for _, tt := range []struct {
		name     string
		response func(*flawProxy, *proxied, []byte) []byte
		want     probe.Verdict
		reason   string
	}{
		{"X-Accel-Buffering stripped by a hop that is not nginx", stripsAccelBuffering(""), probe.Fail, "SSE answers a proxy may buffer or cache: no X-Accel-Buffering: no (in DP-10)"},
		{"X-Accel-Buffering stripped by nginx", stripsAccelBuffering("nginx"), probe.Info, "2 SSE answers, each with Cache-Control no-cache or no-store and no cache hit; X-Accel-Buffering: no is missing behind nginx (DP-10)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := resultThrough(t, flaw{response: tt.response}, fullOptions(), "DP-10")
			if res.Verdict != tt.want || !strings.HasPrefix(res.Reason, tt.reason) {
				t.Errorf("DP-10 %s: %s; want %s, a reason starting %q", res.Verdict, res.Reason, tt.want, tt.reason)
			}
		})
	}
}

// TestDP01: cleartext http is judged by the URL's host, never by the
// address dialled. A loopback URL passes without a request. a.example,
// aimed at 127.0.0.1 with -resolve: with a token the run never starts (a
// protected endpoint is never sent one over cleartext); without one,
// an endpoint that serves MCP openly but publishes metadata fails.
func TestDP01(t *testing.T) {
	srv := startRawmcp(t)
	open := openWithMetadata(t)
	_, port, _ := strings.Cut(open, ":")
	resolve, _ := probe.ParseResolve("a.example:" + port + ":127.0.0.1")
	public, err := probe.ParseTarget("http://a.example:"+port+"/mcp", resolve)
	if err != nil {
		t.Fatal(err)
	}
	loopback, _ := probe.ParseTarget("http://" + srv.Addr + "/mcp")
	got := map[string]string{}
	for name, x := range map[string]struct {
		target probe.Target
		token  string
	}{"loopback with a token": {loopback, alice}, "a.example with a token": {public, alice}, "a.example without": {public, ""}} {
		rep, err := probe.Run(context.Background(), x.target, probe.Options{Token: x.token, Only: []string{"DP-01"}})
		switch {
		case err != nil:
			got[name] = err.Error()
		default:
			got[name] = string(rep.Results[1].Verdict) + ": " + rep.Results[1].Reason
		}
	}
	want := map[string]string{
		"loopback with a token":  "pass: loopback: cleartext http never leaves the machine",
		"a.example with a token": probe.ErrCleartextToken.Error(),
		"a.example without":      "fail: http to a.example, which serves Protected Resource Metadata at /.well-known/oauth-protected-resource/mcp: tokens would travel in cleartext (RFC 9728 §1.2)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DP-01 (-want +got):\n%s", diff)
	}
}

// openWithMetadata serves initialize and notifications/initialized to
// anyone, without sessions or tokens, and Protected Resource Metadata at
// the path-inserted well-known path: a server that means to be protected
// and is not.
func openWithMetadata(t *testing.T) string {
	id := regexp.MustCompile(`"id":(\d+),"method":"initialize"`)
	return answerOnce(t, func(req string) string {
		switch m := id.FindStringSubmatch(req); {
		case m != nil:
			body := `{"jsonrpc":"2.0","id":` + m[1] + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"open","version":"1"}}}`
			return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
		case strings.Contains(req, "notifications/initialized"):
			return "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
		case strings.HasPrefix(req, "GET /.well-known/oauth-protected-resource/mcp "):
			body := `{"resource":"http://a.example/mcp","authorization_servers":["https://as.example"]}`
			return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
		}
		return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
	})
}

// twins are the cleartext twins of the TLS fronts, by the front's
// dialled address; a front without one has refusingTwin, which closes
// every connection at once.
var (
	twins        sync.Map
	refusingTwin string
)

// startRefusingTwin listens for the twins no test registered: a close
// is a refusal. TestMain starts it before any run, for the run's life.
func startRefusingTwin() (stop func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	refusingTwin = ln.Addr().String()
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			nc.Close()
		}
	}()
	probe.SetTwinAddr(func(dial string) string {
		if twin, ok := twins.Load(dial); ok {
			return twin.(string)
		}
		return refusingTwin
	})
	return func() { ln.Close() }
}

// startTLSFrontWith is startTLSFront with a flaw.
func startTLSFrontWith(t *testing.T, upstream string, cert tls.Certificate, cfg *tls.Config, f flaw) (port string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Certificates = []tls.Certificate{cert}
	_, port, _ = net.SplitHostPort(l.Addr().String())
	public := publicName + ":" + port
	p := &flawProxy{ln: tls.NewListener(l, cfg), upstream: upstream, flaw: f, deleted: map[string]bool{},
		toServer: [][2]string{{"https://" + public, "http://" + upstream}, {"Host: " + public + "\r\n", "Host: " + upstream + "\r\n"}},
		toCaller: [][2]string{{"http://" + upstream, "https://" + public}, {upstream, public}}}
	p.start(t)
	return port
}

// hsts is what an honest TLS front adds to every answer.
var hsts = flaw{response: addsHeader("Strict-Transport-Security", "max-age=31536000")}

// rawmcpOverTLS is rawmcpVerdicts through a TLS front that sends
// Strict-Transport-Security and has no cleartext twin: DP-02 and DP-03
// have something to judge, and pass.
func rawmcpOverTLS() map[string]probe.Verdict {
	want := rawmcpVerdicts()
	want["DP-02"], want["DP-03"] = probe.Pass, probe.Pass
	return want
}

// TestDP03Answers: how DP-03 reads the twin's answers: a close or a 301
// to the same URL is no MCP; a 302, or a 301 elsewhere, is not met.
func TestDP03Answers(t *testing.T) {
	pki := clienttest.NewCA(t, "rawmcp test CA")
	cert := pki.Leaf(t, publicName, time.Now().Add(24*time.Hour))
	for _, tt := range []struct {
		name, answer string
		want         probe.Verdict
		reason       string
	}{
		{"301 to the https URL", "HTTP/1.1 301 Moved Permanently\r\nLocation: %URL%\r\nContent-Length: 0\r\n\r\n", probe.Pass, "the twin serves no MCP (POST initialize answered 301 and GET answered 301)"},
		{"302 to the https URL", "HTTP/1.1 302 Found\r\nLocation: %URL%\r\nContent-Length: 0\r\n\r\n", probe.Warn, "the cleartext twin http://mcp.example.test/mcp: POST initialize answered 302"},
		{"301 to another host", "HTTP/1.1 301 Moved Permanently\r\nLocation: https://other.example/mcp?x=1\r\nContent-Length: 0\r\n\r\n", probe.Warn, "the cleartext twin http://mcp.example.test/mcp: POST initialize redirects to https://other.example/mcp, not to"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := startRawmcp(t)
			port := startTLSFrontWith(t, srv.Addr, cert, &tls.Config{}, hsts)
			target := aimed(t, publicName, port)
			twins.Store("127.0.0.1:"+port, fakeServer(t, strings.ReplaceAll(tt.answer, "%URL%", target.URL)))
			opts := fullOptions()
			opts.RootCAs, opts.Only = pki.Roots, []string{"DP-03"}
			rep, err := probe.Run(context.Background(), target, opts)
			if err != nil {
				t.Fatal(err)
			}
			res := rep.Results[1]
			if res.Verdict != tt.want || !strings.HasPrefix(res.Reason, tt.reason) {
				t.Errorf("DP-03 %s: %s; want %s, a reason starting %q", res.Verdict, res.Reason, tt.want, tt.reason)
			}
		})
	}
}

// TestDP03OnAModernOnlyTarget: on an https target that speaks only
// 2026-07-28, DP-03 sends the cleartext twin what a client of that
// revision sends (server/discover with MCP-Protocol-Version, Mcp-Method
// and _meta, and a GET, both without the token) and judges the answers
// by the rule it holds a 2025-11-25 twin to: a twin that serves the
// discover (a DiscoverResult) or answers a Bearer challenge warns, one
// that refuses or redirects with 301 or 308 to the https URL passes, and
// a 302 warns.
func TestDP03OnAModernOnlyTarget(t *testing.T) {
	const twinURL = "http://" + publicName + "/mcp"
	for _, tt := range []struct {
		name   string
		twin   func(t *testing.T, upstream, httpsURL string) string // nil: the refusing twin
		want   probe.Verdict
		reason string
	}{
		{"the twin serves server/discover, with its own credential", gatewayTwin, probe.Warn,
			"the cleartext twin " + twinURL + ": POST server/discover answered 200 application/json with a result, a DiscoverResult naming 2026-07-28: MCP in cleartext"},
		{"the twin relays to the server, which answers its challenge", relayTwin, probe.Warn,
			"the cleartext twin " + twinURL + ": POST server/discover answered a Bearer challenge in cleartext and GET answered a Bearer challenge in cleartext"},
		{"the twin refuses: every connection closed", nil, probe.Pass,
			"the twin serves no MCP (POST server/discover: closed without an answer and GET: closed without an answer); the 2xx answers carry Strict-Transport-Security"},
		{"308 to the https URL", answeringTwin("HTTP/1.1 308 Permanent Redirect\r\nLocation: %URL%\r\nContent-Length: 0\r\n\r\n"), probe.Pass,
			"the twin serves no MCP (POST server/discover answered 308 and GET answered 308); the 2xx answers carry Strict-Transport-Security"},
		{"302 to the https URL", answeringTwin("HTTP/1.1 302 Found\r\nLocation: %URL%\r\nContent-Length: 0\r\n\r\n"), probe.Warn,
			"the cleartext twin " + twinURL + ": POST server/discover answered 302: a redirect that may change the method; 301 or 308 to the https URL is the one that keeps a POST and GET answered 302: a redirect that may change the method; 301 or 308 to the https URL is the one that keeps a POST"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			target, opts := modernOverTLS(t, startModernRef(t, modernRef{token: alice}), tt.twin)
			opts.Only = []string{"DP-03"}
			rep, err := probe.Run(context.Background(), target, opts)
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, reasons(rep))
			}
			res := rep.Results[1]
			type judged struct {
				Verdict probe.Verdict
				Reason  string
			}
			if diff := cmp.Diff(judged{tt.want, tt.reason}, judged{res.Verdict, res.Reason}); diff != "" {
				t.Errorf("DP-03 (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(modernTwinRequests, sentToTwin(res)); diff != "" {
				t.Errorf("requests to the twin (-want +got):\n%s", diff)
			}
		})
	}
}

// twinRequest is what of a request to the twin DP-03 must get right on
// a 2026-07-28 target: the twin's Host, that revision's version in the
// header and in _meta, the method it names, no token.
type twinRequest struct {
	Line, Host, Version, Method, MetaVersion string
	Token                                    bool
}

var modernTwinRequests = []twinRequest{
	{Line: "POST /mcp HTTP/1.1", Host: publicName, Version: "2026-07-28", Method: "server/discover", MetaVersion: "2026-07-28"},
	{Line: "GET /mcp HTTP/1.1", Host: publicName, Version: "2026-07-28"},
}

var metaVersion = regexp.MustCompile(`"io\.modelcontextprotocol/protocolVersion":"([^"]*)"`)

// sentToTwin reads DP-03's requests, all of them to the twin.
func sentToTwin(res probe.Result) []twinRequest {
	var out []twinRequest
	for _, x := range res.Exchanges {
		head, body, _ := strings.Cut(x.Request, "\r\n\r\n")
		lines := strings.Split(head, "\r\n")
		r := twinRequest{Line: lines[0]}
		for _, l := range lines[1:] {
			name, value, _ := strings.Cut(l, ": ")
			switch strings.ToLower(name) {
			case "host":
				r.Host = value
			case "mcp-protocol-version":
				r.Version = value
			case "mcp-method":
				r.Method = value
			case "authorization":
				r.Token = true
			}
		}
		if m := metaVersion.FindStringSubmatch(body); m != nil {
			r.MetaVersion = m[1]
		}
		out = append(out, r)
	}
	return out
}
