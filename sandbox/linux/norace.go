//go:build linux && !race

package linux

// raceEnv is empty without the race detector (see race.go).
var raceEnv []string
