//go:build linux

package linux

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// forwardedSignals are passed on from the init to the program's process
// group, as a terminal would deliver them.
var forwardedSignals = []os.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH, syscall.SIGCONT,
	syscall.SIGALRM,
}

// reap waits for the program, forwarding signals to its process group and
// reaping every orphan the namespace hands to pid 1. It returns when the
// program has exited; returning from the init then makes the kernel kill
// whatever else is left in the pid namespace.
func reap(pid int, sigs <-chan os.Signal) (code int, sig syscall.Signal) {
	exited := make(chan [2]int, 1)
	go func() {
		for {
			var ws unix.WaitStatus
			wpid, err := unix.Wait4(-1, &ws, 0, nil)
			if err == unix.EINTR {
				continue
			}
			if err != nil { // ECHILD: nothing left to wait for
				exited <- [2]int{exitSetupFailed, 0}
				return
			}
			if wpid != pid {
				continue
			}
			switch {
			case ws.Exited():
				exited <- [2]int{ws.ExitStatus(), 0}
			case ws.Signaled():
				exited <- [2]int{128 + int(ws.Signal()), int(ws.Signal())}
			default:
				continue
			}
			return
		}
	}()
	for {
		select {
		case r := <-exited:
			return r[0], syscall.Signal(r[1])
		case s := <-sigs:
			if parentGone(s, initParent, os.Getppid()) {
				killSandbox() // agentbox died: its tree goes with it
				continue
			}
			// The program leads its own session and process group.
			_ = unix.Kill(-pid, s.(syscall.Signal))
		case s := <-asked:
			_ = unix.Kill(-pid, s.(syscall.Signal))
		}
	}
}

// reducedDeathSignal is the parent-death signal of an init of the reduced
// tier. Without a pid namespace nothing but the init ends the program's
// tree, so agentbox's death must not kill the init before it has: SIGKILL
// would, and the program's children would live on, orphans of the host's
// init. The init ends the tree when its control socket closes (awaitKill)
// or when this signal comes with a new parent (parentGone). SIGCONT,
// because the kernel resumes a stopped process on it whatever the handler:
// an init stopped by a signal still wakes to end the tree, as SIGKILL
// would have ended it. Its default action (none) loses nothing before the
// init catches it: the closed control socket says the same.
const reducedDeathSignal = syscall.SIGCONT

// initParent is the init's parent when it started (0 as process 1 of a
// pid namespace, whose parent is outside it).
var initParent int

// parentGone reports whether s, received with parent now, is the reduced
// tier's parent-death signal: the init had a parent at the start, and has
// another one since (the kernel re-parents before it signals). The same
// signal sent by anyone else, the parent still there, is forwarded.
func parentGone(s os.Signal, start, now int) bool {
	return s == reducedDeathSignal && start > 1 && now != start
}

// killOrphans ends every process left behind the program: the init's
// remaining children (orphans adopted as subreaper in the reduced tier),
// until none is left. With a pid namespace the kernel does this anyway
// when the init exits. Without one, each round kills the whole tree below
// the init (killTree), not a generation at a time: a chain whose every
// link forks the next and exits would otherwise grow as fast as it is
// killed. The rounds go on until no child is left, for at most
// orphansWait.
func killOrphans() {
	for deadline := time.Now().Add(orphansWait); time.Now().Before(deadline); {
		if !reapExited() {
			return // no child at all: the common case, without reading /proc
		}
		if len(childPids()) == 0 {
			return
		}
		killTree()
		time.Sleep(200 * time.Microsecond) // let the killed exit
	}
}

// killTree kills every process below the init, when no pid namespace
// would: the process group of each (kill(-pgid) ends a group at once, a
// fork under way in it too) and each process itself, found by walking
// /proc's parent links from the init (a process that left its group, and
// the children the init adopts only once their parents die). A group a
// descendant is in lies in a session the program or a descendant made
// (the program starts its own), so no process but the sandbox's is in it.
//
// Without a pid namespace a pid read from /proc may be reused by a host
// process before it is signalled: each is pinned with a pidfd, and only
// one whose parent is still in the tree, and that still runs once its
// group is read, is killed, through the pidfd.
//
// A kernel without pidfds (before 5.3) gets the old round: the init's own
// children, which no one else can reap, so their pids cannot be reused.
func killTree() {
	if !havePidfd() {
		for _, k := range childPids() {
			_ = unix.Kill(k, unix.SIGKILL)
		}
		return
	}
	self, own := os.Getpid(), unix.Getpgrp()
	tree := descendants(self)
	in := make(map[int]bool, len(tree)+1)
	in[self] = true
	for _, pid := range tree {
		in[pid] = true
	}
	for _, pid := range tree {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone (or no pidfds: nothing is signalled by a bare pid)
		}
		if ppid, ok := procParent(pid); ok && in[ppid] {
			pgid, err := unix.Getpgid(pid)
			if err == nil && pgid > 1 && pgid != own && running(fd) {
				_ = unix.Kill(-pgid, unix.SIGKILL)
			}
			_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		}
		unix.Close(fd)
	}
}

// havePidfd reports whether the kernel makes pidfds (pidfd_open, 5.3).
var havePidfd = sync.OnceValue(func() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
})

// running reports whether the process of pidfd fd has not exited.
func running(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n == 0
}

// procParent returns the parent of pid, from /proc/PID/stat.
func procParent(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	return statParent(b)
}

// statParent parses the parent (field 4) from the text of /proc/PID/stat,
// whose command name (field 2) may hold spaces and ')'.
func statParent(b []byte) (int, bool) {
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// descendants returns the processes below root, from /proc's parent
// links (direct children first).
func descendants(root int) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return childPids()
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	kids := map[int][]int{}
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue
		}
		if ppid, ok := statParent(b); ok {
			kids[ppid] = append(kids[ppid], pid)
		}
	}
	var out []int
	for queue := []int{root}; len(queue) > 0; queue = queue[1:] {
		for _, k := range kids[queue[0]] {
			out = append(out, k)
			queue = append(queue, k)
		}
	}
	return out
}

// orphansWait bounds killOrphans.
const orphansWait = 5 * time.Second

// reapExited reaps the init's children that have exited and reports
// whether any child is left.
func reapExited() bool {
	for {
		wpid, err := unix.Wait4(-1, nil, unix.WNOHANG, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return false // ECHILD
		case wpid == 0:
			return true
		}
	}
}

// childPids lists the init's children from /proc/self/task/*/children.
func childPids() []int {
	tasks, _ := os.ReadDir("/proc/self/task")
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}
