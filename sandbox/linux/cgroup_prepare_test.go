//go:build linux

package linux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// prepareV1 prepares cmd (Prepare, as Wrap does) in a sandbox with memory
// and pids limits on cgroup v1, or skips.
func prepareV1(t *testing.T, r *Runtime, cmd *exec.Cmd) *handle {
	t.Helper()
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	if cgroups.find(); cgroups.version != 1 {
		t.Skipf("cgroup v%d: Prepare's init is cloned into its cgroup", cgroups.version)
	}
	probe, err := newSandboxCgroup()
	if err != nil {
		t.Skipf("no cgroups: %v", err)
	}
	probe.closeAsync()
	sh, err := r.Prepare(&sandbox.Spec{Network: sandbox.NetworkFiltered,
		Limits: sandbox.Limits{MemoryBytes: 256 << 20, Processes: 64}}, cmd)
	if err != nil {
		t.Fatal(err)
	}
	h := sh.(*handle)
	if h.cgroup == nil {
		h.Close()
		t.Fatal("Prepare gave the sandbox no cgroup on v1: its limits hold per process")
	}
	return h
}

// TestPrepareCgroupV1ThreadJoins: on cgroup v1, Prepare's init (Wrap's)
// is not placed in the sandbox's cgroup, as Start's are not: its thread
// that forks the program joins through the tasks files, so the program
// and what it starts sit in the sandbox's memory and pids cgroups, not
// the init, and the cgroups are gone once the sandbox is closed. Before,
// Prepare made no cgroup on v1: a wrapped tree held its memory limit once
// per process.
func TestPrepareCgroupV1ThreadJoins(t *testing.T) {
	r := &Runtime{ColdStart: true}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", "sleep 3600 & exec sleep 3600")
	h := prepareV1(t, r, cmd)
	if !h.joinTasks {
		t.Error("Prepare's program does not join its cgroup v1 by its thread")
	}
	if err := cmd.Start(); err != nil {
		h.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.Ready(ctx); err != nil {
		t.Errorf("Ready: %v", err)
	}
	program := onlyChild(t, cmd.Process.Pid)
	want := filepath.Base(h.cgroup.dirs[0])
	for _, p := range []struct {
		who string
		pid int
		in  bool
	}{
		{"the program", program, true},
		{"the program's child", onlyChild(t, program), true},
		{"the init", cmd.Process.Pid, false},
	} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", p.pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, ctrl := range []string{"memory", "pids"} {
			if in := filepath.Base(v1Path(b, ctrl)) == want; in != p.in {
				t.Errorf("%s (%d) in the sandbox's %s cgroup %s: %v, want %v", p.who, p.pid, ctrl, want, in, p.in)
			}
		}
	}
	if !strings.Contains(strings.Join(h.Layers(), " "), "cgroup(v1") {
		t.Errorf("layers %v name no cgroup", h.Layers())
	}
	_ = h.Kill()
	_ = cmd.Wait()
	h.Close()
	cleanups.Wait()
	for _, d := range h.cgroup.dirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the sandbox's cgroup %s is left: %v", d, err)
		}
	}
}

// TestPrepareCgroupV1JoinFailureRefuses: a Prepare'd program whose thread
// cannot join its cgroup v1 does not run. The cgroups are removed after
// Prepare sent their tasks files, so that the init's writes to them fail.
func TestPrepareCgroupV1JoinFailureRefuses(t *testing.T) {
	r := &Runtime{ColdStart: true}
	defer r.Close()
	var out bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", "echo ran")
	cmd.Stdout, cmd.Stderr = &out, &out
	h := prepareV1(t, r, cmd)
	defer h.Close()
	for _, d := range h.cgroup.dirs {
		if err := os.Remove(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := h.Ready(ctx)
	_ = cmd.Wait()
	t.Logf("Ready: %v", err)
	if err == nil || !strings.Contains(err.Error(), "cgroup") {
		t.Errorf("Ready: %v; want the cgroup stage named", err)
	}
	if strings.Contains(out.String(), "ran") {
		t.Errorf("the program ran though its thread could not join its cgroup: %q", out.String())
	}
}
