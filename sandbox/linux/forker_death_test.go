//go:build linux

package linux

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox"
	"golang.org/x/sys/unix"
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
	f, peer, cmd := fakeForker(t)
	_, child := ctlPair(t)
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

// TestSlowForkerKeepsItsSandboxes: a forker that is only late with an
// answer (a loaded machine), while sandboxes it cloned run, is no longer
// used but not killed: killing it would kill them. A stale answer that
// comes after is not taken by a later request, and the forker's other
// inits keep being reported. (The forker here is a stand-in that never
// answers; TestForkerStopped kills a stopped one.)
func TestSlowForkerKeepsItsSandboxes(t *testing.T) {
	f, peer, cmd := fakeForker(t)
	pidfd, err := unix.PidfdOpen(cmd.Process.Pid, 0) // stands for the sandbox's init
	if err != nil {
		t.Fatal(err)
	}
	running := &forkedProc{id: cmd.Process.Pid, pidfd: pidfd, exited: make(chan struct{})}
	f.mu.Lock()
	f.procs[7] = running // a sandbox it cloned earlier, still running
	f.mu.Unlock()
	ctl, child := ctlPair(t)
	start := time.Now()
	if _, err := f.fork(kindNetns, false, child, nil); !errors.Is(err, errForkerGone) {
		t.Fatalf("an unanswered request: %v, want errForkerGone", err)
	}
	if d := time.Since(start); d < forkTimeout || d > forkTimeout+time.Second {
		t.Errorf("the request gave up after %v, want %v", d, forkTimeout)
	}
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil || processGone(cmd.Process.Pid, 100*time.Millisecond) {
		t.Fatalf("a slow forker with a running sandbox was killed (%v)", err)
	}
	if _, err := f.fork(kindNetns, false, child, nil); !errors.Is(err, errForkerGone) {
		t.Errorf("a request to a retired forker: %v, want errForkerGone", err)
	}
	// The late answer to the request, and the running sandbox's report.
	b := (&forkMsg{Type: msgForked, Seq: 1, Pid: 4242}).encode()
	if err := sendBytes(int(peer.Fd()), b, int(ctl.Fd())); err != nil {
		t.Fatal(err)
	}
	b = (&forkMsg{Type: msgReaped, Seq: 7, Pid: cmd.Process.Pid}).encode()
	if err := sendBytes(int(peer.Fd()), b); err != nil {
		t.Fatal(err)
	}
	select {
	case <-running.exited:
	case <-time.After(2 * time.Second):
		t.Error("the retired forker's report of a running sandbox's exit was lost")
	}
}

// TestForkerReusedPid: an init's pid may be another's by the time the
// forker reports the first one reaped (the second was cloned in between).
// The report names its request, so it ends the right init, and the other
// still runs.
func TestForkerReusedPid(t *testing.T) {
	f, peer, cmd := fakeForker(t)
	const pid = 4242 // both inits' pid, as the forker reports them
	var procs []*forkedProc
	for range 2 {
		_, child := ctlPair(t)
		got := make(chan *forkedProc, 1)
		go func() {
			p, err := f.fork(kindNetns, false, child, nil)
			if err != nil {
				t.Error(err)
			}
			got <- p
		}()
		answerFork(t, peer, forkMsg{Type: msgForked, Pid: pid}, cmd.Process.Pid)
		procs = append(procs, <-got)
	}
	first, second := procs[0], procs[1]
	if first == nil || second == nil {
		t.Fatal("a request failed")
	}
	// The first init's report, after the second was cloned with its pid.
	if err := sendBytes(int(peer.Fd()), (&forkMsg{Type: msgReaped, Seq: 1, Pid: pid}).encode()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-first.exited:
	case <-time.After(2 * time.Second):
		t.Fatal("the first init's exit was not reported")
	}
	select {
	case <-second.exited:
		t.Error("the second init, alive, was reported exited by the first one's report")
	default:
	}
	if err := second.signal(0); err != nil {
		t.Errorf("the second init cannot be signalled: %v", err)
	}
}

// TestForkerMoveFailedDiscardsInit: an init the forker could not move into
// its cgroup (one it could not clone into; maybe moved into one hierarchy
// of two) is not handed out, since removing that cgroup would kill it
// under its sandbox: it is killed at once, and the warm-up falls back.
func TestForkerMoveFailedDiscardsInit(t *testing.T) {
	probe, err := newSandboxCgroup()
	if err != nil {
		t.Skipf("no cgroups: %v", err)
	}
	probe.closeAsync()
	if probe.version != 1 {
		t.Skip("the forker clones inits into cgroup v2 cgroups here: no move to fail")
	}
	testMoveOnV1 = true
	defer func() { testMoveOnV1 = false }()
	fake, peer, _ := fakeForker(t)
	clone := exec.Command("/bin/sleep", "30") // stands for the cloned init
	if err := clone.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = clone.Process.Kill() })
	r := &Runtime{}
	r.init()
	r.fork.f = fake
	got := make(chan error, 1)
	go func() {
		w, err := r.forkInit(kindNetns)
		if w != nil {
			t.Error("an init whose move failed was handed out")
		}
		got <- err
	}()
	answerFork(t, peer, forkMsg{Type: msgForked, Pid: clone.Process.Pid, MoveErr: "cgroup: add: simulated"}, clone.Process.Pid)
	if err := <-got; err == nil || !strings.Contains(err.Error(), "simulated") {
		t.Errorf("forkInit: %v, want the move's failure", err)
	}
	if err := clone.Wait(); err == nil || clone.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("the init whose move failed was not killed: %v", err)
	}
}

// fakeForker is a forker whose process is a stand-in (sleep) and whose
// socket's other end, peer, the test speaks through.
func fakeForker(t *testing.T) (f *forker, peer *os.File, cmd *exec.Cmd) {
	t.Helper()
	sock, peer, err := socketpair()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.Close() })
	cmd = exec.Command("/bin/sleep", "30")
	if err := cmd.Start(); err != nil {
		sock.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // the forker's read reaps it
	return newForker(cmd, sock), peer, cmd
}

// ctlPair is a control socket pair for a request to a forker: the end
// this process keeps and the init's, both closed when the test ends.
func ctlPair(t *testing.T) (ctl, child *os.File) {
	t.Helper()
	ctl, child, err := socketpair()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctl.Close(); child.Close() })
	return ctl, child
}

// answerFork reads the next request on a fake forker's peer and answers
// it with reply (its Seq filled in) and a pidfd of pid.
func answerFork(t *testing.T, peer *os.File, reply forkMsg, pid int) {
	t.Helper()
	b, fds, err := recvBytes(int(peer.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	closeAll(fds)
	req, err := decodeForkMsg(b)
	if err != nil {
		t.Fatal(err)
	}
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pidfd)
	reply.Seq = req.Seq
	if err := sendBytes(int(peer.Fd()), reply.encode(), pidfd); err != nil {
		t.Fatal(err)
	}
}
