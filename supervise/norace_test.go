//go:build !race

package supervise

// raceEnabled: this test binary is built with the race detector.
const raceEnabled = false
