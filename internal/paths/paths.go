// Package paths names the directories agentbox keeps its own files in and
// creates them with safe permissions.
//
// Two directories exist:
//
//   - the state directory: the registry of running agents, the audit signing
//     key and checkpoints. $AGENTBOX_STATE_DIR, else $XDG_STATE_HOME/agentbox,
//     else ~/.local/state/agentbox; /var/lib/agentbox/state for root.
//   - the data directory: the encrypted vault. $AGENTBOX_DATA_DIR, else
//     $XDG_DATA_HOME/agentbox, else ~/.local/share/agentbox;
//     /var/lib/agentbox/data for root.
//
// Both are in every sandbox's deny-read set, at every place they may be
// (Places).
package paths

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Environment variables that override the defaults (tests use them to keep
// state out of the user's home).
const (
	EnvStateDir = "AGENTBOX_STATE_DIR"
	EnvDataDir  = "AGENTBOX_DATA_DIR"
)

const rootBase = "/var/lib/agentbox"

// StateDir returns the state directory. It does not create it.
func StateDir() (string, error) {
	return resolve(EnvStateDir, "XDG_STATE_HOME", ".local/state", "state")
}

// DataDir returns the data directory. It does not create it.
func DataDir() (string, error) {
	return resolve(EnvDataDir, "XDG_DATA_HOME", ".local/share", "data")
}

// Places returns every directory StateDir and DataDir may name, whatever
// the environment says now: the ones it resolves to, the defaults below the
// home and root's. Every sandbox is denied them all: a command given
// another environment (a Flatpak app's XDG_STATE_HOME, an
// AGENTBOX_STATE_DIR of its own) would otherwise find agentbox's audit key
// and vault where the default environment puts them. Found by red-team
// round 48.
func Places() []string {
	var out []string
	for _, dir := range []func() (string, error){StateDir, DataDir} {
		if d, err := dir(); err == nil {
			out = append(out, d)
		}
	}
	for _, home := range Homes() {
		out = append(out, filepath.Join(home, ".local/state/agentbox"), filepath.Join(home, ".local/share/agentbox"))
	}
	out = append(out, filepath.Join(rootBase, "state"), filepath.Join(rootBase, "data"))
	seen := make(map[string]bool, len(out))
	uniq := out[:0]
	for _, p := range out {
		if !seen[p] {
			seen[p] = true
			uniq = append(uniq, p)
		}
	}
	return uniq
}

func resolve(override, xdg, homeRel, rootSub string) (string, error) {
	if d := os.Getenv(override); d != "" {
		return absClean(override, d)
	}
	if isHostRoot() {
		return filepath.Join(rootBase, rootSub), nil
	}
	if d := os.Getenv(xdg); d != "" {
		p, err := absClean(xdg, d)
		if err != nil {
			return "", err
		}
		return filepath.Join(p, "agentbox"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		// HOME unset (a systemd unit, cron): the account's own home. Without
		// a state directory nothing is recorded, and placeholders stay in
		// the writable roots after the run (round 60's account-home test
		// found one left in the home as an unprivileged user).
		if home = AccountHome(); home == "" {
			return "", fmt.Errorf("paths: cannot find the home directory (set $%s): %w", override, err)
		}
	}
	return filepath.Join(home, homeRel, "agentbox"), nil
}

func absClean(name, p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("paths: $%s must be an absolute path, got %q", name, p)
	}
	return filepath.Clean(p), nil
}

// ErrUnsafeDir reports a directory that other users could tamper with.
var ErrUnsafeDir = errors.New("unsafe directory")

// Ensure creates dir (and its parents) with mode 0700 if it is missing, and
// refuses a directory that is a symlink, is not owned by the current user or
// is writable by group or others.
func Ensure(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("paths: create %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("paths: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("paths: %s: %w: not a directory", dir, ErrUnsafeDir)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("paths: %s: %w: writable by group or others (mode %v); run chmod 700 %s", dir, ErrUnsafeDir, fi.Mode().Perm(), dir)
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("paths: %s: %w: owned by uid %d, not %d", dir, ErrUnsafeDir, uid, os.Geteuid())
	}
	return nil
}

// Exists reports whether p exists (without following a final symlink).
func Exists(p string) bool {
	_, err := os.Lstat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

// isHostRoot reports whether this process is root of the host: uid 0 in the
// initial user namespace. Root inside a user namespace (a rootless
// container, a test's unshare -U) owns nothing of the host's /var/lib and
// keeps its state in its home like any user.
func isHostRoot() bool {
	if os.Geteuid() != 0 {
		return false
	}
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return true // no user namespaces at all: the host's root
	}
	f := strings.Fields(string(b))
	return len(f) == 3 && f[0] == "0" && f[1] == "0" && f[2] == "4294967295"
}

// Within reports whether p is base or below it. Both must be clean and
// absolute. It allocates nothing: sandbox set-up asks it for every pair of
// a directory entry and a denied path.
func Within(p, base string) bool {
	if p == base || base == "/" {
		return true
	}
	return len(p) > len(base) && p[len(base)] == '/' && strings.HasPrefix(p, base)
}

// WithinAny reports whether p is one of bases or below one (see Within).
func WithinAny(p string, bases []string) bool {
	for _, b := range bases {
		if Within(p, b) {
			return true
		}
	}
	return false
}

// HoldsAny reports whether dir holds any of names (links included, not
// followed).
func HoldsAny(dir string, names ...string) bool {
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}
