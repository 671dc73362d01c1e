package client

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"rawmcp/httpparse"
)

// Version is rawmcp's release as its clients announce it (User-Agent,
// clientInfo). The server's serverInfo carries the same release
// (wire.ServerVersion); a test in cmd/rawmcp keeps the two equal without
// the client importing the server.
const Version = "0.1.0"

// Client is the raw HTTP/1.1 client, one connection at a time: it writes
// exactly the bytes it is given and parses what comes back with
// httpparse's response parser, so nothing between the caller and the wire
// adds, reorders or repairs a byte.
type Client struct {
	Addr    string
	Timeout time.Duration // per round trip; 0 means defaultClientTimeout
	Limits  httpparse.ResponseLimits
	// Dialer, if set, opens the connections (TLS, --resolve); nil is
	// plain TCP to Addr.
	Dialer *Dialer

	nc  net.Conn
	buf []byte
	eof bool
}

// New returns a client for a server at addr ("127.0.0.1:port").
func New(addr string) *Client {
	return &Client{Addr: addr, Timeout: defaultClientTimeout, Limits: DefaultLimits()}
}

// defaultClientTimeout bounds a round trip: far above any answer rawmcp
// gives on loopback, so it only ever ends a hung exchange.
const defaultClientTimeout = 5 * time.Second

// Request is a request written readably; Bytes renders it with CRLF line
// ends, the header fields in the given order, and Content-Length for a
// non-nil Body unless a field of that name is given.
type Request struct {
	Method string
	Path   string
	Header [][2]string
	Body   []byte
}

// Bytes renders the request as wire bytes.
func (r Request) Bytes() []byte {
	b := make([]byte, 0, 256+len(r.Body))
	b = append(b, r.Method...)
	b = append(b, ' ')
	b = append(b, r.Path...)
	b = append(b, " HTTP/1.1\r\n"...)
	hasLength := false
	for _, h := range r.Header {
		if strings.EqualFold(h[0], "Content-Length") {
			hasLength = true
		}
		b = append(b, h[0]...)
		b = append(b, ": "...)
		b = append(b, h[1]...)
		b = append(b, "\r\n"...)
	}
	if r.Body != nil && !hasLength {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(r.Body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	return append(b, r.Body...)
}

// The header editor. Each returns a copy of r with a header slice of its
// own, so a request can be edited into several variants; field names
// match case-insensitively (RFC 9110 §5.1).

// Set gives r exactly one field called name, of value: it takes the place
// of the first such field (spelled as name is), later ones are removed;
// with none, it is appended.
func (r Request) Set(name, value string) Request {
	h := make([][2]string, 0, len(r.Header)+1)
	set := false
	for _, f := range r.Header {
		if !strings.EqualFold(f[0], name) {
			h = append(h, f)
		} else if !set {
			h, set = append(h, [2]string{name, value}), true
		}
	}
	if !set {
		h = append(h, [2]string{name, value})
	}
	r.Header = h
	return r
}

// Drop removes every field called name.
func (r Request) Drop(name string) Request {
	h := make([][2]string, 0, len(r.Header))
	for _, f := range r.Header {
		if !strings.EqualFold(f[0], name) {
			h = append(h, f)
		}
	}
	r.Header = h
	return r
}

// Add appends a field called name, after any of that name already there:
// the way to send a field twice.
func (r Request) Add(name, value string) Request {
	r.Header = append(append(make([][2]string, 0, len(r.Header)+1), r.Header...), [2]string{name, value})
	return r
}

// ErrClosed reports a connection the server closed before a whole response.
var ErrClosed = errors.New("wire: connection closed before a complete response")

// Do sends raw (one request, or several pipelined) and reads one response,
// reusing the connection while the server keeps it. A 100 Continue is
// skipped. noBody says the request was HEAD.
func (c *Client) Do(raw []byte, noBody bool) (*httpparse.Response, error) {
	if err := c.Send(raw); err != nil {
		return nil, err
	}
	for {
		resp, err := c.Read(noBody)
		if err != nil || resp.Status != 100 {
			return resp, err
		}
	}
}

// Send writes raw bytes, dialling first if needed.
func (c *Client) Send(raw []byte) error {
	if c.nc == nil {
		var nc net.Conn
		var err error
		if c.Dialer != nil {
			nc, err = c.Dialer.Dial(c.Addr, c.timeout())
		} else {
			nc, err = net.DialTimeout("tcp", c.Addr, c.timeout())
		}
		if err != nil {
			return fmt.Errorf("wire: dial: %w", err)
		}
		c.nc, c.buf, c.eof = nc, c.buf[:0], false
	}
	c.nc.SetWriteDeadline(time.Now().Add(c.timeout()))
	_, err := c.nc.Write(raw)
	return err
}

// Read reads one response from the connection (pipelined responses come
// out one per call, in order).
func (c *Client) Read(noBody bool) (*httpparse.Response, error) {
	if c.nc == nil {
		return nil, ErrClosed
	}
	c.nc.SetReadDeadline(time.Now().Add(c.timeout()))
	for {
		resp, n, err := httpparse.ParseResponse(c.buf, noBody, c.eof, c.Limits)
		if err == nil {
			c.buf = c.buf[:copy(c.buf, c.buf[n:])]
			if resp.Close {
				c.Close()
			}
			return &resp, nil
		}
		if err != httpparse.ErrNeedMore {
			c.Close()
			return nil, answerError(err, c.Limits)
		}
		if c.eof {
			c.Close()
			return nil, ErrClosed
		}
		if err := c.fill(); err != nil {
			c.Close() // a response cut short leaves the connection unusable
			return nil, err
		}
	}
}

// fill reads once more into the buffer. A read error other than the
// deadline closes the connection; a deadline leaves it to the caller, as
// a stream read in pieces goes on after one (Stream.More).
func (c *Client) fill() error {
	if cap(c.buf)-len(c.buf) < 4096 {
		grown := make([]byte, len(c.buf), 2*cap(c.buf)+4096)
		copy(grown, c.buf)
		c.buf = grown
	}
	n, err := c.nc.Read(c.buf[len(c.buf):cap(c.buf)])
	c.buf = c.buf[:len(c.buf)+n]
	if errors.Is(err, io.EOF) {
		c.eof = true
		return nil
	}
	if err != nil && n == 0 {
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			c.Close()
		}
		return err
	}
	return nil
}

// TLSState is the connection's TLS state; ok is false for a plain TCP
// connection or none.
func (c *Client) TLSState() (state tls.ConnectionState, ok bool) {
	if tc, isTLS := c.nc.(*tls.Conn); isTLS {
		return tc.ConnectionState(), true
	}
	return tls.ConnectionState{}, false
}

// RemoteAddr is the address the connection reached, "" with none.
func (c *Client) RemoteAddr() string {
	if c.nc == nil {
		return ""
	}
	return c.nc.RemoteAddr().String()
}

// Closed reports whether the connection is gone (the server closed it or
// Close was called); the next Send dials again.
func (c *Client) Closed() bool { return c.nc == nil }

// Close closes the connection.
func (c *Client) Close() {
	if c.nc != nil {
		c.nc.Close()
		c.nc = nil
	}
}

func (c *Client) timeout() time.Duration {
	if c.Timeout <= 0 {
		return defaultClientTimeout
	}
	return c.Timeout
}
