// Response side of package httpparse.
//
// ParseResponse is the sans-I/O reader of every answer rawmcp reads: its
// raw client's (package wire/client, against rawmcp or any other server)
// and serve -trace's, of what the server wrote. Like the request parser it
// never sees a net.Conn: it takes the bytes read so far and returns a whole
// response, ErrNeedMore, or an *Error. It keeps no state between calls, so
// each call parses from the start of buf; the cost is linear in len(buf),
// which ResponseLimits and the chunk overhead budget bound.
//
// Every response error is an *Error whose Status is RespErrorStatus (502):
// "the peer sent a response we refuse", the status a gateway gives when its
// upstream answers badly (RFC 9110 §15.6.3). It is never a status the peer
// sent. Reasons are the constant RespReason... values, so an error string
// never carries response bytes.
//
// Choices, where the RFCs leave room:
//   - Lines end in CRLF only; a bare LF is refused (RFC 9112 §2.2 allows a
//     recipient to accept it; a test bench should see it).
//   - "HTTP/1.1 200" with no SP after the code is accepted: RFC 9112 §4
//     requires the SP, but servers in the wild omit it along with the reason
//     phrase, and the load generator must measure them.
//   - Only HTTP/1.0 and HTTP/1.1 are accepted; status codes outside 100-599
//     are refused rather than treated as 5xx (RFC 9110 §15).
//   - obs-fold, whitespace before the colon and control bytes other than
//     HTAB in a field value are refused, never repaired (RFC 9112 §5.1,
//     §5.2; RFC 9110 §5.5).
//   - Repeated Content-Length values are collapsed only when they are the
//     same octets ("5, 5"); "5, 05" is a conflict (RFC 9110 §8.6 allows
//     rejecting either).
//   - Transfer-Encoding together with Content-Length: Transfer-Encoding
//     frames the body and Close is set (RFC 9112 §6.3 item 3). An HTTP/1.0
//     response with Transfer-Encoding is refused as faulty framing
//     (RFC 9112 §6.1).
//   - Chunk extensions are checked against their grammar and dropped;
//     trailer fields are checked and dropped, never merged (RFC 9112 §7.1.1,
//     §7.1.2).
//
// Not supported (response side):
//   - Decoding transfer codings other than chunked: with "gzip, chunked"
//     Body is the dechunked, still gzip-coded bytes.
//   - Responses to CONNECT (a 2xx tunnel has no body, RFC 9112 §6.3 item 2):
//     the raw client never sends CONNECT.
//   - Protocol switching: a 101 is returned with Close set, and the bytes
//     after it belong to the new protocol.
//   - HTTP/0.9 responses, HTTP/2 and later.

package httpparse

import "bytes"

// RespErrorStatus is the Status of every *Error ParseResponse returns.
const RespErrorStatus = 502

// Reasons for refusing a response. Each names what was wrong, never the
// bytes that were.
const (
	RespReasonNoResponse        Reason = "connection closed before a response"
	RespReasonIncompleteHead    Reason = "response head cut short"
	RespReasonIncompleteBody    Reason = "response body cut short"
	RespReasonHeadTooLarge      Reason = "response head too large"
	RespReasonTooManyFields     Reason = "too many response field lines"
	RespReasonBareLF            Reason = "bare LF line ending in response"
	RespReasonBadStatusLine     Reason = "malformed status line"
	RespReasonBadVersion        Reason = "unsupported response HTTP version"
	RespReasonBadStatusCode     Reason = "status code out of range"
	RespReasonObsFold           Reason = "obsolete line folding in response"
	RespReasonSpaceBeforeColon  Reason = "whitespace before colon in response field"
	RespReasonBadFieldName      Reason = "malformed response field name"
	RespReasonBadFieldValue     Reason = "control character in response field value"
	RespReasonBadContentLength  Reason = "malformed response Content-Length"
	RespReasonContentLengthDiff Reason = "conflicting response Content-Length values"
	RespReasonBadTransferCoding Reason = "malformed response Transfer-Encoding"
	RespReasonTransferCoding10  Reason = "Transfer-Encoding in an HTTP/1.0 response"
	RespReasonBodyTooLarge      Reason = "response body too large"
	RespReasonBadChunkSize      Reason = "malformed chunk size"
	RespReasonBadChunkExtension Reason = "malformed chunk extension"
	RespReasonChunkLineTooLong  Reason = "chunk line too long"
	RespReasonChunkOverhead     Reason = "too much chunk framing overhead"
	RespReasonBadChunkEnd       Reason = "missing CRLF after chunk data"
	RespReasonTrailersTooLarge  Reason = "trailer section too large"
)

