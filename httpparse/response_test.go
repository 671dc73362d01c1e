package httpparse

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// respWire writes each line followed by CRLF, so cases read as the wire
// does; a body, if any, is appended after the empty line.
func respWire(lines ...string) string {
	return strings.Join(lines, "\r\n") + "\r\n"
}

func respHeader(nameValues ...string) []HeaderLine {
	var h []HeaderLine
	for i := 0; i < len(nameValues); i += 2 {
		h = append(h, HeaderLine{Name: nameValues[i], Value: nameValues[i+1]})
	}
	return h
}

func respFailure(r Reason, offset int) error {
	return &Error{Status: RespErrorStatus, Reason: r, Offset: offset}
}

// respNext is a whole response that may follow any case on the wire.
const respNext = "HTTP/1.1 204 No Content\r\n\r\n"

// respTight are small limits for the trailer cases and the fuzz target.
var respTight = ResponseLimits{MaxHead: 64, MaxFields: 2, MaxBody: 64}

// respUnbounded lets sizes reach math.MaxInt, where only the overflow
// guards stand between a hostile size and a wrapped integer.
var respUnbounded = ResponseLimits{MaxHead: 16 << 10, MaxFields: 64, MaxBody: math.MaxInt}

const (
	respOK     = "HTTP/1.1 200 OK\r\n"                     // 17 bytes
	respTEHead = respOK + "Transfer-Encoding: chunked\r\n" // 45 bytes
)

type respCase struct {
	name   string
	in     string
	rest   string // the tail of in that belongs to the next message
	noBody bool
	atEOF  bool
	lim    *ResponseLimits // nil: DefaultResponseLimits
	want   Response
	err    error // nil, ErrNeedMore, or an *Error compared with its Offset
}

// respPadHead returns a 200 head with Content-Length: 0 that is exactly
// size bytes long, padded by one X-Pad field.
func respPadHead(size int) string {
	base := respWire("HTTP/1.1 200 OK", "Content-Length: 0", "X-Pad: ", "")
	return respWire("HTTP/1.1 200 OK", "Content-Length: 0", "X-Pad: "+strings.Repeat("a", size-len(base)), "")
}

// respFields returns count field lines "F: v".
func respFields(count int) []string {
	lines := make([]string, count)
	for i := range lines {
		lines[i] = "F: v"
	}
	return lines
}

// respChunk frames data as one chunk.
func respChunk(data string) string {
	return fmt.Sprintf("%x\r\n%s\r\n", len(data), data)
}

// respChunkWithExt returns a one-byte chunk whose chunk line (without its
// CRLF) is lineLen bytes: "1;aaa…".
func respChunkWithExt(lineLen int) string {
	return "1;" + strings.Repeat("a", lineLen-2) + "\r\nx\r\n"
}

// respFieldHeaders is what respFields(count) parses to.
func respFieldHeaders(count int) []HeaderLine {
	h := make([]HeaderLine, count)
	for i := range h {
		h[i] = HeaderLine{Name: "F", Value: "v"}
	}
	return h
}

