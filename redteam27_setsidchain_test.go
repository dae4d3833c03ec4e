//go:build linux && amd64

package agentbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rt27ChainC is a fork chain whose every link leaves its parent's
// session (setsid) before it forks the next and exits; with "still" it
// forks one setsid'd child that only waits (the control). Every 64th
// link writes "pid links" at the start of the file argv[1]; the chain
// ends itself argv[2] seconds after it started.
const rt27ChainC = `#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	time_t end = ts.tv_sec + atoi(argv[2]);
	if (argc > 3) { /* still */
		if (fork() == 0) { setsid(); dprintf(fd, "%d still\n", getpid()); pause(); }
		_exit(0);
	}
	for (long links = 1;; links++) {
		pid_t c = fork();
		if (c < 0) { usleep(1000); continue; }
		if (c > 0) _exit(0);
		setsid();
		if ((links & 63) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			if (ts.tv_sec >= end) _exit(0);
			char buf[64];
			memset(buf, ' ', sizeof buf);
			snprintf(buf, sizeof buf - 1, "%d %ld", getpid(), links);
			buf[sizeof buf - 2] = ' ';
			buf[sizeof buf - 1] = '\n';
			pwrite(fd, buf, sizeof buf, 0);
		}
	}
}
`

// TestRedteam27ReducedSetsidChain: red team 10's runaway chain, fixed by
// killTree (each round kills every descendant and its process group:
// "kill(-pgid) ends a group at once, a fork under way in it too"), with
// one change: every link calls setsid(2) before it forks the next, so no
// link's child stays in its parent's group and kill(-pgid) never catches a
// fork under way; each link lives only for a fork and a setsid. The
// attack: the chain still forks on the host once the run has returned
// (its heartbeat file still changes). Held at the time of writing (the
// rounds, back to back, catch a live link within the timeout's
// milliseconds); kept as a passing test: red team 10's chain stayed in
// one process group, and this one defeats the group kill. The control:
// the same program in "still" mode (one setsid'd orphan that only waits)
// is ended, and so is the script's own background sleep.
func TestRedteam27ReducedSetsidChain(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	dir := hostDir(t)
	src, exe := filepath.Join(dir, "chain.c"), filepath.Join(dir, "chain")
	if err := os.WriteFile(src, []byte(rt27ChainC), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-O1", "-o", exe, src).CombinedOutput(); err != nil {
		t.Skipf("gcc: %v\n%s", err, out)
	}
	// What outlives the init comes to this process, which reaps it.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	for _, mode := range []string{"still", "chain"} {
		t.Run(mode, func(t *testing.T) {
			beat := filepath.Join(dir, mode+".beat")
			arg := ""
			if mode == "still" {
				arg = " still"
			}
			const life = 8 // seconds the chain lives at most
			script := exe + " " + beat + " 8" + arg + ` </dev/null >/dev/null 2>&1
sleep 20 </dev/null >/dev/null 2>&1 & echo $! >>"$PIDS"
sleep 0.3; echo started; sleep 20`
			began := time.Now()
			o := rt10RunReduced(t, dir, rt9Scenario{API: "exec", Script: script, Timeout: 1500 * time.Millisecond})
			stop := rt27Reap()
			defer stop(began.Add(life * time.Second))
			t.Logf("%s: %+v", mode, o)
			if !strings.Contains(o.Err, "timed out") || len(o.Alive) > 0 {
				t.Fatalf("control: the run did not end its tree by its timeout: %+v", o)
			}
			first, _ := os.ReadFile(beat)
			time.Sleep(500 * time.Millisecond)
			second, _ := os.ReadFile(beat)
			if len(first) == 0 {
				t.Fatalf("the chain did not start")
			}
			f := strings.Fields(string(first))
			if mode == "still" {
				if len(f) > 0 && rt27PidAlive(f[0]) {
					t.Fatalf("control: the still orphan %s outlived the run", f[0])
				}
				return
			}
			if string(first) != string(second) {
				t.Errorf("ESCAPE: the setsid chain still forks on the host %d ms after the run began (%d ms run, timeout 1.5 s): %q then %q",
					time.Since(began).Milliseconds(), o.Millis, strings.TrimSpace(string(first)), strings.TrimSpace(string(second)))
			}
		})
	}
}

// rt27PidAlive reports whether the process of the decimal pid s runs.
func rt27PidAlive(s string) bool {
	b, err := os.ReadFile("/proc/" + s + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && len(b) > i+2 && b[i+2] != 'Z'
}

// rt27Reap reaps this process's children (orphans it adopted as
// subreaper) until stop's deadline has passed and none is left.
func rt27Reap() (stop func(until time.Time)) {
	done := make(chan time.Time)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var until time.Time
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid > 0 {
				continue
			}
			select {
			case until = <-done:
			default:
			}
			if !until.IsZero() && (err != nil || time.Now().After(until.Add(2*time.Second))) && time.Now().After(until) {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	return func(until time.Time) { done <- until; <-finished }
}
