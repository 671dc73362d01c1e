package client

import (
	"errors"
	"strconv"

	"rawmcp/httpparse"
)

// MaxAnswerBody bounds the body of an answer the client reads. Real MCP
// servers answer tools/list with documents past the 64 KiB budget rawmcp
// gives its own answers, and a server with many tools goes further; 4 MiB
// holds those with room while still bounding what a hostile server can
// make the client buffer. The buffer grows only as far as an answer needs.
const MaxAnswerBody = 4 << 20

// DefaultLimits are the response limits a Client starts with: the parser's
// head limits and a body bound of MaxAnswerBody.
func DefaultLimits() httpparse.ResponseLimits {
	lim := httpparse.DefaultResponseLimits()
	lim.MaxBody = MaxAnswerBody
	return lim
}

// AnswerError is an answer the client could not read: larger than its
// bound, or bytes that are not an HTTP/1.1 response. Its text names what
// the client found, never a status: the parser's error carries the status
// a gateway would answer (502), which the server never sent. The parser's
// error stays reachable with errors.As.
type AnswerError struct {
	// Limit is the bound an answer passed (its body, or its head), 0
	// when the answer was malformed rather than too large.
	Limit int
	Err   *httpparse.Error
}

func (e *AnswerError) Error() string {
	switch e.Err.Reason {
	case httpparse.RespReasonBodyTooLarge:
		return "answer larger than " + strconv.Itoa(e.Limit) + " bytes"
	case httpparse.RespReasonHeadTooLarge, httpparse.RespReasonTrailersTooLarge:
		return "answer head larger than " + strconv.Itoa(e.Limit) + " bytes"
	}
	return "unreadable answer: " + string(e.Err.Reason) + " at byte " + strconv.Itoa(e.Err.Offset)
}

func (e *AnswerError) Unwrap() error { return e.Err }

// answerError turns the parser's error on an answer into an AnswerError;
// any other error (ErrNeedMore among them) is returned as it is.
func answerError(err error, lim httpparse.ResponseLimits) error {
	var pe *httpparse.Error
	if !errors.As(err, &pe) {
		return err
	}
	ae := &AnswerError{Err: pe}
	switch pe.Reason {
	case httpparse.RespReasonBodyTooLarge:
		ae.Limit = lim.MaxBody
	case httpparse.RespReasonHeadTooLarge, httpparse.RespReasonTrailersTooLarge:
		ae.Limit = lim.MaxHead
	}
	return ae
}
