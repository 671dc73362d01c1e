package jsonrpc

import "unicode/utf8"

// Member returns the raw JSON value of the member of obj called name, matching names byte
// for byte after unescaping (no case folding). obj should be an object the strict
// check accepted; for other input Member never panics, but its answer means nothing.
func Member(obj []byte, name string) (raw []byte, ok bool) {
	start := skipWhitespace(obj, 0)
	if start >= len(obj) || obj[start] != '{' {
		return nil, false
	}
	members := memberIterator{data: obj, i: start + 1}
	for {
		member, ok := members.next()
		if !ok {
			return nil, false
		}
		if nameEquals(obj, member.name, name) {
			return obj[member.value.start:member.value.end], true
		}
	}
}

// memberIterator walks the members of an object from just after its "{".
type memberIterator struct {
	data    []byte
	i       int
	started bool // a member was returned, so the next one follows a ","
}

type member struct {
	name  nameSpan
	value span
}

// next returns the next `member = string ws ":" ws value` (RFC 8259 §4), or false at the
// closing brace or at anything unexpected.
func (it *memberIterator) next() (member, bool) {
	data := it.data
	i := skipWhitespace(data, it.i)
	if it.started {
		if i >= len(data) || data[i] != ',' {
			return member{}, false
		}
		i = skipWhitespace(data, i+1)
	}
	if i >= len(data) || data[i] != '"' {
		return member{}, false
	}
	nameEnd, plain, err := scanString(data, i)
	if err != nil {
		return member{}, false
	}
	name := nameSpan{start: i + 1, end: nameEnd - 1, plain: plain}
	i = skipWhitespace(data, nameEnd)
	if i >= len(data) || data[i] != ':' {
		return member{}, false
	}
	valueStart := skipWhitespace(data, i+1)
	valueEnd, ok := skipValue(data, valueStart)
	if !ok {
		return member{}, false
	}
	it.i, it.started = valueEnd, true
	return member{name: name, value: span{start: valueStart, end: valueEnd}}, true
}

// skipValue returns the offset after the value at i of checked input by counting brackets
// outside strings. On unchecked input it stops at the end of data and never panics.
func skipValue(data []byte, i int) (int, bool) {
	start, depth := i, 0
	for i < len(data) {
		switch b := data[i]; {
		case b == '"':
			end, _, err := scanString(data, i)
			if err != nil {
				return 0, false
			}
			i = end
		case b == '{' || b == '[':
			depth++
			i++
		case b == '}' || b == ']':
			if depth == 0 {
				return i, i > start
			}
			depth--
			i++
		case b == ',' || b == ':' || isWhitespace(b):
			if depth == 0 {
				return i, i > start
			}
			i++
		default:
			i++
		}
		if depth == 0 && i > start && (data[start] == '"' || data[start] == '{' || data[start] == '[') {
			return i, true
		}
	}
	return i, depth == 0 && i > start
}

// nameEquals compares the unescaped contents of a name token with want, byte for byte.
func nameEquals(data []byte, name nameSpan, want string) bool {
	contents := data[name.start:name.end]
	if name.plain {
		return string(contents) == want
	}
	var buffer [utf8.UTFMax]byte
	for len(contents) > 0 {
		r, n := nextUnescapedRune(contents)
		encoded := contents[:n]
		if contents[0] == '\\' {
			encoded = utf8.AppendRune(buffer[:0], r)
		}
		if len(want) < len(encoded) || want[:len(encoded)] != string(encoded) {
			return false
		}
		want, contents = want[len(encoded):], contents[n:]
	}
	return want == ""
}
