//go:build unix && !linux

package audit

// hasACL: extended access lists are read on Linux only; elsewhere a
// group-writable directory counts as others'.
func hasACL(string) bool { return true }
