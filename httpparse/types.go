package httpparse

import (
	"errors"
	"fmt"
)

// ErrNeedMore reports that buf holds no complete request head yet and no
// limit has been crossed: read more bytes and call Parse again. It is kept
// apart from *Error ("bad data") as picohttpparser keeps -2 apart from -1.
var ErrNeedMore = errors.New("httpparse: need more data")

// Error is a request the parser refuses. Status is the HTTP status the
// server answers with; Reason is a constant noun phrase naming what was
// wrong (never request bytes, so it is safe to log); Offset is where in
// the buffer the fault was found.
type Error struct {
	Status int
	Reason Reason
	Offset int
}

// Reason names a parse failure. The values are constants of this package,
// so an error string never carries client bytes.
type Reason string

func (e *Error) Error() string {
	return fmt.Sprintf("httpparse: %d %s at offset %d", e.Status, e.Reason, e.Offset)
}

// Is makes errors.Is(err, &Error{Status: s, Reason: r}) compare by code,
// ignoring the offset.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status && t.Reason == e.Reason
}

// Reasons shared by the request and response parsers: line endings and
// field-line syntax (RFC 9112 §2.2, §5; RFC 9110 §5).
const (
	ReasonBareLF                Reason = "LF without CR"
	ReasonBareCR                Reason = "CR without LF"
	ReasonObsFold               Reason = "obsolete line folding"
	ReasonEmptyFieldName        Reason = "empty field name"
	ReasonInvalidFieldName      Reason = "invalid field name"
	ReasonSpaceBeforeColon      Reason = "whitespace between field name and colon"
	ReasonMissingColon          Reason = "field line without colon"
	ReasonInvalidFieldValue     Reason = "invalid byte in field value"
	ReasonTooManyFields         Reason = "too many header fields"
	ReasonHeaderSectionTooLarge Reason = "header section too large"
	ReasonFieldValueTooLong     Reason = "field value too long"
	ReasonDuplicateField        Reason = "repeated singleton field"
	ReasonInvalidContentLength  Reason = "invalid Content-Length"
)

// Reasons of the request parser only (RFC 9112 §3, §6; RFC 9110 §7.2,
// §10.1.1).
const (
	ReasonLeadingEmptyLines                 Reason = "more than one empty line before the request line"
	ReasonInvalidRequestLine                Reason = "malformed request line"
	ReasonInvalidMethod                     Reason = "invalid method"
	ReasonMethodTooLong                     Reason = "method too long"
	ReasonTargetNotOriginForm               Reason = "request target not in origin-form"
	ReasonTargetTooLong                     Reason = "request target too long"
	ReasonInvalidTarget                     Reason = "invalid byte in request target"
	ReasonInvalidPercentEscape              Reason = "invalid percent-escape in request target"
	ReasonTargetQuery                       Reason = "query in request target"
	ReasonTargetFragment                    Reason = "fragment in request target"
	ReasonInvalidVersion                    Reason = "malformed HTTP version"
	ReasonVersionNotSupported               Reason = "HTTP version not supported"
	ReasonWhitespaceAfterRequestLine        Reason = "whitespace-prefixed line after the request line"
	ReasonMissingHost                       Reason = "missing Host"
	ReasonInvalidHost                       Reason = "invalid Host"
	ReasonTransferEncodingWithContentLength Reason = "Transfer-Encoding with Content-Length"
	ReasonInvalidTransferEncoding           Reason = "invalid Transfer-Encoding"
	ReasonChunkedNotFinal                   Reason = "chunked not the final transfer coding"
	ReasonTransferEncodingNotImplemented    Reason = "Transfer-Encoding not implemented"
	ReasonInvalidConnection                 Reason = "invalid Connection"
	ReasonUnsupportedExpectation            Reason = "unsupported expectation"
	ReasonBodyTooLarge                      Reason = "content too large"
)
