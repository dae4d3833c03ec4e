//go:build linux

package agentbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// Red team 7: Wrap's life cycle.

// TestRedteam7WrapCleanupTwice: a caller that calls the cleanup Wrap
// returned twice (a defer plus an early call on an error path, the usual
// Go pattern) gets a panic: "close of closed channel". The control: one
// cleanup after Wait returns.
func TestRedteam7WrapCleanupTwice(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	for _, twice := range []bool{false, true} {
		t.Run(fmt.Sprintf("twice=%v", twice), func(t *testing.T) {
			cmd := exec.Command("/bin/true")
			cleanup, err := m.Wrap(context.Background(), cmd)
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Run(); err != nil {
				t.Fatalf("control: %v", err)
			}
			calls := 1
			if twice {
				calls = 2
			}
			for i := 0; i < calls; i++ {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("cleanup call %d panicked: %v", i+1, r)
						}
					}()
					cleanup()
				}()
			}
		})
	}
}

// TestRedteam7WrapRaces: cleanup racing cmd.Wait while the command runs
// (the tree is killed, Wait returns, nothing hangs), ctx cancelled while
// cmd.Start runs (the program never runs after the cancel was seen), and a
// cmd whose Start fails (cleanup returns at once). The control: a command
// run and waited for before cleanup succeeds. "cancel during Start" also
// runs under the race detector: the kill is the init's to carry out
// (msgKill), so nothing reads the cmd.Process the caller's Start writes.
func TestRedteam7WrapRaces(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	t.Run("control", func(t *testing.T) {
		cmd := exec.Command("/bin/sh", "-c", "exit 3")
		cleanup, err := m.Wrap(context.Background(), cmd)
		if err != nil {
			t.Fatal(err)
		}
		err = cmd.Run()
		cleanup()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
			t.Fatalf("control: %v", err)
		}
	})
	t.Run("cleanup during Wait", func(t *testing.T) {
		for i := 0; i < 5; i++ {
			cmd := exec.Command("/bin/sleep", "30")
			cleanup, err := m.Wrap(context.Background(), cmd)
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				cleanup()
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			time.Sleep(time.Duration(i*20) * time.Millisecond)
			done := make(chan struct{})
			go func() { cleanup(); close(done) }()
			select {
			case <-done:
			case <-time.After(7 * time.Second):
				t.Fatal("cleanup hung while the command ran")
			}
			select {
			case <-waited:
			case <-time.After(3 * time.Second):
				t.Fatal("the command outlived its cleanup")
			}
		}
	})
	t.Run("cancel during Start", func(t *testing.T) {
		dir := hostDir(t)
		for i := 0; i < 20; i++ {
			marker := fmt.Sprintf("%s/ran-%d", dir, i)
			ctx, cancel := context.WithCancel(context.Background())
			cmd := exec.Command("/bin/sh", "-c", `sleep 0.3; echo > "$1"`, "sh", marker)
			cleanup, err := m.Wrap(ctx, cmd, agentbox.WithWritableRoots(dir))
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			go func() { time.Sleep(time.Duration(i%5) * 200 * time.Microsecond); cancel() }()
			if err := cmd.Start(); err == nil {
				_ = cmd.Wait()
			}
			cleanup()
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("iteration %d: the program ran to its end after ctx was cancelled", i)
			}
		}
	})
	t.Run("Start fails", func(t *testing.T) {
		// A cmd made with a context already ended: os/exec's Start fails.
		dead, cancel := context.WithCancel(context.Background())
		cancel()
		cmd := exec.CommandContext(dead, "/bin/true")
		cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithTimeout(time.Minute))
		if err != nil {
			return // refused up front: held
		}
		if err := cmd.Start(); err == nil {
			_ = cmd.Wait()
			t.Fatal("Start succeeded with an ended context")
		}
		done := make(chan struct{})
		go func() { cleanup(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatal("cleanup hung after a failed Start")
		}
	})
}

// TestRedteam7WrapNeverStartedLeaks: a wrapped command with a timeout that
// the caller never starts (its own later step failed) and cleans up leaves
// a goroutine blocked for ever in readyChan's h.Ready(Background): one per
// call, for the life of the process. The control: the same calls started
// and waited for leave none.
func TestRedteam7WrapNeverStartedLeaks(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	const n = 20
	for _, start := range []bool{true, false} {
		t.Run(fmt.Sprintf("started=%v", start), func(t *testing.T) {
			runtime.GC()
			time.Sleep(200 * time.Millisecond)
			before := runtime.NumGoroutine()
			for i := 0; i < n; i++ {
				cmd := exec.Command("/bin/true")
				cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithTimeout(time.Minute))
				if err != nil {
					t.Fatal(err)
				}
				if start {
					if err := cmd.Run(); err != nil {
						t.Fatalf("control: %v", err)
					}
				}
				cleanup()
			}
			var after int
			for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if after = runtime.NumGoroutine(); after < before+n/2 {
					return
				}
			}
			t.Errorf("LEAK: %d goroutines before %d Wrap/cleanup calls, %d after (started %v)", before, n, after, start)
		})
	}
}

// TestExtraFilesRefused: a cmd.ExtraFiles descriptor never reaches the
// sandboxed program (its init closes what it inherits), so Wrap and Start
// refuse the cmd rather than run it without them; the same cmd without
// ExtraFiles runs (the control).
func TestExtraFilesRefused(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, api := range []string{"Wrap", "Start"} {
		for _, extra := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/extra=%v", api, extra), func(t *testing.T) {
				cmd := exec.Command("/bin/sh", "-c", "echo hi >&3 2>/dev/null; exit 0")
				if extra {
					cmd.ExtraFiles = []*os.File{w}
				}
				setup, run := runVia(m, api, cmd)
				err := errors.Join(setup, run)
				switch {
				case !extra && err != nil:
					t.Fatalf("control: %v", err)
				case extra && !errors.Is(err, agentbox.ErrConfigInvalid):
					t.Errorf("%s with cmd.ExtraFiles: err %v, want ErrConfigInvalid (the descriptor never reaches the program)", api, err)
				case extra && !strings.Contains(err.Error(), "ExtraFiles"):
					t.Errorf("the refusal does not name cmd.ExtraFiles: %v", err)
				}
			})
		}
	}
}

// TestManyWritableRootsRefusedClearly: a root caller's writable roots are
// idmapped trees, a descriptor each, all sent in one message, which
// carries at most 253: 300 roots were refused with "invalid argument".
// They are refused with a line that says what to change; 20 roots run
// (the control).
func TestManyWritableRootsRefusedClearly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only a root caller's writable roots are idmapped")
	}
	m := newManager(t, agentbox.CIConfig())
	base := hostDir(t)
	for _, n := range []int{20, 300} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var roots []string
			for i := range n {
				d := fmt.Sprintf("%s/r%d-%d", base, n, i)
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				roots = append(roots, d)
			}
			res, err := m.ExecArgs(context.Background(), "/bin/true", nil, agentbox.WithWritableRoots(roots...))
			switch {
			case n == 20 && (err != nil || res.ExitCode != 0):
				t.Fatalf("control: %v %+v", err, res)
			case n == 300 && (err == nil || !strings.Contains(err.Error(), "name fewer writable roots")):
				t.Errorf("300 writable roots: err %v, want a refusal that says to name fewer", err)
			}
		})
	}
}
