package jsonrpc

import "strconv"

// Error codes of JSON-RPC 2.0 §5.1, repeated as constants in the MCP 2025-11-25 schema
// (requirement T-65).
const (
	CodeParseError     = -32700 // the bytes are not one strict JSON value
	CodeInvalidRequest = -32600 // valid JSON, but not a valid JSON-RPC message
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
)

// Error is a JSON-RPC level failure. Message is a constant reason: it never echoes input
// bytes, so it may be sent to the peer and logged as it is. Offset is the byte offset in
// the checked input where the problem was found.
type Error struct {
	Code    int
	Message string
	Offset  int
}

func (e *Error) Error() string {
	return "jsonrpc: " + e.Message + " (code " + strconv.Itoa(e.Code) + ", offset " + strconv.Itoa(e.Offset) + ")"
}

// Is matches on Code and Message, so errors.Is(err, ErrDuplicateKey) holds whatever the
// Offset (compare go-sdk internal/jsonrpc2/wire.go, WireError.Is).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Message == e.Message
}

// at returns a copy of the sentinel e that points at offset.
func (e *Error) at(offset int) *Error {
	located := *e
	located.Offset = offset
	return &located
}

// Reasons for CodeParseError: the body is not one strict JSON value (T-02, T-P13).
var (
	ErrInvalidUTF8    = &Error{Code: CodeParseError, Message: "Parse error: invalid UTF-8"}
	ErrBOM            = &Error{Code: CodeParseError, Message: "Parse error: byte order mark"}
	ErrDuplicateKey   = &Error{Code: CodeParseError, Message: "Parse error: duplicate member name"}
	ErrNonFinite      = &Error{Code: CodeParseError, Message: "Parse error: NaN or Infinity"}
	ErrNumberOverflow = &Error{Code: CodeParseError, Message: "Parse error: number out of float64 range"}
	ErrTooDeep        = &Error{Code: CodeParseError, Message: "Parse error: nesting too deep"}
	ErrTrailingBytes  = &Error{Code: CodeParseError, Message: "Parse error: bytes after the JSON value"}
	ErrLoneSurrogate  = &Error{Code: CodeParseError, Message: "Parse error: unpaired surrogate escape"}
	ErrSyntax         = &Error{Code: CodeParseError, Message: "Parse error: invalid JSON syntax"}
)

// Reasons for CodeInvalidRequest: strict JSON, but not a JSON-RPC 2.0 message as MCP
// 2025-11-25 profiles it (T-10, T-60..T-64, T-P03).
var (
	ErrBatch         = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: batch arrays are not supported"}
	ErrNotObject     = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: message is not a JSON object"}
	ErrBadVersion    = &Error{Code: CodeInvalidRequest, Message: `Invalid Request: jsonrpc must be "2.0"`}
	ErrBadID         = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: id must be a string or an integer"}
	ErrBadMethod     = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: method missing or not a string"}
	ErrBadParams     = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: params must be an object"}
	ErrBadResponse   = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: malformed response"}
	ErrMixedMessage  = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: request and response members mixed"}
	ErrUnknownMember = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: unknown member"}
)
