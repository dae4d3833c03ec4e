//go:build race

package classify

// slowdown is how much slower the race detector makes the classifier's
// regular expressions and walks (about 20× on the long-line tests): the
// tests' time bounds are checked without it, in the unprivileged run.
const slowdown = 20
