//go:build linux

package supervise

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// memoryFilesystems are the file systems whose files are memory, by statfs
// type and by mountinfo name.
var memoryFilesystems = map[int64]string{unix.TMPFS_MAGIC: "tmpfs", unix.RAMFS_MAGIC: "ramfs"}

// memoryRoots lists the writable places, among the roots (past their
// links) and the mounts inside them, whose files are memory (a root under
// a tmpfs /tmp, in /dev/shm or $XDG_RUNTIME_DIR; an overlay whose upper
// layer is on one): "PATH (tmpfs)". What a program writes there no
// process maps, so only a memory cgroup counts it.
func memoryRoots(roots []string) []string {
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	type mount struct{ at, fstype, super string }
	var mounts []mount
	for line := range strings.SplitSeq(string(mountinfo), "\n") {
		left, right, ok := strings.Cut(line, " - ")
		lf, rf := strings.Fields(left), strings.Fields(right)
		if !ok || len(lf) < 6 || len(rf) < 3 || hasOption(lf[5], "ro") {
			continue
		}
		mounts = append(mounts, mount{unescapeMountinfo(lf[4]), rf[0], rf[2]})
	}
	var out []string
	seen := make(map[string]bool)
	for _, r := range roots {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		// The mount the root lies on (the last, deepest one: what is on
		// top), and every mount inside it.
		var on *mount
		for i := range mounts {
			m := &mounts[i]
			if paths.Within(r, m.at) && (on == nil || len(m.at) >= len(on.at)) {
				on = m
			}
		}
		for i := range mounts {
			m := &mounts[i]
			if m != on && (m.at == r || !paths.Within(m.at, r)) {
				continue
			}
			place := m.at
			if m == on {
				place = r
			}
			if kind := memoryKind(m.fstype, m.super); kind != "" && !seen[place] {
				seen[place] = true
				out = append(out, place+" ("+kind+")")
			}
		}
	}
	return out
}

// memoryKind names the memory file system a mount's files are kept in,
// or "": a tmpfs or ramfs itself, or an overlay whose upper layer (where
// its writes go) is on one.
func memoryKind(fstype, super string) string {
	if isMemoryFS(fstype) {
		return fstype
	}
	if fstype != "overlay" {
		return ""
	}
	for opt := range strings.SplitSeq(super, ",") {
		if upper, ok := strings.CutPrefix(opt, "upperdir="); ok {
			var st unix.Statfs_t
			if unix.Statfs(unescapeMountinfo(upper), &st) == nil {
				if name, ok := memoryFilesystems[int64(st.Type)]; ok {
					return "overlay on " + name
				}
			}
		}
	}
	return ""
}

func isMemoryFS(name string) bool {
	for _, n := range memoryFilesystems {
		if n == name {
			return true
		}
	}
	return false
}

// unescapeMountinfo undoes the octal escapes (\040 for a space) mountinfo
// writes in paths.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
