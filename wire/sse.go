package wire

import (
	"time"

	"rawmcp/sseframe"
	"rawmcp/state"
)

// stream is an SSE answer's body as the route decides it, framed by conn
// in the request's pooled event buffer (a fresh one would grow by doubling
// on every answer).
type stream struct {
	kind streamKind
	// A POST's answer: one event holding the message.
	eventID []byte
	message []byte
	// A GET's event set: the priming event with its retry, then the
	// batch's notifications, each with its own id.
	batch state.Batch
	retry time.Duration
}

type streamKind uint8

const (
	streamNone streamKind = iota
	streamEvent
	streamBatch
)

// appendStream frames s after dst; an error means an event sseframe
// refuses, and nothing is to be sent.
func appendStream(dst []byte, s *stream) ([]byte, error) {
	if s.kind == streamEvent {
		return sseframe.AppendMessage(dst, s.eventID, s.message)
	}
	body, err := sseframe.AppendEvent(dst, sseframe.Event{ID: s.batch.PrimingID, Retry: int(s.retry / time.Millisecond)})
	for _, ev := range s.batch.Events {
		if err != nil {
			return nil, err
		}
		body, err = sseframe.AppendEvent(body, sseframe.Event{ID: ev.ID, Data: string(ev.Data)})
	}
	if err != nil {
		return nil, err
	}
	return body, nil
}
