//go:build linux

package linux

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"syscall"
	"testing"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// treeOf is pid's descendants, from /proc.
func treeOf(t *testing.T, pid int) []int {
	t.Helper()
	var out []int
	for queue := childrenOf(t, pid); len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		if _, err := os.Stat("/proc/" + strconv.Itoa(queue[0])); err == nil {
			queue = append(queue, childrenOf(t, queue[0])...)
		}
	}
	return out
}

// TestForkerDeathWaitsForTree: when the forker dies, the Wait of a sandbox
// it cloned returns once the sandbox's processes are gone, not as soon as
// the forker is.
func TestForkerDeathWaitsForTree(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{}
	defer r.Close()
	initPid, forkerPid := forkedWarmInit(t, r)
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	proc, err := r.Start(context.Background(), &sandbox.Spec{Network: sandbox.NetworkFiltered},
		&sandbox.Program{Path: "/bin/sh", Args: []string{"sh", "-c", "for i in $(seq 20); do sleep 300 & done; echo ready; wait"}, Stdout: wr})
	wr.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	if proc.Pid() != initPid {
		t.Fatalf("the sandbox runs in init %d, not the forked one %d", proc.Pid(), initPid)
	}
	if line, _ := bufio.NewReader(rd).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the sandbox said %q", line)
	}
	tree := treeOf(t, initPid)
	if len(tree) < 21 {
		t.Fatalf("the init's tree is %v, want the shell and 20 sleeps", tree)
	}
	if err := syscall.Kill(forkerPid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := proc.Wait(); err != nil {
		t.Fatal(err)
	}
	var left []int
	for _, pid := range tree {
		if st := procState(pid); st != "" && st != "Z" {
			left = append(left, pid)
		}
	}
	if len(left) > 0 {
		t.Errorf("Wait returned with %d of the sandbox's %d processes alive: %v", len(left), len(tree), left)
	}
}
