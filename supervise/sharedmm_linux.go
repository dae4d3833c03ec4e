//go:build linux

package supervise

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Two processes of a sandbox may be one memory: a vfork child until its
// execve (how Python's subprocess, Go's os/exec and posix_spawn start
// programs), or a clone with CLONE_VM and without CLONE_THREAD. Each
// shows that memory whole in its smaps_rollup, so the exact count must
// count it once.
//
// Their smaps_rollup only look alike (the vfork child runs, and dirties
// pages, between the two reads), and a forked child can make its own
// look like its parent's on purpose, to have its memory left out. The
// kernel says whether the two share their memory: kcmp(KCMP_VM), given
// their host pids, which
// the host's /proc maps from the sandbox's (NSpid), and pidfds make sure
// those pids still name the same processes when kcmp has answered. Where
// any step fails the two are counted apart: too much, never too little.

// kcmpVM is KCMP_VM of linux/kcmp.h: do two processes share their mm?
const kcmpVM = 1

// sharedMemory answers, during one exact sample, whether a process of the
// sandbox shares its parent's memory.
type sharedMemory struct {
	ns   string      // the sandbox's pid namespace, as /proc/PID/ns/pid reads
	host map[int]int // sandbox pid → host pid; built on the first question
}

// same reports whether the processes child and parent (pids in the
// sandbox) are one memory.
func (m *sharedMemory) same(child, parent int) bool {
	if m.ns == "" {
		return false
	}
	if m.host == nil {
		m.host = hostPids(m.ns)
	}
	hc, hp := m.host[child], m.host[parent]
	if hc == 0 || hp == 0 {
		// Started since the map was built (a spawner's next child).
		m.host = hostPids(m.ns)
		hc, hp = m.host[child], m.host[parent]
		if hc == 0 || hp == 0 {
			return false
		}
	}
	fc, err := unix.PidfdOpen(hc, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fc)
	fp, err := unix.PidfdOpen(hp, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fp)
	// The pidfds hold the processes the pids named when opened; if both
	// still run after kcmp, the pids named them throughout.
	if nsPid(hc, m.ns) != child || nsPid(hp, m.ns) != parent {
		return false
	}
	r, _, errno := unix.Syscall6(unix.SYS_KCMP, uintptr(hc), uintptr(hp), kcmpVM, 0, 0, 0)
	return errno == 0 && r == 0 && running(fc) && running(fp)
}

// hostPids maps the pids of the processes in the pid namespace ns to
// their host pids.
func hostPids(ns string) map[int]int {
	pids, _ := namespaceProcs(ns, nil)
	m := make(map[int]int, len(pids))
	for _, h := range pids {
		if p := nsPid(h, ""); p > 0 {
			m[p] = h
		}
	}
	return m
}

// nsPid returns the pid of the host process h in its own (innermost) pid
// namespace, or 0; when ns is not empty, 0 also when that namespace is
// not ns.
func nsPid(h int, ns string) int {
	base := "/proc/" + strconv.Itoa(h)
	if ns != "" {
		if link, err := os.Readlink(base + "/ns/pid"); err != nil || link != ns {
			return 0
		}
	}
	b, err := os.ReadFile(base + "/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(b) {
		if rest, ok := bytes.CutPrefix(line, []byte("NSpid:")); ok {
			f := bytes.Fields(rest)
			if len(f) == 0 {
				return 0
			}
			p, err := strconv.Atoi(string(f[len(f)-1]))
			if err != nil {
				return 0
			}
			return p
		}
	}
	return 0
}

// running reports whether the process of pidfd fd has not exited.
func running(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n == 0
}
