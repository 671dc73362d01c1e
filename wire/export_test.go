package wire

// InFlight is how many requests s has in processing, so a test of the
// in-flight gate can wait until the gate is full instead of guessing.
func InFlight(s *Server) int64 { return s.inFlight.Load() }
