package loadgen

import (
	"mime"

	"rawmcp/httpparse"
	"rawmcp/sseframe"
	"rawmcp/wire/jsonrpc"
)

// Fault is why an answer failed its check. Faults are constant texts, the
// keys of Result.Errors: never response bytes.
type Fault string

const (
	FaultTransport   Fault = "connection failed or timed out"
	FaultFraming     Fault = "response not valid HTTP/1.1"
	FaultStatus      Fault = "status not 200"
	FaultContentType Fault = "Content-Type neither application/json nor text/event-stream"
	FaultSSE         Fault = "event stream malformed"
	FaultJSON        Fault = "body not one strict JSON-RPC message"
	FaultNoResponse  Fault = "no JSON-RPC response with the request's id"
	FaultRPCError    Fault = "JSON-RPC error instead of a result"
	FaultResult      Fault = "result lacks what the method returns"
	FaultSessionLost Fault = "session not found again after initializing anew"
)

// Method is what the load consists of.
type Method string

const (
	MethodPing      Method = "ping"
	MethodResources Method = "resources"
)

// rpcName is the JSON-RPC method name on the wire.
func (m Method) rpcName() string {
	if m == MethodResources {
		return "resources/list"
	}
	return "ping"
}

// checkAnswer checks resp as the answer to the request with id: status
// 200, and one JSON-RPC response with that id carrying a result, as the
// application/json body or as one event of a text/event-stream body
// (Transports §2.1 items 5-6). The result must be an object; for
// resources/list it must hold a "resources" array (Resources §4.1).
func checkAnswer(resp *httpparse.Response, m Method, id jsonrpc.ID) Fault {
	if resp.Status != 200 {
		return FaultStatus
	}
	msg, fault := responseMessage(resp, id)
	if fault != "" {
		return fault
	}
	if msg.Kind == jsonrpc.KindError {
		return FaultRPCError
	}
	if m == MethodResources {
		if list, ok := jsonrpc.Member(msg.Result, "resources"); !ok || list[0] != '[' {
			return FaultResult
		}
	}
	return ""
}

// responseMessage finds the JSON-RPC response to id in the body.
func responseMessage(resp *httpparse.Response, id jsonrpc.ID) (jsonrpc.Message, Fault) {
	ct, _ := resp.Get("Content-Type")
	mediaType, _, err := mime.ParseMediaType(ct)
	switch {
	case err != nil:
		return jsonrpc.Message{}, FaultContentType
	case mediaType == "application/json":
		msg, err := jsonrpc.Decode(resp.Body)
		if err != nil {
			return msg, FaultJSON
		}
		if !answers(msg, id) {
			return msg, FaultNoResponse
		}
		return msg, ""
	case mediaType == "text/event-stream":
		events, err := sseframe.Decode(resp.Body, sseframe.DefaultLimits())
		if err != nil {
			return jsonrpc.Message{}, FaultSSE
		}
		// The stream may carry notifications and requests before the
		// response (Transports §2.1 item 6).
		for _, ev := range events {
			if ev.Data == "" {
				continue
			}
			msg, err := jsonrpc.Decode([]byte(ev.Data))
			if err != nil {
				return msg, FaultJSON
			}
			if answers(msg, id) {
				return msg, ""
			}
		}
		return jsonrpc.Message{}, FaultNoResponse
	}
	return jsonrpc.Message{}, FaultContentType
}

// answers reports whether msg is a response (result or error) to id.
func answers(msg jsonrpc.Message, id jsonrpc.ID) bool {
	return (msg.Kind == jsonrpc.KindResult || msg.Kind == jsonrpc.KindError) && msg.ID == id
}

// isSessionGone reports the answer that ends a session: 404 to a request
// that carried one (Transports §2.5 item 4).
func isSessionGone(resp *httpparse.Response, session string) bool {
	return resp.Status == 404 && session != ""
}

// protocolVersion reads result.protocolVersion of an initialize answer.
func protocolVersion(result []byte) (string, bool) {
	raw, ok := jsonrpc.Member(result, "protocolVersion")
	if !ok {
		return "", false
	}
	v, ok := jsonrpc.StringValue(raw)
	return v, ok && isVisibleASCII(v)
}

// isVisibleASCII reports whether s is non-empty VCHARs (0x21-0x7E) only,
// so a value a server sent can go into a header of ours unchanged and
// never split it.
func isVisibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return s != ""
}
