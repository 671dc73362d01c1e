package probe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe"
)

// Flaws, each one deliberate break of a correct server, and the one check
// that must notice it. The proxy applies the flaw in front of rawmcp;
// everything else about the server stays correct, so every other verdict
// must stay what it is without the proxy.
var flaws = []struct {
	name  string
	flaw  flaw
	check string
	want  probe.Verdict
}{
	{"a foreign Host is served (DNS rebinding)", flaw{request: func(p *flawProxy, r *proxied) []byte {
		if r.get("Host") == "evil.example" {
			r.set("Host", p.upstream)
		}
		return nil
	}}, "HO-01", probe.Fail},
	{"a foreign Origin is accepted on POST", flaw{request: func(_ *flawProxy, r *proxied) []byte {
		if r.method == "POST" && r.get("Origin") == "http://evil.example" {
			r.drop("Origin")
		}
		return nil
	}}, "HO-02", probe.Fail},
	{"a foreign Origin is accepted on GET and DELETE", flaw{request: func(_ *flawProxy, r *proxied) []byte {
		if r.method != "POST" && r.get("Origin") == "http://evil.example" {
			r.drop("Origin")
		}
		return nil
	}}, "HO-03", probe.Fail},
	{"a notification is answered 200", flaw{response: func(_ *flawProxy, _ *proxied, answer []byte) []byte {
		return bytes.Replace(answer, []byte("HTTP/1.1 202 Accepted"), []byte("HTTP/1.1 200 OK"), 1)
	}}, "MM-06", probe.Fail},
	{"a past protocol version is accepted", flaw{request: func(_ *flawProxy, r *proxied) []byte {
		if r.get("MCP-Protocol-Version") == "1999-01-01" {
			r.set("MCP-Protocol-Version", "2025-11-25")
		}
		return nil
	}}, "PV-01", probe.Fail},
	{"a deleted session is still served", flaw{request: serveDeleted}, "SE-04", probe.Fail},
	{"a session serves another principal", flaw{request: func(_ *flawProxy, r *proxied) []byte {
		if r.get("Authorization") == "Bearer "+bob {
			r.set("Authorization", "Bearer "+alice)
		}
		return nil
	}}, "SE-07", probe.Warn},
	{"a null id is served", flaw{request: func(_ *flawProxy, r *proxied) []byte {
		r.body = bytes.Replace(r.body, []byte(`"id":null`), []byte(`"id":7`), 1)
		return nil
	}}, "JR-02", probe.Fail},
	{"a token for another audience is accepted", flaw{request: func(_ *flawProxy, r *proxied) []byte {
		if r.get("Authorization") == "Bearer "+wrongAud {
			r.set("Authorization", "Bearer "+alice)
		}
		return nil
	}}, "AU-07", probe.Fail},
	{"CL+TE is framed by TE and the connection kept", flaw{dechunk: true}, "LF-02", probe.Fail},
	{"every answer echoes the Authorization header", flaw{response: func(_ *flawProxy, r *proxied, answer []byte) []byte {
		auth := r.get("Authorization")
		if auth == "" {
			return answer
		}
		line, rest, _ := bytes.Cut(answer, []byte("\r\n"))
		return []byte(string(line) + "\r\nX-Debug-Authorization: " + auth + "\r\n" + string(rest))
	}}, "EH-01", probe.Fail},
	{"error answers are HTML", flaw{response: func(_ *flawProxy, _ *proxied, answer []byte) []byte {
		if bytes.HasPrefix(answer, []byte("HTTP/1.1 4")) {
			return bytes.Replace(answer, []byte("Content-Type: application/json"), []byte("Content-Type: text/html"), 1)
		}
		return answer
	}}, "EH-02", probe.Fail},
}

