package jsonrpc

import (
	"sync"
	"unicode/utf8"
)

// MaxDepth is the nesting budget Decode uses: the profile's limit on nested objects and
// arrays per request body (the README's limits table, "JSON nesting"). A 16 KiB body could
// otherwise nest 8192 arrays deep, and any recursive consumer of the decoded value
// (encoding/json included) would spend stack on each level.
const MaxDepth = 64

// utf8BOM is U+FEFF encoded in UTF-8. RFC 8259 §8.1 says implementations MUST NOT add one
// and MAY ignore one; the profile rejects it (T-P13) so that every reader sees the same
// first byte.
const utf8BOM = "\xef\xbb\xbf"

// checkStrict reports whether data is exactly one JSON value under the rawmcp profile:
//
//	JSON-text = ws value ws                               ; RFC 8259 §2
//	ws        = *( %x20 / %x09 / %x0A / %x0D )
//	value     = false / null / true / object / array / number / string
//	object    = "{" ws [ member *( ws "," ws member ) ] ws "}"
//	member    = string ws ":" ws value
//	array     = "[" ws [ value *( ws "," ws value ) ] ws "]"
//
// plus these rules, stricter than RFC 8259: the whole of data is valid UTF-8 (RFC 8259 §8.1,
// T-02) and starts with no BOM; a string escape never encodes a lone surrogate; no object
// has two member names that are equal after unescaping and simple case folding (the
// matching encoding/json uses, so "id" and "ID" collide; T-P13); every number fits a
// float64; objects and arrays nest at most maxDepth deep.
//
// The check is iterative: a stack of at most maxDepth frames replaces recursion, so hostile
// nesting costs one frame per level and fails at level maxDepth+1, using sc's stack and
// name table.
func (sc *grammarScratch) checkStrict(data []byte, maxDepth int) error {
	if len(data) >= len(utf8BOM) && string(data[:len(utf8BOM)]) == utf8BOM {
		return ErrBOM.at(0)
	}
	// One pass validates UTF-8 for strings and raw bytes alike, so the grammar pass below
	// only looks for ASCII delimiters.
	if !utf8.Valid(data) {
		return ErrInvalidUTF8.at(firstInvalidUTF8(data))
	}
	return sc.check(data, maxDepth)
}

// firstInvalidUTF8 returns the offset of the first byte that does not start a valid UTF-8
// sequence; it runs only after utf8.Valid failed.
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// container is one open object or array on the explicit nesting stack.
type container struct {
	isObject bool
	names    memberNames // the member names seen so far, objects only
}

// grammarScratch is the grammar's nesting stack and name table, some kilobytes, and the
// members of a top-level object as the grammar met them, which Decode reads instead of
// walking the object a second time. Held in the frame, the stack and table made the
// grammar the deepest frame of a request's path and doubled every connection's goroutine
// stack; pooled, the frame is small and an idle connection's stack stays as it was.
type grammarScratch struct {
	stack [MaxDepth]container
	names nameTable
	top   [topMembers]member
	ntop  int
}

// topMembers is how many members of a top-level object the grammar records: one more
// than the six names an envelope may have. Names are unique (T-P13), so an object with
// more members has an unknown one among its first seven, where Decode stops.
const topMembers = 7

var grammarScratches = sync.Pool{New: func() any { return new(grammarScratch) }}

func takeScratch() *grammarScratch { return grammarScratches.Get().(*grammarScratch) }

// release returns sc to the pool. Only a scratch whose name table kept nothing on the
// heap goes back: one that grew (an object of more than pairwiseNameLimit names, more
// than inlineNames open names) is left to the collector, so the pool never holds what
// one large body grew, and a reused name table needs only its count reset (the stack's
// entries are written before they are read).
func (sc *grammarScratch) release() {
	if sc.names.overflow == nil && sc.names.sets == nil {
		sc.names.count = 0
		grammarScratches.Put(sc)
	}
}

