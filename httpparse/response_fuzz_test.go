package httpparse

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzResponse checks, for any bytes, that ParseResponse either
// parses a response, asks for more, or refuses with an *Error of Status
// RespErrorStatus and a known Reason, never anything else and never a
// panic; that n <= len(buf); and that the result does not depend on how
// the bytes arrived:
//   - every prefix yields ErrNeedMore or exactly the whole's result;
//   - the peer's close changes only an ErrNeedMore, into a result;
//   - a response parses the same from its own n bytes as from a longer
//     buffer, unless its body is close-delimited.
//
// limits picks DefaultResponseLimits, respTight, or respUnbounded, so the
// limit paths and the overflow guards are both reachable.
func FuzzResponse(f *testing.F) {
	for _, c := range respCases() {
		if len(c.in) > 8192 {
			continue // the 16 and 64 KiB limit cases; the fuzzer shrinks toward small inputs
		}
		f.Add([]byte(c.in), c.noBody, c.atEOF, respLimitsSelector(c.lim))
	}
	f.Fuzz(func(t *testing.T, buf []byte, noBody, atEOF bool, limits uint8) {
		lim := respFuzzLimits[int(limits)%len(respFuzzLimits)]
		parse := func(b []byte, atEOF bool) respResult {
			resp, n, err := ParseResponse(b, noBody, atEOF, lim)
			return respResult{resp, n, err}
		}

		whole := parse(buf, false)
		respCheckResult(t, whole, len(buf), false, lim)

		// Where the whole stopped is where a prefix is most likely to
		// decide differently, so those lengths are always fed.
		edges := []int{whole.N - 1, whole.N}
		var e *Error
		if errors.As(whole.Err, &e) {
			edges = []int{e.Offset, e.Offset + 1}
		}
		for _, k := range append(respPrefixLengths(len(buf), 256, 128), edges...) {
			if k < 0 || k > len(buf) {
				continue
			}
			got := parse(buf[:k], false)
			if errors.Is(got.Err, ErrNeedMore) {
				continue
			}
			if diff := cmp.Diff(whole, got, respCompareErrors); diff != "" {
				t.Fatalf("prefix %d of %d decided differently from the whole (-whole +prefix):\n%s", k, len(buf), diff)
			}
		}

		if atEOF {
			closed := parse(buf, true)
			respCheckResult(t, closed, len(buf), true, lim)
			if !errors.Is(whole.Err, ErrNeedMore) {
				if diff := cmp.Diff(whole, closed, respCompareErrors); diff != "" {
					t.Fatalf("the close changed a decided result (-open +closed):\n%s", diff)
				}
			}
		}

		if whole.Err == nil && whole.Resp.Framing != FramingClose {
			own := parse(buf[:whole.N], false)
			if diff := cmp.Diff(whole, own, respCompareErrors); diff != "" {
				t.Fatalf("the response parsed differently from its own %d bytes (-longer +own):\n%s", whole.N, diff)
			}
		}
	})
}

var respFuzzLimits = []ResponseLimits{DefaultResponseLimits(), respTight, respUnbounded}

func respLimitsSelector(lim *ResponseLimits) uint8 {
	switch lim {
	case &respTight:
		return 1
	case &respUnbounded:
		return 2
	}
	return 0
}

// respKnownReasons are every Reason ParseResponse may return; an error
// outside them could carry response bytes.
var respKnownReasons = map[Reason]bool{
	RespReasonNoResponse: true, RespReasonIncompleteHead: true, RespReasonIncompleteBody: true,
	RespReasonHeadTooLarge: true, RespReasonTooManyFields: true, RespReasonBareLF: true,
	RespReasonBadStatusLine: true, RespReasonBadVersion: true, RespReasonBadStatusCode: true,
	RespReasonObsFold: true, RespReasonSpaceBeforeColon: true, RespReasonBadFieldName: true,
	RespReasonBadFieldValue: true, RespReasonBadContentLength: true, RespReasonContentLengthDiff: true,
	RespReasonBadTransferCoding: true, RespReasonTransferCoding10: true, RespReasonBodyTooLarge: true,
	RespReasonBadChunkSize: true, RespReasonBadChunkExtension: true, RespReasonChunkLineTooLong: true,
	RespReasonChunkOverhead: true, RespReasonBadChunkEnd: true, RespReasonTrailersTooLarge: true,
}

// respCheckResult checks what must hold of any single result.
func respCheckResult(t *testing.T, r respResult, bufLen int, atEOF bool, lim ResponseLimits) {
	t.Helper()
	if r.Err != nil {
		if r.N != 0 || !cmp.Equal(r.Resp, Response{}) {
			t.Fatalf("error %v came with n=%d and a response", r.Err, r.N)
		}
		if errors.Is(r.Err, ErrNeedMore) {
			if atEOF {
				t.Fatal("ErrNeedMore after the peer closed")
			}
			return
		}
		var e *Error
		if !errors.As(r.Err, &e) || e.Status != RespErrorStatus || !respKnownReasons[e.Reason] {
			t.Fatalf("error %#v is not a known response *Error", r.Err)
		}
		if e.Offset < 0 || e.Offset > bufLen {
			t.Fatalf("error offset %d outside the %d-byte buffer", e.Offset, bufLen)
		}
		return
	}
	resp := r.Resp
	switch {
	case r.N <= 0 || r.N > bufLen:
		t.Fatalf("n=%d for a %d-byte buffer", r.N, bufLen)
	case resp.Proto != "HTTP/1.1" && resp.Proto != "HTTP/1.0":
		t.Fatalf("Proto %q", resp.Proto)
	case resp.Status < 100 || resp.Status > 599:
		t.Fatalf("Status %d", resp.Status)
	case len(resp.Header) > lim.MaxFields:
		t.Fatalf("%d field lines past MaxFields %d", len(resp.Header), lim.MaxFields)
	case len(resp.Body) > lim.MaxBody:
		t.Fatalf("%d body bytes past MaxBody %d", len(resp.Body), lim.MaxBody)
	case resp.Body != nil && len(resp.Body) == 0:
		t.Fatal("empty Body is not nil")
	case resp.Framing == FramingNone && resp.Body != nil:
		t.Fatal("a body with FramingNone")
	case resp.Framing == FramingClose && (!resp.Close || r.N != bufLen || !atEOF):
		t.Fatalf("close-delimited body: Close=%v n=%d of %d atEOF=%v", resp.Close, r.N, bufLen, atEOF)
	}
}