// serveDeleted answers a request on a session a DELETE ended as if the
// session lived: a result for a POST, an event stream for a GET.
func serveDeleted(p *flawProxy, r *proxied) []byte {
	p.mu.Lock()
	gone := p.deleted[r.get("Mcp-Session-Id")]
	p.mu.Unlock()
	switch {
	case !gone || r.method == "DELETE":
		return nil
	case r.method == "GET":
		const stream = "id: 1\ndata:\n\n"
		return []byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: " + itoa(len(stream)) + "\r\n\r\n" + stream)
	}
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal(r.body, &msg)
	body := `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{}}`
	return []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestEachFlawFailsItsCheck: against rawmcp behind a proxy with one flaw,
// exactly the check for that flaw changes verdict; the proxy without a
// flaw changes none. The runs are mostly waiting (LF-07's trickle), so
// they all go at once, each against its own server.
func TestEachFlawFailsItsCheck(t *testing.T) {
	cases := append([]struct {
		name  string
		flaw  flaw
		check string
		want  probe.Verdict
	}{{name: "no flaw: the proxy changes nothing"}}, flaws...)
	reports := make([]*probe.Report, len(cases))
	var wg sync.WaitGroup
	for i, tt := range cases {
		srv := startRawmcp(t)
		addr := startProxy(t, srv.Addr, tt.flaw)
		target, err := probe.ParseTarget("http://" + addr + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { reports[i], _ = probe.Run(context.Background(), target, fullOptions()) })
	}
	wg.Wait()
	for i, tt := range cases {
		t.Run(tt.check+"/"+tt.name, func(t *testing.T) {
			rep := reports[i]
			want := rawmcpVerdicts()
			if tt.check != "" {
				want[tt.check] = tt.want
			}
			if diff := cmp.Diff(want, verdicts(rep)); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s\n%s", diff, reasons(rep))
			}
			for _, res := range rep.Results {
				if res.Check.ID == tt.check && strings.TrimSpace(res.Reason) == "" {
					t.Errorf("%s %s without a reason", tt.check, res.Verdict)
				}
			}
		})
	}
}

// TestHardeningWarnsWithoutStrict: a hardening check not met is a warn
// unless -strict, which makes it a fail; a MUST fails either way.
func TestHardeningWarnsWithoutStrict(t *testing.T) {
	for _, tt := range []struct {
		flaw  int // index in flaws
		check string
		want  probe.Verdict
	}{
		{0, "HO-01", probe.Warn},
		{1, "HO-02", probe.Fail},
	} {
		t.Run(tt.check, func(t *testing.T) {
			t.Parallel()
			srv := startRawmcp(t)
			opts := fullOptions()
			opts.Strict, opts.Only = false, []string{tt.check}
			rep := run(t, startProxy(t, srv.Addr, flaws[tt.flaw].flaw), opts)
			if got := verdicts(rep)[tt.check]; got != tt.want {
				t.Errorf("%s = %s, want %s\n%s", tt.check, got, tt.want, reasons(rep))
			}
		})
	}
}

// TestEchoScanSaysWhatItCannotSee (A-P07): a token shorter than
// client.MinSecret is not looked for in the answers, its bytes occurring
// by chance; EH-01 still passes and says so. The proxy stands the short
// token in for alice's.
func TestEchoScanSaysWhatItCannotSee(t *testing.T) {
	const short = "t0ken"
	srv := startRawmcp(t)
	addr := startProxy(t, srv.Addr, flaw{request: func(_ *flawProxy, r *proxied) []byte {
		if r.get("Authorization") == "Bearer "+short {
			r.set("Authorization", "Bearer "+alice)
		}
		return nil
	}})
	opts := fullOptions()
	opts.Token, opts.Only = short, []string{"EH-01"}
	rep := run(t, addr, opts)
	for _, res := range rep.Results {
		if res.Check.ID != "EH-01" {
			continue
		}
		if res.Verdict != probe.Pass || !strings.HasSuffix(res.Reason, " (1 token shorter than 8 bytes not looked for)") {
			t.Errorf("EH-01 %s: %s, want a pass that names the token not looked for", res.Verdict, res.Reason)
		}
		return
	}
	t.Errorf("no EH-01 result:\n%s", reasons(rep))
}
