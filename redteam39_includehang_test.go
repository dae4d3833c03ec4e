//go:build linux

package agentbox_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam39IncludeHang: a command (default policy, no git options)
// makes a repository r in its writable root whose config says
// include.path = /sys/kernel/tracing/trace_pipe (or /proc/kmsg): a host
// file the kernel shows as a regular file of size 0 whose reads block,
// pollable, until the kernel has something new to say. While it still
// runs, another Exec on the same root plans its sandbox (an agent running
// a command beside one still going): protectRepositories walks the root,
// finds r, and readGitConfig follows its include.path unconfined, as the
// host user, to any host path. readFollow opens it O_NONBLOCK, sees a
// regular file under hostReadMax, and io.ReadAll reads it: Go's poller
// parks the read on EAGAIN, and no EOF ever comes. That Exec never
// returns (its timeout and its context are not consulted: the command
// has not started), and while it waits agentbox, as root, consumes the
// trace events or kernel log lines meant for the host's own readers. The
// sweep after the first command renames r away, too late.
//
// Severity: medium (a sandboxed command hangs a later Exec for good, as
// root; agentbox opens and reads host files that no policy lets the
// command name: any /proc or /sys file, a device's open side effects).
//
// Found by red-team round 39; fixed: agentbox's host-side reads
// (openRegular) look at a file through an O_PATH descriptor first, which
// runs no driver's open, and read only a regular file on a file system
// that holds files (not proc, sysfs, tracefs, debugfs, ...), reopened
// through that descriptor.
//
// Control: the same on a second root whose r includes a plain file of
// the root: the second Exec plans and runs.
func TestRedteam39IncludeHang(t *testing.T) {
	var target string
	for _, p := range []string{"/sys/kernel/tracing/trace_pipe", "/sys/kernel/debug/tracing/trace_pipe", "/proc/kmsg"} {
		if f, err := os.OpenFile(p, os.O_RDONLY|0o4000 /* O_NONBLOCK */, 0); err == nil {
			f.Close()
			target = p
			break
		}
	}
	if target == "" {
		t.Skip("no blocking kernel file is readable by this user (root only)")
	}
	m := newManager(t, agentbox.CIConfig())
	// plant makes a repository whose config includes include, beside the
	// next Exec (rt39Plant).
	plant := func(w, include string) chan error {
		t.Helper()
		return rt39Plant(t, m, w, "printf \"[include]\\n\\tpath = "+include+"\\n\" > r/.git/config", 3*time.Second)
	}

	ctl := rt39Root(t)
	os.WriteFile(filepath.Join(ctl, "plain.gitconfig"), []byte("[user]\n\tname = x\n"), 0o666)
	first := plant(ctl, "../../plain.gitconfig")
	select {
	case err := <-rt39Run(m, ctl):
		if err != nil {
			t.Fatalf("control: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("control: Exec with a plain include did not return")
	}

	if err := <-first; err != nil {
		t.Fatalf("control: first command: %v", err)
	}
	w := rt39Root(t)
	plant(w, target)
	start := time.Now()
	select {
	case err := <-rt39Run(m, w):
		t.Logf("Exec returned after %v: %v", time.Since(start), err)
	case <-time.After(15 * time.Second):
		t.Errorf("Exec did not return in 15 s: agentbox blocks reading %s, named by include.path in the config of a repository the command made", target)
	}
}
