//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rt35Tree leaves a daemon (setsid, double fork, SIGTERM/SIGHUP ignored)
// and a plain background child, prints ready, and exits 3 after a delay.
const rt35Tree = `
use POSIX; $| = 1;
$SIG{TERM} = "IGNORE"; $SIG{HUP} = "IGNORE";
if (!fork) { POSIX::setsid(); if (!fork) { sleep 60; exit 0 } exit 0 }
if (!fork) { sleep 60; exit 0 }
print "ready\n";
sleep 2;
exit 3;
`

// TestRedteam35ReleaseStalledParent: since 3f2dddf an init that reported
// the program's exit half-closes its control socket and waits (up to
// releaseWait, 2 s) for agentbox to close it, and takes that close for the
// expected one (exiting), not agentbox's death, skipping killSandbox. The
// attack stops the `agentbox run` process (SIGSTOP: a parent that is stuck)
// while the program still runs; the program then exits 3 leaving a daemon
// and a background child. Nothing of the tree may outlive the program's
// report by more than killOrphans plus the release wait, although agentbox
// never closes its end; resumed, agentbox must report exit 3. A second run
// kills agentbox (SIGKILL) under a running tree: the tree must die. Held
// (kept: the stalled-parent path of awaitRelease and the parent-death path
// with the watch handed over).
func TestRedteam35ReleaseStalledParent(t *testing.T) {
	runEnv(t)
	m := writeManifest(t, "name: rt35-release\n")
	a, mark := startMarkedPerl(t, "rt35rel", m, rt35Tree)
	a.waitOutput(t, "ready")
	if n := len(rt26dCLIMarked(mark, false)); n < 3 {
		t.Errorf("control: the marker scan sees %d processes of the tree", n)
	}
	if d := rt35Descendants(a.cmd.Process.Pid); len(d) < 2 {
		t.Errorf("control: the descendant scan sees %d processes below agentbox run", len(d))
	}
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// The program exits at ~2 s; the init's release wait ends 2 s later.
	time.Sleep(2 * time.Second)
	cli := strconv.Itoa(a.cmd.Process.Pid) + " "
	tree := func() []string {
		var out []string
		for _, s := range rt26dCLIMarked(mark, false) {
			if !strings.HasPrefix(s, cli) {
				out = append(out, s)
			}
		}
		return out
	}
	deadline := time.Now().Add(8 * time.Second)
	for len(tree()) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	left := tree()
	time.Sleep(2500 * time.Millisecond)
	if d := rt35Descendants(a.cmd.Process.Pid); len(d) > 0 {
		t.Errorf("processes below the stopped agentbox run 4.5 s after the program's exit (an init that does not end its release wait?):\n%s", strings.Join(d, "\n"))
	}
	_ = a.cmd.Process.Signal(syscall.SIGCONT)
	if len(left) > 0 {
		t.Errorf("processes of the tree outlive the program's exit while agentbox is stopped:\n%s", strings.Join(left, "\n"))
	}
	if code := a.wait(t, 10*time.Second); code != 3 {
		t.Errorf("resumed agentbox run exited %d, want 3 (stderr %q)", code, a.stderr.String())
	}
	assertNoneMarked(t, mark, time.Second)

	// agentbox killed under a running tree.
	b, mark2 := startMarkedPerl(t, "rt35kil", m, strings.Replace(rt35Tree, "sleep 2;", "sleep 60;", 1))
	b.waitOutput(t, "ready")
	if err := b.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	assertNoneMarked(t, mark2, 3*time.Second)
}

// rt35Descendants lists the live processes below pid (stat lines).
func rt35Descendants(pid int) []string {
	names, _ := filepath.Glob("/proc/[0-9]*/stat")
	parent := map[int]int{}
	stat := map[int]string{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+2 >= len(s) || s[i+2] == 'Z' {
			continue
		}
		f := strings.Fields(s[i+2:])
		p, _ := strconv.Atoi(filepath.Base(filepath.Dir(n)))
		pp, _ := strconv.Atoi(f[1])
		parent[p], stat[p] = pp, strings.TrimSpace(s)
	}
	var out []string
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, stat[p])
				break
			}
		}
	}
	return out
}
