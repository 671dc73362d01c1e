package loadgen

import (
	"errors"
	"rawmcp/wire/client"
	"strconv"
	"sync"

	"rawmcp/httpparse"
	"rawmcp/wire/jsonrpc"
)

// StepError reports a handshake step the server refused: which step and
// the status, never the response's bytes.
type StepError struct {
	Step   string // "initialize" or "notifications/initialized"
	Status int    // 0 when no answer came
	Fault  Fault
}

func (e *StepError) Error() string {
	if e.Status == 0 {
		return "loadgen: " + e.Step + ": " + string(e.Fault)
	}
	return "loadgen: " + e.Step + " answered " + strconv.Itoa(e.Status) + ": " + string(e.Fault)
}

// clientVersion is what initialize proposes: the version rawmcp speaks.
const clientVersion = "2025-11-25"

// session is one MCP session shared by some connections. When the server
// answers 404 the first connection to notice initializes a new one; the
// others see the new id when they next ask (generation numbers tell a
// stale 404 from a fresh one).
type session struct {
	mu         sync.Mutex
	id         string // "" for a server without sessions
	version    string // negotiated protocol version, for MCP-Protocol-Version
	generation uint64
}

func (s *session) current() (id, version string, generation uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id, s.version, s.generation
}

// renew initializes a new session unless another connection already did
// since generation, and reports whether it did.
func (s *session) renew(generation uint64, open func() (id, version string, err error)) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.generation != generation {
		return false, nil
	}
	id, version, err := open()
	if err != nil {
		return false, err
	}
	s.id, s.version = id, version
	s.generation++
	return true, nil
}

// handshake runs initialize and notifications/initialized on c and
// returns the session id ("" if the server issued none) and the
// negotiated protocol version.
func (r *requester) handshake(c *client.Client) (id, version string, err error) {
	params := `{"protocolVersion":"` + clientVersion + `","capabilities":{},"clientInfo":{"name":"rawmcp-bench","version":"` + client.Version + `"}}`
	reqID := jsonrpc.IntID(0)
	resp, err := c.Do(r.post("", "", jsonrpc.AppendRequest(nil, reqID, "initialize", []byte(params))), false)
	if err != nil {
		return "", "", &StepError{Step: "initialize", Fault: faultOf(err)}
	}
	if resp.Status != 200 {
		return "", "", &StepError{Step: "initialize", Status: resp.Status, Fault: FaultStatus}
	}
	msg, fault := responseMessage(resp, reqID)
	if fault == "" && msg.Kind != jsonrpc.KindResult {
		fault = FaultRPCError
	}
	if fault != "" {
		return "", "", &StepError{Step: "initialize", Status: resp.Status, Fault: fault}
	}
	version, ok := protocolVersion(msg.Result)
	if !ok {
		return "", "", &StepError{Step: "initialize", Status: resp.Status, Fault: FaultResult}
	}
	id, _ = resp.Get("Mcp-Session-Id")
	if id != "" && !isVisibleASCII(id) {
		return "", "", &StepError{Step: "initialize", Status: resp.Status, Fault: FaultResult}
	}
	resp, err = c.Do(r.post(id, version, jsonrpc.AppendNotification(nil, "notifications/initialized", nil)), false)
	if err != nil {
		return "", "", &StepError{Step: "notifications/initialized", Fault: faultOf(err)}
	}
	if resp.Status < 200 || resp.Status > 299 {
		return "", "", &StepError{Step: "notifications/initialized", Status: resp.Status, Fault: FaultStatus}
	}
	return id, version, nil
}

// end deletes the session (Transports §2.5 item 5), so a bench run does
// not leave it taking one of the server's few places until its TTL ends.
// A server may answer 405: it does not let clients end sessions.
func (r *requester) end(c *client.Client, id, version string) {
	if id == "" {
		return
	}
	c.Do(r.mcp(id, version).Delete().Bytes(), false)
}

// faultOf classifies a round-trip error.
func faultOf(err error) Fault {
	var pe *httpparse.Error
	if errors.As(err, &pe) {
		return FaultFraming
	}
	return FaultTransport
}
