package probe

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client"
)

// TestAfterIsRunnable: every check a check comes after exists, runs in
// the same phase or an earlier one and not in the long lane (a dependent
// waits for it, so it must already have been handed out), and the
// dependencies form no cycle.
func TestAfterIsRunnable(t *testing.T) {
	byID := map[string]Check{}
	for _, c := range catalogue {
		byID[c.ID] = c
	}
	for _, c := range catalogue {
		for _, id := range c.After {
			d, ok := byID[id]
			switch {
			case !ok:
				t.Errorf("%s comes after %s, which is no check", c.ID, id)
			case runOrder(d.phase) > runOrder(c.phase):
				t.Errorf("%s (phase %d) comes after %s (phase %d), which runs later", c.ID, c.phase, id, d.phase)
			case d.long:
				t.Errorf("%s comes after %s, which runs in the long lane", c.ID, id)
			}
		}
	}
	var visit func(id string, path []string)
	visit = func(id string, path []string) {
		if slices.Contains(path, id) {
			t.Fatalf("a cycle of After: %s", strings.Join(append(path, id), " → "))
		}
		for _, next := range byID[id].After {
			visit(next, append(path, id))
		}
	}
	for _, c := range catalogue {
		visit(c.ID, nil)
	}
}

// runOrder is a phase's place in the run (phaseConcurrent, the zero
// value, runs second).
func runOrder(ph phase) int {
	if ph == phasePreflight {
		return -1
	}
	return int(ph)
}

// TestDependenciesFirst: a check is handed out after the checks of its
// batch it comes after, whatever the batch's order, and the rest keep
// their order.
func TestDependenciesFirst(t *testing.T) {
	a, b, c, d := &Check{ID: "A", After: []string{"C"}}, &Check{ID: "B"}, &Check{ID: "C", After: []string{"D"}}, &Check{ID: "D"}
	var got []string
	for _, x := range dependenciesFirst([]*Check{a, b, c, d}) {
		got = append(got, x.ID)
	}
	if diff := cmp.Diff([]string{"D", "C", "A", "B"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestClientDutyIsHardeningAtMost: a requirement that binds the client is
// not the server's obligation, so no check resting on one fails a server
// as a MUST or warns it as a SHOULD.
func TestClientDutyIsHardeningAtMost(t *testing.T) {
	for _, c := range catalogue {
		if c.Binds == Client && c.Level != Hardening && c.Level != Informational {
			t.Errorf("%s rests on a requirement binding the client, at level %s: hardening at most", c.ID, c.Level)
		}
	}
}

// TestEveryCheckNamesItsObligation: each check names the section its
// level rests on and the party it binds; the keyword may be "" only for
// the profile's own rule and for interoperability, which no sentence
// requires.
func TestEveryCheckNamesItsObligation(t *testing.T) {
	for _, c := range catalogue {
		switch {
		case c.Section == "" || c.Binds == "":
			t.Errorf("%s names no section or party", c.ID)
		case c.Keyword == "" && c.Binds != Profile && !strings.HasPrefix(c.Section, "interoperability"):
			t.Errorf("%s binds %s without a keyword", c.ID, c.Binds)
		case c.Keyword != "" && !slices.Contains([]string{"MUST", "SHOULD", "MAY"}, c.Keyword):
			t.Errorf("%s keyword %q: MUST, SHOULD, MAY or none", c.ID, c.Keyword)
		}
	}
}

// slowInitializes is a server that answers every initialize with a new
// session, each after pause: 64 of them outlast a short check.
func slowInitializes(t *testing.T, pause time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	id := regexp.MustCompile(`"id":(\d+)`)
	var n atomic.Int64
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				buf := make([]byte, 4096)
				got := 0
				for !strings.Contains(string(buf[:got]), "}") {
					k, err := nc.Read(buf[got:])
					if err != nil {
						return
					}
					got += k
				}
				time.Sleep(pause)
				m := id.FindSubmatch(buf[:got])
				if m == nil {
					return
				}
				body := `{"jsonrpc":"2.0","id":` + string(m[1]) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"slow","version":"1"}}}`
				fmt.Fprintf(nc, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s%d\r\nContent-Length: %d\r\n\r\n%s", n.Add(1), len(body), body)
			}()
		}
	}()
	return ln.Addr().String()
}

// TestSE09OwnTimeIsNotTheServers: when SE-09's own time runs out while
// every initialize so far was answered, the check reports what it
// measured, how many it sent; it never reports the missing answer as the
// server's.
func TestSE09OwnTimeIsNotTheServers(t *testing.T) {
	target, err := ParseTarget("http://" + slowInitializes(t, 100*time.Millisecond) + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	p := &prober{target: target, opts: Options{Timeout: 5 * time.Second}, secrets: &client.Redactor{}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	check := se09
	o := runSE09(&checkRun{ctx: ctx, p: p, check: &check})
	if o.verdict != Info || !strings.HasPrefix(o.reason, "sent ") || !strings.Contains(o.reason, " before the check's time ran out, each answered with a session, none refused") {
		t.Errorf("SE-09 %s: %s; want info saying how many it sent before the check's time ran out", o.verdict, o.reason)
	}
}

// TestRequestFieldReadsBareLFHeads: LF-05 sends its initialize with bare
// LF line ends, and a server that serves it opens a session; the session's
// Authorization is read from that head, or its cleanup DELETE goes without
// the token, is refused 401, and the session is left open.
func TestRequestFieldReadsBareLFHeads(t *testing.T) {
	for _, raw := range []string{
		"POST /mcp HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer tok\r\nContent-Length: 2\r\n\r\n{}",
		"POST /mcp HTTP/1.1\nHost: h\nAuthorization: Bearer tok\nContent-Length: 2\n\n{}",
	} {
		if got := requestField([]byte(raw), "Authorization"); got != "Bearer tok" {
			t.Errorf("requestField(%q, Authorization) = %q, want %q", raw, got, "Bearer tok")
		}
	}
	if got := requestField([]byte("POST /mcp HTTP/1.1\nHost: h\n\nAuthorization: Bearer body"), "Authorization"); got != "" {
		t.Errorf("a field after the head's end was read: %q", got)
	}
}