// ResponseLimits bounds what ParseResponse reads, so the caller's buffer
// never has to grow past about MaxHead plus the wire size of a MaxBody body.
type ResponseLimits struct {
	// MaxHead bounds the status line and header section, CRLFs and the
	// final empty line included. The trailer section of a chunked body has
	// a budget of its own of the same size.
	MaxHead int
	// MaxFields is the most field lines in the header section, and again
	// in the trailer section.
	MaxFields int
	// MaxBody is the largest body after chunked decoding; a larger
	// Content-Length or chunk size is refused before its bytes arrive.
	MaxBody int
}

// DefaultResponseLimits returns 16 KiB of head, 64 field lines and the
// profile's 64 KiB response budget. rawmcp's own heads are a few hundred
// bytes; the head room is for other servers the probe and the load
// generator read (nginx as a proxy takes an upstream head of one
// proxy_buffer_size, 4 or 8 KiB; Go's net/http client up to 10 MiB, its
// Transport's default MaxResponseHeaderBytes).
func DefaultResponseLimits() ResponseLimits {
	return ResponseLimits{MaxHead: 16 << 10, MaxFields: 64, MaxBody: 64 << 10}
}

// Framing says how the body of a response was delimited (RFC 9112 §6.3).
type Framing int

const (
	// FramingNone: no body whatever the fields say, for 1xx, 204, 304 and
	// responses to HEAD (RFC 9112 §6.3 item 1).
	FramingNone Framing = iota
	// FramingLength: Content-Length octets (RFC 9112 §6.3 item 6).
	FramingLength
	// FramingChunked: chunked transfer coding, decoded (RFC 9112 §7.1).
	FramingChunked
	// FramingClose: the body runs until the peer closes (RFC 9112 §6.3
	// items 4 and 8).
	FramingClose
)

func (f Framing) String() string {
	switch f {
	case FramingNone:
		return "none"
	case FramingLength:
		return "length"
	case FramingChunked:
		return "chunked"
	case FramingClose:
		return "close"
	}
	return "invalid"
}

// HeaderLine is one field line as received: Name as sent, Value with its
// leading and trailing OWS removed. Both are copies, not views of the buffer.
type HeaderLine struct{ Name, Value string }

// Response is one parsed response; nothing in it aliases the input buffer.
type Response struct {
	Proto  string // "HTTP/1.1" or "HTTP/1.0"
	Status int
	Reason string
	Header []HeaderLine // arrival order; nil when there are none
	Body   []byte       // decoded body; nil when empty
	// Framing is how the body was delimited.
	Framing Framing
	// Close reports that the connection will not carry another response:
	// Connection: close, HTTP/1.0 without keep-alive (RFC 9112 §9.3), a
	// close-delimited body, Transfer-Encoding beside Content-Length
	// (RFC 9112 §6.3 item 3), or a 101 switch to another protocol.
	Close bool
}

// Get returns the value of the first field named name, matched
// case-insensitively (RFC 9110 §5.1).
func (r *Response) Get(name string) (string, bool) {
	for _, h := range r.Header {
		if equalFold(h.Name, name) {
			return h.Value, true
		}
	}
	return "", false
}

// Values returns the values of every field named name, in arrival order.
func (r *Response) Values(name string) []string {
	var values []string
	for _, h := range r.Header {
		if equalFold(h.Name, name) {
			values = append(values, h.Value)
		}
	}
	return values
}

// ParseResponse parses one response at the start of buf. noBody says the
// request was HEAD, so the response has no body whatever its fields say.
// atEOF says the peer has closed: a close-delimited body ends at len(buf),
// and an incomplete response is an *Error instead of ErrNeedMore.
//
// It returns n, the bytes of head and body consumed; bytes after n belong
// to the next response. While the response is incomplete and !atEOF the
// error is ErrNeedMore; every refusal is an *Error with Status
// RespErrorStatus. A 1xx interim response (100 Continue) is returned on its
// own with FramingNone: parse again at buf[n:] for the final response.
//
// The result depends only on the bytes, never on how they were split
// across calls: a prefix of a response yields ErrNeedMore or the same
// result as the whole.
func ParseResponse(buf []byte, noBody, atEOF bool, lim ResponseLimits) (resp Response, n int, err error) {
	if len(buf) == 0 {
		if atEOF {
			return Response{}, 0, respFail(RespReasonNoResponse, 0)
		}
		return Response{}, 0, ErrNeedMore
	}
	p := respParser{buf: buf, atEOF: atEOF, lim: lim}
	head, err := p.head()
	if err != nil {
		return Response{}, 0, err
	}
	resp = head.resp
	if n, err = p.body(&resp, head, noBody); err != nil {
		return Response{}, 0, err
	}
	if respConnectionCloses(&resp) {
		resp.Close = true
	}
	return resp, n, nil
}

