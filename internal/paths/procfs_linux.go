//go:build linux

package paths

import "golang.org/x/sys/unix"

// inProcfs reports whether dir lies on a procfs, whose links (self,
// thread-self, a process's cwd, root, exe, fd/N) lead somewhere that
// depends on who follows them.
func inProcfs(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Type == unix.PROC_SUPER_MAGIC
}