// check runs the RFC 8259 grammar over UTF-8-valid data as a state machine with two
// states: "a value starts at i" (top of the outer loop) and "a value ended before i" (the
// inner loop, which closes containers and finds the next value).
func (sc *grammarScratch) check(data []byte, maxDepth int) error {
	stack := sc.stack[:0]
	names := &sc.names
	sc.ntop = 0
	recording := false // a top-level member's value is being read, its name recorded
	i := skipWhitespace(data, 0)
	for {
		if i >= len(data) {
			return ErrSyntax.at(i)
		}
		var err error
		switch b := data[i]; b {
		case '{', '[':
			if len(stack) >= maxDepth {
				return ErrTooDeep.at(i)
			}
			i = skipWhitespace(data, i+1)
			if i < len(data) && data[i] == closingBracket(b) {
				i++
				break // an empty container is a complete value
			}
			stack = append(stack, container{isObject: b == '{', names: names.open()})
			if b == '{' {
				var name nameSpan
				if i, name, err = checkMemberName(data, i, &stack[len(stack)-1].names, names, len(stack)); err != nil {
					return err
				}
				if len(stack) == 1 {
					recording = sc.record(name, i)
				}
			}
			continue
		case '"':
			i, _, err = scanString(data, i)
		case 't':
			i, err = scanLiteral(data, i, "true")
		case 'f':
			i, err = scanLiteral(data, i, "false")
		case 'n':
			i, err = scanLiteral(data, i, "null")
		default:
			i, err = scanNumber(data, i)
		}
		if err != nil {
			return err
		}

		// A value ended before i.
		for {
			if recording && len(stack) == 1 {
				sc.top[sc.ntop].value.end = i
				sc.ntop++
				recording = false
			}
			i = skipWhitespace(data, i)
			if len(stack) == 0 {
				if i != len(data) {
					return ErrTrailingBytes.at(i)
				}
				return nil
			}
			if i >= len(data) {
				return ErrSyntax.at(i)
			}
			top := &stack[len(stack)-1]
			if data[i] == ',' {
				i = skipWhitespace(data, i+1)
				if top.isObject {
					var name nameSpan
					if i, name, err = checkMemberName(data, i, &top.names, names, len(stack)); err != nil {
						return err
					}
					if len(stack) == 1 {
						recording = sc.record(name, i)
					}
				}
				break
			}
			if (top.isObject && data[i] == '}') || (!top.isObject && data[i] == ']') {
				names.close(top.names, len(stack))
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return ErrSyntax.at(i)
		}
	}
}

// record notes a member of the top-level object whose name the grammar just read, with
// its value at valueStart, if it is one of the first topMembers; it reports whether it
// did, so that the value's end is noted when the value ends.
func (sc *grammarScratch) record(name nameSpan, valueStart int) bool {
	if sc.ntop == topMembers {
		return false
	}
	sc.top[sc.ntop] = member{name: name, value: span{start: valueStart}}
	return true
}

func closingBracket(opening byte) byte {
	if opening == '{' {
		return '}'
	}
	return ']'
}

// checkMemberName scans `string ws ":" ws` at i, the start of a member of the object
// whose names are object (depth levels deep), and returns the offset of its value.
func checkMemberName(data []byte, i int, object *memberNames, names *nameTable, depth int) (int, nameSpan, error) {
	if i >= len(data) || data[i] != '"' {
		return 0, nameSpan{}, ErrSyntax.at(i)
	}
	end, plain, err := scanString(data, i)
	if err != nil {
		return 0, nameSpan{}, err
	}
	name := nameSpan{start: i + 1, end: end - 1, plain: plain}
	if names.addIsDuplicate(data, object, depth, name) {
		return 0, nameSpan{}, ErrDuplicateKey.at(i)
	}
	i = skipWhitespace(data, end)
	if i >= len(data) || data[i] != ':' {
		return 0, nameSpan{}, ErrSyntax.at(i)
	}
	return skipWhitespace(data, i+1), name, nil
}
