//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

func rt28FDs(t *testing.T) map[string]string {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		l, _ := os.Readlink("/proc/self/fd/" + e.Name())
		out[e.Name()] = l
	}
	return out
}

func rt28TmpNames() map[string]bool {
	out := map[string]bool{}
	ents, _ := os.ReadDir(os.TempDir())
	for _, e := range ents {
		out[e.Name()] = true
	}
	return out
}

// TestRedteam28CloseLeaksUserNS: every Manager started by root whose
// sandbox idmaps a directory (a writable root or working directory owned by
// some user, root included when no init is running yet, as for Wrap) makes
// a helper user namespace per owner and keeps a descriptor of it in its
// Runtime's idmapCache (sandbox/linux/idmap.go). Runtime.Close (Manager.Close)
// never closes those descriptors: each Manager a long-lived program makes
// and Closes leaks one descriptor per owner, each pinning a user namespace
// (counted against the user's max_user_namespaces). The attack: create and
// Close Managers in a loop, each Wrapping one command in a root-owned
// directory; the process's descriptors grow by one per Manager.
//
// Severity: low (resource exhaustion of the embedding program: EMFILE after
// ~1000 Managers, and user-namespace quota; no confinement lost). Fix:
// Runtime.Close closes the idmapCache's descriptors (after the last
// sandbox that could still need them is prepared). Controls: each wrapped
// command ran. Root only (an unprivileged caller uses no idmapped mounts).
//
// Fixed: Runtime.Close closes the idmapCache's descriptors (idmapCache.close);
// a sandbox being set up uses its own duplicates (userns hands out a dup the
// caller closes), so closing the cache under it cannot pull a namespace away.
func TestRedteam28CloseLeaksUserNS(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("idmapped mounts are made for a root caller only")
	}
	dir := t.TempDir()
	round := func(i int) {
		m, err := rt27ProtectingManager()
		if err != nil {
			t.Fatal(err)
		}
		mark := "mark" + string(rune('a'+i))
		c := exec.Command("/bin/sh", "-c", "echo ok > "+mark)
		cleanup, err := m.Wrap(context.Background(), c, agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Run(); err != nil {
			t.Fatalf("control: wrapped command: %v", err)
		}
		cleanup()
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir + "/" + mark); err != nil {
			t.Fatalf("control: the wrapped command did not run: %v", err)
		}
	}
	round(0) // warm-up: process-wide descriptors opened once
	time.Sleep(500 * time.Millisecond)
	before := rt28FDs(t)
	for i := 1; i <= 5; i++ {
		round(i)
	}
	time.Sleep(500 * time.Millisecond)
	var leaked []string
	for fd, l := range rt28FDs(t) {
		if _, ok := before[fd]; !ok && strings.HasPrefix(l, "user:") {
			leaked = append(leaked, fd+" -> "+l)
		}
	}
	if len(leaked) > 0 {
		t.Errorf("5 Managers created, used and Closed left %d descriptors open: %v", len(leaked), leaked)
	}
}

