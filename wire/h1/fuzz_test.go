package h1_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzConnRules: whatever bytes a peer sends, and however they are split,
// the connection ends, and makes the same decisions as when they come
// whole, but for 100 Continue, which is sent only while some of a body
// has yet to come; so it does whether the server is shutting down and
// whichever answer's write fails.
func FuzzConnRules(f *testing.F) {
	for _, tc := range connCases() {
		joined := ""
		for _, ch := range tc.chunks {
			joined += ch
		}
		f.Add([]byte(joined), uint8(1), uint16(200), uint8(0))
		f.Add([]byte(joined), uint8(7), uint16(404), uint8(2))
		f.Add([]byte(joined), uint8(3), uint16(200), uint8(5))
	}
	f.Fuzz(func(t *testing.T, in []byte, every uint8, status uint16, server uint8) {
		// server: bit 0, shutting down; bits 1-2, which answer's write
		// fails (0: none).
		tc := connCase{end: peerCloses, answerStatus: int(status%500) + 100, shutting: server&1 != 0, failAnswer: int(server>>1) & 3}
		whole := withoutContinue(drive(t, tc, []string{string(in)}, largeBuffer))
		split := withoutContinue(drive(t, tc, chunked(string(in), int(every)+1), largeBuffer))
		if diff := cmp.Diff(whole, split); diff != "" {
			t.Errorf("split every %d bytes (-whole +split):\n%s", int(every)+1, diff)
		}
	})
}

func chunked(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func withoutContinue(decisions []string) []string {
	return slices.DeleteFunc(decisions, func(d string) bool { return d == "continue" })
}
