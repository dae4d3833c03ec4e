//go:build linux

package agentbox_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt55bTicker prints a tick every 50 ms and, 1.2 s in (well past every
// bound the test sets), writes LATE into the writable root it works in.
const rt55bTicker = `i=0; while :; do echo tick; i=$((i+1)); if [ $i -eq 24 ]; then echo LATE > late; fi; sleep 0.05; done`

// rt55bReadTicks reads the program's stdout pipe, as os/exec's StdoutPipe
// idiom does (read to EOF, then Wait), for at most d. It reports whether
// the pipe was still carrying ticks when d ran out (the program was not
// ended), and how many ticks came.
func rt55bReadTicks(t *testing.T, r *os.File, d time.Duration) (alive bool, ticks int) {
	t.Helper()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	deadline := time.After(d)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return false, ticks // EOF: the program's tree is gone
			}
			if l == "tick" {
				ticks++
			}
		case <-deadline:
			return true, ticks
		}
	}
}

// TestRedteam55StartTimeoutOnlyInWait: Manager.Start promises "ctx, and
// WithTimeout, kill the whole process tree when they end", but neither
// is watched until the caller calls Process.Wait: process.go
// Process.wait is the only place that arms the timeout's timer
// (time.NewTimer(p.timeout - time.Since(p.started))) and selects on
// p.ctx.Done(); startProcess only stores them (pr.timeout, pr.ctx), and
// Runtime.Start uses ctx for the sandbox's start alone. A caller that
// uses a Process as it would an exec.Cmd with StdoutPipe (read the
// program's output to EOF, then Wait: "it is incorrect to call Wait
// before all reads from the pipe have completed"), or that drives
// Process.Terminal until it closes (an interactive harness), never gets
// to Wait while the program runs: a command given WithTimeout(300ms), or
// a ctx that ends at 300 ms, runs on unbounded, and keeps writing its
// writable root and using its network long after its caller's deadline.
// Wrap, by contrast, watches ctx and its timeout from a goroutine of its
// own (Manager.watch), whatever the caller does with cmd.Wait.
//
// Severity: low (a duration bound the caller set is not enforced: a
// command outlives the deadline meant to end it, as in round 51's
// exec.CommandContext finding; nothing is widened). A fix: arm the
// timeout and watch ctx from a goroutine started by Start (as Wrap's
// watch does), killing the sandbox when either ends; Wait then only
// collects the result.
//
// Premise: the program really runs and prints ticks, and the control
// (the same Start with Wait called at once, as the CLI does) is ended at
// the deadline and never writes LATE.
//
// Found by red-team round 55. Fixed: process.go (guard, started by Start).
func TestRedteam55StartTimeoutOnlyInWait(t *testing.T) {
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	m := newManager(t, cfg)
	type scenario struct {
		name      string
		viaCtx    bool // the bound is Start's ctx, not WithTimeout
		waitFirst bool // the control: Wait called at once, in a goroutine
	}
	runOne := func(s scenario) (alive bool, ticks int, late bool) {
		dir := hostDir(t)
		_ = os.Chmod(dir, 0o777)
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		ctx := context.Background()
		opts := []agentbox.Option{agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir)}
		if s.viaCtx {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
		} else {
			opts = append(opts, agentbox.WithTimeout(300*time.Millisecond))
		}
		cmd := exec.Command("/bin/sh", "-c", rt55bTicker)
		cmd.Stdout = w
		p, err := m.Start(ctx, cmd, opts...)
		w.Close() // the caller's copy: EOF comes when the program's tree is gone
		if err != nil {
			t.Fatalf("%s: Start: %v", s.name, err)
		}
		waited := make(chan *agentbox.ExecResult, 1)
		if s.waitFirst {
			go func() { res, _ := p.Wait(); waited <- res }()
		}
		alive, ticks = rt55bReadTicks(t, r, 1600*time.Millisecond)
		if !s.waitFirst {
			// The caller's Wait, after its reads, as the idiom goes; the
			// test bounds its own wait by killing the program.
			_ = p.Kill()
			go func() { res, _ := p.Wait(); waited <- res }()
		}
		select {
		case res := <-waited:
			t.Logf("%s: exit %d, timed out %v", s.name, res.ExitCode, res.TimedOut)
		case <-time.After(10 * time.Second):
			t.Errorf("%s: Wait did not return", s.name)
		}
		_, statErr := os.Stat(filepath.Join(dir, "late"))
		late = statErr == nil
		t.Logf("%s: still running after 1.6 s=%v, ticks=%d, wrote LATE=%v", s.name, alive, ticks, late)
		return alive, ticks, late
	}
	// Controls: Wait called at once honours both bounds.
	for _, s := range []scenario{{"control WithTimeout, Wait at once", false, true}, {"control ctx, Wait at once", true, true}} {
		alive, ticks, late := runOne(s)
		if ticks == 0 {
			t.Fatalf("%s: premise: the program printed nothing", s.name)
		}
		if alive || late || ticks > 12 {
			t.Fatalf("%s: the bound was not enforced even with Wait (alive %v, ticks %d, LATE %v)", s.name, alive, ticks, late)
		}
	}
	var escaped []string
	for _, s := range []scenario{{"WithTimeout(300ms), output read to EOF before Wait", false, false}, {"ctx ends at 300 ms, output read to EOF before Wait", true, false}} {
		alive, ticks, late := runOne(s)
		if ticks == 0 {
			t.Fatalf("%s: premise: the program printed nothing", s.name)
		}
		if alive || late {
			escaped = append(escaped, s.name)
		}
	}
	if len(escaped) > 0 {
		t.Errorf("ESCAPE: a Started command ran on past its 300 ms bound (still printing after 1.6 s, and it wrote LATE into its writable root at 1.2 s) because the bound is armed only inside Process.Wait: %s", strings.Join(escaped, "; "))
	}
}