// respParser holds one call's input; it lives no longer than the call.
type respParser struct {
	buf   []byte
	atEOF bool
	lim   ResponseLimits
}

// respFramingField is a Content-Length or Transfer-Encoding value with the
// offset where it starts, so a framing error can point at it.
type respFramingField struct {
	value  []byte
	offset int
}

type respHead struct {
	resp             Response
	end              int // offset just past the empty line
	contentLength    []respFramingField
	transferEncoding []respFramingField
}

func respFail(r Reason, offset int) error {
	return &Error{Status: RespErrorStatus, Reason: r, Offset: offset}
}

// short reports bytes that ran out: wait for more, or, once the peer has
// closed, refuse the cut-short response.
func (p *respParser) short(r Reason) error {
	if p.atEOF {
		return respFail(r, len(p.buf))
	}
	return ErrNeedMore
}

// line returns the line at start without its CRLF and the offset after it.
// The line and its CRLF must fit in budget bytes; the LF is searched for
// only within them, so a peer that never sends one costs at most budget.
func (p *respParser) line(start, budget int, tooLong, short Reason) (line []byte, next int, err error) {
	budget = max(0, budget)
	rest := p.buf[start:]
	window := rest[:min(len(rest), budget)]
	i := bytes.IndexByte(window, '\n')
	if i < 0 {
		if len(window) == budget {
			return nil, 0, respFail(tooLong, start+budget)
		}
		return nil, 0, p.short(short)
	}
	lf := start + i
	if i == 0 || p.buf[lf-1] != '\r' {
		return nil, 0, respFail(RespReasonBareLF, lf)
	}
	return p.buf[start : lf-1], lf + 1, nil
}

// head reads the status line and the header section.
func (p *respParser) head() (respHead, error) {
	var h respHead
	line, next, err := p.line(0, p.lim.MaxHead, RespReasonHeadTooLarge, RespReasonIncompleteHead)
	if err != nil {
		return h, err
	}
	if h.resp, err = respStatusLine(line); err != nil {
		return h, err
	}
	h.end, err = p.fieldSection(next, p.lim.MaxHead-next, RespReasonHeadTooLarge, RespReasonIncompleteHead,
		func(name, value []byte, valueOffset int) {
			h.resp.Header = append(h.resp.Header, HeaderLine{Name: string(name), Value: string(value)})
			switch {
			case equalFold(name, "Content-Length"):
				h.contentLength = append(h.contentLength, respFramingField{value, valueOffset})
			case equalFold(name, "Transfer-Encoding"):
				h.transferEncoding = append(h.transferEncoding, respFramingField{value, valueOffset})
			}
		})
	return h, err
}

// status-line   = HTTP-version SP status-code SP [ reason-phrase ]  ; RFC 9112 §4
// HTTP-version  = HTTP-name "/" DIGIT "." DIGIT                      ; RFC 9112 §2.3
// status-code   = 3DIGIT
// reason-phrase = 1*( HTAB / SP / VCHAR / obs-text )
//
// Also accepted: the line ending right after status-code (see the top of
// this file).
func respStatusLine(line []byte) (Response, error) {
	const versionLen = len("HTTP/1.1")
	if len(line) < versionLen+4 || !bytes.HasPrefix(line, []byte("HTTP/")) ||
		!isDigit(line[5]) || line[6] != '.' || !isDigit(line[7]) || line[8] != ' ' {
		return Response{}, respFail(RespReasonBadStatusLine, 0)
	}
	code := line[versionLen+1 : versionLen+4]
	for i, c := range code {
		if !isDigit(c) {
			return Response{}, respFail(RespReasonBadStatusLine, versionLen+1+i)
		}
	}
	rest := line[versionLen+4:]
	if len(rest) > 0 {
		if rest[0] != ' ' {
			return Response{}, respFail(RespReasonBadStatusLine, versionLen+4)
		}
		rest = rest[1:]
		for i, c := range rest {
			if !fieldValueSet[c] {
				return Response{}, respFail(RespReasonBadStatusLine, versionLen+5+i)
			}
		}
	}
	proto := string(line[:versionLen])
	if proto != "HTTP/1.1" && proto != "HTTP/1.0" {
		return Response{}, respFail(RespReasonBadVersion, 0)
	}
	status := int(code[0]-'0')*100 + int(code[1]-'0')*10 + int(code[2]-'0')
	if status < 100 || status > 599 {
		return Response{}, respFail(RespReasonBadStatusCode, versionLen+1)
	}
	return Response{Proto: proto, Status: status, Reason: string(rest)}, nil
}

