package agentbox

import "time"

// The package's tests give up a stuck output copy (copyDrain) some
// hundred times: at 2 s each they spent minutes waiting. What they check
// does not depend on the length, so they use a shorter one. Set before
// any test starts (package init), so no goroutine reads it as it changes.
func init() { copyDrain = 500 * time.Millisecond }
