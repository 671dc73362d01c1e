package sseframe

import (
	"bytes"
	"math"
	"unicode/utf8"
)

// Limits bounds what Decode accepts. Each value is the largest allowed; a
// zero field allows nothing of that kind, so start from DefaultLimits.
type Limits struct {
	// MaxEvents is the most events Decode dispatches from one stream.
	MaxEvents int
	// MaxEventBytes bounds one event block on the wire: from its first
	// field line through the blank line that ends it, line ends included.
	// Comment lines before the first field belong to no event, so a
	// stream's keepalives do not add up against it.
	MaxEventBytes int
	// MaxLineBytes bounds one line, its line end not included.
	MaxLineBytes int
}

// DefaultLimits returns the profile's limits: 64 events, 64 KiB per event
// and per line. rawmcp's GET answers carry far fewer events (the session
// table's MaxEventsPerSet, plus the priming event; the README's limits
// table), so 64 is headroom, not a target. A data line carries a whole
// compact JSON-RPC message (S-P02), so a line may be as long as its event;
// the messages rawmcp sends are a few hundred bytes, and 64 KiB is four
// times httpparse's 16 KiB request body limit.
func DefaultLimits() Limits {
	return Limits{
		MaxEvents:     64,
		MaxEventBytes: 64 << 10,
		MaxLineBytes:  64 << 10,
	}
}

// utf8BOM is U+FEFF encoded in UTF-8; §9.2.5 drops one at the very start.
const utf8BOM = "\xEF\xBB\xBF"

// The event stream grammar, WHATWG HTML §9.2.5:
//
//	stream        = [ bom ] *event
//	event         = *( comment / field ) end-of-line
//	comment       = colon *any-char end-of-line
//	field         = 1*name-char [ colon [ space ] *any-char ] end-of-line
//	end-of-line   = ( cr lf / cr / lf )
//
//	; characters
//	lf            = %x000A ; U+000A LINE FEED (LF)
//	cr            = %x000D ; U+000D CARRIAGE RETURN (CR)
//	space         = %x0020 ; U+0020 SPACE
//	colon         = %x003A ; U+003A COLON (:)
//	bom           = %xFEFF ; U+FEFF BYTE ORDER MARK
//	name-char     = %x0000-0009 / %x000B-000C / %x000E-0039 / %x003B-10FFFF
//	                ; a scalar value other than U+000A LINE FEED (LF), U+000D CARRIAGE RETURN (CR), or U+003A COLON (:)
//	any-char      = %x0000-0009 / %x000B-000C / %x000E-10FFFF
//	                ; a scalar value other than U+000A LINE FEED (LF) or U+000D CARRIAGE RETURN (CR)
//
// Decode enforces it with the §9.2.6 interpretation, narrowed by the
// profile: name is one of "event", "data", "id", "retry"; an id value is
// empty or an S-P01 event-id; an event value is empty or 1*( %x21-7E );
// a retry value is 1*DIGIT; a data value has no NUL.

// Decode parses a complete event stream, the whole body of an SSE
// response, and returns its events in order. It reads as §9.2.6 does:
// CRLF, CR and LF each end a line (S-02); one leading BOM is skipped
// (S-03); comment lines are skipped (S-04); a field splits at its first
// colon and loses one leading space, and a line without a colon is a name
// with an empty value (S-05); names are case-sensitive (S-06); data
// appends its value and LF, event sets the type (S-07); id sets the last
// event id, which persists across events, and an empty id resets it
// (S-08); retry sets this event's Retry (S-09); a blank line dispatches,
// an event without data dispatches nothing, one trailing LF of the data is
// removed (S-10). The priming event "id: X\nretry: 2000\ndata:\n\n"
// reads as Event{ID: "X", Retry: 2000, Data: ""} (S-15, S-P05).
//
// Where §9.2.6 ignores or repairs, Decode fails with a *SyntaxError
// wrapping a sentinel: ErrUnknownField, ErrInvalidID (including an id with
// NUL), ErrInvalidType, ErrInvalidRetry, ErrInvalidData (NUL in data),
// ErrInvalidUTF8, ErrTruncated (a final line without line end, or a final
// event without its blank line, which §9.2.6 silently discards, S-11) and
// ErrTooLarge. The events dispatched before the fault are returned with the
// error, so a client can see how far a broken stream got.
func Decode(stream []byte, lim Limits) ([]Event, error) {
	d := decoder{lim: lim, fieldStart: -1}
	pos := 0
	if bytes.HasPrefix(stream, []byte(utf8BOM)) {
		pos = len(utf8BOM)
	}
	for pos < len(stream) {
		line, next, ended := cutLine(stream, pos)
		if len(line) > lim.MaxLineBytes {
			return d.events, &SyntaxError{Offset: pos, Err: ErrTooLarge}
		}
		if !ended {
			return d.events, &SyntaxError{Offset: pos, Err: ErrTruncated}
		}
		if err := d.line(line, pos, next); err != nil {
			return d.events, &SyntaxError{Offset: pos, Err: err}
		}
		pos = next
	}
	if d.fieldStart >= 0 {
		return d.events, &SyntaxError{Offset: len(stream), Err: ErrTruncated}
	}
	return d.events, nil
}

