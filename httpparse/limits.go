package httpparse

// Limits bounds every part of a request the parser looks at. Values come in
// from the caller (compare net/textproto's readMIMEHeader(maxMemory,
// maxHeaders)); DefaultLimits returns the profile's.
type Limits struct {
	// MaxMethod is the longest method token; longer is 501 (RFC 9112 §3:
	// a method longer than any implemented one). "OPTIONS"/"CONNECT" are 7.
	MaxMethod int
	// MaxTarget is the longest request-target; longer is 414 (RFC 9112 §3).
	MaxTarget int
	// MaxFields is the most header field lines; more is 431.
	MaxFields int
	// MaxHeaderBytes bounds the header section: the field lines with their
	// CRLFs after the request line, not counting the final empty line; more
	// is 431 (RFC 6585 §5).
	MaxHeaderBytes int
	// MaxValue is the longest single field value (after OWS is trimmed);
	// more is 431.
	MaxValue int
	// MaxBody is the largest Content-Length accepted; more is 413,
	// answered before any body byte is read.
	MaxBody int64
}

// MaxFieldsCap is the size of the field array inside Request, the upper
// bound for Limits.MaxFields (the caller's memory sets the limit, as
// picohttpparser's header array does).
const MaxFieldsCap = 64

// DefaultLimits returns the profile's limits: 2 KiB path, 32 fields,
// 12 KiB of header section, 2 KiB per value, 16 KiB body. They are the
// budgets of a small loopback teaching server whose largest legitimate
// request is an MCP POST of a few hundred bytes, not production values.
func DefaultLimits() Limits {
	return Limits{
		MaxMethod:      16,
		MaxTarget:      2 << 10,
		MaxFields:      32,
		MaxHeaderBytes: 12 << 10,
		MaxValue:       2 << 10,
		MaxBody:        16 << 10,
	}
}

// MaxRequestBytes is the length of the longest request Parse accepts under
// l, body included: the one skipped empty line, a request line with method
// and target at their limits, a full header section, the final empty line
// and MaxBody bytes of body. A read buffer this large holds any acceptable
// request, so a limit trips before the buffer can fill.
func (l Limits) MaxRequestBytes() int {
	const (
		skippedLine = len("\r\n")           // RFC 9112 §2.2, H-04
		lineFixed   = len("  HTTP/1.1\r\n") // the two SPs, the version, CRLF
		emptyLine   = len("\r\n")
	)
	return skippedLine + l.MaxMethod + l.MaxTarget + lineFixed + l.MaxHeaderBytes + emptyLine + int(l.MaxBody)
}
