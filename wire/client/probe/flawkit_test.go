package probe_test

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"rawmcp/wire/client"
)

// The pieces the flaws are built from: a flaw answers like a server,
// so these write HTTP answers and JSON-RPC results the way one does.

// stateOf is the state of type T a flaw keeps on one proxy, made on
// first use: each flawed target starts from nothing.
func stateOf[T any](p *flawProxy, key string) *T {
	v, _ := p.state.LoadOrStore(key, new(T))
	return v.(*T)
}

// forward sends raw to the server on a fresh connection and returns its
// answer, authorities rewritten for the probe; nil if none came.
func (p *flawProxy) forward(raw []byte) []byte {
	c := client.New(p.upstream)
	defer c.Close()
	if c.Send(p.toUpstream(raw)) != nil {
		return nil
	}
	s, err := c.ReadStream(false, time.Now().Add(10*time.Second), nil)
	if err != nil {
		return nil
	}
	return p.toClient(s.Raw)
}

// answer is a complete HTTP answer with a body of contentType ("" for
// an empty body without one).
func answer(status, contentType, body string) []byte {
	head := "HTTP/1.1 " + status + "\r\n"
	if contentType != "" {
		head += "Content-Type: " + contentType + "\r\n"
	}
	if contentType == "text/event-stream" {
		// As rawmcp writes every event stream, so that a flaw's stream
		// differs from the server's only in what the flaw breaks (DP-10).
		head += "Cache-Control: no-store\r\nX-Accel-Buffering: no\r\n"
	}
	return []byte(head + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}

// result is the smallest JSON-RPC result the schema allows for the
// request body's method, for its id: an empty list for a list method,
// an empty object otherwise; so a flaw that serves what it should refuse
// breaks nothing else (JR-11 reads every result).
func result(body []byte) string {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(body, &msg)
	if msg.ID == nil {
		msg.ID = json.RawMessage("null")
	}
	res := "{}"
	if member, ok := listMembers[msg.Method]; ok {
		res = `{"` + member + `":[]}`
	}
	return `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":` + res + `}`
}

// listMembers are the list methods' required result members.
var listMembers = map[string]string{"resources/list": "resources", "resources/templates/list": "resourceTemplates", "tools/list": "tools", "prompts/list": "prompts"}

// served is a 200 answering the request body with an empty result.
func served(body []byte) []byte { return answer("200 OK", "application/json", result(body)) }

// withBody changes an answer's body and its Content-Length to match.
func withBody(answer []byte, change func(body []byte) []byte) []byte {
	head, body, ok := bytes.Cut(answer, []byte("\r\n\r\n"))
	if !ok {
		return answer
	}
	body = change(body)
	lines := bytes.Split(head, []byte("\r\n"))
	for i, line := range lines {
		if n, _, _ := bytes.Cut(line, []byte(":")); bytes.EqualFold(n, []byte("Content-Length")) {
			lines[i] = []byte("Content-Length: " + strconv.Itoa(len(body)))
		}
	}
	return append(append(bytes.Join(lines, []byte("\r\n")), "\r\n\r\n"...), body...)
}

// field is the value of an answer's header field name, "" if none.
func field(answer []byte, name string) string {
	head, _, _ := bytes.Cut(answer, []byte("\r\n\r\n"))
	for _, line := range bytes.Split(head, []byte("\r\n"))[1:] {
		n, v, ok := bytes.Cut(line, []byte(":"))
		if ok && bytes.EqualFold(n, []byte(name)) {
			return string(bytes.TrimSpace(v))
		}
	}
	return ""
}

// withoutField removes the header field name from an answer.
func withoutField(answer []byte, name string) []byte {
	head, body, _ := bytes.Cut(answer, []byte("\r\n\r\n"))
	lines := bytes.Split(head, []byte("\r\n"))
	out := lines[:1]
	for _, line := range lines[1:] {
		if n, _, _ := bytes.Cut(line, []byte(":")); !bytes.EqualFold(n, []byte(name)) {
			out = append(out, line)
		}
	}
	return append(append(bytes.Join(out, []byte("\r\n")), "\r\n\r\n"...), body...)
}

// withField adds the header field name: value to an answer.
func withField(answer []byte, name, value string) []byte {
	line, rest, _ := bytes.Cut(answer, []byte("\r\n"))
	return []byte(string(line) + "\r\n" + name + ": " + value + "\r\n" + string(rest))
}

func isStatus(answer []byte, code string) bool {
	return bytes.HasPrefix(answer, []byte("HTTP/1.1 "+code))
}

// memo is a mutex-guarded map, the usual state of a flaw.
type memo[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

func (c *memo[V]) get(k string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *memo[V]) put(k string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]V{}
	}
	c.m[k] = v
}
