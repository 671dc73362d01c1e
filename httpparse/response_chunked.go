// Chunked transfer coding of package httpparse's response side: the
// chunked body, its chunk sizes and extensions (RFC 9112 §7.1), and the
// bounds on the framing a peer may send around its data.

package httpparse

// Chunk framing bounds, after Go's net/http/internal/chunked.go: a chunk
// line (size, extensions, CRLF) is at most 4096 bytes (maxLineLength), and
// the non-data bytes of a chunked body may exceed 16 bytes per chunk plus
// twice the chunk's data by at most 16 KiB in total. One byte per chunk
// ("1\r\nX\r\n") stays within budget; long extensions on small chunks do not.
const (
	respMaxChunkLine       = 4096
	respChunkOverheadSlack = 16 << 10
	respChunkAllowance     = 16
)

// chunked-body = *chunk last-chunk trailer-section CRLF   ; RFC 9112 §7.1
// chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
// last-chunk   = 1*("0") [ chunk-ext ] CRLF
//
// The data is copied once the whole body has arrived, so the calls that
// return ErrNeedMore while it streams in only walk the chunk lines.
func (p *respParser) chunkedBody(resp *Response, start int) (int, error) {
	type span struct{ from, to int }
	var spans []span
	pos, decoded, overhead := start, 0, 0
	for {
		lineStart := pos
		line, next, err := p.line(pos, respMaxChunkLine, RespReasonChunkLineTooLong, RespReasonIncompleteBody)
		if err != nil {
			return 0, err
		}
		size, err := respChunkSize(line, lineStart, p.lim.MaxBody-decoded)
		if err != nil {
			return 0, err
		}
		// The line with its CRLF and the CRLF after the data are overhead.
		// A size past slack plus line already clears any overhead, so it
		// is capped there and its doubling cannot overflow. (Any cap past
		// about half of that clears it too, so a mutant that lowers the
		// cap that far changes nothing.)
		credit := respChunkAllowance + 2*min(size, respChunkOverheadSlack+respMaxChunkLine)
		overhead = max(0, overhead+len(line)+4-credit)
		if overhead > respChunkOverheadSlack {
			return 0, respFail(RespReasonChunkOverhead, lineStart)
		}
		pos = next
		if size == 0 {
			break
		}
		// With exactly the data and its CRLF in (<= here instead of <),
		// the next chunk line would be found short at the same offset.
		if len(p.buf)-pos-2 < size {
			return 0, p.short(RespReasonIncompleteBody)
		}
		if p.buf[pos+size] != '\r' || p.buf[pos+size+1] != '\n' {
			return 0, respFail(RespReasonBadChunkEnd, pos+size)
		}
		spans = append(spans, span{pos, pos + size})
		decoded += size
		pos += size + 2
	}
	// trailer-section = *( field-line CRLF ), checked and dropped (RFC 9112 §7.1.2).
	end, err := p.fieldSection(pos, p.lim.MaxHead, RespReasonTrailersTooLarge, RespReasonIncompleteBody, nil)
	if err != nil {
		return 0, err
	}
	if decoded > 0 {
		resp.Body = make([]byte, 0, decoded)
		for _, s := range spans {
			resp.Body = append(resp.Body, p.buf[s.from:s.to]...)
		}
	}
	return end, nil
}

// ChunkSize reads the chunk-size of one chunk line, CRLF excluded (RFC
// 9112 §7.1), exactly as ParseResponse does, its extensions checked: the
// size, or an *Error when the line is no chunk line or the size passes
// max. A client decoding a body as it arrives (wire/client's
// ChunkedPrefix) uses it, so the body so far and the whole body are read
// by one grammar.
func ChunkSize(line []byte, max int) (int, error) { return respChunkSize(line, 0, max) }

// chunk-size = 1*HEXDIG
//
// Each digit is checked against the body bytes still allowed before it is
// added, so the size never overflows however many digits are sent.
func respChunkSize(line []byte, lineStart, remaining int) (int, error) {
	size, i := 0, 0
	for ; i < len(line); i++ {
		digit, ok := hexValue(line[i])
		if !ok {
			break
		}
		if size > remaining/16 {
			return 0, respFail(RespReasonBodyTooLarge, lineStart)
		}
		size = size*16 + digit
		if size > remaining {
			return 0, respFail(RespReasonBodyTooLarge, lineStart)
		}
	}
	if i == 0 {
		return 0, respFail(RespReasonBadChunkSize, lineStart)
	}
	if bad := respChunkExtBadAt(line[i:]); bad >= 0 {
		return 0, respFail(RespReasonBadChunkExtension, lineStart+i+bad)
	}
	return size, nil
}

// chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )  ; RFC 9112 §7.1.1
// chunk-ext-name = token
// chunk-ext-val  = token / quoted-string
// BWS            = OWS
//
// respChunkExtBadAt returns the index of the first byte outside that
// grammar, or -1. Trailing whitespace alone is outside it.
func respChunkExtBadAt(ext []byte) int {
	i := 0
	for i < len(ext) {
		i = skipOWS(ext, i)
		if i == len(ext) || ext[i] != ';' {
			return i
		}
		i = skipOWS(ext, i+1)
		name, nameEnd := takeToken(ext, i)
		if len(name) == 0 {
			return i
		}
		i = nameEnd
		eq := skipOWS(ext, nameEnd)
		if eq == len(ext) || ext[eq] != '=' {
			continue
		}
		i = skipOWS(ext, eq+1)
		if i < len(ext) && ext[i] == '"' {
			end, ok := quotedStringEnd(ext, i)
			if !ok {
				return end
			}
			i = end
			continue
		}
		value, valueEnd := takeToken(ext, i)
		if len(value) == 0 {
			return i
		}
		i = valueEnd
	}
	return -1
}
