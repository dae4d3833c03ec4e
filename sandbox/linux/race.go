//go:build linux && race

package linux

// raceEnv joins the environments of the processes re-executed from this
// binary (inits, the forker). A binary built with the race detector sleeps
// a second in every exit (GORACE's atexit_sleep_ms), and so would they: a
// sandbox's init, gone at once otherwise, would stay a second after its
// program (a test's count of the caller's descriptors and goroutines would
// see its control socket and reaper meanwhile). A variable, not an init
// function: inits and the forker run from the package's init functions,
// before the ones of later files.
var raceEnv = []string{"GORACE=atexit_sleep_ms=0"}
