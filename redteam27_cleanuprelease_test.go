//go:build linux

package agentbox_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

const rt27ExitEnv = "AGENTBOX_RT27_CLOSE_EXIT_DIR"

func init() {
	if dir := os.Getenv(rt27ExitEnv); dir != "" {
		os.Exit(rt27CloseAndExit(dir))
	}
}

func rt27Names(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var n []string
	for _, e := range ents {
		n = append(n, e.Name())
	}
	sort.Strings(n)
	return n
}

// rt27Placeholders is what of dir is agentbox's (everything but "ready").
func rt27Placeholders(dir string) []string {
	return slices.DeleteFunc(rt27Names(dir), func(s string) bool { return s == "ready" })
}

func rt27ProtectingManager() (*agentbox.Manager, error) {
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	cfg.Filesystem.AutoProtectDangerousFiles = true
	return agentbox.NewManager(cfg)
}

func rt27StartHolding(m *agentbox.Manager, dir string) (*agentbox.Process, error) {
	cmd := exec.Command("/bin/sh", "-c", "echo ready > ready; sleep 300")
	p, err := m.Start(context.Background(), cmd, agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir))
	if err == nil && !rt27WaitReady(dir, 10*time.Second) {
		err = fmt.Errorf("never ready")
	}
	return p, err
}

// rt27CloseAndExit is a program that embeds agentbox, has a Process
// running and shuts down as the README shows (defer m.Close()), without
// waiting for the Process it abandons.
func rt27CloseAndExit(dir string) int {
	m, err := rt27ProtectingManager()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer m.Close()
	if _, err := rt27StartHolding(m, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestRedteam27CleanupReleases: Manager.Cleanup says it "kills every
// sandbox this Manager still runs and releases what they hold", and Close
// "kills what still runs"; both only Kill. What a Started sandbox holds
// on the host (the placeholders in its writable roots: a `.git` file
// naming /nonexistent/agentbox-holds-this-name, empty `.envrc`,
// `.mcp.json`, `.vscode`, ... directories; its cgroup, proxy and temporary
// directory) stays until Process.Wait, so:
//
//   - after Cleanup (or Close) the sandbox is dead but its writable root
//     keeps ~20 placeholder entries (git in it answers "not a git
//     repository") for as long as nobody calls Wait;
//   - a program that embeds agentbox and shuts down with `defer m.Close()`
//     (the README's pattern) while a Process runs exits leaving them on the
//     user's disk, where they stay until some later agentbox run sweeps its
//     journal (none, if the user does not run agentbox again in that root).
//
// Severity: low (no confinement is lost; the user's work tree is left
// littered and git broken in it after a clean-looking shutdown). A fix:
// Cleanup and Close release (untrack + Close the handle: remove
// placeholders, cgroup, proxy) what they killed, as Wait would, or at
// least Close waits for the killed sandboxes and releases them; and the
// docs say what the caller must still do. Controls: placeholders are
// there while the command runs, and gone after Wait.
//
// Fixed: Cleanup (until its ctx ends) and Close (closeReclaim at most)
// wait for each sandbox they killed and release it as Wait does
// (Process.reclaim runs the Process's one Wait; a wrapped cmd's handle
// removes its placeholders once it can no longer run, ReleaseEnded).
func TestRedteam27CleanupReleases(t *testing.T) {
	for _, how := range []string{"Cleanup", "Close"} {
		t.Run(how, func(t *testing.T) {
			m, err := rt27ProtectingManager()
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			dir := hostDir(t)
			p, err := rt27StartHolding(m, dir)
			if err != nil {
				t.Fatal(err)
			}
			running := rt27Placeholders(dir)
			if !slices.Contains(running, ".git") {
				t.Fatalf("control: no placeholder while the command runs: %v", running)
			}
			if how == "Cleanup" {
				err = m.Cleanup(context.Background())
			} else {
				err = m.Close()
			}
			if err != nil {
				t.Logf("%s: %v", how, err)
			}
			time.Sleep(time.Second)
			left := rt27Placeholders(dir)
			res, err := p.Wait()
			if res == nil || res.ExitCode != 137 {
				t.Errorf("Wait after %s: %+v %v", how, res, err)
			}
			if after := rt27Placeholders(dir); len(after) != 0 {
				t.Errorf("control: placeholders left after Wait: %v", after)
			}
			if len(left) > 0 {
				t.Errorf("%s killed the sandbox but released nothing: 1 s later its writable root still holds %d placeholders %v (until Wait)", how, len(left), left)
			}
		})
	}
	t.Run("defer Close then exit", func(t *testing.T) {
		dir := hostDir(t)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), rt27ExitEnv+"="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v %s", err, out)
		}
		if !slices.Contains(rt27Names(dir), "ready") {
			t.Fatalf("control: the command never ran: %v", rt27Names(dir))
		}
		time.Sleep(time.Second)
		if left := rt27Placeholders(dir); len(left) > 0 {
			b, _ := exec.Command("git", "-C", dir, "status").CombinedOutput()
			t.Errorf("a program that ran `defer m.Close()` with a Process running exited leaving %d placeholders in the user's writable root %v; git there: %s",
				len(left), left, strings.TrimSpace(string(b)))
		}
	})
}
