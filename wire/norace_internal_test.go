//go:build !race

package wire

// raceEnabled says the race detector is on (see race_internal_test.go).
const raceEnabled = false
