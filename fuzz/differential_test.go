package fuzz

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/httpparse"
)

// FuzzDifferential compares httpparse with net/http.ReadRequest, the
// reference. Invariant: whenever httpparse.Parse accepts a head and the
// ContentLength bytes of its body follow, http.ReadRequest on the same
// bytes accepts too, with the same method, the same target (RequestURI),
// the same value lines for every field name (canonicalised; net/http keeps
// repeated lines as a slice and joins nothing), the same Content-Length,
// the same Connection: close reading and the same body. rawmcp may be
// stricter than net/http, never laxer: a head only rawmcp accepts is one
// two parsers on a path would read differently, the root of request
// smuggling (RFC 9112 §11.2).
//
// Documented differences, each normalised before comparing:
//
//   - one empty line before the request line: RFC 9112 §2.2 says a server
//     SHOULD ignore at least one, and httpparse does (H-04); ReadRequest
//     reads it as an empty request line and fails, so it is removed first;
//   - Host: ReadRequest moves the Host line out of Header into
//     Request.Host, so httpparse's Host value is compared with that;
//   - Pragma: no-cache without Cache-Control: ReadRequest adds
//     Cache-Control: no-cache (its reading of RFC 7234 §5.4), a field that
//     was never on the wire, so it is dropped before comparing.
func FuzzDifferential(f *testing.F) {
	for _, s := range differentialSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var req httpparse.Request
		n, err := httpparse.Parse(data, 0, httpparse.DefaultLimits(), &req)
		if err != nil {
			return // refused or incomplete: stricter is allowed
		}
		end := n + int(req.ContentLength)
		if len(data) < end {
			return // the body is not all here
		}
		in := bytes.TrimPrefix(data, []byte("\r\n"))
		ref, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(in)))
		if err != nil {
			t.Fatalf("httpparse accepts a head net/http refuses: %v", err)
		}
		body, err := io.ReadAll(ref.Body)
		if err != nil {
			t.Fatalf("net/http cannot read the %d-byte body httpparse framed: %v", req.ContentLength, err)
		}
		parsed := viewOfParsed(&req, data[n:end])
		if diff := cmp.Diff(parsed, viewOfReference(ref, body, parsed)); diff != "" {
			t.Fatalf("httpparse and net/http read the same bytes differently (-httpparse +net/http):\n%s", diff)
		}
	})
}

// requestView is what both parsers must agree on.
type requestView struct {
	Method        string
	Target        string
	Host          string
	Header        map[string][]string
	ContentLength int64
	Close         bool
	Body          string
}

func viewOfParsed(req *httpparse.Request, body []byte) requestView {
	v := requestView{
		Method:        string(req.MethodToken),
		Target:        string(req.Path),
		Header:        map[string][]string{},
		ContentLength: req.ContentLength,
		Close:         req.Close,
		Body:          string(body),
	}
	for _, f := range req.Fields {
		name := http.CanonicalHeaderKey(string(f.Name))
		if name == "Host" {
			v.Host = string(f.Value)
			continue
		}
		v.Header[name] = append(v.Header[name], string(f.Value))
	}
	return v
}

// viewOfReference views ref, less the Cache-Control line net/http adds
// when the wire had Pragma: no-cache and no Cache-Control (its
// fixPragmaCacheControl), which parsed, read from the wire, tells.
func viewOfReference(ref *http.Request, body []byte, parsed requestView) requestView {
	header := ref.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	_, sentCacheControl := parsed.Header["Cache-Control"]
	if pragma := parsed.Header["Pragma"]; len(pragma) > 0 && pragma[0] == "no-cache" && !sentCacheControl {
		delete(header, "Cache-Control")
	}
	return requestView{
		Method:        ref.Method,
		Target:        ref.RequestURI,
		Host:          ref.Host,
		Header:        header,
		ContentLength: ref.ContentLength,
		Close:         ref.Close,
		Body:          string(body),
	}
}

