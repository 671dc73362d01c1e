package state

import (
	"encoding/base64"
	"io"
	"strconv"
)

// Session ids (MCP 2025-11-25 Transports §2.5 item 1; T-39, T-40, T-71,
// T-P09): 192 bits from the table's random source, so ids are unguessable
// and, in practice, never repeat.
//
//	session-id = 32base64url                    ; 24 random bytes, no padding
//	base64url  = ALPHA / DIGIT / "-" / "_"       ; RFC 4648 §5
//
// Every byte lies in 0x21–0x7E, and the length is fixed, so the server can
// refuse anything else with 400 before it touches the table.
const (
	sessionIDBytes = 24
	// SessionIDLen is the length of every session id the table issues.
	SessionIDLen = sessionIDBytes / 3 * 4
)

// Event ids (Transports §2.4 item 1; T-33, T-34, T-P11, S-P01) name the
// stream an event went out on, the session, and its place in the session:
//
//	event-id    = stream-kind handle "-" seq
//	stream-kind = "g" / "p"       ; the GET notification stream / a POST response stream
//	handle      = 16base64url     ; 12 random bytes per session, unrelated to its id
//	seq         = %x31-39 *19DIGIT ; 1 to 2^64-1, one counter for all the session's streams
//
// Example: gAAECAwQFBgcICQoL-7. The handle is random rather than derived from
// the session id, so an event id, which clients may log or echo in
// Last-Event-ID, never reveals the session id. One counter for every stream
// keeps ids unique across the session's streams (T-33).
const (
	handleBytes = 12
	handleLen   = handleBytes / 3 * 4
	maxSeqLen   = len("18446744073709551615")
	// maxEventIDLen is 38, far below S-P01's cap of 128 bytes.
	maxEventIDLen = 1 + handleLen + 1 + maxSeqLen

	getStreamKind  = 'g'
	postStreamKind = 'p'
)

var idEncoding = base64.RawURLEncoding

// ValidSessionID reports whether id has exactly the length and alphabet of
// the ids the table issues (T-P09). Any other received id is a malformed
// request (400), not an unknown session (404).
func ValidSessionID(id []byte) bool {
	if len(id) != SessionIDLen {
		return false
	}
	for _, b := range id {
		if !isBase64URL(b) {
			return false
		}
	}
	return true
}

func isBase64URL(b byte) bool {
	return 'A' <= b && b <= 'Z' || 'a' <= b && b <= 'z' || '0' <= b && b <= '9' || b == '-' || b == '_'
}

// newIdentity draws a session id and the independent event-id handle in one
// read. A short or failed read yields ErrEntropy, never a weaker id.
func newIdentity(random io.Reader) (id, handle string, err error) {
	var raw [sessionIDBytes + handleBytes]byte
	if _, err := io.ReadFull(random, raw[:]); err != nil {
		return "", "", ErrEntropy
	}
	return idEncoding.EncodeToString(raw[:sessionIDBytes]), idEncoding.EncodeToString(raw[sessionIDBytes:]), nil
}

func formatEventID(kind byte, handle string, seq uint64) string {
	return string(appendEventID(make([]byte, 0, maxEventIDLen), kind, handle, seq))
}

func appendEventID(dst []byte, kind byte, handle string, seq uint64) []byte {
	dst = append(dst, kind)
	dst = append(dst, handle...)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, seq, 10)
}

// eventID is a parsed event id.
type eventID struct {
	kind   byte
	handle string
	seq    uint64
}

// parseEventID accepts exactly the event-id grammar above: no other
// lengths, kinds, separators, signs or leading zeros, so each event has one
// spelling.
func parseEventID(s string) (eventID, bool) {
	if len(s) < 1+handleLen+2 || len(s) > maxEventIDLen {
		return eventID{}, false
	}
	kind, handle, sep, digits := s[0], s[1:1+handleLen], s[1+handleLen], s[2+handleLen:]
	if kind != getStreamKind && kind != postStreamKind || sep != '-' || digits[0] == '0' {
		return eventID{}, false
	}
	for i := range len(handle) {
		if !isBase64URL(handle[i]) {
			return eventID{}, false
		}
	}
	for i := range len(digits) {
		if digits[i] < '0' || digits[i] > '9' {
			return eventID{}, false
		}
	}
	seq, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return eventID{}, false
	}
	return eventID{kind: kind, handle: handle, seq: seq}, true
}
