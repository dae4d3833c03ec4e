//go:build linux && race

package attack_test

// raceEnabled: this test binary, which is also every sandbox's init, runs
// with the race detector.
const raceEnabled = true
