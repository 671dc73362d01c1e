package jsonrpc

import "strconv"

// Kind tells the JSON-RPC 2.0 message shapes apart (MCP 2025-11-25 Base §1.1-§1.3). The
// zero Kind is no message.
type Kind uint8

const (
	KindRequest      Kind = iota + 1 // method and id
	KindNotification                 // method, no id
	KindResult                       // id and result
	KindError                        // error, and id unless the failed message's id was unreadable
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResult:
		return "result"
	case KindError:
		return "error"
	}
	return "invalid kind " + strconv.Itoa(int(k))
}

// ID is a request id kept as its JSON token: a string with its quotes and escapes as
// received, or the digits of an integer. A response then echoes exactly the bytes the
// client sent (T-62, T-63), and ids compare with ==, the string "1" differing from the
// integer 1. The zero ID means "absent". A token of up to idInline bytes (every integer id,
// and the short strings clients use) is held inside the ID, so decoding a request does not
// allocate for its id; a longer one is a string.
type ID struct {
	n     uint8 // length of an inline token; 0 for a long one or none
	short [idInline]byte
	long  string
}

// idInline fits any int64 ("-9223372036854775808" is 20 bytes) with room to spare.
const idInline = 23

func newID(raw []byte) ID {
	var id ID
	if len(raw) <= idInline {
		id.n = uint8(copy(id.short[:], raw))
	} else {
		id.long = string(raw)
	}
	return id
}

func (id ID) IsZero() bool { return id.n == 0 && id.long == "" }

// Raw returns the JSON token, ready to be written as the value of "id". AppendRaw writes it
// without making a string.
func (id ID) Raw() string { return string(id.AppendRaw(nil)) }

// AppendRaw appends the JSON token to dst.
func (id ID) AppendRaw(dst []byte) []byte {
	if id.n > 0 {
		return append(dst, id.short[:id.n]...)
	}
	return append(dst, id.long...)
}

// Len is the length of the JSON token.
func (id ID) Len() int {
	if id.n > 0 {
		return int(id.n)
	}
	return len(id.long)
}

// IntID returns the integer id n.
func IntID(n int64) ID { return newID(strconv.AppendInt(nil, n, 10)) }

// Message is one decoded JSON-RPC message. Params, Result and Error are raw JSON that alias
// the decoded bytes: copy them before reusing the buffer.
type Message struct {
	Kind   Kind
	ID     ID
	Method string // KindRequest and KindNotification
	Params []byte // raw JSON object; nil when absent
	Result []byte // raw JSON object, KindResult
	Error  []byte // raw JSON error object, KindError
}

// span locates a member value in the decoded bytes; the zero span means "absent" (no JSON
// value is empty).
type span struct {
	start, end int
}

func (s span) present() bool { return s.end > s.start }

// envelope holds the six member names JSON-RPC 2.0 defines, as the profile knows them.
type envelope struct {
	jsonrpc, id, method, params, result, error span
}

// slot returns where the member called name goes, or nil for any other name. Names match
// byte for byte after unescaping: "Method" is an unknown member, not "method".
func (env *envelope) slot(data []byte, name nameSpan) *span {
	contents := data[name.start:name.end]
	if !name.plain {
		var buffer [16]byte
		contents = appendUnescaped(buffer[:0], contents)
	}
	switch string(contents) {
	case "jsonrpc":
		return &env.jsonrpc
	case "id":
		return &env.id
	case "method":
		return &env.method
	case "params":
		return &env.params
	case "result":
		return &env.result
	case "error":
		return &env.error
	}
	return nil
}

// Decode checks data with the strict check (to MaxDepth) and then reads it as one JSON-RPC
// 2.0 message as MCP 2025-11-25 profiles it (Base §1; Transports §2.1 item 3). The checks
// run in this order, each failure with its own reason:
//
//   - a top-level array is a batch (ErrBatch, T-P03), any other non-object ErrNotObject;
//   - a member other than jsonrpc, id, method, params, result, error: ErrUnknownMember;
//   - "jsonrpc" must be the string "2.0" (ErrBadVersion, T-60);
//   - "id", when present, a string or an integer that fits int64, never null (ErrBadID, T-61);
//   - with "method" (a string, ErrBadMethod): no result or error (ErrMixedMessage), "params"
//     absent or an object (ErrBadParams); a request with an id, a notification without;
//   - without "method": exactly one of "result" (an object, with an id) or "error" (an
//     object with an integer "code" and a string "message"; the id may be absent, T-63),
//     else ErrBadResponse; "params" alone or nothing at all is ErrBadMethod.
//
// Errors from the strict check carry CodeParseError, the others CodeInvalidRequest.
//
// The members are the ones the strict check met on its way through the object, so the
// object is read once.
func Decode(data []byte) (Message, error) {
	sc := takeScratch()
	defer sc.release()
	if err := sc.checkStrict(data, MaxDepth); err != nil {
		return Message{}, err
	}
	start, err := objectStart(data)
	if err != nil {
		return Message{}, err
	}
	var env envelope
	for _, member := range sc.top[:sc.ntop] {
		slot := env.slot(data, member.name)
		if slot == nil {
			return Message{}, ErrUnknownMember.at(member.name.start - 1)
		}
		*slot = member.value
	}
	return env.message(data, start)
}

