//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt30Drain reads what r holds now, without waiting for more.
func rt30Drain(r *os.File) int {
	buf := make([]byte, 1<<16)
	total := 0
	for {
		_ = r.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		n, err := r.Read(buf)
		total += n
		if err != nil {
			return total
		}
	}
}

// TestRedteam30CloseWaitKillRaceStalledPipes: several sandboxed programs
// (Start and Wrap) flood stdout and stderr, each into a pipe of its own
// whose reader has stalled; while they run, the test calls Wait (or
// cmd.Wait), Kill twice, Wrap's cleanup and Manager.Close all at once, half
// of the Starts also with a timeout that fires in the middle. The attack
// looks for a hang (relay.abandon waiting on the lock a blocked write
// holds, Close waiting for a Wait that waits for the copies), a data race
// (run with -race), a panic on a second Kill or release, and bytes of the
// ended programs reaching the caller's pipes after Wait returned (stderr
// as well as stdout). Held (kept: new coverage of the races together and
// of stderr's late data): every call returns within copyDrain plus
// margin, and once drained after Wait the pipes stay empty. Control: an
// Exec before the storm runs and prints.
func TestRedteam30CloseWaitKillRaceStalledPipes(t *testing.T) {
	m, err := agentbox.NewManager(agentbox.CIConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	res, err := m.Exec(context.Background(), "echo ok")
	if err != nil || res.Stdout != "ok\n" {
		t.Fatalf("control: %+v %v", res, err)
	}
	const n = 4
	var readers []*os.File
	pipe := func() *os.File {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		readers = append(readers, r)
		t.Cleanup(func() { r.Close(); w.Close() })
		return w
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	var ps []*agentbox.Process
	for i := 0; i < n; i++ {
		cmd := exec.Command("/bin/sh", "-c", "yes out & yes err >&2")
		cmd.Stdout, cmd.Stderr = pipe(), pipe()
		var opts []agentbox.Option
		if i%2 == 0 {
			opts = append(opts, agentbox.WithTimeout(time.Duration(300+100*i)*time.Millisecond))
		}
		p, err := m.Start(context.Background(), cmd, opts...)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	var cmds []*exec.Cmd
	var cleanups []func()
	for i := 0; i < 2; i++ {
		cmd := exec.Command("/bin/sh", "-c", "yes out & yes err >&2")
		cmd.Stdout, cmd.Stderr = pipe(), pipe()
		cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithTimeout(500*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			cleanup()
			t.Fatal(err)
		}
		cmds, cleanups = append(cmds, cmd), append(cleanups, cleanup)
	}
	time.Sleep(400 * time.Millisecond)
	for _, p := range ps {
		p := p
		wg.Add(4)
		go func() { defer wg.Done(); _, _ = p.Wait() }()
		go func() { defer wg.Done(); _ = p.Kill() }()
		go func() { defer wg.Done(); _ = p.Kill() }()
		go func() { defer wg.Done(); _, _ = p.Wait() }()
	}
	for i := range cmds {
		cmd, cleanup := cmds[i], cleanups[i]
		wg.Add(3)
		go func() { defer wg.Done(); _ = cmd.Wait() }()
		go func() { defer wg.Done(); time.Sleep(100 * time.Millisecond); cleanup() }()
		go func() { defer wg.Done(); cleanup() }()
	}
	wg.Add(2)
	go func() { defer wg.Done(); _ = m.Close() }()
	go func() { defer wg.Done(); _ = m.Close() }()
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("HANG: Wait, Kill, cleanup or Close did not return within 30 s with stalled output pipes")
	}
	for _, r := range readers {
		rt30Drain(r)
	}
	time.Sleep(3 * time.Second)
	for i, r := range readers {
		if late := rt30Drain(r); late > 0 {
			t.Errorf("pipe %d (stream %d): %d bytes of an ended program arrived after Wait/cmd.Wait returned", i, i%2, late)
		}
	}
}
