//go:build linux

package linux

import "golang.org/x/sys/unix"

// mountStamp tells whether the host's mount table changed after a warm
// init was cloned. An init copies the table of the mount namespace it is
// cloned from, and binds that copy when its command comes: where the
// host's mounts are shared (systemd) the host's later mounts and unmounts
// reach the copy, but where they are private (a container) the copy is a
// snapshot, and a command would still see a volume the host unmounted
// before it started (or miss one it mounted). A warm init whose table
// changed is discarded, and the command gets a new one.
//
// The kernel reports a change of a namespace's table to a poll of an open
// /proc/self/mountinfo: POLLPRI when the namespace's event count differs
// from the one the file last saw, which that poll then records. So the
// file is opened, and seen once, before the init is cloned (from this
// process, or from its forker, which shares its mount namespace), and one
// poll when the init is taken says whether anything changed since. Any
// change counts: a spurious one costs only a cold start.
type mountStamp struct{ fd int }

// newMountStamp marks the host's mount table as it is now. Where
// mountinfo cannot be opened, the stamp reports a change: nothing proves
// the table the same.
func newMountStamp() *mountStamp {
	fd, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &mountStamp{fd: -1}
	}
	s := &mountStamp{fd: fd}
	s.changed() // the file's own count may predate the open
	return s
}

// changed reports whether the table changed since the stamp was made (or
// last looked at). A nil stamp (an init used as soon as it starts) has
// nothing to report.
func (s *mountStamp) changed() bool {
	if s == nil {
		return false
	}
	if s.fd < 0 {
		return true
	}
	pfd := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLPRI}}
	for {
		n, err := unix.Poll(pfd, 0)
		if err == unix.EINTR {
			continue
		}
		return err != nil || n > 0 && pfd[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0
	}
}

func (s *mountStamp) close() {
	if s != nil && s.fd >= 0 {
		unix.Close(s.fd)
		s.fd = -1
	}
}
