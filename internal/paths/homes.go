package paths

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
)

// Homes returns the home directories whose credential stores the default
// policy denies: $HOME when it is absolute, and the account's own home
// from the user database when it differs. A caller may run with HOME
// pointing elsewhere (an agent's scratch home, a service's working
// directory) or unset (a systemd unit, cron): the keys in the account's
// home are there all the same (round 60 read an unprivileged user's
// ~/.aws/credentials from a sandbox whose caller had HOME unset, or set
// to a scratch directory).
func Homes() []string {
	var out []string
	if h := os.Getenv("HOME"); filepath.IsAbs(h) {
		out = append(out, filepath.Clean(h))
	}
	if h := AccountHome(); h != "" && (len(out) == 0 || out[0] != h) {
		out = append(out, h)
	}
	return out
}

// AccountHome returns the home the user database gives this process's
// user, "" when it gives none.
func AccountHome() string {
	if p := accountHomeOverride.Load(); p != nil {
		return *p
	}
	return lookupAccountHome()
}

// lookupAccountHome asks the user database once: it does not change who a
// running process is.
var lookupAccountHome = sync.OnceValue(func() string {
	u, err := user.LookupId(strconv.Itoa(os.Getuid()))
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		return ""
	}
	return filepath.Clean(u.HomeDir)
})

var accountHomeOverride atomic.Pointer[string]

// SetAccountHome makes AccountHome return dir until restore is called. It
// is for tests, which cannot plant credentials in the account's real home
// (other tests' sandboxes mount the deny paths there meanwhile).
func SetAccountHome(dir string) (restore func()) {
	old := accountHomeOverride.Swap(&dir)
	return func() { accountHomeOverride.Store(old) }
}