// TestRedteam28CloseLeaks: a Manager that Starts sandboxes (never Waited),
// Wraps cmds (cleanup called only after Close) and Execs from other
// goroutines while Close races them must, once Close and the cleanups have
// returned, hold no descriptor, no temporary directory and no live process
// of those sandboxes (a daemonised grandchild included). Control: the same
// sandboxes ran (their marker files exist). Held (kept: covers Close racing
// Start/Wrap/Exec plus a descriptor and temp-dir count, new in round 28).
func TestRedteam28CloseLeaks(t *testing.T) {
	// A temporary directory of its own: the shared one fills with other
	// tests' entries (another package's, run beside this one) meanwhile.
	t.Setenv("TMPDIR", t.TempDir())
	dir := t.TempDir()
	// Warm-up manager so lazily opened process-wide descriptors are counted.
	if m0, err := rt27ProtectingManager(); err == nil {
		_, _ = m0.Exec(context.Background(), "true", agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir))
		m0.Close()
	}
	time.Sleep(500 * time.Millisecond)
	fdsBefore := rt28FDs(t)
	tmpBefore := rt28TmpNames()

	m, err := rt27ProtectingManager()
	if err != nil {
		t.Fatal(err)
	}
	opts := []agentbox.Option{agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir)}
	var procs []*agentbox.Process
	var cleanups []func()
	var cmds []*exec.Cmd
	for i := range 3 {
		cmd := exec.Command("/bin/sh", "-c", "echo $$ > started"+string(rune('0'+i))+"; (setsid sh -c 'echo $$ > daemon"+string(rune('0'+i))+"; sleep 300' &) ; sleep 300")
		p, err := m.Start(context.Background(), cmd, opts...)
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
		wcmd := exec.Command("/bin/sh", "-c", "echo w > wrapped"+string(rune('0'+i))+"; sleep 300")
		c, err := m.Wrap(context.Background(), wcmd, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if i != 1 { // one wrapped cmd is never started
			if err := wcmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, wcmd)
		}
		cleanups = append(cleanups, c)
	}
	for i := range 3 {
		deadline := time.Now().Add(20 * time.Second)
		for {
			_, e1 := os.Stat(dir + "/daemon" + string(rune('0'+i)))
			_, e2 := os.Stat(dir + "/wrapped" + string(rune('0'+i)))
			if e1 == nil && (e2 == nil || i == 1) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("control: sandbox %d never started", i)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// Racers: Exec/Start/Wrap from other goroutines while Close runs.
	var wg sync.WaitGroup
	var rmu sync.Mutex
	for i := range 4 {
		wg.Go(func() {
			for j := 0; j < 5; j++ {
				switch (i + j) % 3 {
				case 0:
					_, _ = m.Exec(context.Background(), "sleep 1", opts...)
				case 1:
					p, err := m.Start(context.Background(), exec.Command("/bin/sleep", "300"), opts...)
					if err == nil {
						rmu.Lock()
						procs = append(procs, p)
						rmu.Unlock()
					}
				case 2:
					c := exec.Command("/bin/sleep", "300")
					cl, err := m.Wrap(context.Background(), c, opts...)
					if err == nil {
						_ = c.Start()
						rmu.Lock()
						cleanups = append(cleanups, cl)
						cmds = append(cmds, c)
						rmu.Unlock()
					}
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	if err := m.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	wg.Wait()
	for _, c := range cleanups {
		c()
	}
	for _, c := range cmds {
		_ = c.Wait()
	}
	// A Process a racer Started while Close ran is released only by its
	// Wait: TestRedteam28StartRacingClose. Wait them all here.
	for _, p := range procs {
		_, _ = p.Wait()
	}
	time.Sleep(2 * time.Second)
	// Daemonised grandchildren must be dead: no process left in dir.
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		if err != nil || cwd != dir {
			continue
		}
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if st, _ := os.ReadFile("/proc/" + e.Name() + "/stat"); strings.Contains(string(st), ") Z ") {
			continue
		}
		t.Errorf("process %s (%q) still runs in the sandbox's directory after Close", e.Name(), strings.ReplaceAll(string(cl), "\x00", " "))
		_ = syscall.Kill(atoiOr(e.Name()), syscall.SIGKILL)
	}
	fdsAfter := rt28FDs(t)
	for fd, l := range fdsAfter {
		// user namespaces: TestRedteam28CloseLeaksUserNS
		if _, ok := fdsBefore[fd]; !ok && l != "" && !strings.HasPrefix(l, "user:") {
			t.Errorf("descriptor %s (%s) leaked after Close", fd, l)
		}
	}
	for n := range rt28TmpNames() {
		if !tmpBefore[n] && strings.Contains(n, "agentbox") {
			t.Errorf("temporary entry %s left after Close", n)
		}
	}
	ls, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ls {
		names = append(names, e.Name())
	}
	t.Logf("writable root after Close: %v", names)
	for _, n := range names {
		if !strings.HasPrefix(n, "started") && !strings.HasPrefix(n, "daemon") && !strings.HasPrefix(n, "wrapped") {
			t.Errorf("writable root keeps %s after Close", n)
		}
	}
}

func atoiOr(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestRedteam28StartRacingClose: Close promises "A program that returns
// after Close leaves nothing of its Processes in the user's writable roots,
// Wait called or not". A Start that passed checkOpen before Close began and
// reaches m.track after it (process.go: "Close began while it started: it
// ends now") is Killed and returned, but nothing releases it: Close's
// Cleanup never saw it, so its placeholders (.git naming
// /nonexistent/agentbox-holds-this-name, .envrc, .vscode, .mcp.json, ...),
// its proxy and temporary directory stay until the caller Waits a Process
// it got back from a Manager already closing. A program that shuts down
// with `defer m.Close()` while another goroutine starts a command (the
// race the attack runs: Start in a goroutine, Close a few ms later) leaves
// the user's work tree littered, git broken in it ("not a git repository").
//
// Severity: low (no confinement lost; litter and a broken work tree after a
// clean-looking shutdown, as TestRedteam27CleanupReleases was). Fix: when
// track fails, startProcess releases the killed Process itself (runs its
// Wait in the background, or Close waits for Starts in flight), or Start
// returns ErrManagerClosed after killing and releasing it. Control: a
// Process started before Close leaves nothing (Close reclaims it).
//
// Fixed: Start and Wrap pass Manager.enter, and Close waits (closeReclaim at
// most) for the calls admitted to return before Cleanup collects what to
// kill, so a Start racing Close is tracked and reclaimed by Close; one Close
// stopped waiting for finds track refusing and reclaims itself before
// returning. (Exec's capture and the verdict are now set before the Process
// is tracked: Close's reclaim Waits it at once.)
func TestRedteam28StartRacingClose(t *testing.T) {
	hit := false
	for round := 0; round < 30 && !hit; round++ {
		dir := t.TempDir()
		ctl := t.TempDir()
		m, err := rt27ProtectingManager()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rt27StartHolding(m, ctl); err != nil {
			t.Fatal(err)
		}
		started := make(chan *agentbox.Process, 1)
		go func() {
			p, err := m.Start(context.Background(), exec.Command("/bin/sleep", "300"),
				agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir))
			if err != nil {
				p = nil
			}
			started <- p
		}()
		time.Sleep(time.Duration(round%10) * 5 * time.Millisecond)
		if err := m.Close(); err != nil {
			t.Logf("Close: %v", err)
		}
		p := <-started
		if left := rt27Placeholders(ctl); len(left) > 0 {
			t.Fatalf("control: a Process started before Close left %v", left)
		}
		if p == nil {
			continue // Start refused: nothing to release
		}
		left := rt27Placeholders(dir)
		if len(left) > 0 {
			hit = true
			t.Errorf("round %d: Start returned a Process while Close ran; after Close returned (no Wait) its writable root keeps %v", round, left)
		}
		r, _ := p.Wait()
		if r != nil && r.ExitCode != 137 {
			t.Errorf("the late Process was not killed: exit %d", r.ExitCode)
		}
	}
	if !hit {
		t.Log("the race was never hit (every Start either refused or reclaimed)")
	}
}
