//go:build race

package wire_test

// raceDetector says the race detector is on: every replay runs several
// times slower, so the explorer's default depth is one less.
const raceDetector = true
