//go:build linux

package linux

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

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

// TestForkerProtocolError: a forker that sends what is not a message is
// killed, and a request waiting for its answer fails at once rather than
// when the request times out. The "forker" here is a sleep behind a socket
// this test speaks for.
func TestForkerProtocolError(t *testing.T) {
	sock, peer, err := socketpair()
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	cmd := exec.Command("/bin/sleep", "30")
	if err := cmd.Start(); err != nil {
		sock.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	f := newForker(cmd, sock)
	ctl, child, err := socketpair()
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	defer child.Close()
	start := time.Now()
	forked := make(chan error, 1)
	go func() {
		_, err := f.fork(kindNetns, false, child, nil)
		forked <- err
	}()
	_, fds, err := recvBytes(int(peer.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	closeAll(fds)
	if err := sendBytes(int(peer.Fd()), []byte{0xff}); err != nil {
		t.Fatal(err)
	}
	if err := <-forked; !errors.Is(err, errForkerGone) {
		t.Errorf("a request answered with garbage: %v, want errForkerGone", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the request failed after %v, want at once", d)
	}
	for deadline := time.Now().Add(time.Second); ; time.Sleep(time.Millisecond) {
		f.mu.Lock()
		gone := f.gone && f.procs == nil
		f.mu.Unlock()
		if gone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the forker that broke the protocol was not ended")
		}
	}
	if st := cmd.ProcessState; st == nil || st.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("the forker ended with %v, want SIGKILL", st)
	}
}
