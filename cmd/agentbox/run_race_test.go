//go:build race

package main

// runRaceEnabled: this test binary is built with the race detector.
const runRaceEnabled = true
