package client

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"rawmcp/httpparse"
)

// Stream is one response read as it arrives. An event stream may never
// end (a GET stream held open for notifications), so its reader cannot
// wait for the whole response as Read does: it takes the head at once and
// the body as far as it has come, and stops when the caller has what it
// needs or a deadline passes.
type Stream struct {
	// Response is the response so far: the head fields, and Body as far
	// as it came with its transfer coding removed. Once Ended it is the
	// whole response as httpparse.ParseResponse reads it.
	Response httpparse.Response
	// Raw is the response's bytes as received so far.
	Raw []byte
	// Ended reports that the whole response arrived.
	Ended bool

	c      *Client
	noBody bool
	head   bool // Response holds a parsed head
	start  int  // offset of the body in c.buf, once head is set
}

// ReadStream reads one response: its head (a 1xx interim response is
// skipped) by deadline, then its body until the body ends, enough(body so
// far) reports true, or deadline passes. It fails when no head came (the
// server closed, the deadline passed, or the bytes are not HTTP/1.1) and
// when the server broke the response after its head, as More does; a body
// cut by the deadline leaves the Stream with Ended false, and More reads
// on. A nil enough reads to the end or the deadline.
//
// Unlike Read, it leaves the connection open when the response says
// Connection: close, so WaitClose can watch what the server does next.
func (c *Client) ReadStream(noBody bool, deadline time.Time, enough func(body []byte) bool) (*Stream, error) {
	if c.nc == nil {
		return nil, ErrClosed
	}
	s := &Stream{c: c, noBody: noBody}
	if err := s.More(deadline, enough); err != nil {
		var pe *httpparse.Error
		if errors.As(err, &pe) && pe.Reason == httpparse.RespReasonNoResponse {
			return nil, ErrClosed
		}
		return nil, err
	}
	return s, nil
}

// More continues reading the body, as ReadStream does. It returns nil when
// the body ended, enough reported true or the deadline passed, and an
// error when the server broke the response (closed it early, or sent
// bytes that are not HTTP/1.1).
func (s *Stream) More(deadline time.Time, enough func(body []byte) bool) error {
	c := s.c
	for !s.Ended {
		resp, n, err := httpparse.ParseResponse(c.buf, s.noBody, c.eof, c.Limits)
		switch {
		case err == nil && resp.Status < 200 && resp.Status != 101:
			c.buf = c.buf[:copy(c.buf, c.buf[n:])]
			continue
		case err == nil:
			s.Response, s.Raw, s.Ended, s.head = resp, append([]byte(nil), c.buf[:n]...), true, true
			c.buf = c.buf[:copy(c.buf, c.buf[n:])]
			return nil
		case err != httpparse.ErrNeedMore:
			c.Close()
			return answerError(err, c.Limits)
		}
		if s.readHead() && enough != nil && enough(s.Response.Body) {
			return nil
		}
		if c.nc == nil {
			return ErrClosed
		}
		c.nc.SetReadDeadline(deadline)
		if err := c.fill(); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) && s.head {
				return nil // a stream that is quiet for now: the caller may read on
			}
			c.Close()
			return err
		}
	}
	return nil
}

// readHead parses the head once it is complete and sets Body to the body
// received so far; it reports whether the head is there.
func (s *Stream) readHead() bool {
	c := s.c
	if !s.head {
		// With noBody the parser stops after the head: the head alone.
		resp, n, err := httpparse.ParseResponse(c.buf, true, false, c.Limits)
		if err != nil {
			return false
		}
		s.Response, s.start, s.head = resp, n, true
	}
	s.Raw = append(s.Raw[:0], c.buf...)
	s.Response.Body = bodySoFar(&s.Response, c.buf[s.start:])
	return true
}

// bodySoFar is the part of a body that has arrived, by the framing the
// head announces (RFC 9112 §6.3): Transfer-Encoding with chunked last,
// Content-Length, or everything up to the close.
func bodySoFar(head *httpparse.Response, rest []byte) []byte {
	if codings := head.Values("Transfer-Encoding"); len(codings) > 0 {
		last := codings[len(codings)-1]
		if i := strings.LastIndexByte(last, ','); i >= 0 {
			last = last[i+1:]
		}
		if strings.EqualFold(strings.TrimSpace(last), "chunked") {
			return ChunkedPrefix(rest)
		}
		return rest
	}
	if v, ok := head.Get("Content-Length"); ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < len(rest) {
			return rest[:n]
		}
	}
	return rest
}

