package jsonrpc

import (
	"strconv"
	"unicode/utf8"
)

// The writers append compact JSON: no insignificant whitespace, and so no CR or LF, which
// lets a message travel as one SSE data line (S-P02). Raw JSON handed to them is compacted
// on the way, since a decoded client's params may be pretty-printed.

// versionMember opens every message (MCP 2025-11-25 Base §1, T-60).
const versionMember = `{"jsonrpc":"2.0"`

// AppendResult appends {"jsonrpc":"2.0","id":<id>,"result":<result>} (T-62). result is a
// raw JSON object; nil stands for the empty result {}, as ping returns.
func AppendResult(dst []byte, id ID, result []byte) []byte {
	dst = append(dst, versionMember...)
	dst = appendIDMember(dst, id)
	dst = append(dst, `,"result":`...)
	if len(result) == 0 {
		dst = append(dst, "{}"...)
	} else {
		dst = appendCompact(dst, result)
	}
	return append(dst, '}')
}

// AppendError appends {"jsonrpc":"2.0","id":<id>,"error":{"code":<code>,"message":<message>}}.
// A zero id omits "id": the MCP schema types the error response id as optional string or
// integer, and omits it when the failed message's id could not be read (T-63), where plain
// JSON-RPC 2.0 would write null.
func AppendError(dst []byte, id ID, code int, message string) []byte {
	dst = append(dst, versionMember...)
	dst = appendIDMember(dst, id)
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(code), 10)
	dst = append(dst, `,"message":`...)
	dst = AppendString(dst, message)
	return append(dst, "}}"...)
}

// AppendNotification appends {"jsonrpc":"2.0","method":<method>,"params":<params>}; nil
// params omits "params".
func AppendNotification(dst []byte, method string, params []byte) []byte {
	dst = append(dst, versionMember...)
	dst = appendMethodAndParams(dst, method, params)
	return append(dst, '}')
}

// AppendRequest appends {"jsonrpc":"2.0","id":<id>,"method":<method>,"params":<params>};
// nil params omits "params".
func AppendRequest(dst []byte, id ID, method string, params []byte) []byte {
	dst = append(dst, versionMember...)
	dst = appendIDMember(dst, id)
	dst = appendMethodAndParams(dst, method, params)
	return append(dst, '}')
}

func appendIDMember(dst []byte, id ID) []byte {
	if id.IsZero() {
		return dst
	}
	dst = append(dst, `,"id":`...)
	return id.AppendRaw(dst)
}

func appendMethodAndParams(dst []byte, method string, params []byte) []byte {
	dst = append(dst, `,"method":`...)
	dst = AppendString(dst, method)
	if len(params) == 0 {
		return dst
	}
	dst = append(dst, `,"params":`...)
	return appendCompact(dst, params)
}

// appendCompact appends raw JSON without the whitespace between tokens. Strings are copied
// as they are; they cannot hold a raw CR or LF (RFC 8259 §7).
func appendCompact(dst, raw []byte) []byte {
	inString, escaped := false, false
	runStart := 0
	for i, b := range raw {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped = b == '\\'
			inString = b != '"'
		case b == '"':
			inString = true
		case isWhitespace(b):
			dst = append(dst, raw[runStart:i]...)
			runStart = i + 1
		}
	}
	return append(dst, raw[runStart:]...)
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string token. It escapes what RFC 8259 §7 requires
// (quotation mark, reverse solidus, U+0000-U+001F) plus U+2028 and U+2029, which are
// line terminators to JavaScript before ES2019; it leaves <, > and & alone, since the
// output is never embedded in HTML. Invalid UTF-8 is written as \ufffd so the token is
// always valid.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	runStart := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b >= 0x20 && b != '"' && b != '\\' && b < utf8.RuneSelf {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			dst = append(dst, s[runStart:i]...)
			dst = appendEscapedASCII(dst, b)
			i++
			runStart = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[runStart:i]...)
			dst = append(dst, `\u`...)
			dst = append(dst, hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
			i += size
			runStart = i
			continue
		}
		i += size
	}
	dst = append(dst, s[runStart:]...)
	return append(dst, '"')
}

// appendEscapedASCII escapes a quotation mark, reverse solidus or control character,
// using the two-character forms where RFC 8259 §7 has them.
func appendEscapedASCII(dst []byte, b byte) []byte {
	switch b {
	case '"', '\\':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, `\b`...)
	case '\f':
		return append(dst, `\f`...)
	case '\n':
		return append(dst, `\n`...)
	case '\r':
		return append(dst, `\r`...)
	case '\t':
		return append(dst, `\t`...)
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
}
