package sseframe

import (
	"errors"
	"strconv"
)

// The sentinel errors name what was wrong and nothing else: their text is
// constant, so it is safe to log and never echoes a stream byte, an id or
// any other value a peer chose.
var (
	// ErrInvalidID: an id outside S-P01 (1..MaxIDLen bytes of 0x21-0x7E),
	// including one that carries CR, LF or NUL.
	ErrInvalidID = errors.New("sseframe: invalid event id")
	// ErrInvalidType: an event type outside 0x21-0x7E.
	ErrInvalidType = errors.New("sseframe: invalid event type")
	// ErrInvalidRetry: a negative retry (encoder) or a retry value that is
	// not 1*DIGIT fitting in an int (decoder).
	ErrInvalidRetry = errors.New("sseframe: invalid retry value")
	// ErrInvalidData: data with CR, NUL or invalid UTF-8 (encoder), data
	// with NUL (decoder).
	ErrInvalidData = errors.New("sseframe: invalid data")
	// ErrUnknownField: a field name other than event, data, id or retry.
	ErrUnknownField = errors.New("sseframe: unknown field")
	// ErrInvalidUTF8: a line of the stream that is not UTF-8.
	ErrInvalidUTF8 = errors.New("sseframe: invalid UTF-8")
	// ErrTruncated: the stream ends inside a line or inside an event that
	// no blank line has ended.
	ErrTruncated = errors.New("sseframe: truncated event")
	// ErrTooLarge: a line, an event or the number of events is over Limits.
	ErrTooLarge = errors.New("sseframe: stream over limits")
)

// SyntaxError is a stream Decode refuses. Err is one of the sentinels above;
// Offset is the byte offset in the stream (counting a leading BOM) of the
// line at fault, or the length of the stream when the stream ends where a
// line or a blank line was still due.
type SyntaxError struct {
	Offset int
	Err    error
}

func (e *SyntaxError) Error() string {
	return e.Err.Error() + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap lets errors.Is(err, ErrUnknownField) see through the offset.
func (e *SyntaxError) Unwrap() error { return e.Err }
