package httpparse

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// typicalPostBody is a ~300-byte JSON-RPC request, the size of an MCP
// tools/call.
var typicalPostBody = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search_documents","arguments":{"query":"streamable http transport session handling","limit":10,"filters":{"kind":"spec","year":2025}},"_meta":{"progressToken":"p-7f3a9c"}},"extra":"padding-to-reach-three-hundred-bytes-of-json-rpc"}`

// typicalPostHead is what an MCP client sends for one JSON-RPC request
// (MCP 2025-11-25 Transports §2.1): ten fields, bearer token included.
var typicalPostHead = wire("POST /mcp HTTP/1.1\n" +
	"Host: 127.0.0.1:8080\n" +
	"User-Agent: rawmcp-client/0.1 (linux; go1.26)\n" +
	"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSIsImF1ZCI6Imh0dHA6Ly8xMjcuMC4wLjE6ODA4MC9tY3AifQ.c2lnbmF0dXJl\n" +
	"Accept: application/json, text/event-stream\n" +
	"Content-Type: application/json\n" +
	"Mcp-Session-Id: 5f1c2a9e8b7d4c3fa1e0d9c8b7a6f5e4\n" +
	"MCP-Protocol-Version: 2025-11-25\n" +
	"Origin: http://127.0.0.1:8080\n" +
	"Accept-Encoding: identity\n" +
	fmt.Sprintf("Content-Length: %d\n\n", len(typicalPostBody)))

// benchCorpus is what both parsers read, one request per case.
var benchCorpus = []struct {
	name    string
	request string
}{
	{"typical_post", typicalPostHead + typicalPostBody},
	{"32_headers", func() string {
		var b strings.Builder
		b.WriteString("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n")
		for i := 1; i < 32; i++ {
			fmt.Fprintf(&b, "X-Header-%02d: value number %d for the header count benchmark\r\n", i, i)
		}
		b.WriteString("\r\n")
		return b.String()
	}()},
	{"16KiB_body", wire("POST /mcp HTTP/1.1\nHost: 127.0.0.1:8080\nContent-Type: application/json\n"+
		"Content-Length: 16384\n\n") + `"` + strings.Repeat("x", 16382) + `"`},
}

// BenchmarkParse parses each corpus request with httpparse and with
// net/http.ReadRequest, the reference, in the same run. Both read the
// body: net/http through its body reader, httpparse by slicing buf.
// floor only finds the end of the head with bytes.Index, the least any
// parser must do, so httpparse's distance to it shows what checking costs.
func BenchmarkParse(b *testing.B) {
	for _, c := range benchCorpus {
		buf := []byte(c.request)
		b.Run(c.name+"/httpparse", func(b *testing.B) {
			lim := DefaultLimits()
			var req Request
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				n, err := Parse(buf, 0, lim, &req)
				if err != nil {
					b.Fatal(err)
				}
				if body := buf[n : n+int(req.ContentLength)]; len(body) != int(req.ContentLength) {
					b.Fatal("short body")
				}
			}
		})
		b.Run(c.name+"/floor", func(b *testing.B) {
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				if bytes.Index(buf, []byte("\r\n\r\n")) < 0 {
					b.Fatal("no end of head")
				}
			}
		})
		b.Run(c.name+"/net_http", func(b *testing.B) {
			rd := bytes.NewReader(buf)
			br := bufio.NewReader(rd)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				rd.Reset(buf)
				br.Reset(rd)
				req, err := http.ReadRequest(br)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, req.Body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAccepts is the POST's Accept check (T-P02) on the typical head:
// two Accepts calls, one scan each, against one AcceptsBoth pass.
func BenchmarkAccepts(b *testing.B) {
	var req Request
	if _, err := Parse([]byte(typicalPostHead), 0, DefaultLimits(), &req); err != nil {
		b.Fatal(err)
	}
	json, sse := media("application/json"), media("text/event-stream")
	b.Run("Accepts_twice", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !req.Accepts(json) || !req.Accepts(sse) {
				b.Fatal("not acceptable")
			}
		}
	})
	b.Run("AcceptsBoth", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if okJSON, okSSE := req.AcceptsBoth(json, sse); !okJSON || !okSSE {
				b.Fatal("not acceptable")
			}
		}
	})
}

// BenchmarkParseByteAtATime is the slowloris shape: the head arrives one
// byte per read. With scanned the total work stays linear in its length.
func BenchmarkParseByteAtATime(b *testing.B) {
	buf := []byte(typicalPostHead)
	lim := DefaultLimits()
	var req Request
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		scanned := 0
		for end := 1; ; end++ {
			_, err := Parse(buf[:end], scanned, lim, &req)
			if err != ErrNeedMore {
				if err != nil {
					b.Fatal(err)
				}
				break
			}
			scanned = end
		}
	}
}