// cutLine returns the line starting at pos, the offset just past its line
// end, and whether it had one. A CR at the very end of the stream is a
// whole line end: the stream is complete, so no LF can follow.
func cutLine(stream []byte, pos int) (line []byte, next int, ended bool) {
	rest := stream[pos:]
	i := bytes.IndexAny(rest, "\r\n")
	if i < 0 {
		return rest, len(stream), false
	}
	next = pos + i + 1
	if rest[i] == '\r' && i+1 < len(rest) && rest[i+1] == '\n' {
		next++
	}
	return rest[:i], next, true
}

// decoder is the §9.2.6 state: the last event id persists across events;
// data, type and retry belong to the block being read.
type decoder struct {
	lim    Limits
	events []Event
	lastID string

	// fieldStart is the offset of the block's first field line, -1 while
	// the block has none (only comments or nothing so far).
	fieldStart int
	data       []byte
	typ        string
	retry      int
}

// line interprets one complete line that starts at pos and whose line end
// finishes just before next.
func (d *decoder) line(line []byte, pos, next int) error {
	if !utf8.Valid(line) {
		return ErrInvalidUTF8
	}
	isField := len(line) > 0 && line[0] != ':'
	if isField && d.fieldStart < 0 {
		d.fieldStart = pos
	}
	if d.fieldStart >= 0 && next-d.fieldStart > d.lim.MaxEventBytes {
		return ErrTooLarge
	}
	switch {
	case len(line) == 0:
		return d.dispatch()
	case !isField:
		return nil // a comment (S-04)
	}
	name, value, hasColon := bytes.Cut(line, []byte(":"))
	if hasColon {
		value = bytes.TrimPrefix(value, []byte(" "))
	}
	switch string(name) {
	case "data":
		if bytes.IndexByte(value, 0) >= 0 {
			return ErrInvalidData
		}
		d.data = append(d.data, value...)
		d.data = append(d.data, '\n')
	case "event":
		if len(value) > 0 && !isVisibleASCII(value) {
			return ErrInvalidType
		}
		d.typ = string(value)
	case "id":
		if len(value) > 0 && !ValidID(value) {
			return ErrInvalidID
		}
		d.lastID = string(value)
	case "retry":
		n, ok := parseRetry(value)
		if !ok {
			return ErrInvalidRetry
		}
		d.retry = n
	default:
		return ErrUnknownField
	}
	return nil
}

// dispatch ends the block at a blank line. The last event id was already
// set by the id field itself; §9.2.6 copies it at dispatch, which is the
// same thing for a stream that must end on a blank line.
func (d *decoder) dispatch() error {
	if len(d.data) > 0 {
		if len(d.events) >= d.lim.MaxEvents {
			return ErrTooLarge
		}
		d.events = append(d.events, Event{
			ID:    d.lastID,
			Type:  d.typ,
			Data:  string(d.data[:len(d.data)-1]),
			Retry: d.retry,
		})
	}
	d.fieldStart = -1
	d.data = d.data[:0]
	d.typ = ""
	d.retry = 0
	return nil
}

// parseRetry reads retry = 1*DIGIT. §9.2.6 ignores anything else; the
// profile refuses it, and refuses a value too large for an int rather than
// wrapping it.
func parseRetry(value []byte) (int, bool) {
	if len(value) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range value {
		if c < '0' || c > '9' {
			return 0, false
		}
		digit := int(c - '0')
		if n > (math.MaxInt-digit)/10 {
			return 0, false
		}
		n = n*10 + digit
	}
	return n, true
}
