//go:build linux

package linux

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Some kernel objects are counted per user, across user namespaces: an
// inotify instance made in the sandbox's user namespace counts against
// that namespace's limit and against its caller's own, which is small (a
// user has 128 inotify instances by default). Left at the unbounded value
// a new user namespace starts with, one sandbox could take all of them and
// leave the user's editors, file watchers and desktop without any while it
// runs. The init bounds its user namespace to a share of the machine's
// per-user limits, while it still holds CAP_SYS_RESOURCE there.
var userCountShares = []struct {
	name   string // in /proc/sys/user, the sandbox's own user namespace
	global string // the machine's per-user limit, in /proc/sys
	den    int64  // the sandbox gets 1/den of it
}{
	{"max_inotify_instances", "fs/inotify/max_user_instances", 4},
	{"max_inotify_watches", "fs/inotify/max_user_watches", 2},
}

// limitUserCounts writes the bounds under procSys, the fresh /proc/sys of
// the sandbox. A limit the kernel lacks is skipped.
func limitUserCounts(procSys string) error {
	for _, c := range userCountShares {
		b, err := os.ReadFile(procSys + "/" + c.global)
		if err != nil {
			continue
		}
		global, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || global <= 0 {
			continue
		}
		p := procSys + "/user/" + c.name
		if _, err := os.Stat(p); err != nil {
			continue
		}
		share := max(1, global/c.den)
		if err := os.WriteFile(p, []byte(strconv.FormatInt(share, 10)), 0); err != nil {
			return fmt.Errorf("bound user.%s to %d: %w", c.name, share, err)
		}
	}
	return nil
}
