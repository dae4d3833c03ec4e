package agentbox

import "golang.org/x/sys/unix"

// birthTime is the creation time of the file at p (not following a link)
// in nanoseconds, 0 where the file system does not keep one.
func birthTime(p string) int64 {
	var stx unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &stx) != nil || stx.Mask&unix.STATX_BTIME == 0 {
		return 0
	}
	return stx.Btime.Sec*1e9 + int64(stx.Btime.Nsec)
}