// objectStart is the offset of the "{" of checked data's top-level object; an array is a
// batch, any other value no message.
func objectStart(data []byte) (int, error) {
	start := skipWhitespace(data, 0)
	switch data[start] {
	case '{':
		return start, nil
	case '[':
		return 0, ErrBatch.at(start)
	}
	return 0, ErrNotObject.at(start)
}

// message applies the envelope rules to the members of the object at start.
func (env *envelope) message(data []byte, start int) (Message, error) {
	value := func(s span) []byte { return data[s.start:s.end] }
	if !env.jsonrpc.present() {
		return Message{}, ErrBadVersion.at(start)
	}
	if version := value(env.jsonrpc); string(version) != `"2.0"` {
		if unescaped, _ := StringValue(version); unescaped != "2.0" {
			return Message{}, ErrBadVersion.at(env.jsonrpc.start)
		}
	}
	var msg Message
	if env.id.present() {
		id, ok := parseID(value(env.id))
		if !ok {
			return Message{}, ErrBadID.at(env.id.start)
		}
		msg.ID = id
	}
	if env.method.present() {
		method, ok := methodName(value(env.method))
		if !ok {
			return Message{}, ErrBadMethod.at(env.method.start)
		}
		if env.result.present() || env.error.present() {
			return Message{}, ErrMixedMessage.at(start)
		}
		msg.Method = method
		if env.params.present() {
			if data[env.params.start] != '{' {
				return Message{}, ErrBadParams.at(env.params.start)
			}
			msg.Params = value(env.params)
		}
		msg.Kind = KindNotification
		if env.id.present() {
			msg.Kind = KindRequest
		}
		return msg, nil
	}
	switch {
	case env.params.present() || !env.result.present() && !env.error.present():
		return Message{}, ErrBadMethod.at(start)
	case env.result.present() && env.error.present():
		return Message{}, ErrBadResponse.at(start)
	case env.result.present():
		if !env.id.present() || data[env.result.start] != '{' {
			return Message{}, ErrBadResponse.at(env.result.start)
		}
		msg.Kind, msg.Result = KindResult, value(env.result)
	default:
		if !isErrorObject(value(env.error)) {
			return Message{}, ErrBadResponse.at(env.error.start)
		}
		msg.Kind, msg.Error = KindError, value(env.error)
	}
	return msg, nil
}

// knownMethods are the method names of MCP 2025-11-25 (schema: the client's requests and
// notifications). A request names one of them as a plain string, which methodName
// returns as this constant instead of copying it out of the buffer.
var knownMethods = [...]string{
	"initialize", "ping", "notifications/initialized", "notifications/cancelled",
	"notifications/progress", "notifications/roots/list_changed",
	"resources/list", "resources/templates/list", "resources/read", "resources/subscribe",
	"resources/unsubscribe", "prompts/list", "prompts/get", "tools/list", "tools/call",
	"logging/setLevel", "completion/complete",
}

// methodName is StringValue for the method member: a known name written without escapes
// comes back as its constant, with no allocation; any other string is copied.
func methodName(raw []byte) (string, bool) {
	if raw[0] == '"' { // a checked string token: its last byte is the closing quote
		contents := raw[1 : len(raw)-1]
		for _, m := range knownMethods {
			if string(contents) == m {
				return m, true
			}
		}
	}
	return StringValue(raw)
}

// parseID accepts the two id types of the MCP schema (RequestId: string | integer).
//
//	id = string / [ "-" ] int      ; no frac, no exp, within int64
func parseID(raw []byte) (ID, bool) {
	if raw[0] != '"' && !isInt64Token(raw) {
		return ID{}, false
	}
	return newID(raw), true
}

// isInt64Token reports whether a checked JSON value is an integer token within int64:
// digits with an optional minus, no fraction or exponent.
func isInt64Token(raw []byte) bool {
	digits := 0
	for k, b := range raw {
		if !isDigit(b) && (b != '-' || k > 0) {
			return false
		}
		if isDigit(b) {
			digits++
		}
	}
	if digits > 0 && digits <= maxSafeInt64Digits {
		return true // every integer of this many digits fits, as most ids do
	}
	_, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil
}

// maxSafeInt64Digits is the most decimal digits that always fit an int64
// (whose largest value, 9223372036854775807, has 19).
const maxSafeInt64Digits = 18

// isErrorObject checks the JSON-RPC 2.0 §5.1 error object: an integer "code" and a string
// "message" (T-63); "data" and other members are the peer's business.
func isErrorObject(raw []byte) bool {
	if raw[0] != '{' {
		return false
	}
	code, hasCode := Member(raw, "code")
	message, hasMessage := Member(raw, "message")
	return hasCode && isInt64Token(code) && hasMessage && message[0] == '"'
}
