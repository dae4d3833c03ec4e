//go:build !linux

package agentbox

// scanAccess: no sandbox runs here, and directories a scan cannot list are
// reported as they are.
type scanAccess struct{ root string }

// grant changes nothing here.
func (*scanAccess) grant(string) error { return nil }

// restore: see grant.
func (*scanAccess) restore() {}
