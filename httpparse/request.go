package httpparse

import (
	"encoding/binary"
	"iter"
)

// Method is a request method the server knows by name (RFC 9110 §9.3,
// RFC 5789 for PATCH). Any other valid token parses as MethodUnknown; the
// server answers it with 501 (H-10, H-P12).
type Method uint8

const (
	MethodUnknown Method = iota
	MethodGET
	MethodHEAD
	MethodPOST
	MethodPUT
	MethodDELETE
	MethodCONNECT
	MethodOPTIONS
	MethodTRACE
	MethodPATCH
)

var methodNames = [...]string{
	MethodUnknown: "unknown",
	MethodGET:     "GET",
	MethodHEAD:    "HEAD",
	MethodPOST:    "POST",
	MethodPUT:     "PUT",
	MethodDELETE:  "DELETE",
	MethodCONNECT: "CONNECT",
	MethodOPTIONS: "OPTIONS",
	MethodTRACE:   "TRACE",
	MethodPATCH:   "PATCH",
}

// String returns the method's token, or "unknown" for MethodUnknown, so a
// log line never carries the client's own method bytes.
func (m Method) String() string {
	if int(m) < len(methodNames) {
		return methodNames[m]
	}
	return methodNames[MethodUnknown]
}

// lookupMethod matches case-sensitively: "post" is not POST (RFC 9110 §9.1).
func lookupMethod(token []byte) Method {
	switch string(token) { // the conversion does not allocate in a switch
	case "GET":
		return MethodGET
	case "HEAD":
		return MethodHEAD
	case "POST":
		return MethodPOST
	case "PUT":
		return MethodPUT
	case "DELETE":
		return MethodDELETE
	case "CONNECT":
		return MethodCONNECT
	case "OPTIONS":
		return MethodOPTIONS
	case "TRACE":
		return MethodTRACE
	case "PATCH":
		return MethodPATCH
	}
	return MethodUnknown
}

// Field is one header field line. Both slices alias the buffer passed to
// Parse; Value has its surrounding OWS removed (RFC 9112 §5.1).
type Field struct{ Name, Value []byte }

// Singleton names a field that may appear at most once (H-P05): a second
// line is a 400 even when both carry the same value.
type Singleton uint8

const (
	SingletonHost Singleton = iota
	SingletonContentLength
	SingletonContentType
	SingletonAuthorization
	SingletonOrigin
	SingletonSessionID       // Mcp-Session-Id (MCP 2025-11-25 Transports §2.5)
	SingletonProtocolVersion // MCP-Protocol-Version (Transports §2.7)
	SingletonLastEventID     // Last-Event-ID (WHATWG HTML §9.2.4)
	SingletonExpect
	singletonCount
)

// nameClass is what the scanner records about a field name: a singleton,
// one of the two list fields the parser interprets itself, or other.
type nameClass uint8

const (
	classOther nameClass = iota
	classSingleton
	classTransferEncoding
	classConnection
)

// knownNames are the field names the parser interprets, by length, each
// packed as foldedWord packs a name, so classifying a name costs a few
// word compares instead of a byte-by-byte fold.
var knownNames = packNames([]nameKey{
	{name: "host", class: classSingleton, single: SingletonHost},
	{name: "origin", class: classSingleton, single: SingletonOrigin},
	{name: "expect", class: classSingleton, single: SingletonExpect},
	{name: "connection", class: classConnection},
	{name: "content-type", class: classSingleton, single: SingletonContentType},
	{name: "authorization", class: classSingleton, single: SingletonAuthorization},
	{name: "last-event-id", class: classSingleton, single: SingletonLastEventID},
	{name: "content-length", class: classSingleton, single: SingletonContentLength},
	{name: "mcp-session-id", class: classSingleton, single: SingletonSessionID},
	{name: "transfer-encoding", class: classTransferEncoding},
	{name: "mcp-protocol-version", class: classSingleton, single: SingletonProtocolVersion},
})

// nameKey is one of knownNames: lower-case letters and "-", 4 to 24 bytes.
type nameKey struct {
	name   string
	words  [3]uint64
	class  nameClass
	single Singleton
}

// maxKnownName is the length of the longest of knownNames.
const maxKnownName = len("mcp-protocol-version")