// differentialSeeds are the requests rawmcp's clients send and the shapes
// where HTTP parsers are known to disagree. Most of the attack shapes are
// refused by httpparse and so check nothing by themselves; the fuzzer
// mutates them into near-misses that are accepted.
func differentialSeeds() []string {
	const host = "Host: " + fuzzHost + "\r\n"
	const auth = "Authorization: Bearer " + tokenAlice + "\r\n"
	const session = "Mcp-Session-Id: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\r\nMCP-Protocol-Version: 2025-11-25\r\n"
	post := "POST /mcp HTTP/1.1\r\n" + host + "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n" + auth
	return []string{
		string(postRequest(tokenAlice, "", initializeBody(1))),
		post + session + "Content-Length: " + strconv.Itoa(len(pingBody)) + "\r\n\r\n" + pingBody,
		"GET /mcp HTTP/1.1\r\n" + host + "Accept: text/event-stream\r\n" + auth + session + "Last-Event-ID: gAAAAAAAAAAAAAAAA-2\r\n\r\n",
		"DELETE /mcp HTTP/1.1\r\n" + host + auth + session + "\r\n",
		"GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\n" + host + "Accept: application/json\r\n\r\n",
		"\r\nGET /mcp HTTP/1.1\r\n" + host + "\r\n",
		"\r\n\r\nGET /mcp HTTP/1.1\r\n" + host + "\r\n",
		"GET /mcp HTTP/1.1\r\n" + host + "Pragma: no-cache\r\n\r\n",
		"GET /mcp HTTP/1.1\r\n" + host + "Pragma: no-cache\r\nCache-Control: no-cache\r\n\r\n",
		"GET /mcp HTTP/1.1\r\n" + host + "Accept: text/event-stream\r\naccept: application/json\r\nACCEPT:*/*\r\n\r\n",
		"GET /mcp HTTP/1.1\r\n" + host + "X-Empty:\r\nX-Space: \t a b \t\r\nX-Obs: \x80\xff\r\n\r\n",
		"GET /a/b%2F%25c;d=e:f@g!$&'()*+,=~-._ HTTP/1.1\r\n" + host + "\r\n",
		"GET //mcp HTTP/1.1\r\n" + host + "\r\n",
		"CUSTOM-METHOD! /mcp HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n",
		"POST /mcp HTTP/1.1\r\n" + host + "Content-Length: 007\r\nConnection: keep-alive, CLOSE\r\n\r\n1234567",
		"POST /mcp HTTP/1.1\r\n" + host + "Content-Length: 0\r\nExpect: 100-continue\r\n\r\n",
		"POST /mcp HTTP/1.1\r\n" + host + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"POST /mcp HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"POST /mcp HTTP/1.1\r\n" + host + "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
		"POST /mcp HTTP/1.1\r\n" + host + "Content-Length: 2, 2\r\n\r\n{}",
		"POST /mcp HTTP/1.1\r\n" + host + "Content-Length: +2\r\n\r\n{}",
		"GET /mcp HTTP/1.1\r\n" + host + "X-Folded: a\r\n b\r\n\r\n",
		"GET /mcp HTTP/1.1\n" + "Host: " + fuzzHost + "\n\n",
		"GET /mcp HTTP/1.1\r\n" + host + "X-Bare: a\rb\r\n\r\n",
		"GET /mcp HTTP/1.1\r\n" + host + "X-Name : v\r\n\r\n",
		"GET /mcp HTTP/1.1\r\n " + host + "\r\n",
		"GET /mcp HTTP/1.1\r\n" + host + "X-Nul: a\x00b\r\n\r\n",
		"GET /mcp HTTP/1.1\r\n" + host + "Host: evil.example\r\n\r\n",
		"GET /mcp HTTP/1.0\r\n\r\n",
		"GET /mcp HTTP/1.10\r\n" + host + "\r\n",
		"GET http://" + fuzzHost + "/mcp HTTP/1.1\r\n" + host + "\r\n",
		"OPTIONS * HTTP/1.1\r\n" + host + "\r\n",
		"CONNECT " + fuzzHost + " HTTP/1.1\r\n" + host + "\r\n",
		"GET /mcp?x=1 HTTP/1.1\r\n" + host + "\r\n",
		"GET /mcp#frag HTTP/1.1\r\n" + host + "\r\n",
		"GET /%zz HTTP/1.1\r\n" + host + "\r\n",
		"GET  /mcp HTTP/1.1\r\n" + host + "\r\n",
		"GET /mcp HTTP/1.1\r\n" + host + "X-Long: " + strings.Repeat("v", 2048) + "\r\n\r\n",
		"GET /mcp HTTP/1.1\r\n" + host + "\r\nGET /next HTTP/1.1\r\n" + host + "\r\n",
	}
}
