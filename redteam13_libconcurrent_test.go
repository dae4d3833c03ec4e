//go:build linux

package agentbox_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam13ConcurrentOptionsAndUpdateConfig: calls on one Manager run
// at once, half given a writable root and a secret by option, half not,
// while UpdateConfig keeps swapping the Config's writable roots between
// another directory and none. A call without the option never writes the
// directory nor sees the variable; a call started before UpdateConfig
// widened the roots does not get the new root (a running sandbox keeps the
// view it started with). Controls: the calls with the option write.
func TestRedteam13ConcurrentOptionsAndUpdateConfig(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	dirA, dirB := hostDir(t), hostDir(t)
	ctx := context.Background()

	// A command started under the old Config (Start returns once it runs)
	// waits, then tries the root a later UpdateConfig adds.
	var longOut bytes.Buffer
	long := exec.Command("/bin/sh", "-c", "sleep 1; echo late > "+filepath.Join(dirB, "late")+" && echo wrote")
	long.Stdout = &longOut
	lp, err := m.Start(ctx, long)
	if err != nil {
		t.Fatal(err)
	}
	wide := agentbox.CIConfig()
	wide.Filesystem.WritableRoots = []string{dirB}
	if err := m.UpdateConfig(wide); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := filepath.Join(dirA, "f"+string(rune('a'+i)))
			if i%2 == 0 {
				res, err := m.Exec(ctx, "echo x > "+name+" && echo \"[$RT13E]\"",
					agentbox.WithWritableRoots(dirA), agentbox.WithEnv("RT13E=secret"))
				if err != nil || res.ExitCode != 0 || res.Stdout != "[secret]\n" {
					errs <- "control call failed: " + res.Stdout + res.Stderr
				}
				return
			}
			res, err := m.Exec(ctx, "echo \"[$RT13E]\"; echo x > "+name)
			if err != nil {
				errs <- err.Error()
				return
			}
			if res.ExitCode == 0 || strings.Contains(res.Stdout, "secret") {
				errs <- "a call without options got another call's: " + res.Stdout
			}
			if _, err := os.Stat(name); err == nil {
				errs <- "a call without WithWritableRoots wrote " + name
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if _, err := lp.Wait(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(longOut.String(), "wrote") {
		t.Errorf("a command started before UpdateConfig wrote to the root it added")
	}
	if _, err := os.Stat(filepath.Join(dirB, "late")); err == nil {
		t.Errorf("a command started before UpdateConfig wrote %s", filepath.Join(dirB, "late"))
	}
	// Control: a call after UpdateConfig writes dirB.
	if res := run(t, m, "echo now > "+filepath.Join(dirB, "now")); res.ExitCode != 0 {
		t.Errorf("control: a call after UpdateConfig could not write its root: %+v", res)
	}
}

// TestRedteam13CloseEndsRunningCalls: Close while Exec and Start run ends
// them (exit 137, promptly, no process left), and every later call fails
// with ErrManagerClosed.
func TestRedteam13CloseEndsRunningCalls(t *testing.T) {
	m, err := agentbox.NewManager(agentbox.CIConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	done := make(chan *agentbox.ExecResult, 1)
	go func() {
		res, _ := m.Exec(ctx, "trap '' TERM; sleep 30 & sleep 30; echo survived")
		done <- res
	}()
	time.Sleep(500 * time.Millisecond)
	t0 := time.Now()
	if err := m.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	select {
	case res := <-done:
		if res == nil || res.ExitCode != 137 || strings.Contains(res.Stdout, "survived") {
			t.Errorf("the running Exec was not killed: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Exec still running 10 s after Close")
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("Close took %v to end a running command", d)
	}
	if _, err := m.Exec(ctx, "true"); !errors.Is(err, agentbox.ErrManagerClosed) {
		t.Errorf("Exec after Close: %v", err)
	}
	if err := m.UpdateConfig(agentbox.CIConfig()); !errors.Is(err, agentbox.ErrManagerClosed) {
		t.Errorf("UpdateConfig after Close: %v", err)
	}
}
