//go:build !unix

package vault

// LimitCoreDumps does nothing on this platform (Windows writes no core files
// unless Windows Error Reporting is configured to).
func LimitCoreDumps() error { return nil }
