package wire

// InFlight is how many requests s has in processing, so a test of the
// in-flight gate can wait until the gate is full instead of guessing.
func InFlight(s *Server) int64 { return s.inFlight.Load() }

// Receiver reads a socket the way a keep-alive connection of the server
// does (socket.receive): the bytes and whether the socket was left empty,
// in one system call. The echo floor's second form uses it.
type Receiver struct{ space requestSpace }

func NewReceiver(size int) *Receiver { return &Receiver{space: requestSpace{buf: make([]byte, size)}} }

// Receive reads what the socket fd holds; the bytes are valid until the
// next call.
func (r *Receiver) Receive(fd uintptr) (got []byte, drained bool, err error) {
	n, drained, err := receiveDrained(int(fd), r.space.buf, &r.space.recv)
	return r.space.buf[:n], drained, err
}
