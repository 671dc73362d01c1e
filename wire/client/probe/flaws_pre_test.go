package probe_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"net"
	"strconv"
	"sync"
	"testing"

	"rawmcp/wire/client/probe"
)

var preFlaws = []flawCase{
	{check: "PRE-01", name: "the InitializeResult has no serverInfo.version", want: probe.Error, says: "not an InitializeResult",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, answer []byte) []byte {
			if !bytes.Contains(r.body, []byte(`"method":"initialize"`)) {
				return answer
			}
			return withBody(answer, func(body []byte) []byte {
				return bytes.Replace(body, []byte(`"serverInfo":{"name":"rawmcp","version":"0.1.0"}`), []byte(`"serverInfo":{"name":"rawmcp"}`), 1)
			})
		}}},
	// Steps of 2^33 count up (below PRE-02's 2^40, even with a hundred
	// sessions of other checks between two of its own) yet change ten
	// digits, so SE-02's forgery never lands on an issued id.
	{check: "PRE-02", name: "session ids count up", want: probe.Fail, says: "count up as numbers",
		flaw: sessionIDs(func(n int) string { return strconv.FormatInt(1e15+int64(n)<<33, 10) }, nil)},
	{check: "PRE-03", name: "a foreign Origin kills the server after its 403", want: probe.Fail,
		says:  `the last answer was to HO-02's request "initialize with Origin: http://evil.example" (403)`,
		front: diesOnForeignOrigin, base: dyingVerdicts},
}

// diesOnForeignOrigin is a server that one request kills: it answers a
// foreign Origin 403, and then its process exits, so every connection
// closes, the trickled head of LF-07 included, and new ones are refused;
// its port is closed by the time the 403 arrives, so the 403 is the last
// answer. One check at a time, so which checks ran before the death is
// fixed.
func diesOnForeignOrigin(t *testing.T, upstream string) (probe.Target, probe.Options) {
	addr := startProxy(t, upstream, flaw{deliver: func(p *flawProxy, r *proxied, answer []byte, nc net.Conn) bool {
		dies := r.get("Origin") == "http://evil.example"
		if dies {
			p.stopListening()
		}
		_, err := nc.Write(answer)
		if dies {
			p.die()
			return false
		}
		return err == nil
	}})
	target, err := probe.ParseTarget("http://" + addr + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	opts := fullOptions()
	opts.Only, opts.Concurrency = []string{"HO-01", "HO-02", "HO-03", "HO-05", "LF-07"}, 1
	return target, opts
}

// dyingVerdicts are the verdicts of diesOnForeignOrigin's run: HO-01
// passes before the death; HO-02's 403 is not judged (the request that
// killed it), nor LF-07's close (the process exiting); HO-03 finds the
// target gone, HO-05 does not run; PRE-03 reports the death, added to
// the run that did not select it.
func dyingVerdicts() map[string]probe.Verdict {
	return map[string]probe.Verdict{"PRE-01": probe.Pass, "HO-01": probe.Pass, "HO-02": probe.Error, "HO-03": probe.Error, "HO-05": probe.Error, "LF-07": probe.Error}
}

// sessionIDs is a server that issues its own session ids, issue(n) for
// the n-th, in place of the server's (mapped both ways, so every issued
// id works). A never-issued id is unknown to it (sent on as a fresh id of
// the server's own shape, which the server answers 404) unless serves
// says it serves it anyway, answering its POSTs with a result: a format
// check without a lookup.
func sessionIDs(issue func(n int) string, serves func(id string) bool) flaw {
	type ids struct {
		mu           sync.Mutex
		n            int
		real, issued map[string]string // issued → the server's, and back
	}
	state := func(p *flawProxy) *ids {
		s := stateOf[ids](p, "session ids")
		if s.real == nil {
			s.real, s.issued = map[string]string{}, map[string]string{}
		}
		return s
	}
	return flaw{
		request: func(p *flawProxy, r *proxied) []byte {
			id := r.get("Mcp-Session-Id")
			if id == "" {
				return nil
			}
			s := state(p)
			s.mu.Lock()
			real, ok := s.real[id]
			s.mu.Unlock()
			switch {
			case ok:
				r.set("Mcp-Session-Id", real)
			case serves != nil && serves(id) && r.method == "POST":
				return served(r.body)
			default:
				r.set("Mcp-Session-Id", rawmcpID())
			}
			return nil
		},
		response: func(p *flawProxy, _ *proxied, answer []byte) []byte {
			real := field(answer, "Mcp-Session-Id")
			if real == "" {
				return answer
			}
			s := state(p)
			s.mu.Lock()
			id, ok := s.issued[real]
			if !ok {
				s.n++
				id = issue(s.n)
				s.issued[real], s.real[id] = id, real
			}
			s.mu.Unlock()
			return bytes.Replace(answer, []byte("Mcp-Session-Id: "+real), []byte("Mcp-Session-Id: "+id), 1)
		},
	}
}

// rawmcpID is a random id of rawmcp's shape, 32 base64url characters.
func rawmcpID() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// uuid4 is a random version 4 UUID, as mcp-go makes its session ids.
func uuid4() string {
	b := make([]byte, 16)
	rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
