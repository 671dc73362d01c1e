package httpparse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse checks, for any bytes:
//
//   - Parse never panics, and returns a head length within the buffer,
//     ErrNeedMore, or an *Error with a 4xx/5xx status, a reason and an
//     offset inside the buffer;
//   - the outcome (n, error, request) is the same whether the bytes come
//     whole or in increments of 1 to 16 bytes with scanned (split
//     invariance, as encoding/json/jsontext's FuzzResumableDecoder);
//   - an accepted head written back with appendTo parses to the same
//     request (round trip, as encoding/json's FuzzUnmarshalJSON).
//
// The seeds are the unit-test tables.
func FuzzParse(f *testing.F) {
	for _, c := range allParseCases() {
		f.Add([]byte(c.raw), uint64(0))
	}
	f.Add([]byte(typicalPostHead+typicalPostBody), uint64(0x0123456789abcdef))
	f.Fuzz(func(t *testing.T, data []byte, steps uint64) {
		lim := DefaultLimits()
		var req Request
		n, err := Parse(data, 0, lim, &req)
		whole := outcomeOf(t, n, err, &req)
		checkOutcomeShape(t, whole, len(data))

		if diff := cmp.Diff(whole, parseInSteps(t, data, steps, lim)); diff != "" {
			t.Fatalf("split parse differs (-whole +split):\n%s", diff)
		}

		if whole.Req == nil {
			return
		}
		// "Name:v" comes back as "Name: v", one byte longer per line.
		relim := lim
		relim.MaxHeaderBytes += len(req.Fields)
		out := req.appendTo(nil)
		var again Request
		n2, err := Parse(out, 0, relim, &again)
		if err != nil || n2 != len(out) {
			t.Fatalf("re-parse of %q: n=%d err=%v", out, n2, err)
		}
		if diff := cmp.Diff(whole.Req, viewOf(&again)); diff != "" {
			t.Fatalf("round trip differs (-first +again):\n%s", diff)
		}
	})
}

func checkOutcomeShape(t *testing.T, o outcome, size int) {
	t.Helper()
	switch {
	case o.Err != nil:
		if o.Err.Status < 400 || o.Err.Status > 599 || o.Err.Reason == "" || o.Err.Offset < 0 || o.Err.Offset > size {
			t.Fatalf("malformed error %+v for %d bytes", o.Err, size)
		}
	case o.Req != nil:
		if o.N <= 0 || o.N > size {
			t.Fatalf("head length %d for %d bytes", o.N, size)
		}
	}
}

// parseInSteps feeds data in increments of 1 to 16 bytes, the i-th taken
// from the i-th nibble of steps (cycling), passing scanned each time.
func parseInSteps(t *testing.T, data []byte, steps uint64, lim Limits) outcome {
	var req Request
	scanned := 0
	for i, end := 0, 0; ; i++ {
		end = min(end+int(steps>>(4*(i%16))&0xf)+1, len(data))
		n, err := Parse(data[:end:end], scanned, lim, &req)
		if err != ErrNeedMore || end == len(data) {
			return outcomeOf(t, n, err, &req)
		}
		scanned = end
	}
}
