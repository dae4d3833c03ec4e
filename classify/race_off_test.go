//go:build !race

package classify

// slowdown: see race_on_test.go.
const slowdown = 1
