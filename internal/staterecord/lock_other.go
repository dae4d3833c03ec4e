//go:build !unix

package staterecord

import "os"

// lock is a no-op where flock does not exist: one agentbox process at a
// time writes the record there.
func lock(*os.File, bool) error { return nil }
