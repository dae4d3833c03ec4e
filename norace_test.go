//go:build !race

package agentbox_test

// raceEnabled: this test binary is built with the race detector.
const raceEnabled = false
