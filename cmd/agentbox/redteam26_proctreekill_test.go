//go:build linux

package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRedteam26ProcTreeKillSwitch: `agentbox kill` while `agentbox run`
// runs a tree made to resist killing (a subreaper; a setsid'd, double-forked
// daemon; stopped children and a stopped program; a reader blocked opening
// a FIFO; a writer blocked on a full pipe whose reader is stopped; a
// setsid'd fork loop; an unreaped zombie). The run must end within a bound
// with 137, and no process carrying the run's unique marker (an argument
// every process of the tree inherits in its command line) remain on the
// host. The control: the same CLI runs a command that exits 3.
// Held when written (kept: the kill switch against a hostile tree).
func TestRedteam26ProcTreeKillSwitch(t *testing.T) {
	runEnv(t)
	const script = `
use POSIX; $| = 1;
syscall(157, 36, 1, 0, 0, 0);
if (!fork) { POSIX::setsid(); if (!fork) { sleep 60; exit 0 } exit 0 }
if (!fork) { kill 'STOP', $$; sleep 60; exit 0 }
POSIX::mkfifo("/tmp/rt26d-fifo", 0600);
if (!fork) { open(my $x, "<", "/tmp/rt26d-fifo"); sleep 60; exit 0 }
pipe(my $r, my $w);
if (!fork) { close $w; kill 'STOP', $$; sleep 60; exit 0 }
if (!fork) { close $r; syswrite($w, "x" x 1000000); sleep 60; exit 0 }
close $r; close $w;
if (!fork) { POSIX::setsid();
  while (1) { my $p = fork; if (defined $p && $p == 0) { select(undef, undef, undef, 0.03); exit 0 }
    select(undef, undef, undef, 0.005); 1 while waitpid(-1, WNOHANG) > 0; } }
if (!fork) { exit 0 }
print "ready\n";
kill 'STOP', $$;
`
	// In a file: the classifier (rightly) refuses the fork loop inline.
	m := writeManifest(t, "name: rt26d-kill\n")
	a, mark := startMarkedPerl(t, "rt26dkill", m, script)
	a.waitOutput(t, "ready")
	time.Sleep(100 * time.Millisecond)
	if n := len(rt26dCLIMarked(mark, false)); n < 6 {
		t.Errorf("the marker scan sees %d processes of the running tree: it is blind", n)
	}
	rec := waitAgents(t, 1)[0]
	began := time.Now()
	if code, _, errOut := runCLI(t, "kill", rec.ID); code != 0 {
		t.Fatalf("kill: %d %s", code, errOut)
	}
	code := a.wait(t, 10*time.Second)
	took := time.Since(began)
	t.Logf("run exit %d after %v; stderr %q", code, took, a.stderr.String())
	if code != 137 {
		t.Errorf("the killed run exited %d, want 137", code)
	}
	if took > 3*time.Second {
		t.Errorf("ESCAPE: the killed run took %v to return", took)
	}
	assertNoneMarked(t, mark, 500*time.Millisecond)

	if code, _, errOut := runCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", "exit 3"); code != 3 {
		t.Errorf("control: exit %d, %s", code, errOut)
	}
}

// startMarkedPerl runs the perl program script, from a file, under
// `agentbox run --manifest m` with a fresh marker (prefix plus random hex)
// as its argument, which every process of the tree inherits in its
// command line; it returns the run and the marker.
func startMarkedPerl(t *testing.T, prefix, m, script string) (*cliProcess, string) {
	t.Helper()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	mark := prefix + "-" + hex.EncodeToString(b)
	dir, err := os.MkdirTemp("/var/tmp", prefix+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	_ = os.Chmod(dir, 0o755)
	prog := filepath.Join(dir, "tree.pl")
	if err := os.WriteFile(prog, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return startCLI(t, "run", "--manifest", m, "--", "/usr/bin/perl", prog, mark), mark
}

// assertNoneMarked waits up to d for the processes carrying mark to go,
// then kills and reports those that remain.
func assertNoneMarked(t *testing.T, mark string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for len(rt26dCLIMarked(mark, false)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := rt26dCLIMarked(mark, true); len(left) > 0 {
		t.Errorf("ESCAPE: processes of the killed run remain:\n%s", strings.Join(left, "\n"))
	}
}

// rt26dCLIMarked lists the live (not zombie) processes whose command line
// holds mark, killing them if kill.
func rt26dCLIMarked(mark string, kill bool) []string {
	names, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, p := range names {
		cl, _ := os.ReadFile(p + "/cmdline")
		if !bytes.Contains(cl, []byte(mark)) {
			continue
		}
		st, err := os.ReadFile(p + "/stat")
		if err != nil {
			continue
		}
		s := string(st)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) && s[i+2] == 'Z' {
			continue
		}
		out = append(out, strings.TrimSpace(s))
		if kill {
			var pid int
			for _, c := range filepath.Base(p) {
				pid = pid*10 + int(c-'0')
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return out
}
