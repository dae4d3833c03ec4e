//go:build linux

package linux

import (
	"os"
	"strconv"
	"strings"
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
			// The program leads its own session and process group.
			_ = unix.Kill(-pid, s.(syscall.Signal))
		}
	}
}

// killOrphans ends every process left behind the program: the init's
// remaining children (orphans adopted as subreaper in the reduced tier),
// until none is left. With a pid namespace the kernel does this anyway
// when the init exits.
//
// A chain of processes each in a session of its own comes to the init a
// generation at a time (as each parent dies), so the rounds go on until
// no child is left, for at most orphansWait, not a fixed count.
func killOrphans() {
	for deadline := time.Now().Add(orphansWait); time.Now().Before(deadline); {
		if !reapExited() {
			return // no child at all: the common case, without reading /proc
		}
		kids := childPids()
		if len(kids) == 0 {
			return
		}
		for _, k := range kids {
			_ = unix.Kill(k, unix.SIGKILL)
		}
		time.Sleep(200 * time.Microsecond) // let the killed exit
	}
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
