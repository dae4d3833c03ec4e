//go:build !linux

package supervise

// memoryRoots: see memroots_linux.go; no runtime runs here.
func memoryRoots([]string) []string { return nil }
