//go:build linux && amd64

package agentbox_test

import (
	"os"
	"strings"
	"testing"
	"time"
)

// rt26iScript tries, from inside a reduced-tier program, to stop, continue
// or kill its init through every thread id of it (the kept thread
// included), then runs legitimate signalling workloads: bash job control
// and python asyncio subprocess signalling (which uses pidfd_send_signal,
// answered ENOSYS, then kill(2)).
const rt26iScript = `
$| = 1;
my $init = getppid();
opendir(my $d, "/proc/$init/task");
my @tids = grep { /^\d+$/ } readdir($d);
my $hit = 0;
for my $t (@tids) {
  for my $sig (19, 18, 9) { # SIGSTOP, SIGCONT, SIGKILL
    if (kill($sig, $t)) { $hit++; print "HIT kill $sig $t\n"; }
    if (syscall(200, $t, $sig) == 0) { $hit++; print "HIT tkill $sig $t\n"; }
    if (syscall(234, $init, $t, $sig) == 0) { $hit++; print "HIT tgkill $sig $t\n"; }
  }
}
print "tids=" . scalar(@tids) . " hits=$hit\n";
my $b = qx{/bin/bash -c 'sleep 30 & kill -STOP %1; kill -CONT %1; kill %1; wait; echo bashok' 2>&1};
print "bash:$b";
my $p = qx{/usr/bin/python3 -c '
import asyncio, signal
async def main():
    p = await asyncio.create_subprocess_exec("sleep", "30")
    p.send_signal(signal.SIGTERM)
    rc = await p.wait()
    print("pyok", rc)
asyncio.run(main())
' 2>&1};
print "py:$p";
`

// TestRedteam26InitSignal: in the reduced tier the program names every
// thread of its init (the kept thread too) with kill, tkill and tgkill
// for SIGSTOP, SIGCONT and SIGKILL: none may reach it (a stopped or killed
// init could not end the tree; a SIGCONT could only be forwarded since the
// parent is unchanged). Controls: bash job control and python asyncio's
// subprocess signalling still work and do not hang. Passing test: covers
// the seccomp keeper rules of a8d9d63 end to end with real workloads.
func TestRedteam26InitSignal(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses a root caller")
	}
	dir, mark := hostDir(t), rt26dMark()
	cmd, so, se := rt26dStart(t, rt26dJob{Tier: "reduced", Dir: dir, Mark: mark, Script: rt26iScript, Timeout: 40 * time.Second})
	_ = cmd.Wait()
	o := rt26dDecode(t, so, se)
	t.Logf("out: %s err: %s code %d degraded %v (%d ms)", o.Stdout, o.Stderr, o.Code, o.Degraded, o.Millis)
	if o.TimedOut || o.Millis > 30000 {
		t.Errorf("the program hung (timed out %v, %d ms)", o.TimedOut, o.Millis)
	}
	if strings.Contains(o.Stdout, "HIT") || !strings.Contains(o.Stdout, "hits=0") {
		t.Errorf("a signal reached the init: %s", o.Stdout)
	}
	if !strings.Contains(o.Stdout, "bashok") {
		t.Errorf("bash job control failed: %s", o.Stdout)
	}
	if !strings.Contains(o.Stdout, "pyok -15") {
		t.Errorf("python asyncio subprocess signalling failed: %s", o.Stdout)
	}
}
