//go:build linux

package attack_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/agentbox-dev/agentbox"
	"golang.org/x/sys/unix"
)

// hostIOSetup makes a one-event native AIO context on the host, as a
// database or QEMU starting would, and destroys it.
func hostIOSetup() error {
	var c uint64
	if _, _, e := unix.Syscall(unix.SYS_IO_SETUP, 1, uintptr(unsafe.Pointer(&c)), 0); e != 0 {
		return e
	}
	unix.Syscall(unix.SYS_IO_DESTROY, uintptr(c), 0, 0)
	return nil
}

func aioNr(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/fs/aio-nr")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRedteam15AIOContexts takes every native AIO context the machine
// allows from inside a sandbox. fs.aio-max-nr (65,536 events by default)
// bounds the events of all io_setup contexts of every process on the
// machine together, in no namespace and for no user of its own: two
// contexts of 32,767 events (a few MiB of ring buffer) took them all,
// and the host's own io_setup (MySQL's InnoDB, QEMU, fio, libaio users)
// then fails with EAGAIN until the sandbox ends. io_uring is refused;
// io_setup is not bounded at all. The control is the host's io_setup
// before the run.
//
// Fixed: io_setup is answered ENOSYS in every sandbox, as by a kernel
// without native AIO (libaio users fall back to threads).
func TestRedteam15AIOContexts(t *testing.T) {
	if err := hostIOSetup(); err != nil {
		t.Skipf("native AIO unavailable on the host: %v", err)
	}
	base := aioNr(t)
	type outcome struct {
		res *agentbox.ExecResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		res, err := ciMgr.ExecArgs(ctx, attackerBin, []string{"hog=aiohog:3"}, agentbox.WithWorkingDir("/"))
		done <- outcome{res, err}
	}()
	// Wait for the sandbox to hold its contexts (the count stops rising),
	// or for its run to end (refused).
	var hostErr error
	var o outcome
	ended := false
	deadline := time.Now().Add(20 * time.Second)
	last, stable := -1, 0
	for time.Now().Before(deadline) && stable < 3 && !ended {
		n := aioNr(t)
		if n > base && n == last {
			stable++
		} else {
			stable = 0
		}
		last = n
		select {
		case o = <-done:
			ended = true
		case <-time.After(100 * time.Millisecond):
		}
	}
	if last > base {
		hostErr = hostIOSetup()
	}
	if !ended {
		o = <-done
	}
	if o.err != nil {
		t.Fatalf("the sandbox could not run the attacker: %v", o.err)
	}
	t.Logf("aio-nr %d before, %d while the sandbox held its contexts\n%s", base, last, o.res.Stdout)
	if hostErr != nil {
		t.Errorf("ESCAPE: while the sandbox held AIO contexts the host's io_setup failed: %v (fs.aio-nr %d)", hostErr, last)
	}
	if err := hostIOSetup(); err != nil {
		t.Errorf("the host's io_setup still fails after the run: %v", err)
	}
	if r := parseOutput(o.res.Stdout).results["hog"]; r.errno != "ENOSYS" {
		t.Errorf("io_setup in the sandbox: %+v; want ENOSYS", r)
	}
}