// fieldSection reads field lines from start up to and including the empty
// line that ends them, handing each to visit, and returns the offset after
// the empty line. The section may take budget bytes and MaxFields lines.
//
// field-line  = field-name ":" OWS field-value OWS   ; RFC 9112 §5
func (p *respParser) fieldSection(start, budget int, tooLarge, short Reason,
	visit func(name, value []byte, valueOffset int)) (int, error) {
	pos, fields := start, 0
	for {
		lineStart := pos
		line, next, err := p.line(pos, budget-(pos-start), tooLarge, short)
		if err != nil {
			return 0, err
		}
		pos = next
		if len(line) == 0 {
			return pos, nil
		}
		if fields >= p.lim.MaxFields {
			return 0, respFail(RespReasonTooManyFields, lineStart)
		}
		fields++
		name, value, valueOffset, err := respFieldLine(line, lineStart)
		if err != nil {
			return 0, err
		}
		if visit != nil {
			visit(name, value, valueOffset)
		}
	}
}

// field-name  = token                                  ; RFC 9110 §5.1
// field-value = *( VCHAR / obs-text / SP / HTAB )      ; RFC 9110 §5.5, CTLs refused
// OWS         = *( SP / HTAB )                         ; RFC 9110 §5.6.3
//
// A line starting with SP or HTAB is obs-fold (RFC 9112 §5.2).
func respFieldLine(line []byte, lineStart int) (name, value []byte, valueOffset int, err error) {
	if isOWS(line[0]) {
		return nil, nil, 0, respFail(RespReasonObsFold, lineStart)
	}
	colon := bytes.IndexByte(line, ':')
	if colon < 0 {
		return nil, nil, 0, respFail(RespReasonBadFieldName, lineStart+len(line))
	}
	name = line[:colon]
	if colon == 0 {
		return nil, nil, 0, respFail(RespReasonBadFieldName, lineStart)
	}
	if isOWS(name[colon-1]) {
		return nil, nil, 0, respFail(RespReasonSpaceBeforeColon, lineStart+colon-1)
	}
	for i, c := range name {
		if !tcharSet[c] {
			return nil, nil, 0, respFail(RespReasonBadFieldName, lineStart+i)
		}
	}
	valueOffset = skipOWS(line, colon+1)
	value = trimOWS(line[valueOffset:])
	valueOffset += lineStart
	for i, c := range value {
		if !fieldValueSet[c] {
			return nil, nil, 0, respFail(RespReasonBadFieldValue, valueOffset+i)
		}
	}
	return name, value, valueOffset, nil
}

// body applies the response rules of RFC 9112 §6.3, in its order, and
// returns the offset after the body.
func (p *respParser) body(resp *Response, h respHead, noBody bool) (int, error) {
	switch {
	case noBody || resp.Status < 200 || resp.Status == 204 || resp.Status == 304:
		resp.Framing = FramingNone
		return h.end, nil
	case len(h.transferEncoding) > 0:
		if resp.Proto == "HTTP/1.0" {
			return 0, respFail(RespReasonTransferCoding10, h.transferEncoding[0].offset)
		}
		chunked, err := respChunkedIsLast(h.transferEncoding)
		if err != nil {
			return 0, err
		}
		// A peer sending both may be splitting responses: trust neither
		// this connection nor its next message (RFC 9112 §6.3 item 3).
		resp.Close = len(h.contentLength) > 0
		if chunked {
			resp.Framing = FramingChunked
			return p.chunkedBody(resp, h.end)
		}
		resp.Framing = FramingClose
		return p.closeDelimitedBody(resp, h.end)
	case len(h.contentLength) > 0:
		length, err := respContentLength(h.contentLength, p.lim.MaxBody)
		if err != nil {
			return 0, err
		}
		resp.Framing = FramingLength
		if len(p.buf)-h.end < length {
			return 0, p.short(RespReasonIncompleteBody)
		}
		resp.Body = respCopy(p.buf[h.end : h.end+length])
		return h.end + length, nil
	default:
		resp.Framing = FramingClose
		return p.closeDelimitedBody(resp, h.end)
	}
}

