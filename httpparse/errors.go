package httpparse

import (
	"errors"
	"fmt"
)

// ErrNeedMore reports that buf holds no complete request head (Parse) or
// response (ParseResponse) yet and no limit has been crossed: read more
// bytes and call again. It is kept apart from *Error ("bad data") as
// picohttpparser keeps -2 apart from -1.
var ErrNeedMore = errors.New("httpparse: need more data")

// Error is a request or response the parser refuses. For a request, Status
// is the HTTP status the server answers with; for a response it is always
// RespErrorStatus. Reason is a constant noun phrase naming what was wrong
// (never the peer's bytes, so it is safe to log); Offset is where in the
// buffer the fault was found.
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

// Reasons of the request parser for line endings and field-line syntax
// (RFC 9112 §2.2, §5; RFC 9110 §5). The response parser does not use
// them: it has its own RespReason... constants (response.go), so a Reason
// also tells which parser refused.
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

// Reasons of the request parser for the request line and for the checks on
// the complete head: Host, framing, Connection, Expect and body size
// (RFC 9112 §3, §6; RFC 9110 §7.2, §10.1.1).
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

// ReasonBufferFull is for a caller whose read buffer filled before Parse saw
// a whole head (431); Parse never returns it, as in a buffer of
// Limits.MaxRequestBytes a limit trips first.
const ReasonBufferFull Reason = "buffer full"
