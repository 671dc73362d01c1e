package wire

import (
	"time"

	"rawmcp/sseframe"
	"rawmcp/state"
)

// SSE answers are framed in the request's pooled event buffer: a fresh one
// would grow by doubling on every answer.

// frameEvent frames a POST's SSE answer: one event holding the message.
func (c *conn) frameEvent(id, message []byte) ([]byte, error) {
	body, err := sseframe.AppendMessage(c.space.event[:0], id, message)
	if err != nil {
		return nil, err
	}
	c.space.event = body
	return body, nil
}

// frameStream frames a GET's event set: the priming event with its retry,
// then the batch's notifications, each with its own id.
func (c *conn) frameStream(batch state.Batch, retry time.Duration) ([]byte, error) {
	body, err := sseframe.AppendEvent(c.space.event[:0], sseframe.Event{ID: batch.PrimingID, Retry: int(retry / time.Millisecond)})
	for _, ev := range batch.Events {
		if err != nil {
			return nil, err
		}
		body, err = sseframe.AppendEvent(body, sseframe.Event{ID: ev.ID, Data: string(ev.Data)})
	}
	if err != nil {
		return nil, err
	}
	c.space.event = body
	return body, nil
}
