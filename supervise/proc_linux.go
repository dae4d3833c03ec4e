//go:build linux

package supervise

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// This file reads the host's /proc: process identities (start times, to
// guard against pid reuse), the members of a sandbox's pid namespace and
// their resident memory, and the OOM counter of a sandbox's memory cgroup.
// It also kills through pidfds, which pin a process so that a kill never
// reaches a recycled pid.

// procStartTime returns the start time of pid in clock ticks since boot
// (field 22 of /proc/PID/stat). Together with the pid it names one process
// for the lifetime of the machine.
// It fails with ErrGone when the process no longer exists.
func procStartTime(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ESRCH) {
		return 0, fmt.Errorf("%w: %w", ErrGone, err)
	}
	if err != nil {
		return 0, err
	}
	return parseStatStart(b)
}

// parseStatStart extracts field 22 from the text of /proc/PID/stat. The
// command name (field 2) may hold spaces and parentheses, so fields are
// counted from the last ')'.
func parseStatStart(b []byte) (uint64, error) {
	// f[0] is field 3 (state), so field 22 is f[19].
	f, err := statFields(b, 20)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// statFields returns the fields of /proc/PID/stat's text b after the
// command name (field 3 on), at least n of them.
func statFields(b []byte, n int) ([]string, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, errors.New("malformed /proc stat: no ')'")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < n {
		return nil, fmt.Errorf("malformed /proc stat: %d fields after the name", len(f))
	}
	return f, nil
}

// alive reports whether the process pid that started at start still runs
// (a zombie counts as gone).
func alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	st, err := parseStatStart(b)
	if err != nil || st != start {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// pidNamespace names the pid namespace pid is in, e.g. "pid:[4026532181]".
func pidNamespace(pid int) (string, error) {
	return os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/pid")
}

// namespaceProcs returns the host pids of the processes in the pid namespace
// ns. It scans every process of the host: no /proc file lists a namespace's
// members (the children files need CONFIG_PROC_CHILDREN, which kernels often
// lack, and list one thread's children only). Processes this user may not
// inspect are skipped: they cannot be in a sandbox this user started.
func namespaceProcs(ns string, buf []int) ([]int, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return buf, err
	}
	defer d.Close()
	pids := buf[:0]
	link := make([]byte, 0, 64)
	target := []byte(ns)
	nameBuf := make([]byte, 0, 32)
	for {
		names, err := d.Readdirnames(256)
		for _, name := range names {
			if name == "" || name[0] < '1' || name[0] > '9' {
				continue
			}
			pid, err := strconv.Atoi(name)
			if err != nil {
				continue
			}
			nameBuf = append(append(append(nameBuf[:0], "/proc/"...), name...), "/ns/pid"...)
			if l, ok := readlinkInto(nameBuf, link); ok && bytes.Equal(l, target) {
				pids = append(pids, pid)
			}
		}
		if errors.Is(err, io.EOF) || len(names) == 0 {
			return pids, nil
		}
		if err != nil {
			return pids, err
		}
	}
}

// readlinkInto reads the link at path (given as bytes, without a NUL) into
// buf, without allocating for the common short link.
func readlinkInto(path, buf []byte) ([]byte, bool) {
	n, err := unix.Readlink(string(path), buf[:cap(buf)])
	if err != nil || n >= cap(buf) {
		return nil, false
	}
	return buf[:n], true
}

// sandboxOOMFile finds the OOM counter of the memory cgroup of the
// sandbox whose init is initPid, through the init's child, the program:
// under cgroup v1 only the program's tree is in the sandbox's cgroup (its
// forking thread joined it), while the init stays in agentbox's own, whose
// counter counts the host's OOM kills and none of the sandbox's. It
// returns "" when the program is gone already (its status tells then).
func sandboxOOMFile(initPid int) string {
	dir := "/proc/" + strconv.Itoa(initPid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, t := range tasks {
		b, _ := os.ReadFile(dir + "/" + t.Name() + "/children")
		for _, f := range strings.Fields(string(b)) {
			child, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			// Asked after its cgroup: still the init's child then, the
			// pid named no other process when it was read.
			file := memoryCgroupOOMFile(child)
			if ppid, err := procParent(child); err == nil && ppid == initPid {
				return file
			}
		}
	}
	return ""
}

// procParent returns pid's parent (field 4 of /proc/PID/stat).
func procParent(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	f, err := statFields(b, 2) // f[0] is field 3 (state)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(f[1])
}

// memoryCgroupOOMFile finds the file that counts the OOM kills of pid's
// memory cgroup: memory.oom_control in a cgroup v1 memory hierarchy, else
// memory.events in the unified (v2) hierarchy. It returns "" when pid is in
// no memory cgroup this process can see.
func memoryCgroupOOMFile(pid int) string {
	own, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return ""
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	var v1Path, v2Path string
	haveV1, haveV2 := false, false
	for _, line := range strings.Split(string(own), "\n") {
		parts := strings.SplitN(line, ":", 3)
		switch {
		case len(parts) != 3:
		case parts[0] == "0" && parts[1] == "":
			v2Path, haveV2 = parts[2], true
		case hasOption(parts[1], "memory"):
			v1Path, haveV1 = parts[2], true
		}
	}
	var v1File, v2File string
	for _, line := range strings.Split(string(mounts), "\n") {
		// id parent maj:min root mountpoint opts [optional...] - fstype source superopts
		left, right, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		lf, rf := strings.Fields(left), strings.Fields(right)
		if len(lf) < 5 || len(rf) < 3 {
			continue
		}
		root, mnt := lf[3], lf[4]
		switch {
		case haveV1 && rf[0] == "cgroup" && hasOption(rf[2], "memory"):
			if p, ok := underRoot(v1Path, root); ok && fileExists(filepath.Join(mnt, p, "memory.oom_control")) {
				v1File = filepath.Join(mnt, p, "memory.oom_control")
			}
		case haveV2 && rf[0] == "cgroup2":
			// On a hybrid machine the unified hierarchy has no memory
			// controller, hence no memory.events.
			if p, ok := underRoot(v2Path, root); ok && fileExists(filepath.Join(mnt, p, "memory.events")) {
				v2File = filepath.Join(mnt, p, "memory.events")
			}
		}
	}
	if v1File != "" {
		return v1File
	}
	return v2File
}

func hasOption(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// underRoot returns cgroup path p relative to a mount whose root is root.
func underRoot(p, root string) (string, bool) {
	if root == "/" {
		return p, true
	}
	if p == root {
		return "/", true
	}
	if strings.HasPrefix(p, root+"/") {
		return p[len(root):], true
	}
	return "", false
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// oomKills reads the oom_kill counter of a memory.events or
// memory.oom_control file.
func oomKills(file string) (uint64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("%s: no oom_kill counter", file)
}

// pidfd is a process pinned by a pidfd: signals sent through it never reach
// another process that reuses the pid.
type pidfd int

// openPidfd pins pid and checks that it is still the process that started
// at start.
func openPidfd(pid int, start uint64) (pidfd, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return -1, ErrGone
		}
		return -1, fmt.Errorf("pidfd_open %d: %w", pid, err)
	}
	// The pidfd pins the process now; if the start time still matches,
	// it is the process the registry recorded. A record without one names
	// no process for sure: nothing is killed.
	if st, err := procStartTime(pid); err != nil || start == 0 || st != start {
		unix.Close(fd)
		return -1, ErrGone
	}
	return pidfd(fd), nil
}

func (p pidfd) kill() error {
	err := unix.PidfdSendSignal(int(p), unix.SIGKILL, nil, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	return err
}

// wait returns once the process has exited (it may not be reaped yet), or
// fails after timeout.
func (p pidfd) wait(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	fds := []unix.PollFd{{Fd: int32(p), Events: unix.POLLIN}}
	for {
		ms := int(time.Until(deadline) / time.Millisecond)
		if ms < 0 {
			return fmt.Errorf("process still running after %v", timeout)
		}
		n, err := unix.Poll(fds, ms)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("poll pidfd: %w", err)
		}
		if n > 0 {
			return nil
		}
	}
}

func (p pidfd) close() { unix.Close(int(p)) }