func respCases() []respCase {
	body64K := strings.Repeat("b", 64<<10)
	fieldsAt := append(append([]string{"HTTP/1.1 204 No Content"}, respFields(64)...), "")
	fieldsPast := append(append([]string{"HTTP/1.1 204 No Content"}, respFields(65)...), "")
	closeHead := respWire("HTTP/1.1 200 OK", "")
	overheadAt := respTEHead + "\r\n" + strings.Repeat(respChunkWithExt(4094), 4) + respChunkWithExt(78) + "0\r\n\r\n"
	overheadPast := respTEHead + "\r\n" + strings.Repeat(respChunkWithExt(4094), 4) + respChunkWithExt(79) + "0\r\n\r\n"
	return []respCase{
		// Status line, RFC 9112 §4.
		{
			name: "H-42/RFC 9112 §4 status line with reason phrase",
			in:   respWire("HTTP/1.1 200 OK", "Content-Length: 5", "") + "hello",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Content-Length", "5"), Body: []byte("hello"), Framing: FramingLength},
		},
		{
			name: "H-42/RFC 9112 §4 empty reason phrase after the SP",
			in:   respWire("HTTP/1.1 204 ", ""),
			want: Response{Proto: "HTTP/1.1", Status: 204},
		},
		{
			name: "RFC 9112 §4 leniency: status line ending right after the code",
			in:   respWire("HTTP/1.1 204", ""),
			want: Response{Proto: "HTTP/1.1", Status: 204},
		},
		{
			name: "RFC 9112 §4 reason phrase keeps SP, HTAB and obs-text",
			in:   respWire("HTTP/1.1 200 Very\tOK \xe2\x9c\x93", "Content-Length: 0", ""),
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "Very\tOK \xe2\x9c\x93", Header: respHeader("Content-Length", "0"), Framing: FramingLength},
		},
		{
			name: "H-07/RFC 9112 §2.3 HTTP-name is case-sensitive",
			in:   respWire("http/1.1 200 OK", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadStatusLine, 0),
		},
		{
			name: "H-50/RFC 9110 §6.2 HTTP/2.0 is not accepted",
			in:   respWire("HTTP/2.0 200 OK", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadVersion, 0),
		},
		{
			name: "H-50/RFC 9110 §6.2 HTTP/1.2 is not accepted",
			in:   respWire("HTTP/1.2 200 OK", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadVersion, 0),
		},
		{
			name: "RFC 9112 §4 status-code is three digits, not two",
			in:   respWire("HTTP/1.1 20 OK", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadStatusLine, 11),
		},
		{
			name: "RFC 9112 §4 status-code is three digits, not four",
			in:   respWire("HTTP/1.1 2000 OK", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadStatusLine, 12),
		},
		{
			name: "H-42/RFC 9112 §4 exactly one SP before the code",
			in:   respWire("HTTP/1.1  200 OK", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadStatusLine, 9),
		},
		{
			name: "H-42/RFC 9112 §4 status-code digits in their places",
			in:   respWire("HTTP/1.1 429 Too Many Requests", "Content-Length: 0", ""),
			want: Response{Proto: "HTTP/1.1", Status: 429, Reason: "Too Many Requests", Header: respHeader("Content-Length", "0"), Framing: FramingLength},
		},
		{
			name: "RFC 9110 §15 status code 599 is in range",
			in:   respWire("HTTP/1.1 599 Odd", "Content-Length: 0", ""),
			want: Response{Proto: "HTTP/1.1", Status: 599, Reason: "Odd", Header: respHeader("Content-Length", "0"), Framing: FramingLength},
		},
		{
			name: "RFC 9112 §4 status line ending inside the code",
			in:   respWire("HTTP/1.1 20", ""),
			err:  respFailure(RespReasonBadStatusLine, 0),
		},
		{
			name: "RFC 9110 §15 status code 600 is out of range",
			in:   respWire("HTTP/1.1 600 Odd", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadStatusCode, 9),
		},
		{
			name: "RFC 9110 §15 status code 099 is out of range",
			in:   respWire("HTTP/1.1 099 Odd", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadStatusCode, 9),
		},
		{
			name: "RFC 9112 §4 NUL in the reason phrase",
			in:   respWire("HTTP/1.1 200 O\x00K", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadStatusLine, 14),
		},
		{
			name: "RFC 9112 §2.2 no empty line may precede a status line",
			in:   respWire("", "HTTP/1.1 200 OK", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadStatusLine, 0),
		},
		// Line endings and field lines, RFC 9112 §2.2, §5; RFC 9110 §5.
		{
			name: "H-P01/RFC 9112 §2.2 bare LF ends the status line",
			in:   "HTTP/1.1 200 OK\nContent-Length: 0\n\n",
			err:  respFailure(RespReasonBareLF, 15),
		},
		{
			name: "H-P01/RFC 9112 §2.2 LF as the first byte of a response",
			in:   "\n" + respWire("HTTP/1.1 200 OK", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBareLF, 0),
		},
		{
			name: "H-P01/RFC 9112 §2.2 bare LF ends a field line",
			in:   respOK + "Content-Length: 0\n\r\n",
			err:  respFailure(RespReasonBareLF, 34),
		},
		{
			name: "H-03/RFC 9112 §2.2 bare CR inside a field value",
			in:   respOK + respWire("X: a\rb", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadFieldValue, 21),
		},
		{
			name: "H-P03/RFC 9112 §5.2 obs-fold",
			in:   respOK + respWire("X: a", " b", "Content-Length: 0", ""),
			err:  respFailure(RespReasonObsFold, 23),
		},
		{
			name: "H-05/RFC 9112 §2.2 whitespace-prefixed line right after the status line",
			in:   respOK + respWire("\tX: a", "Content-Length: 0", ""),
			err:  respFailure(RespReasonObsFold, 17),
		},
		{
			name: "H-17/RFC 9112 §5.1 whitespace between field name and colon",
			in:   respOK + respWire("Content-Length : 0", ""),
			err:  respFailure(RespReasonSpaceBeforeColon, 31),
		},
		{
			name: "H-21/RFC 9110 §5.1 field name is a token",
			in:   respOK + respWire("X@Y: a", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadFieldName, 18),
		},
		{
			name: "H-21/RFC 9112 §5 field line without a colon",
			in:   respOK + respWire("Content-Length 0", ""),
			err:  respFailure(RespReasonBadFieldName, 33),
		},
		{
			name: "H-21/RFC 9110 §5.1 empty field name",
			in:   respOK + respWire(": a", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadFieldName, 17),
		},
		{
			name: "H-20/RFC 9110 §5.5 NUL in a field value",
			in:   respOK + respWire("X: a\x00", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadFieldValue, 21),
		},
		{
			name: "H-P04/RFC 9110 §5.5 DEL in a field value",
			in:   respOK + respWire("X: \x7f", "Content-Length: 0", ""),
			err:  respFailure(RespReasonBadFieldValue, 20),
		},
		{
			name: "H-18/RFC 9110 §5.5 OWS around a value is trimmed, HTAB inside is kept",
			in:   respOK + respWire("X: \t a\tb \t", "Content-Length: 0", ""),
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("X", "a\tb", "Content-Length", "0"), Framing: FramingLength},
		},
		{
			name: "H-01/RFC 9110 §5.5 obs-text in a field value is kept as octets",
			in:   respOK + respWire("X: caf\xc3\xa9 \xff", "Content-Length: 0", ""),
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("X", "caf\xc3\xa9 \xff", "Content-Length", "0"), Framing: FramingLength},
		},
		{
			name: "RFC 9110 §5.5 empty field value",
			in:   respOK + respWire("X:", "Content-Length: 0", ""),
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("X", "", "Content-Length", "0"), Framing: FramingLength},
		},
		// Content-Length, RFC 9112 §6.3 items 5-6; RFC 9110 §8.6.
		{
			name: "H-24/RFC 9110 §8.6 leading zeros in Content-Length",
			in:   respOK + respWire("Content-Length: 005", "") + "hello",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Content-Length", "005"), Body: []byte("hello"), Framing: FramingLength},
		},
		{
			name: "H-24/RFC 9110 §8.6 sign in Content-Length",
			in:   respOK + respWire("Content-Length: +5", "") + "hello",
			err:  respFailure(RespReasonBadContentLength, 33),
		},
		{
			name: "H-24/RFC 9110 §8.6 hex Content-Length",
			in:   respOK + respWire("Content-Length: 0x5", "") + "hello",
			err:  respFailure(RespReasonBadContentLength, 33),
		},
		{
			name: "H-24/RFC 9110 §8.6 empty Content-Length",
			in:   respOK + respWire("Content-Length:", ""),
			err:  respFailure(RespReasonBadContentLength, 32),
		},
		{
			name: "H-24/RFC 9110 §8.6 Content-Length overflow is guarded",
			in:   respOK + respWire("Content-Length: 99999999999999999999999999", "") + "hello",
			err:  respFailure(RespReasonBodyTooLarge, 33),
		},
		{
			name: "H-24/RFC 9110 §8.6 Content-Length overflow is guarded with MaxBody at math.MaxInt",
			in:   respOK + respWire("Content-Length: 99999999999999999999999999", "") + "hello",
			lim:  &respUnbounded,
			err:  respFailure(RespReasonBodyTooLarge, 33),
		},
		{
			name: "H-24/RFC 9110 §8.6 Content-Length read whole with MaxBody at math.MaxInt",
			in:   respOK + respWire("Content-Length: 5", "") + "hello",
			lim:  &respUnbounded,
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Content-Length", "5"), Body: []byte("hello"), Framing: FramingLength},
		},
		{
			name: "H-25/RFC 9110 §8.6 identical Content-Length lines collapse",
			in:   respOK + respWire("Content-Length: 5", "Content-Length: 5", "") + "hello",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Content-Length", "5", "Content-Length", "5"), Body: []byte("hello"), Framing: FramingLength},
		},
		{
			name: "H-25/RFC 9110 §8.6 identical Content-Length list collapses",
			in:   respOK + respWire("Content-Length: 5, 5", "") + "hello",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Content-Length", "5, 5"), Body: []byte("hello"), Framing: FramingLength},
		},
		{
			name: "H-25/RFC 9110 §8.6 smuggle: two Content-Length lines that differ",
			in:   respOK + respWire("Content-Length: 5", "Content-Length: 6", "") + "hello!",
			err:  respFailure(RespReasonContentLengthDiff, 52),
		},
		{
			name: "H-25/RFC 9110 §8.6 smuggle: a Content-Length list that differs",
			in:   respOK + respWire("Content-Length: 5, 6", "") + "hello!",
			err:  respFailure(RespReasonContentLengthDiff, 33),
		},
		{
			name: "H-25/RFC 9110 §8.6 same number, different octets, is a conflict",
			in:   respOK + respWire("Content-Length: 5, 05", "") + "hello",
			err:  respFailure(RespReasonContentLengthDiff, 33),
		},
		{
			name: "H-25/RFC 9110 §8.6 empty element in a Content-Length list",
			in:   respOK + respWire("Content-Length: 5,,5", "") + "hello",
			err:  respFailure(RespReasonBadContentLength, 33),
		},
		{
			name:  "H-33/RFC 9112 §6.3 item 5 body shorter than Content-Length at close",
			in:    respOK + respWire("Content-Length: 5", "") + "hel",
			atEOF: true,
			err:   respFailure(RespReasonIncompleteBody, 41),
		},
		{
			name: "H-P07/profile 64 KiB response budget: Content-Length at the limit",
			in:   respOK + respWire("Content-Length: 65536", "") + body64K,
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Content-Length", "65536"), Body: []byte(body64K), Framing: FramingLength},
		},
		{
			name: "H-P07/profile 64 KiB response budget: Content-Length one past, refused before the body",
			in:   respOK + respWire("Content-Length: 65537", "") + body64K + "b",
			err:  respFailure(RespReasonBodyTooLarge, 33),
		},
		// Chunked, RFC 9112 §7.1.
		{
			name: "H-30/RFC 9112 §7.1 chunked body is decoded",
			in:   respTEHead + "\r\n" + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "chunked"), Body: []byte("hello world"), Framing: FramingChunked},
		},
		{
			name: "H-30/RFC 9112 §7.1 chunk sizes are hex in either case, with leading zeros",
			in:   respTEHead + "\r\n" + "A\r\n0123456789\r\n00a\r\nabcdefghij\r\n000\r\n\r\n",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "chunked"), Body: []byte("0123456789abcdefghij"), Framing: FramingChunked},
		},
		{
			name: "H-30/RFC 9112 §7.1.1 chunk extensions are ignored",
			in:   respTEHead + "\r\n" + "5;name=value;flag ; q = \"a\\\"b\"\r\nhello\r\n0;last\r\n\r\n",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "chunked"), Body: []byte("hello"), Framing: FramingChunked},
		},
		{
			name: "H-31/RFC 9112 §7.1.2 trailer fields are dropped, never merged",
			in:   respTEHead + "\r\n" + "5\r\nhello\r\n0\r\n" + respWire("Expires: 0", "X-Checksum: abc", ""),
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "chunked"), Body: []byte("hello"), Framing: FramingChunked},
		},
		{
			name: "H-31/RFC 9112 §7.1.2 trailer fields follow the field-line grammar",
			in:   respTEHead + "\r\n" + "5\r\nhello\r\n0\r\n" + respWire("X : y", ""),
			err:  respFailure(RespReasonSpaceBeforeColon, 61),
		},
		{
			name: "S-P04/RFC 9112 §7.1 SSE stream, one chunk per event",
			in: respWire("HTTP/1.1 200 OK", "Content-Type: text/event-stream", "Transfer-Encoding: chunked", "") +
				respChunk("id: 1\ndata:\n") + respChunk("id: 2\ndata: {\"a\":1}\n") + "0\r\n\r\n",
			want: Response{
				Proto: "HTTP/1.1", Status: 200, Reason: "OK",
				Header:  respHeader("Content-Type", "text/event-stream", "Transfer-Encoding", "chunked"),
				Body:    []byte("id: 1\ndata:\nid: 2\ndata: {\"a\":1}\n"),
				Framing: FramingChunked,
			},
		},
		{
			name: "H-30/RFC 9112 §7.1 chunk-size overflow is guarded",
			in:   respTEHead + "\r\n" + "ffffffffffffffffffffffffffffffff\r\nhello\r\n0\r\n\r\n",
			err:  respFailure(RespReasonBodyTooLarge, 47),
		},
		{
			name: "H-30/RFC 9112 §7.1 chunk-size overflow is guarded with MaxBody at math.MaxInt",
			in:   respTEHead + "\r\n" + "ffffffffffffffff0\r\nhello\r\n0\r\n\r\n",
			lim:  &respUnbounded,
			err:  respFailure(RespReasonBodyTooLarge, 47),
		},
		{
			name: "H-30/RFC 9112 §7.1 a chunk-size near math.MaxInt waits for its data",
			in:   respTEHead + "\r\n" + "7ffffffffffffffe\r\nhello",
			lim:  &respUnbounded,
			err:  ErrNeedMore,
		},
		{
			name: "H-30/RFC 9112 §7.1 chunk-size is hex",
			in:   respTEHead + "\r\n" + "g\r\nhello\r\n0\r\n\r\n",
			err:  respFailure(RespReasonBadChunkSize, 47),
		},
		{
			name: "H-30/RFC 9112 §7.1 chunk-size has no sign",
			in:   respTEHead + "\r\n" + "-1\r\nh\r\n0\r\n\r\n",
			err:  respFailure(RespReasonBadChunkSize, 47),
		},
		{
			name: "H-30/RFC 9112 §7.1 chunk-size is not empty",
			in:   respTEHead + "\r\n" + "\r\nhello\r\n0\r\n\r\n",
			err:  respFailure(RespReasonBadChunkSize, 47),
		},
		{
			name: "H-30/RFC 9112 §7.1.1 whitespace after the chunk-size without an extension",
			in:   respTEHead + "\r\n" + "5 \r\nhello\r\n0\r\n\r\n",
			err:  respFailure(RespReasonBadChunkExtension, 49),
		},
		{
			name: "H-30/RFC 9112 §7.1 chunk-size followed by neither HEXDIG nor chunk-ext",
			in:   respTEHead + "\r\n" + "5g\r\nhello\r\n0\r\n\r\n",
			err:  respFailure(RespReasonBadChunkExtension, 48),
		},
		{
			name: "H-30/RFC 9112 §7.1.1 chunk-ext-val missing after =",
			in:   respTEHead + "\r\n" + "5;a=\r\nhello\r\n0\r\n\r\n",
			err:  respFailure(RespReasonBadChunkExtension, 51),
		},
		{
			name: "H-30/RFC 9112 §7.1.1 chunk extension without a name",
			in:   respTEHead + "\r\n" + "5;\r\nhello\r\n0\r\n\r\n",
			err:  respFailure(RespReasonBadChunkExtension, 49),
		},
		{
			name: "H-30/RFC 9112 §7.1.1 unterminated quoted chunk-ext-val",
			in:   respTEHead + "\r\n" + "5;a=\"b\r\nhello\r\n0\r\n\r\n",
			err:  respFailure(RespReasonBadChunkExtension, 53),
		},
		{
			name: "H-30/RFC 9112 §7.1.1 quoted-pair escaping a control byte in a chunk-ext-val",
			in:   respTEHead + "\r\n" + "5;a=\"b\\\x01\"\r\nhello\r\n0\r\n\r\n",
			err:  respFailure(RespReasonBadChunkExtension, 54),
		},
		{
			name: "H-30/RFC 9112 §7.1 chunk data not followed by CRLF",
			in:   respTEHead + "\r\n" + "5\r\nhelloX\r\n0\r\n\r\n",
			err:  respFailure(RespReasonBadChunkEnd, 55),
		},
		{
			name: "H-P07/RFC 9112 §7.1.1 chunk line of 4096 bytes with its CRLF",
			in:   respTEHead + "\r\n" + respChunkWithExt(4094) + "0\r\n\r\n",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "chunked"), Body: []byte("x"), Framing: FramingChunked},
		},
		{
			name: "H-P07/RFC 9112 §7.1.1 chunk line one byte past 4096",
			in:   respTEHead + "\r\n" + respChunkWithExt(4095) + "0\r\n\r\n",
			err:  respFailure(RespReasonChunkLineTooLong, 47+4096),
		},
		{
			name: "H-P07/RFC 9112 §7.1.1 chunk framing overhead at the 16 KiB budget",
			in:   overheadAt,
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "chunked"), Body: []byte("xxxxx"), Framing: FramingChunked},
		},
		{
			name: "H-P07/RFC 9112 §7.1.1 chunk framing overhead one byte past the budget",
			in:   overheadPast,
			err:  respFailure(RespReasonChunkOverhead, 47+4*(4094+5)),
		},
		{
			name:  "H-33/RFC 9112 §6.3 item 5 chunked body cut short at close",
			in:    respTEHead + "\r\n" + "5\r\nhello\r\n",
			atEOF: true,
			err:   respFailure(RespReasonIncompleteBody, 57),
		},
		{
			name:  "H-33/RFC 9112 §7.1 chunked body without its final CRLF at close",
			in:    respTEHead + "\r\n" + "5\r\nhello\r\n0\r\n",
			atEOF: true,
			err:   respFailure(RespReasonIncompleteBody, 60),
		},
		{
			name: "H-P07/profile 64 KiB response budget: decoded chunked body at the limit",
			in:   respTEHead + "\r\n" + "8000\r\n" + body64K[:32<<10] + "\r\n8000\r\n" + body64K[:32<<10] + "\r\n0\r\n\r\n",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "chunked"), Body: []byte(body64K), Framing: FramingChunked},
		},
		{
			name: "H-P07/profile 64 KiB response budget: decoded chunked body one byte past",
			in:   respTEHead + "\r\n" + "8000\r\n" + body64K[:32<<10] + "\r\n8000\r\n" + body64K[:32<<10] + "\r\n1\r\nb\r\n0\r\n\r\n",
			err:  respFailure(RespReasonBodyTooLarge, 47+2*(6+(32<<10)+2)),
		},
		{
			name: "H-31/RFC 9112 §7.1.2 trailer field count at MaxFields",
			in:   respTEHead + "\r\n" + "0\r\n" + respWire("A: 1", "B: 2", ""),
			lim:  &respTight,
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "chunked"), Framing: FramingChunked},
		},
		{
			name: "H-31/RFC 9112 §7.1.2 trailer field count one past MaxFields",
			in:   respTEHead + "\r\n" + "0\r\n" + respWire("A: 1", "B: 2", "C: 3", ""),
			lim:  &respTight,
			err:  respFailure(RespReasonTooManyFields, 62),
		},
		{
			name: "H-31/RFC 9112 §7.1.2 trailer section of MaxHead bytes",
			in:   respTEHead + "\r\n" + "0\r\n" + respWire("X: "+strings.Repeat("t", 57), ""),
			lim:  &respTight,
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "chunked"), Framing: FramingChunked},
		},
		{
			name: "H-31/RFC 9112 §7.1.2 trailer section one byte past MaxHead",
			in:   respTEHead + "\r\n" + "0\r\n" + respWire("X: "+strings.Repeat("t", 58), ""),
			lim:  &respTight,
			err:  respFailure(RespReasonTrailersTooLarge, 50+64),
		},
		// Transfer-Encoding, RFC 9112 §6.1, §6.3 items 3-4.
		{
			name: "H-26/RFC 9112 §6.3 item 3 smuggle: Transfer-Encoding overrides Content-Length, and the connection closes",
			in:   respOK + respWire("Content-Length: 100", "Transfer-Encoding: chunked", "") + "5\r\nhello\r\n0\r\n\r\n",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Content-Length", "100", "Transfer-Encoding", "chunked"), Body: []byte("hello"), Framing: FramingChunked, Close: true},
		},
		{
			name: "H-26/RFC 9112 §6.3 item 3 Transfer-Encoding overrides even a malformed Content-Length",
			in:   respOK + respWire("Transfer-Encoding: chunked", "Content-Length: x", "") + "0\r\n\r\n",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "chunked", "Content-Length", "x"), Framing: FramingChunked, Close: true},
		},
		{
			name:  "H-27/RFC 9112 §6.3 item 4 Transfer-Encoding not ending in chunked is close-delimited",
			in:    respOK + respWire("Transfer-Encoding: gzip", "") + "\x1f\x8b...",
			atEOF: true,
			want:  Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "gzip"), Body: []byte("\x1f\x8b..."), Framing: FramingClose, Close: true},
		},
		{
			name:  "H-27/RFC 9112 §6.1 chunked before another coding is close-delimited",
			in:    respOK + respWire("Transfer-Encoding: chunked, gzip", "") + "5\r\nhello\r\n0\r\n\r\n",
			atEOF: true,
			want:  Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "chunked, gzip"), Body: []byte("5\r\nhello\r\n0\r\n\r\n"), Framing: FramingClose, Close: true},
		},
		{
			name: "RFC 9112 §7 transfer-coding names are case-insensitive",
			in:   respOK + respWire("Transfer-Encoding: Chunked", "") + "5\r\nhello\r\n0\r\n\r\n",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "Chunked"), Body: []byte("hello"), Framing: FramingChunked},
		},
		{
			name: "RFC 9112 §6.1 codings listed over two lines, chunked last",
			in:   respOK + respWire("Transfer-Encoding: gzip", "Transfer-Encoding: chunked", "") + "5\r\nhello\r\n0\r\n\r\n",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "gzip", "Transfer-Encoding", "chunked"), Body: []byte("hello"), Framing: FramingChunked},
		},
		{
			name: "RFC 9110 §5.6.1 empty list elements in Transfer-Encoding are skipped",
			in:   respOK + respWire("Transfer-Encoding: gzip, , chunked ,", "") + "5\r\nhello\r\n0\r\n\r\n",
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "gzip, , chunked ,"), Body: []byte("hello"), Framing: FramingChunked},
		},
		{
			name: "RFC 9112 §6.1 chunked applied twice",
			in:   respOK + respWire("Transfer-Encoding: chunked, chunked", "") + "0\r\n\r\n",
			err:  respFailure(RespReasonBadTransferCoding, 36),
		},
		{
			name: "RFC 9112 §7.1 chunked with a parameter",
			in:   respOK + respWire("Transfer-Encoding: chunked;q=1", "") + "0\r\n\r\n",
			err:  respFailure(RespReasonBadTransferCoding, 36),
		},
		{
			name: "RFC 9112 §6.1 Transfer-Encoding naming no coding",
			in:   respOK + respWire("Transfer-Encoding: , ", "") + "0\r\n\r\n",
			err:  respFailure(RespReasonBadTransferCoding, 36),
		},
		{
			name: "RFC 9110 §10.1.4 transfer-coding is a token",
			in:   respOK + respWire("Transfer-Encoding: \"chunked\"", "") + "0\r\n\r\n",
			err:  respFailure(RespReasonBadTransferCoding, 36),
		},
		{
			name: "H-29/RFC 9112 §6.1 Transfer-Encoding in an HTTP/1.0 response is faulty framing",
			in:   respWire("HTTP/1.0 200 OK", "Transfer-Encoding: chunked", "") + "0\r\n\r\n",
			err:  respFailure(RespReasonTransferCoding10, 36),
		},
		// Close-delimited, RFC 9112 §6.3 item 8.
		{
			name:  "RFC 9112 §6.3 item 8 without Content-Length or Transfer-Encoding the body ends at close",
			in:    closeHead + "hello world",
			atEOF: true,
			want:  Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Body: []byte("hello world"), Framing: FramingClose, Close: true},
		},
		{
			name:  "RFC 9112 §6.3 item 8 empty close-delimited body",
			in:    closeHead,
			atEOF: true,
			want:  Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Framing: FramingClose, Close: true},
		},
		{
			name: "RFC 9112 §6.3 item 8 a close-delimited body is incomplete until the close",
			in:   closeHead + "hello world",
			err:  ErrNeedMore,
		},
		{
			name:  "H-P07/profile 64 KiB response budget: close-delimited body at the limit",
			in:    closeHead + body64K,
			atEOF: true,
			want:  Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Body: []byte(body64K), Framing: FramingClose, Close: true},
		},
		{
			name: "H-P07/profile 64 KiB response budget: close-delimited body one byte past, refused before the close",
			in:   closeHead + body64K + "b",
			err:  respFailure(RespReasonBodyTooLarge, len(closeHead)+64<<10),
		},
		// No body, RFC 9112 §6.3 item 1.
		{
			name: "H-51/RFC 9110 §15.2.1 100 Continue is returned on its own",
			in:   respWire("HTTP/1.1 100 Continue", "") + respWire("HTTP/1.1 200 OK", "Content-Length: 2", "") + "ok",
			rest: respWire("HTTP/1.1 200 OK", "Content-Length: 2", "") + "ok",
			want: Response{Proto: "HTTP/1.1", Status: 100, Reason: "Continue"},
		},
		{
			name: "H-47/RFC 9112 §6.3 item 1 204 has no body",
			in:   respWire("HTTP/1.1 204 No Content", "Mcp-Session-Id: s", ""),
			want: Response{Proto: "HTTP/1.1", Status: 204, Reason: "No Content", Header: respHeader("Mcp-Session-Id", "s")},
		},
		{
			name: "RFC 9112 §6.3 item 1 304 has no body whatever its Content-Length",
			in:   respWire("HTTP/1.1 304 Not Modified", "Content-Length: 5", ""),
			want: Response{Proto: "HTTP/1.1", Status: 304, Reason: "Not Modified", Header: respHeader("Content-Length", "5")},
		},
		{
			name:   "RFC 9112 §6.3 item 1 a response to HEAD has no body whatever its Content-Length",
			in:     respWire("HTTP/1.1 200 OK", "Content-Length: 100000", ""),
			noBody: true,
			want:   Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Content-Length", "100000")},
		},
		{
			name:   "RFC 9112 §6.3 item 1 a response to HEAD has no body whatever its Transfer-Encoding",
			in:     respWire("HTTP/1.1 200 OK", "Transfer-Encoding: chunked", ""),
			noBody: true,
			want:   Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Transfer-Encoding", "chunked")},
		},
		{
			name: "RFC 9110 §15.2.2 101 Switching Protocols ends HTTP on the connection",
			in:   respWire("HTTP/1.1 101 Switching Protocols", "Upgrade: x", "Connection: upgrade", "") + "\x00\x01",
			rest: "\x00\x01",
			want: Response{Proto: "HTTP/1.1", Status: 101, Reason: "Switching Protocols", Header: respHeader("Upgrade", "x", "Connection", "upgrade"), Close: true},
		},
		// Persistence, RFC 9112 §9.3, §9.6.
		{
			name: "H-37/RFC 9112 §9.6 Connection: close ends the connection",
			in:   respOK + respWire("Connection: close", "Content-Length: 0", ""),
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Connection", "close", "Content-Length", "0"), Framing: FramingLength, Close: true},
		},
		{
			name: "H-37/RFC 9110 §7.6.1 connection options are a case-insensitive list",
			in:   respOK + respWire("Connection: Upgrade , CLOSE", "Content-Length: 0", ""),
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Connection", "Upgrade , CLOSE", "Content-Length", "0"), Framing: FramingLength, Close: true},
		},
		{
			name: "H-39/RFC 9112 §9.3 HTTP/1.0 closes by default",
			in:   respWire("HTTP/1.0 200 OK", "Content-Length: 0", ""),
			want: Response{Proto: "HTTP/1.0", Status: 200, Reason: "OK", Header: respHeader("Content-Length", "0"), Framing: FramingLength, Close: true},
		},
		{
			name: "H-39/RFC 9112 §9.3 HTTP/1.0 with keep-alive persists",
			in:   respWire("HTTP/1.0 200 OK", "Connection: Keep-Alive", "Content-Length: 0", ""),
			want: Response{Proto: "HTTP/1.0", Status: 200, Reason: "OK", Header: respHeader("Connection", "Keep-Alive", "Content-Length", "0"), Framing: FramingLength},
		},
		// Limits and end of stream.
		{
			name: "H-P07/response head of exactly MaxHead bytes",
			in:   respPadHead(16 << 10),
			want: Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Content-Length", "0", "X-Pad", strings.Repeat("a", 16<<10-47)), Framing: FramingLength},
		},
		{
			name: "H-P07/response head one byte past MaxHead",
			in:   respPadHead(16<<10 + 1),
			err:  respFailure(RespReasonHeadTooLarge, 16<<10),
		},
		{
			name: "H-P07/MaxFields field lines",
			in:   respWire(fieldsAt...),
			want: Response{Proto: "HTTP/1.1", Status: 204, Reason: "No Content", Header: respFieldHeaders(64)},
		},
		{
			name: "H-P07/one field line past MaxFields",
			in:   respWire(fieldsPast...),
			err:  respFailure(RespReasonTooManyFields, 25+64*6),
		},
		{
			name:  "RFC 9112 §8 the peer closed before sending a byte",
			in:    "",
			atEOF: true,
			err:   respFailure(RespReasonNoResponse, 0),
		},
		{
			name:  "RFC 9112 §8 head cut short at close",
			in:    respOK + "Content-Len",
			atEOF: true,
			err:   respFailure(RespReasonIncompleteHead, 28),
		},
	}
}

