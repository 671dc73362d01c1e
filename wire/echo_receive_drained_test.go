//go:build linux && (amd64 || arm64)

package wire_test

import (
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReceiveDrained checks the echo floor's receive, the one system call
// that brings a request's first bytes and says whether the socket was
// left empty, on a stream
// socket pair whose writes reach the other end before they return, and a
// buffer of 8 bytes: 7 for the first message, the eighth from the second.
func TestReceiveDrained(t *testing.T) {
	type receipt struct {
		Bytes   string
		Drained bool
		Err     error
	}
	cases := []struct {
		name     string
		sent     string
		closed   bool // the peer half-closes after sending
		receipts []receipt
	}{
		{"nothing yet: EAGAIN, the poller's cue to wait", "", false,
			[]receipt{{"", false, syscall.EAGAIN}}},
		{"bytes, then nothing: drained, so the next byte raises an event", "abc", false,
			[]receipt{{"abc", true, nil}, {"", false, syscall.EAGAIN}}},
		{"bytes, then the end of the stream: not drained, so the next read meets the end", "abc", true,
			[]receipt{{"abc", false, nil}, {"", false, nil}}},
		{"only the end of the stream", "", true,
			[]receipt{{"", false, nil}}},
		{"the first message's room exactly: drained", "1234567", false,
			[]receipt{{"1234567", true, nil}}},
		{"the whole buffer: the second message's byte follows the first's", "12345678", false,
			[]receipt{{"12345678", false, nil}, {"", false, syscall.EAGAIN}}},
		{"more than the buffer: the rest waits for the next read", "1234567890", false,
			[]receipt{{"12345678", false, nil}, {"90", true, nil}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer syscall.Close(fds[0])
			defer syscall.Close(fds[1])
			if tc.sent != "" {
				if _, err := syscall.Write(fds[1], []byte(tc.sent)); err != nil {
					t.Fatal(err)
				}
			}
			if tc.closed {
				syscall.Shutdown(fds[1], syscall.SHUT_WR)
			}
			buf := make([]byte, 8)
			var scratch receiveScratch
			var got []receipt
			for range tc.receipts {
				n, drained, err := receiveDrained(fds[0], buf, &scratch)
				got = append(got, receipt{string(buf[:n]), drained, err})
			}
			if diff := cmp.Diff(tc.receipts, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("receipts (-want +got):\n%s", diff)
			}
		})
	}
}
