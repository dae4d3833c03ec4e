//go:build !linux

package paths

// inProcfs: only Linux's procfs has links that lead by who follows them.
func inProcfs(string) bool { return false }