// respResult is one call's outcome, compared whole with go-cmp.
type respResult struct {
	Resp Response
	N    int
	Err  error
}

func respParse(buf []byte, noBody, atEOF bool, lim ResponseLimits) respResult {
	resp, n, err := ParseResponse(buf, noBody, atEOF, lim)
	return respResult{resp, n, err}
}

// respCompareErrors lets cmp compare ErrNeedMore by identity and *Error by
// value, Offset included.
var respCompareErrors = cmp.Comparer(func(a, b error) bool {
	var ea, eb *Error
	if errors.As(a, &ea) && errors.As(b, &eb) {
		return *ea == *eb
	}
	return a == b
})

// respPrefixLengths lists the prefix lengths a byte-at-a-time run feeds:
// every one up to dense, the last 64, and about samples evenly spaced
// between them. Feeding every prefix of a 64 KiB case would take
// quadratic time.
func respPrefixLengths(total, dense, samples int) []int {
	step := max(1, (total-dense)/max(1, samples))
	var ks []int
	for k := 0; k < total; k++ {
		if k <= dense || total-k <= 64 || (k-dense)%step == 0 {
			ks = append(ks, k)
		}
	}
	return ks
}

func TestParseResponse(t *testing.T) {
	for _, c := range respCases() {
		t.Run(c.name, func(t *testing.T) {
			lim := DefaultResponseLimits()
			if c.lim != nil {
				lim = *c.lim
			}
			in := []byte(c.in)
			want := respResult{Resp: c.want, N: len(c.in) - len(c.rest), Err: c.err}
			if c.err != nil {
				want = respResult{Err: c.err}
			}

			t.Run("whole", func(t *testing.T) {
				got := respParse(in, c.noBody, c.atEOF, lim)
				if diff := cmp.Diff(want, got, respCompareErrors); diff != "" {
					t.Errorf("ParseResponse (-want +got):\n%s", diff)
				}
			})

			// A prefix is either incomplete or already decides the result;
			// the peer's close, if any, comes only with the last byte.
			t.Run("byte at a time", func(t *testing.T) {
				decided := false
				for _, k := range append(respPrefixLengths(len(c.in), 4096, 2048), len(c.in)) {
					got := respParse(in[:k], c.noBody, c.atEOF && k == len(c.in), lim)
					if errors.Is(got.Err, ErrNeedMore) && !errors.Is(want.Err, ErrNeedMore) {
						if decided {
							t.Fatalf("prefix %d: ErrNeedMore after an earlier prefix decided", k)
						}
						continue
					}
					decided = true
					if diff := cmp.Diff(want, got, respCompareErrors); diff != "" {
						t.Fatalf("prefix %d of %d (-want +got):\n%s", k, len(c.in), diff)
					}
				}
			})

			// The next response on the wire is never consumed. A
			// close-delimited body swallows it by definition, so cases
			// that end at the close, or wait for it, are left out.
			if c.atEOF || errors.Is(c.err, ErrNeedMore) {
				return
			}
			t.Run("trailing bytes", func(t *testing.T) {
				got := respParse([]byte(c.in+respNext), c.noBody, false, lim)
				if diff := cmp.Diff(want, got, respCompareErrors); diff != "" {
					t.Errorf("ParseResponse with a next response after it (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// H-51/RFC 9110 §15.2: interim responses come before the final one on the
// same connection, each parsed from where the last one ended.
func TestParseResponseInterimThenFinal(t *testing.T) {
	buf := respWire("HTTP/1.1 100 Continue", "") + respWire("HTTP/1.1 103 Early Hints", "Link: </a>", "") +
		respWire("HTTP/1.1 200 OK", "Content-Length: 2", "") + "ok"
	want := []Response{
		{Proto: "HTTP/1.1", Status: 100, Reason: "Continue"},
		{Proto: "HTTP/1.1", Status: 103, Reason: "Early Hints", Header: respHeader("Link", "</a>")},
		{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("Content-Length", "2"), Body: []byte("ok"), Framing: FramingLength},
	}
	var got []Response
	for rest := []byte(buf); len(rest) > 0; {
		resp, n, err := ParseResponse(rest, false, false, DefaultResponseLimits())
		if err != nil {
			t.Fatalf("ParseResponse after %d responses: %v", len(got), err)
		}
		got = append(got, resp)
		rest = rest[n:]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("responses (-want +got):\n%s", diff)
	}
}

// The result owns its bytes: reusing the read buffer must not change it.
func TestParseResponseCopies(t *testing.T) {
	buf := []byte(respWire("HTTP/1.1 200 OK", "X: v", "Content-Length: 2", "") + "ok")
	resp, _, err := ParseResponse(buf, false, false, DefaultResponseLimits())
	if err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = '#'
	}
	want := Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: respHeader("X", "v", "Content-Length", "2"), Body: []byte("ok"), Framing: FramingLength}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response after the buffer was overwritten (-want +got):\n%s", diff)
	}
}

func TestResponseGetValues(t *testing.T) {
	resp := Response{Header: respHeader("Set-Cookie", "a", "X", "1", "set-COOKIE", "b")}
	type result struct {
		First  string
		Found  bool
		Values []string
	}
	for _, c := range []struct {
		name  string
		field string
		want  result
	}{
		{"RFC 9110 §5.1 names match case-insensitively, first value wins", "SET-cookie", result{"a", true, []string{"a", "b"}}},
		{"RFC 9110 §5.1 a single field", "x", result{"1", true, []string{"1"}}},
		{"RFC 9110 §5.1 an absent field", "Y", result{}},
		{"RFC 9110 §5.1 a prefix of a name is not the name", "Set", result{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			first, found := resp.Get(c.field)
			got := result{first, found, resp.Values(c.field)}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Get/Values(%q) (-want +got):\n%s", c.field, diff)
			}
		})
	}
}

func TestFramingString(t *testing.T) {
	got := []string{FramingNone.String(), FramingLength.String(), FramingChunked.String(), FramingClose.String(), Framing(9).String()}
	want := []string{"none", "length", "chunked", "close", "invalid"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Framing.String (-want +got):\n%s", diff)
	}
}
