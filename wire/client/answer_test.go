package client

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"rawmcp/httpparse"
)

// answerOf writes an answer whose body is n bytes, framed as framing
// says: "length" (Content-Length), "chunked", or "stream" (an event
// stream, chunked, one event that is n bytes long on the wire).
func answerOf(framing string, n int) string {
	switch framing {
	case "length":
		return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(n) + "\r\n\r\n" + strings.Repeat("x", n)
	case "chunked":
		half := n / 2
		return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
			strconv.FormatInt(int64(half), 16) + "\r\n" + strings.Repeat("x", half) + "\r\n" +
			strconv.FormatInt(int64(n-half), 16) + "\r\n" + strings.Repeat("x", n-half) + "\r\n0\r\n\r\n"
	}
	event := "data: " + strings.Repeat("x", n-len("data: \n\n")) + "\n\n"
	return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
		strconv.FormatInt(int64(len(event)), 16) + "\r\n" + event + "\r\n0\r\n\r\n"
}

// TestAnswersUpToTheBound: an answer whose body is exactly MaxAnswerBody
// is read whole, by every framing; one byte more is an AnswerError that
// says the answer was too large and names no status the server did not
// send.
func TestAnswersUpToTheBound(t *testing.T) {
	for _, framing := range []string{"length", "chunked", "stream"} {
		for _, tt := range []struct {
			size    int
			wantErr string
		}{
			{MaxAnswerBody, ""},
			{MaxAnswerBody + 1, "answer larger than 4194304 bytes"},
		} {
			t.Run(framing+"/"+strconv.Itoa(tt.size), func(t *testing.T) {
				c := scripted(t, func(nc net.Conn) {
					nc.Read(make([]byte, 4096))
					nc.Write([]byte(answerOf(framing, tt.size)))
				})
				if err := c.Send([]byte("POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")); err != nil {
					t.Fatal(err)
				}
				s, err := c.ReadStream(false, time.Now().Add(20*time.Second), nil)
				if tt.wantErr == "" {
					if err != nil || !s.Ended || len(s.Response.Body) != tt.size {
						t.Fatalf("err %v; want the whole %d-byte body", err, tt.size)
					}
					return
				}
				var ae *AnswerError
				if !errors.As(err, &ae) || err.Error() != tt.wantErr {
					t.Fatalf("err %v, want AnswerError %q", err, tt.wantErr)
				}
				if !errors.Is(err, &httpparse.Error{Status: ae.Err.Status, Reason: httpparse.RespReasonBodyTooLarge}) {
					t.Errorf("the parser's error is not reachable through %v", err)
				}
				if strings.Contains(err.Error(), "502") {
					t.Errorf("%q names a status the server never sent", err)
				}
			})
		}
	}
}

// TestUnreadableAnswerNamesNoStatus: a malformed answer is reported as
// what it is, with the parser's reason, and without the status the
// parser would hint a gateway to send.
func TestUnreadableAnswerNamesNoStatus(t *testing.T) {
	c := scripted(t, func(nc net.Conn) {
		nc.Read(make([]byte, 4096))
		nc.Write([]byte("HTTP/1.1 200 OK\r\nBad Field\r\n\r\n"))
	})
	if err := c.Send([]byte("GET /mcp HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	_, err := c.Read(false)
	var ae *AnswerError
	if !errors.As(err, &ae) || ae.Limit != 0 {
		t.Fatalf("err %v, want an AnswerError without a limit", err)
	}
	if got := err.Error(); !strings.HasPrefix(got, "unreadable answer: ") || strings.Contains(got, "502") {
		t.Errorf("err %q", got)
	}
}
