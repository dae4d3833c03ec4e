//go:build linux && !race

package attack_test

const raceEnabled = false
