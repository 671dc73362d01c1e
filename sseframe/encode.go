package sseframe

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Event is one SSE event as rawmcp writes and reads it.
type Event struct {
	// ID is the event id. Encoder: "" writes no id line. Decoder: the last
	// event id in effect when the event was dispatched (§9.2.6: it persists
	// across events until an id field changes it).
	ID string
	// Type is the event field. "" means none, which a reader takes as the
	// default type "message"; the decoder reports "" when no event field
	// (or an empty one) was given.
	Type string
	// Data is the event's data. It may contain LF: the encoder writes one
	// data line per LF-separated line, and "" writes a single empty "data:"
	// line, which is the MCP priming event (S-15).
	Data string
	// Retry is the reconnection time in milliseconds. Encoder: 0 writes no
	// retry line. Decoder: the retry set in this event's own block, 0 if
	// none.
	Retry int
}

// MaxIDLen caps an event id (S-P01). rawmcp's ids encode session, stream
// and sequence (T-P11) in well under 100 bytes; 128 leaves room while
// keeping an echoed Last-Event-ID header far below httpparse's value limit.
const MaxIDLen = 128

// ValidID reports whether id is an event id the profile allows (S-P01):
// 1 to MaxIDLen bytes, each 0x21-0x7E. Visible ASCII survives every SSE
// reader and comes back unchanged as a Last-Event-ID header value (a
// field-value of VCHARs, RFC 9110 §5.5), so the server can answer 400 to
// any incoming Last-Event-ID outside it (S-P01).
func ValidID[S ~string | ~[]byte](id S) bool {
	return len(id) <= MaxIDLen && isVisibleASCII(id)
}

// isVisibleASCII reports whether s is non-empty and every byte is
// 0x21-0x7E (VCHAR, RFC 5234 B.1).
func isVisibleASCII[S ~string | ~[]byte](s S) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7E {
			return false
		}
	}
	return true
}

// validData reports whether data can be written as data lines: LF splits
// lines, but a CR would end a line early in a §9.2.5 reader, a NUL is never
// legitimate in the JSON rawmcp sends (S-P02), and the stream must be UTF-8
// (§9.2.5).
func validData(data string) bool {
	return strings.IndexByte(data, '\r') < 0 &&
		strings.IndexByte(data, 0) < 0 &&
		utf8.ValidString(data)
}

// AppendEvent appends ev to dst in the order id, event, retry, data lines,
// blank line, and returns the extended buffer. It writes a subset of the
// §9.2.5 grammar (quoted above Decode), with the profile's alphabets:
//
//	event      = [ id-line ] [ type-line ] [ retry-line ] 1*data-line LF
//	id-line    = "id: " event-id LF
//	type-line  = "event: " event-type LF
//	retry-line = "retry: " 1*DIGIT LF       ; no leading zeros
//	data-line  = "data:" [ SP 1*data-char ] LF
//	event-id   = 1*128( %x21-7E )           ; S-P01
//	event-type = 1*( %x21-7E )
//	data-char  = UTF-8 scalar value other than NUL, LF, CR
//
// Lines end in LF alone: it is the one ending every §9.2.5 reader accepts
// without waiting for a possible LF after a CR.
//
// AppendEvent refuses, returning dst unchanged, an ID that is neither ""
// nor valid under S-P01 (ErrInvalidID), a Type that is neither "" nor
// visible ASCII (ErrInvalidType), a negative Retry (ErrInvalidRetry) and
// Data with CR, NUL or invalid UTF-8 (ErrInvalidData). It allocates only
// when dst lacks capacity.
//
// The priming event (S-15, S-P05): Event{ID: "X", Retry: 2000} is written
// as "id: X\nretry: 2000\ndata:\n\n".
func AppendEvent(dst []byte, ev Event) ([]byte, error) {
	if ev.ID != "" && !ValidID(ev.ID) {
		return dst, ErrInvalidID
	}
	if ev.Type != "" && !isVisibleASCII(ev.Type) {
		return dst, ErrInvalidType
	}
	if ev.Retry < 0 {
		return dst, ErrInvalidRetry
	}
	if !validData(ev.Data) {
		return dst, ErrInvalidData
	}
	if ev.ID != "" {
		dst = append(dst, "id: "...)
		dst = append(dst, ev.ID...)
		dst = append(dst, '\n')
	}
	if ev.Type != "" {
		dst = append(dst, "event: "...)
		dst = append(dst, ev.Type...)
		dst = append(dst, '\n')
	}
	if ev.Retry > 0 {
		dst = append(dst, "retry: "...)
		dst = strconv.AppendInt(dst, int64(ev.Retry), 10)
		dst = append(dst, '\n')
	}
	// §9.2.6 joins data lines with LF, so splitting on LF round-trips; the
	// loop always writes at least one line, so empty Data still dispatches.
	rest := ev.Data
	for {
		line, after, more := strings.Cut(rest, "\n")
		dst = appendLine(dst, "data:", line)
		if !more {
			break
		}
		rest = after
	}
	return append(dst, '\n'), nil
}

// AppendMessage is AppendEvent for an event of an id and data alone, both
// as bytes: a POST's answer is framed from the buffer it was written in,
// without being copied into a string first. It writes and refuses exactly
// what AppendEvent does for Event{ID: string(id), Data: string(data)}.
func AppendMessage(dst, id, data []byte) ([]byte, error) {
	if len(id) > 0 && !ValidID(id) {
		return dst, ErrInvalidID
	}
	if bytes.IndexByte(data, '\r') >= 0 || bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return dst, ErrInvalidData
	}
	if len(id) > 0 {
		dst = append(dst, "id: "...)
		dst = append(dst, id...)
		dst = append(dst, '\n')
	}
	for {
		line, after, more := bytes.Cut(data, []byte("\n"))
		dst = append(dst, "data:"...)
		if len(line) > 0 {
			dst = append(dst, ' ')
			dst = append(dst, line...)
		}
		dst = append(dst, '\n')
		if !more {
			break
		}
		data = after
	}
	return append(dst, '\n'), nil
}

// appendLine writes prefix, then " value" unless value is empty (a bare
// "data:" has no trailing space to strip), then LF.
func appendLine(dst []byte, prefix, value string) []byte {
	dst = append(dst, prefix...)
	if value != "" {
		dst = append(dst, ' ')
		dst = append(dst, value...)
	}
	return append(dst, '\n')
}