func packNames(keys []nameKey) (byLen [maxKnownName + 1][]nameKey) {
	for _, k := range keys {
		b := []byte(k.name)
		for j := range k.words {
			k.words[j] = foldedWord(b, j)
		}
		byLen[len(b)] = append(byLen[len(b)], k)
	}
	return byLen
}

// foldedWord packs word j (0-2) of a name of 4 to 24 bytes: little-endian,
// with 0x20 OR-ed into every byte. Words past the end of a shorter name
// repeat its last word, and that last word overlaps the one before where
// the length is not a multiple of 8, so names of one length always pack
// the same bytes the same way. (Below 8 bytes two 4-byte loads make the
// word; at exactly 8 they load what one 8-byte load does.) For a token against a key of lower-case letters and "-"
// that OR is an exact ASCII case fold: among the tchar only A-Z and a-z
// turn into a letter, and only "-" into "-" (CR would, but is no tchar).
// Nothing beyond ASCII folds, so the Kelvin sign U+212A never passes for
// "k".
func foldedWord(b []byte, j int) uint64 {
	const fold = 0x2020202020202020
	n := len(b)
	if n < 8 {
		return uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[n-4:]))<<32 | fold
	}
	return binary.LittleEndian.Uint64(b[min(8*j, n-8):]) | fold
}

// classifyName matches a field name, a token, case-insensitively (RFC 9110
// §5.1) against knownNames of its length, most often settled by the first
// word.
func classifyName(name []byte) (nameClass, Singleton) {
	n := len(name)
	if n > maxKnownName || len(knownNames[n]) == 0 {
		return classOther, 0
	}
	for i := range knownNames[n] {
		k := &knownNames[n][i]
		if foldedWord(name, 0) == k.words[0] && foldedWord(name, 1) == k.words[1] && foldedWord(name, 2) == k.words[2] {
			return k.class, k.single
		}
	}
	return classOther, 0
}

// Request is one parsed request head. Parse fills it in place, so a
// connection reuses one Request for every request it reads and parsing
// allocates nothing. Every slice aliases the buffer given to Parse and is
// valid only while that buffer is unchanged. Pass it by pointer: Fields
// points into the Request's own array, so a copy would share it.
type Request struct {
	Method         Method
	MethodToken    []byte  // the raw method token; never echo it
	Path           []byte  // origin-form target, validated, no query
	Fields         []Field // in arrival order
	ContentLength  int64   // 0 when absent
	ExpectContinue bool    // Expect: 100-continue
	Close          bool    // Connection lists "close"
	// HTTP10 says the request line ended in HTTP/1.0, not HTTP/1.1. Such
	// a request is held to the same head rules (Host required,
	// Transfer-Encoding refused); its connection is not persistent (RFC
	// 9112 §9.3), which is the server's to apply, and ExpectContinue
	// stays false for it (RFC 9110 §10.1.1).
	HTTP10 bool

	fields     [MaxFieldsCap]Field
	spans      [MaxFieldsCap]fieldSpan
	singletons [singletonCount]uint8 // 1 + index into fields; 0 when absent
	hasTE      bool                  // some line is Transfer-Encoding
	hasConn    bool                  // some line is Connection
	scan       scanState
}

// fieldSpan records a field line by offsets, not slices: when the caller
// grows its buffer between two calls the bytes may move, so the slices
// are cut from the final buffer once the head is complete.
type fieldSpan struct{ nameStart, nameEnd, valueStart, valueEnd int }

func (r *Request) reset() {
	r.Method = MethodUnknown
	r.MethodToken, r.Path, r.Fields = nil, nil, r.fields[:0]
	r.ContentLength, r.ExpectContinue, r.Close, r.HTTP10 = 0, false, false, false
	r.singletons = [singletonCount]uint8{}
	r.hasTE, r.hasConn = false, false
	r.scan = scanState{}
}

// Get returns the value of a singleton field.
func (r *Request) Get(s Singleton) (value []byte, ok bool) {
	if s >= singletonCount || r.singletons[s] == 0 {
		return nil, false
	}
	return r.Fields[r.singletons[s]-1].Value, true
}

// Values yields the value of every line named name (case-insensitive), in
// arrival order; list fields such as Accept may repeat (RFC 9110 §5.3).
func (r *Request) Values(name string) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for _, f := range r.Fields {
			if equalFold(f.Name, name) && !yield(f.Value) {
				return
			}
		}
	}
}
