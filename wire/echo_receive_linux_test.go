//go:build linux && (amd64 || arm64)

package wire_test

import (
	"syscall"
	"unsafe"
)

// receiveScratch is what receiveDrained hands the kernel: two message
// headers, their buffers' descriptions and the second one's byte.
type receiveScratch struct {
	msgs  [2]mmsghdr
	iov   [2]syscall.Iovec
	spare [1]byte
}

// mmsghdr is struct mmsghdr of recvmmsg(2) on a 64-bit Linux: a message
// header and the length the kernel received into it.
type mmsghdr struct {
	hdr syscall.Msghdr
	n   uint32
	_   [4]byte
}

// receiveDrained is the echo floor's receive (echorecv): it reads what
// the socket fd holds into buf, with one recvmmsg(2) of two messages on
// the stream: the first
// takes the bytes into all of the buffer but its last byte, the second
// asks the socket once more, for one byte, in the same system call. So
// the read the edge-triggered poller needs before a wait, one that finds
// the socket empty, costs no system call of its own. drained reports that
// the second message found the socket empty; one that found the end of
// the stream leaves it false, so the next read meets the end. The socket
// is non-blocking: the second message never waits.
func receiveDrained(fd int, buf []byte, r *receiveScratch) (n int, drained bool, err error) {
	r.iov[0] = syscall.Iovec{Base: &buf[0], Len: uint64(len(buf) - 1)}
	r.iov[1] = syscall.Iovec{Base: &r.spare[0], Len: 1}
	r.msgs[0] = mmsghdr{hdr: syscall.Msghdr{Iov: &r.iov[0], Iovlen: 1}}
	r.msgs[1] = mmsghdr{hdr: syscall.Msghdr{Iov: &r.iov[1], Iovlen: 1}}
	got, _, errno := syscall.Syscall6(syscall.SYS_RECVMMSG, uintptr(fd), uintptr(unsafe.Pointer(&r.msgs[0])), 2, 0, 0, 0)
	if errno != 0 {
		// Nothing came with the first message. (A failure of the second,
		// after bytes came, is kept by the kernel for the next call.)
		return 0, false, errno
	}
	n = int(r.msgs[0].n)
	switch {
	case got == 1:
		// The second message found nothing (or failed: the next read
		// reports it, and the answer's write meets it first).
		return n, n > 0, nil
	case r.msgs[1].n == 1:
		// More: the first message filled its part, or a byte came between
		// the two; either way it comes right after the first's bytes.
		buf[n] = r.spare[0]
		return n + 1, false, nil
	}
	return n, false, nil // the end of the stream after n bytes
}
