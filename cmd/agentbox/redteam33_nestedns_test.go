//go:build linux

package main

import (
	"testing"
	"time"
)

// TestRedteam33KillByNameNestedNamespaces: an agent tries to put part of
// its tree where the kill switch may not reach: it asks for a user and pid
// namespace of its own (unshare(2) with CLONE_NEWUSER|CLONE_NEWPID, then a
// fork that would be pid 1 there), a user namespace alone, and a setsid'd
// double fork; then `agentbox kill NAME` (by name, not by ID as
// TestRedteam26ProcTreeKillSwitch does) must end the run with 137 and leave
// no process carrying the run's marker. Control: ps lists the agent under
// its name while it runs.
// Held when written (kept: namespace nesting and the kill by name are new).
func TestRedteam33KillByNameNestedNamespaces(t *testing.T) {
	runEnv(t)
	const script = `
use POSIX; $| = 1;
my $r = syscall(272, 0x10000000|0x20000000); my $e = $! + 0;
print "unshare-userpid=$r errno=$e\n";
if (!fork) { sleep 60; exit 0 }
$r = syscall(272, 0x10000000); $e = $! + 0;
print "unshare-user=$r errno=$e\n";
if (!fork) { POSIX::setsid(); if (!fork) { sleep 60; exit 0 } exit 0 }
print "ready\n";
sleep 60;
`
	m := writeManifest(t, "name: rt33c-nested\n")
	a, mark := startMarkedPerl(t, "rt33ckill", m, script)
	a.waitOutput(t, "ready")
	time.Sleep(200 * time.Millisecond)
	t.Logf("agent said: %q", a.stdout.String())
	if n := len(rt26dCLIMarked(mark, false)); n < 3 {
		t.Errorf("the marker scan sees %d processes of the running tree: it is blind", n)
	}
	recs := waitAgents(t, 1)
	if recs[0].Name != "rt33c-nested" {
		t.Fatalf("control: ps lists %q, want rt33c-nested", recs[0].Name)
	}
	began := time.Now()
	if code, _, errOut := runCLI(t, "kill", "rt33c-nested"); code != 0 {
		t.Fatalf("kill by name: %d %s", code, errOut)
	}
	code := a.wait(t, 15*time.Second)
	took := time.Since(began)
	t.Logf("run exit %d after %v; stderr %q", code, took, a.stderr.String())
	if code != 137 {
		t.Errorf("the killed run exited %d, want 137", code)
	}
	assertNoneMarked(t, mark, 2*time.Second)
}
