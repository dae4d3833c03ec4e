//go:build linux

package main

import (
	"fmt"
	"runtime"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() {
	register(map[string]probeFunc{
		"rtsigbomb": probeRTSigBomb,
	})
}

// rtSig is the real-time signal the probe queues (SIGRTMIN+4: neither Go
// nor glibc uses it).
const rtSig = 38

// probeRTSigBomb queues real-time signals to a thread that blocks them, up
// to N (0: until the kernel refuses), and keeps them pending until the
// attacker exits. Queued signals count against a per-user limit
// (RLIMIT_SIGPENDING) charged across user namespaces, so a sandbox that
// could queue as many as its caller may would leave the user's other
// programs unable to queue one (glibc's set*id across threads, POSIX
// timers and thread cancellation need them). It reports how many it holds.
func probeRTSigBomb(arg string) (string, error) {
	limit := -1
	if arg != "" {
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return "", fmt.Errorf("bad count %q", arg)
		}
		if n > 0 {
			limit = n
		}
	}
	type res struct {
		n   int
		err error
	}
	done := make(chan res)
	go func() {
		// The signals stay pending on this thread, which blocks them and
		// never ends: the goroutine keeps it and waits forever.
		runtime.LockOSThread()
		var set unix.Sigset_t
		set.Val[(rtSig-1)/64] |= 1 << ((rtSig - 1) % 64)
		if err := unix.PthreadSigmask(unix.SIG_BLOCK, &set, nil); err != nil {
			done <- res{0, err}
			return
		}
		pid, tid := unix.Getpid(), unix.Gettid()
		info := unix.Siginfo{Signo: rtSig, Code: -1 /* SI_QUEUE */}
		n := 0
		var err error
		for limit < 0 || n < limit {
			_, _, e := unix.RawSyscall6(unix.SYS_RT_TGSIGQUEUEINFO, uintptr(pid), uintptr(tid), rtSig, uintptr(unsafe.Pointer(&info)), 0, 0)
			if e != 0 {
				err = e
				break
			}
			n++
		}
		done <- res{n, err}
		select {}
	}()
	r := <-done
	return fmt.Sprintf("held %d", r.n), r.err
}
