//go:build linux && amd64

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rt26Exhaust forks until the kernel refuses (RLIMIT_NPROC, which the
// reduced tier sets on the init itself, process-wide, and which counts the
// user's tasks), keeping every child, then waits past the timeout. With
// $FILL=0 it forks only a few (the control).
const rt26Exhaust = `python3 -c '
import os, time, sys
fill = os.environ["FILL"] == "1"
pids, err = [], ""
while fill or len(pids) < 4:
    try:
        p = os.fork()
    except OSError as e:
        err = str(e.errno); break
    if p == 0:
        time.sleep(20); os._exit(0)
    pids.append(p)
open(os.environ["PIDS"], "a").write("".join("%d\n" % p for p in pids))
open(os.environ["PIDS"] + ".log", "a").write("forked %d %s\n" % (len(pids), err))
time.sleep(20)
' >>"$PIDS.log" 2>&1`

// TestRedteam26ReducedInitNproc: see rt26Exhaust. The init is a Go
// program that shares the program's RLIMIT_NPROC (setRlimits is
// process-wide, before the fork), so a program that takes every task the
// limit leaves could keep the init from starting an OS thread (the Go
// runtime throws on a failed clone) when the timeout comes. Held at the
// time of writing (the init had its threads already; kept as a passing
// test: it covers the shared limit). The attack: the
// program's children outlive the run (the init, out of tasks, can no
// longer carry out the timeout). The control: a few children are ended.
func TestRedteam26ReducedInitNproc(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	for _, fill := range []string{"0", "1"} {
		t.Run("fill="+fill, func(t *testing.T) {
			s := rt9Scenario{API: "exec", Script: "export FILL=" + fill + "; " + rt26Exhaust, Timeout: 3 * time.Second}
			dir := hostDir(t)
			o := rt10RunReduced(t, dir, s)
			b, _ := os.ReadFile(filepath.Join(dir, "pids.log"))
			t.Logf("log: %s; code %d err %q, %d ms", b, o.Code, o.Err, o.Millis)
			if !strings.Contains(string(b), "forked") {
				t.Fatalf("the script did not run")
			}
			if len(o.Alive) > 0 {
				t.Errorf("ESCAPE: %d of the command's processes outlived the run (%d ms, timeout %v)", len(o.Alive), o.Millis, s.Timeout)
			} else if o.Millis > 6000 {
				t.Errorf("the run took %d ms past a timeout of %v", o.Millis, s.Timeout)
			}
		})
	}
}
