//go:build linux

package agentbox_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt9Writer builds a static program that creates the file its argument
// names as the first thing it does.
func rt9Writer(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	dir := hostDir(t)
	src := filepath.Join(dir, "w.c")
	bin := filepath.Join(dir, "w")
	if err := os.WriteFile(src, []byte(`#include <fcntl.h>
#include <sys/syscall.h>
/* No libc: the first instructions after execve create the file. */
static long sys3(long n, long a, long b, long c) {
	long r;
	__asm__ volatile ("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}
void __attribute__((naked)) _start(void) {
	__asm__ volatile ("mov %rsp, %rdi\n\tcall cmain\n\thlt");
}
void cmain(long *sp) {
	char **argv = (char **)(sp + 1);
	long fd = sys3(SYS_open, (long)argv[1], O_CREAT | O_WRONLY, 0644);
	sys3(SYS_write, fd, (long)"planted\n", 8);
	sys3(SYS_exit_group, 0, 0, 0);
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-O2", "-static", "-nostdlib", "-fno-stack-protector", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("cc: %v\n%s", err, out)
	}
	return bin
}

// rt9Span is how long the control took from cmd.Start until its program
// had written its file.
var rt9Span time.Duration

// rt9WrapOnce wraps bin (writing marker), starts it and calls cleanup
// after delay. It reports whether marker existed when
// cleanup returned, whether it exists once cmd.Wait returned, and the
// exit status.
func rt9WrapOnce(t *testing.T, m *agentbox.Manager, bin, dir, marker string, delay time.Duration, cleanupIt bool) (atCleanup, afterWait bool, code int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.Command(bin, marker)
	cleanup, err := m.Wrap(ctx, cmd, agentbox.WithWritableRoots(dir), agentbox.WithWorkingDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cleanup()
		t.Fatal(err)
	}
	if !cleanupIt {
		// The control: how long from Start until the program has written
		for began := time.Now(); time.Since(began) < 10*time.Second; time.Sleep(100 * time.Microsecond) {
			if _, err := os.Stat(marker); err == nil {
				rt9Span = time.Since(began)
				break
			}
		}
		_ = cmd.Wait()
		cleanup()
		_, err := os.Stat(marker)
		return err == nil, err == nil, cmd.ProcessState.ExitCode()
	}
	time.Sleep(delay)
	// cleanup alone: one Kill (a cancel too would race a second one, see
	// TestRedteam9WrapKillEaten).
	cleanup()
	_, err = os.Stat(marker)
	atCleanup = err == nil
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("HANG: cmd.Wait did not return after cleanup")
	}
	_, err = os.Stat(marker)
	return atCleanup, err == nil, cmd.ProcessState.ExitCode()
}

// TestRedteam9WrapRunsAfterCleanup: a wrapped sandbox whose cleanup is
// called (or whose ctx ends) after its init has read the spec but before
// the program started is ended by msgKill, which the init reads only once the
// program runs (awaitKill); and cleanup does not wait for that init
// (AwaitExit returns at once for an init that has not reported ready).
// So cleanup returns, releasing what confines the sandbox (placeholders,
// proxy, the sweep of what it planted), and then the program starts and
// runs: a program that acts at once (a static binary that creates a file
// in a writable root as its first system call) does its work after the
// caller's cleanup returned. (Before, the init was SIGKILLed in
// its set-up and the program never started.) The attack: across cleanup
// delays spanning the set-up, no program may write after cleanup
// returned. The control: the same program, not cleaned up early, writes its file
// and exits 0.
//
// Fixed: the init does not start the program when a msgKill is queued
// (killQueued), and cleanup's AwaitExit waits for an init that has not
// reported ready too.
func TestRedteam9WrapRunsAfterCleanup(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	bin := rt9Writer(t)
	dir := hostDir(t)

	// The control, timed: how long from Start to the program's end.
	at, _, code := rt9WrapOnce(t, m, bin, dir, filepath.Join(dir, "control"), 0, false)
	span := rt9Span
	if !at || code != 0 || span == 0 {
		t.Fatalf("control: the program did not run (marker %v, exit %d)", at, code)
	}

	var late, started int
	steps := 80
	for i := 0; i < steps; i++ {
		delay := span * time.Duration(i) / time.Duration(steps) * 3 / 2
		marker := filepath.Join(dir, fmt.Sprintf("m%d", i))
		atCleanup, afterWait, code := rt9WrapOnce(t, m, bin, dir, marker, delay, true)
		if code != 125 {
			started++
		}
		if !atCleanup && afterWait {
			late++
			if late <= 3 {
				t.Logf("cleanup after %v: the program wrote %s after cleanup returned (exit %d)", delay, filepath.Base(marker), code)
			}
		}
	}
	t.Logf("%d of %d runs started their program; control took %v", started, steps, span)
	if late > 0 {
		t.Errorf("ESCAPE: in %d of %d runs the program started and wrote into the writable root after cleanup returned", late, steps)
	}
}
