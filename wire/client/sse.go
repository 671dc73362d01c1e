package client

import (
	"bytes"
	"strconv"

	"rawmcp/sseframe"
)

// Events reads the events an event stream's bytes dispatch, the way a
// browser's EventSource does (WHATWG HTML §9.2.6), not the way rawmcp's
// strict sseframe.Decode does: a client judging another server must see
// what that server's clients see, so unknown fields, a bad retry or an id
// with NUL are ignored as §9.2.6 says rather than refused. The stream may
// be a prefix of one still arriving: a block is returned only once its
// blank line has come, and a CR at the very end is not yet a line end (an
// LF may follow it in the next read).
//
// Each event's ID is the last event id in effect when it was dispatched;
// an event's Retry is the retry its own block set, 0 if none. A block with
// a data line dispatches even when the data is empty: that is the MCP
// priming event (S-15).
func Events(stream []byte) []sseframe.Event {
	stream = bytes.TrimPrefix(stream, []byte("\xEF\xBB\xBF"))
	var (
		events   []sseframe.Event
		lastID   string
		data     []byte
		hasData  bool
		typ      string
		retry    int
		position int
	)
	for position < len(stream) {
		line, next, ok := nextLine(stream, position)
		if !ok {
			break
		}
		position = next
		if len(line) == 0 {
			if hasData {
				events = append(events, sseframe.Event{ID: lastID, Type: typ, Data: string(bytes.TrimSuffix(data, []byte("\n"))), Retry: retry})
			}
			data, hasData, typ, retry = data[:0], false, "", 0
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value, colon := bytes.Cut(line, []byte(":"))
		if colon {
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(name) {
		case "data":
			data = append(append(data, value...), '\n')
			hasData = true
		case "event":
			typ = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				lastID = string(value)
			}
		case "retry":
			if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 && isDigits(value) {
				retry = n
			}
		}
	}
	return events
}

// nextLine cuts the line at pos, ended by CRLF, LF or CR; ok is false when
// the line has no end yet.
func nextLine(stream []byte, pos int) (line []byte, next int, ok bool) {
	rest := stream[pos:]
	i := bytes.IndexAny(rest, "\r\n")
	switch {
	case i < 0:
		return nil, 0, false
	case rest[i] == '\n':
		return rest[:i], pos + i + 1, true
	case i+1 == len(rest):
		return nil, 0, false // a CR whose LF may still come
	case rest[i+1] == '\n':
		return rest[:i], pos + i + 2, true
	}
	return rest[:i], pos + i + 1, true
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
