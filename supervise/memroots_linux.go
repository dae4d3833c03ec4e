//go:build linux

package supervise

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// memoryFilesystems are the file systems whose files are memory, by statfs
// type and by mountinfo name.
var memoryFilesystems = map[int64]string{unix.TMPFS_MAGIC: "tmpfs", unix.RAMFS_MAGIC: "ramfs"}

// memoryRoots lists the writable places, among the roots and the mounts
// inside them, whose files are memory (a root under a tmpfs /tmp, in
// /dev/shm or $XDG_RUNTIME_DIR): "PATH (tmpfs)". What a program writes
// there no process maps, so only a memory cgroup counts it.
func memoryRoots(roots []string) []string {
	var out []string
	for _, r := range roots {
		var st unix.Statfs_t
		if unix.Statfs(r, &st) == nil {
			if name, ok := memoryFilesystems[int64(st.Type)]; ok && st.Flags&unix.ST_RDONLY == 0 {
				out = append(out, r+" ("+name+")")
			}
		}
	}
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return out
	}
	for line := range strings.SplitSeq(string(mountinfo), "\n") {
		left, right, ok := strings.Cut(line, " - ")
		lf, rf := strings.Fields(left), strings.Fields(right)
		if !ok || len(lf) < 6 || len(rf) < 1 || !isMemoryFS(rf[0]) || hasOption(lf[5], "ro") {
			continue
		}
		at := unescapeMountinfo(lf[4])
		for _, r := range roots {
			if at != r && paths.Within(at, r) {
				out = append(out, at+" ("+rf[0]+")")
				break
			}
		}
	}
	return out
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
