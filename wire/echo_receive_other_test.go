//go:build unix && !(linux && (amd64 || arm64))

package wire_test

import "syscall"

// receiveScratch is empty where receiveDrained makes a plain read.
type receiveScratch struct{}

// receiveDrained reads what the socket fd holds into buf. Without
// recvmmsg(2) it cannot learn in the same call whether anything is left,
// so it never reports drained: the floor reads once more before it
// waits, as the poller needs.
func receiveDrained(fd int, buf []byte, _ *receiveScratch) (n int, drained bool, err error) {
	n, err = syscall.Read(fd, buf)
	if err != nil {
		return 0, false, err
	}
	return n, false, nil
}