// closeDelimitedBody takes everything up to the close, refusing it as soon
// as it passes MaxBody rather than when the peer finally closes.
func (p *respParser) closeDelimitedBody(resp *Response, start int) (int, error) {
	if len(p.buf)-start > p.lim.MaxBody {
		return 0, respFail(RespReasonBodyTooLarge, start+max(0, p.lim.MaxBody))
	}
	if !p.atEOF {
		return 0, ErrNeedMore
	}
	resp.Body = respCopy(p.buf[start:])
	return len(p.buf), nil
}

// Transfer-Encoding = #transfer-coding                          ; RFC 9112 §6.1
// transfer-coding   = token *( OWS ";" OWS transfer-parameter )  ; RFC 9110 §10.1.4
//
// Empty list elements are skipped (RFC 9110 §5.6.1). chunked may appear
// once and without parameters (RFC 9112 §6.1, §7.1); a list with no
// coding at all is refused. Parameters of other codings are not examined:
// they cannot change the framing.
func respChunkedIsLast(fields []respFramingField) (bool, error) {
	anyCoding, chunkedSeen, chunkedLast := false, false, false
	for _, f := range fields {
		for element := range listElements(f.value) {
			name, _, hasParams := bytes.Cut(element, []byte(";"))
			name = trimOWS(name)
			if !isToken(name) {
				return false, respFail(RespReasonBadTransferCoding, f.offset)
			}
			anyCoding = true
			chunkedLast = equalFold(name, "chunked")
			if chunkedLast && (chunkedSeen || hasParams) {
				return false, respFail(RespReasonBadTransferCoding, f.offset)
			}
			chunkedSeen = chunkedSeen || chunkedLast
		}
	}
	if !anyCoding {
		return false, respFail(RespReasonBadTransferCoding, fields[0].offset)
	}
	return chunkedLast, nil
}

// Content-Length = 1*DIGIT   ; RFC 9110 §8.6
//
// Every element of every Content-Length line must be the same octets. The
// value is compared against maxBody digit by digit, so no length overflows.
func respContentLength(fields []respFramingField, maxBody int) (int, error) {
	var first []byte
	for _, f := range fields {
		for element := range bytes.SplitSeq(f.value, []byte(",")) {
			element = trimOWS(element)
			if len(element) == 0 {
				return 0, respFail(RespReasonBadContentLength, f.offset)
			}
			for _, c := range element {
				if !isDigit(c) {
					return 0, respFail(RespReasonBadContentLength, f.offset)
				}
			}
			if first == nil {
				first = element
			} else if !bytes.Equal(element, first) {
				return 0, respFail(RespReasonContentLengthDiff, f.offset)
			}
		}
	}
	length := 0
	for _, c := range first {
		if length > maxBody/10 {
			return 0, respFail(RespReasonBodyTooLarge, fields[0].offset)
		}
		length = length*10 + int(c-'0')
		if length > maxBody {
			return 0, respFail(RespReasonBodyTooLarge, fields[0].offset)
		}
	}
	return length, nil
}

// respConnectionCloses applies RFC 9112 §9.3 and §9.6 to the Connection
// field, a comma list of case-insensitive options (RFC 9110 §7.6.1).
func respConnectionCloses(resp *Response) bool {
	if resp.Close || resp.Framing == FramingClose || resp.Status == 101 {
		return true
	}
	keepAlive := false
	for _, v := range resp.Values("Connection") {
		for option := range listElements([]byte(v)) {
			if equalFold(option, "close") {
				return true
			}
			keepAlive = keepAlive || equalFold(option, "keep-alive")
		}
	}
	return resp.Proto == "HTTP/1.0" && !keepAlive
}

// respCopy returns a copy of b, nil when b is empty.
func respCopy(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return bytes.Clone(b)
}
