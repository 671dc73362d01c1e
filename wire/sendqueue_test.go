package wire_test

import (
	"net"
	"syscall"
	"unsafe"
)

// sendQueued is how many bytes nc has written that its peer has not yet
// taken (SIOCOUTQ). On loopback bytes stay queued only while the peer's
// receive window is full, so a positive count means the writer is waiting
// on a reader that does not read. It fails once nc is closed.
func sendQueued(nc *net.TCPConn) (int, error) {
	rc, err := nc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int32
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCOUTQ, uintptr(unsafe.Pointer(&n)))
	}); err != nil {
		return 0, err
	}
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
