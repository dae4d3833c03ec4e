//go:build linux

package linux

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// runForker is the forker process: it clones an init for each request on
// its socket (ctlFD) and reports each one's wait status once reaped. It
// returns when the Runtime has closed its end and every init it cloned has
// exited.
func runForker() int {
	// It lives as long as its Runtime: what it inherited from the caller
	// by mistake (a descriptor without close-on-exec, such as a pipe the
	// caller's own parent left it) must not be held open that long, nor
	// passed on to the inits.
	closeInherited()
	// A terminal's signals (^C, ^\, ^Z, a hang-up, background reads and
	// writes) are for the caller, which may handle them itself, not for
	// the forker, whose death would take every sandbox with it. They are
	// caught and dropped rather than ignored: an ignored signal stays
	// ignored across exec, in the inits and the programs they start.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP,
		syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGHUP)
	// The inits' parent-death signal follows the thread that cloned them:
	// clone every one from this thread, which lives as long as the process.
	runtime.LockOSThread()
	// The socket must not leak into the inits (each gets its own at ctlFD).
	unix.CloseOnExec(ctlFD)
	var running sync.WaitGroup
	for {
		b, fds, err := recvBytes(ctlFD)
		if err != nil {
			break // the Runtime closed (or died: then so do we, by SIGKILL)
		}
		m, err := decodeForkMsg(b)
		want := 1 + m.Procs
		if m.Cgroup {
			want++
		}
		if err != nil || m.Type != msgFork || m.Procs < 0 || len(fds) != want {
			closeAll(fds)
			reply(forkMsg{Type: msgForked, Seq: m.Seq, Err: "init forker: malformed request"})
			continue
		}
		cg, procs := -1, fds[1:]
		if m.Cgroup {
			cg, procs = fds[1], fds[2:]
		}
		cmd, pidfd, err := forkInit(m, os.NewFile(uintptr(fds[0]), "agentbox-ctl-child"), cg)
		if err != nil {
			closeAll(procs)
			reply(forkMsg{Type: msgForked, Seq: m.Seq, Err: err.Error()})
			continue
		}
		// Moved in now, before its reaper starts: once reaped, its pid
		// could be another process's by the time it was written.
		r := forkMsg{Type: msgForked, Seq: m.Seq, Pid: cmd.Process.Pid}
		if err := moveInto(procs, cmd.Process.Pid); err != nil {
			r.MoveErr = err.Error()
		}
		reply(r, pidfd)
		unix.Close(pidfd)
		running.Add(1)
		go func() {
			defer running.Done()
			_ = cmd.Wait()
			reply(forkMsg{Type: msgReaped, Seq: m.Seq, Pid: cmd.Process.Pid, Status: int(waitStatusOf(cmd.ProcessState))})
		}()
	}
	running.Wait()
	return 0
}

// forkInit clones an init as the request says (into the cgroup directory
// cg, unless it is -1), and opens a pidfd for it before anything can reap
// it.
func forkInit(m forkMsg, ctl *os.File, cg int) (*exec.Cmd, int, error) {
	defer ctl.Close()
	attr := initAttrFor(m.Kind, m.AsRoot)
	if cg >= 0 {
		defer unix.Close(cg)
		attr.UseCgroupFD, attr.CgroupFD = true, cg
	}
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: initArgs(m.Kind), Env: initEnv, Dir: "/",
		ExtraFiles: []*os.File{ctl}, SysProcAttr: attr}
	if err := cmd.Start(); err != nil {
		return nil, -1, err
	}
	pidfd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, -1, os.NewSyscallError("pidfd_open", err)
	}
	return cmd, pidfd, nil
}

// moveInto writes pid into each cgroup.procs file of procs, and closes
// them.
func moveInto(procs []int, pid int) error {
	defer closeAll(procs)
	for _, fd := range procs {
		if _, err := unix.Write(fd, []byte(strconv.Itoa(pid))); err != nil {
			return fmt.Errorf("cgroup: add %d: %w", pid, err)
		}
	}
	return nil
}

// closeInherited closes the descriptors above ctlFD that this process
// inherited without meaning to: the ones without close-on-exec (every
// descriptor Go opens has it).
func closeInherited() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= ctlFD {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			unix.Close(fd)
		}
	}
}

// reply sends one message to the Runtime; a failure means it is gone, and
// the inits go with this process.
func reply(m forkMsg, fds ...int) {
	_ = sendBytes(ctlFD, m.encode(), fds...)
}
