//go:build linux

package agentbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt30Cycle: the program puts its own stdout and stderr in flight in an
// unreachable SCM_RIGHTS cycle (a socket pair, each end carried in the
// other's queue), prints a line and exits. No process of the sandbox is
// left, but the write ends of agentbox's output pipes stay open in the
// kernel until the unix garbage collector runs.
const rt30Cycle = `import socket,os
a,b=socket.socketpair()
print("hello", flush=True)
socket.send_fds(a,[b"x"],[a.fileno(),1,2])
socket.send_fds(b,[b"x"],[b.fileno()])
print("sent", flush=True)
os._exit(0)`

// TestRedteam30InFlightStdoutHangsExec: a sandboxed program tries to keep
// the write ends of its stdout and stderr pipes open after it and its whole
// process tree are gone, by leaving them in flight in an unreachable
// SCM_RIGHTS cycle on a socket pair of its own (rt30Cycle; socketpair and
// sendmsg are allowed). Process.wait, with neither a timeout nor a ctx
// deadline, waits without bound for the output copies to reach EOF
// (awaitCopies), so if the cycle outlived the tree, Exec would hang after
// the command exited 0 (a denial of service of the embedding program).
//
// Held (kept as a passing test: new coverage, fds in flight after the
// tree): the kernel's unix garbage collector reclaims the cycle when the
// sandbox's teardown releases a unix socket, and Exec returns at once with
// the program's output. If this ever fails, the fix is to stop relying on
// EOF once the tree is gone (drain what the pipe holds without blocking,
// then end the copy). Control: the same Exec without the cycle.
func TestRedteam30InFlightStdoutHangsExec(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	run := func(script string) (*agentbox.ExecResult, time.Duration, bool, error) {
		type r struct {
			res *agentbox.ExecResult
			err error
		}
		done := make(chan r, 1)
		t0 := time.Now()
		go func() {
			res, err := m.ExecArgs(context.Background(), "python3", []string{"-c", script})
			done <- r{res, err}
		}()
		select {
		case x := <-done:
			return x.res, time.Since(t0), true, x.err
		case <-time.After(30 * time.Second):
			return nil, time.Since(t0), false, nil
		}
	}
	res, d, ok, err := run(`print("hello", flush=True)`)
	if !ok || err != nil || res.ExitCode != 0 || res.Stdout != "hello\n" {
		t.Fatalf("control: ok=%v res=%+v err=%v after %v", ok, res, err, d)
	}
	res, d, ok, err = run(rt30Cycle)
	if !ok {
		t.Fatalf("Exec of a program that exited 0 did not return within %v: its stdout pipe is held in flight in an SCM_RIGHTS cycle after the whole tree is gone", d)
	}
	t.Logf("cycle run returned after %v: res=%+v err=%v", d, res, err)
	if d > 10*time.Second {
		t.Errorf("Exec took %v after the program exited", d)
	}
}
