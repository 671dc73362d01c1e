//go:build !race

package wire_test

// raceDetector says the race detector is on (see explore_race_test.go).
const raceDetector = false
