// Command originstrip is a flawed MCP server for ci-example.sh: rawmcp
// serve behind a proxy that drops every Origin field from the requests,
// so the server never sees a foreign Origin and serves it (HO-02 fails).
// It starts `RAWMCP serve -public-url http://127.0.0.1:PORT/mcp` on the
// proxy's own port, prints serve's first line (its url is the proxy's),
// and stops serve when it is stopped.
//
//	go run ./cmd/rawmcp/testdata/originstrip RAWMCP
//
// A request whose head is not plain (CRLF lines, at most one
// Content-Length, no Transfer-Encoding) is piped through unchanged, so
// the framing checks meet rawmcp's own framing.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: originstrip RAWMCP")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	public := "http://" + ln.Addr().String() + "/mcp"
	serve := exec.Command(os.Args[1], "serve", "-public-url", public)
	serve.Stderr = io.Discard
	out, err := serve.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := serve.Start(); err != nil {
		fail(err)
	}
	first, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		fail(err)
	}
	upstream := field(first, "local_url")
	upstream = strings.TrimSuffix(strings.TrimPrefix(upstream, "http://"), "/mcp")
	os.Stdout.WriteString(first)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	go func() {
		<-stop
		serve.Process.Signal(syscall.SIGTERM)
		serve.Wait()
		os.Exit(0)
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			fail(err)
		}
		go proxy(c, upstream)
	}
}

// field reads a string member of serve's first line.
func field(line, name string) string {
	key := `"` + name + `":"`
	i := strings.Index(line, key)
	if i < 0 {
		fail(fmt.Errorf("serve's first line has no %s: %s", name, line))
	}
	rest := line[i+len(key):]
	return rest[:strings.IndexByte(rest, '"')]
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "originstrip:", err)
	os.Exit(1)
}

// proxy forwards one connection, its answers unchanged and its requests
// without Origin.
func proxy(c net.Conn, upstream string) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer u.Close()
	go func() {
		io.Copy(c, u)
		c.Close()
	}()
	in := bufio.NewReader(c)
	for {
		head, ok := readHead(in)
		if !ok {
			u.Write(head)
			io.Copy(u, in)
			return
		}
		length, plain := contentLength(head)
		if !plain {
			u.Write(head)
			io.Copy(u, in)
			return
		}
		if _, err := u.Write(withoutOrigin(head)); err != nil {
			return
		}
		if _, err := io.CopyN(u, in, length); err != nil {
			return
		}
	}
}

// readHead reads up to the end of a request head; ok is false for a head
// that is not plain CRLF lines within 64 KiB (what was read is returned
// to be piped on).
func readHead(in *bufio.Reader) (head []byte, ok bool) {
	for len(head) < 64<<10 {
		line, err := in.ReadBytes('\n')
		head = append(head, line...)
		if err != nil || !bytes.HasSuffix(line, []byte("\r\n")) {
			return head, false
		}
		if len(line) == 2 {
			return head, true
		}
	}
	return head, false
}

// contentLength is the body length a plain head announces: at most one
// Content-Length, no Transfer-Encoding.
func contentLength(head []byte) (n int64, plain bool) {
	seen := false
	for _, line := range bytes.Split(head, []byte("\r\n"))[1:] {
		name, value, _ := bytes.Cut(line, []byte(":"))
		switch strings.ToLower(string(name)) {
		case "transfer-encoding":
			return 0, false
		case "content-length":
			v, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
			if seen || err != nil || v < 0 {
				return 0, false
			}
			n, seen = v, true
		}
	}
	return n, true
}

// withoutOrigin is the head without its Origin fields: the flaw.
func withoutOrigin(head []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(head, []byte("\r\n")) {
		name, _, _ := bytes.Cut(line, []byte(":"))
		if !strings.EqualFold(string(name), "origin") {
			out = append(out, line...)
		}
	}
	return out
}