// ChunkedPrefix decodes as much of a chunked body (RFC 9112 §7.1) as rest
// holds: the data of every whole chunk and the part of the current one
// that has arrived. It stops at the last chunk, at a line that has not
// ended, and at anything that is not a chunk; ParseResponse, which reads
// the whole body once it is there, is the judge of its framing.
//
//	chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
//
// A chunk line is read by httpparse.ChunkSize, the response parser's own.
func ChunkedPrefix(rest []byte) []byte {
	var body []byte
	for {
		end := bytes.Index(rest, []byte("\r\n"))
		if end < 0 {
			return body
		}
		size, err := httpparse.ChunkSize(rest[:end], maxChunk)
		if err != nil || size == 0 {
			return body
		}
		rest = rest[end+2:]
		if len(rest) < size+2 {
			return append(body, rest[:min(size, len(rest))]...)
		}
		body = append(body, rest[:size]...)
		if rest[size] != '\r' || rest[size+1] != '\n' {
			return body
		}
		rest = rest[size+2:]
	}
}

// maxChunk bounds one chunk's size: far above any body the client keeps.
const maxChunk = 1 << 30

// WaitClose reads until the server closes the connection or deadline
// passes, and returns what arrived meanwhile: after an answer that ends
// the exchange nothing should, so any bytes are a response the server
// should not have sent. A reset counts as a close.
func (c *Client) WaitClose(deadline time.Time) (closed bool, extra []byte) {
	for c.nc != nil && !c.eof {
		c.nc.SetReadDeadline(deadline)
		if err := c.fill(); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				extra = append([]byte(nil), c.buf...)
				c.Close()
				return false, extra
			}
			break
		}
	}
	extra = append([]byte(nil), c.buf...)
	c.Close()
	return true, extra
}

// Feeding is what Feed saw.
type Feeding struct {
	// Stream is the answer, if a response head came.
	Stream *Stream
	// Err is why no answer came: the dial's error, ErrClosed,
	// os.ErrDeadlineExceeded, or an answer the client could not read.
	Err error
	// Written is how many bytes of the request the connection took.
	Written int
	// Elapsed runs from the first byte written to the answer or the close.
	Elapsed time.Duration
}

// Feed writes raw on a fresh connection in pieces of piece bytes with
// pause after each, while it waits for the server's answer: a server that
// limits bodies answers before it has read them all, and one that bounds
// the time a head may take closes a connection fed a byte at a time. It
// returns once a response was read (to its end or deadline), the server
// closed the connection, or deadline passed. Writing stops then; the
// connection stays open for WaitClose only when the whole request was
// written and the answer read.
func (c *Client) Feed(raw []byte, piece int, pause time.Duration, deadline time.Time) Feeding {
	c.Close()
	if err := c.Send(nil); err != nil {
		return Feeding{Err: err}
	}
	nc := c.nc
	var written atomic.Int64
	stop := make(chan struct{})
	wrote := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(wrote)
		for off := 0; off < len(raw); {
			end := min(off+max(piece, 1), len(raw))
			nc.SetWriteDeadline(deadline)
			n, err := nc.Write(raw[off:end])
			written.Add(int64(n))
			if err != nil {
				return
			}
			off = end
			if pause > 0 && off < len(raw) {
				select {
				case <-stop:
					return
				case <-time.After(pause):
				}
			}
		}
	}()
	s, err := c.ReadStream(false, deadline, nil)
	elapsed := time.Since(start)
	close(stop)
	select {
	case <-wrote:
	case <-time.After(feedSettle):
	}
	if int(written.Load()) < len(raw) || s == nil || !s.Ended {
		c.Close() // unblocks a write the server no longer reads
	}
	<-wrote
	var pe *httpparse.Error
	if err != nil && !errors.As(err, &pe) && !errors.Is(err, os.ErrDeadlineExceeded) {
		err = ErrClosed // a reset or an EOF: the server hung up
	}
	return Feeding{Stream: s, Err: err, Written: int(written.Load()), Elapsed: elapsed}
}

// feedSettle is how long Feed lets a write in progress finish after the
// answer: the kernel takes the rest of a request at once if the server
// drains it.
const feedSettle = 100 * time.Millisecond
