//go:build linux

package agentbox_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt27Descendants lists the processes below this one whose argv[0] is
// name.
func rt27Descendants(name string) []string {
	parent := map[int]int{}
	argv0 := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		parent[pid], _ = strconv.Atoi(f[1])
		c, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		argv0[pid], _, _ = strings.Cut(string(c), "\x00")
	}
	var out []string
	for pid, a := range argv0 {
		if a != name {
			continue
		}
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == os.Getpid() {
				out = append(out, fmt.Sprintf("%d", pid))
				break
			}
		}
	}
	return out
}

// TestRedteam27LifecycleCloseDuringWarm: NewManager starts a warm init in
// the background; Close right away (after 0-30 ms) races it. No init (and
// no forker) of a closed Manager may be left running 2 s after Close.
// Control: a Manager used and closed normally leaves none either.
func TestRedteam27LifecycleCloseDuringWarm(t *testing.T) {
	const init0, forker0 = "agentbox-sandbox-init", "agentbox-sandbox-forker"
	before := len(rt27Descendants(init0)) + len(rt27Descendants(forker0))
	if before != 0 {
		t.Logf("%d inits or forkers before the test", before)
	}
	for i := 0; i < 15; i++ {
		m, err := agentbox.NewManager(agentbox.CIConfig())
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			res, err := m.ExecArgs(context.Background(), "/bin/echo", []string{"ok"})
			if err != nil || strings.TrimSpace(res.Stdout) != "ok" {
				t.Fatalf("control: %v %+v", err, res)
			}
			time.Sleep(500 * time.Millisecond)
			if len(rt27Descendants(init0)) == 0 {
				t.Errorf("control: no warm init found below this process while the Manager is open")
			}
		} else {
			time.Sleep(time.Duration(rand.Intn(30)) * time.Millisecond)
		}
		t0 := time.Now()
		if err := m.Close(); err != nil {
			t.Logf("Close: %v", err)
		}
		if d := time.Since(t0); d > 5*time.Second {
			t.Errorf("Close took %v", d)
		}
	}
	time.Sleep(2 * time.Second)
	if left := append(rt27Descendants(init0), rt27Descendants(forker0)...); len(left) > before {
		t.Errorf("inits or forkers of closed Managers still run 2 s after Close: %v", left)
	}
}

// TestRedteam27LifecycleWrapCleanupRaces: Wrap's cleanup called from three
// goroutines at random moments while cmd.Wait runs in a fourth, on a
// tree with a setsid'd double fork and stopped processes. Every call
// must return within 6 s, cmd.Wait must return a failure, nothing of
// the tree may be left, and after 8 rounds no descriptor or goroutine
// may have leaked. Control: a wrapped `echo ok` run and cleaned up after
// cmd.Wait prints ok.
func TestRedteam27LifecycleWrapCleanupRaces(t *testing.T) {
	m := rt27Manager(t)
	ctx := context.Background()
	fds := func() int { e, _ := os.ReadDir("/proc/self/fd"); return len(e) }
	control := func() {
		dir := hostDir(t)
		cmd := exec.Command("/bin/echo", "ok")
		var out bytes.Buffer
		cmd.Stdout = &out
		cleanup, err := m.Wrap(ctx, cmd, agentbox.WithWorkingDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Run(); err != nil || strings.TrimSpace(out.String()) != "ok" {
			t.Fatalf("control: %v %q", err, out.String())
		}
		cleanup()
	}
	control()
	time.Sleep(500 * time.Millisecond)
	fd0, g0 := fds(), runtime.NumGoroutine()
	for round := 0; round < 8; round++ {
		dir := hostDir(t)
		marker := fmt.Sprintf("rt27w%d-%d", os.Getpid(), round)
		cmd := exec.Command("/bin/sh", "-c", rt27Tree(marker, dir))
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		var out bytes.Buffer
		cmd.Stdout = &out
		cleanup, err := m.Wrap(ctx, cmd, agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir))
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if round%2 == 0 {
			rt27WaitReady(dir, 10*time.Second)
		}
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		var wg sync.WaitGroup
		slow := make(chan string, 3)
		for g := 0; g < 3; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(rand.Intn(400)) * time.Millisecond)
				t0 := time.Now()
				cleanup()
				if d := time.Since(t0); d > 6*time.Second {
					slow <- d.String()
				}
			}()
		}
		wg.Wait()
		close(slow)
		for d := range slow {
			t.Errorf("round %d: cleanup took %s", round, d)
		}
		select {
		case err := <-waited:
			if err == nil || strings.Contains(out.String(), "survived") {
				t.Errorf("round %d: cmd.Wait reported success or the program ran on: %v %q", round, err, out.String())
			}
		case <-time.After(10 * time.Second):
			t.Errorf("round %d: cmd.Wait blocked 10 s after cleanup", round)
		}
		time.Sleep(300 * time.Millisecond)
		if left := rt27Alive(marker, true); len(left) > 0 {
			t.Errorf("round %d: processes outlived cleanup: %v", round, left)
		}
	}
	control()
	time.Sleep(3 * time.Second)
	if fd1, g1 := fds(), runtime.NumGoroutine(); fd1 > fd0+2 || g1 > g0+4 {
		t.Errorf("after 8 rounds: fds %d -> %d, goroutines %d -> %d", fd0, fd1, g0, g1)
	}
}
