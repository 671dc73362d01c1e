package state

import "strconv"

// Phase is where a session stands in the MCP lifecycle (MCP 2025-11-25
// Lifecycle §1.1). Each phase lists its legal next phases, as net/http's
// ConnState does; the transitions themselves are the lifecycle table below.
type Phase uint8

const (
	// PhaseInitializing: the server has answered initialize and waits for
	// notifications/initialized. Create puts every new session here.
	// Next: PhaseOperating (notifications/initialized), PhaseClosed (DELETE).
	PhaseInitializing Phase = iota

	// PhaseOperating: the handshake is complete; requests are served.
	// Next: PhaseClosed (DELETE).
	PhaseOperating

	// PhaseClosed: the client deleted the session. Terminal: the table
	// forgets a closed session at once, so every later input on its id fails
	// with ErrNotFound (Transports §2.5 item 3, T-43).
	PhaseClosed
)

var phaseNames = [...]string{
	PhaseInitializing: "initializing",
	PhaseOperating:    "operating",
	PhaseClosed:       "closed",
}

func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "Phase(" + strconv.Itoa(int(p)) + ")"
}

// Input is what a client message does to its session's lifecycle. wire/mcp
// classifies each message; the table decides whether the session's phase
// allows it.
type Input uint8

const (
	// InputInitialized is the notifications/initialized notification.
	InputInitialized Input = iota
	// InputPing is a ping request (Ping §3).
	InputPing
	// InputRequest is any other request, e.g. resources/list.
	InputRequest
	// InputInitialize is an initialize request on an existing session.
	InputInitialize
	// InputPoll is a GET on the session's notification stream.
	InputPoll
	// InputDelete is a DELETE of the session (Transports §2.5 item 5).
	InputDelete
)

var inputNames = [...]string{
	InputInitialized: "notifications/initialized",
	InputPing:        "ping",
	InputRequest:     "request",
	InputInitialize:  "initialize",
	InputPoll:        "GET",
	InputDelete:      "DELETE",
}

func (in Input) String() string {
	if int(in) < len(inputNames) {
		return inputNames[in]
	}
	return "Input(" + strconv.Itoa(int(in)) + ")"
}

// lifecycle is the whole MCP session lifecycle as data: phase → input →
// next phase, read top to bottom like h11's EVENT_TRIGGERED_TRANSITIONS.
// An input missing from a phase's row is illegal in that phase
// (ErrLifecycle, answered 400). PhaseClosed's row is empty: a closed session
// is gone, and every input on it fails with ErrNotFound (404). An array, not
// a map: every request looks a cell up, and indexing costs nothing.
var lifecycle = [PhaseClosed + 1][inputCount]edge{
	PhaseInitializing: {
		InputInitialized: to(PhaseOperating),
		// Lifecycle §1.1 allows pings before initialized.
		InputPing: to(PhaseInitializing),
		// The official Go SDK opens its GET stream before it sends
		// notifications/initialized; refusing that would break it.
		InputPoll:   to(PhaseInitializing),
		InputDelete: to(PhaseClosed),
		// Illegal: InputRequest (requests wait for initialized, T-55),
		// InputInitialize (a second initialize, T-P06).
	},
	PhaseOperating: {
		InputPing:    to(PhaseOperating),
		InputRequest: to(PhaseOperating),
		InputPoll:    to(PhaseOperating),
		InputDelete:  to(PhaseClosed),
		// Illegal: InputInitialized (the handshake happens once),
		// InputInitialize (a second initialize, T-P06).
	},
}

// inputCount is the number of inputs, the width of a lifecycle row.
const inputCount = int(InputDelete) + 1

// edge is one cell of the lifecycle table: the zero edge is illegal.
type edge struct {
	next  Phase
	legal bool
}

func to(next Phase) edge { return edge{next: next, legal: true} }

// Allows reports whether a session in phase may take in, without moving it
// (nil, ErrLifecycle or, for a closed session, ErrNotFound). The server asks
// before its scope check, because T-P14 puts the lifecycle before scope and
// tenant, and applies the input with Step only after that check; Step asks
// the table again under the lock.
func Allows(phase Phase, in Input) error {
	_, err := transition(phase, in)
	return err
}

// transition applies in to a session in phase from. On an illegal input the
// phase stays as it was.
func transition(from Phase, in Input) (Phase, error) {
	if from == PhaseClosed {
		return PhaseClosed, ErrNotFound
	}
	if int(from) >= len(lifecycle) || int(in) >= inputCount || !lifecycle[from][in].legal {
		return from, ErrLifecycle
	}
	return lifecycle[from][in].next, nil
}
