//go:build linux && amd64

package agentbox_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rtParentDeathScript keeps a child in the program's group and one that
// left it (setsid), and records the program's pid in $D/pids.
const rtParentDeathScript = `
use POSIX;
open(my $f, ">>", "$ENV{D}/pids") or die; print $f "$$\n"; close $f;
if (!fork) { sleep 60; exit 0 }
if (!fork) { POSIX::setsid(); sleep 60; exit 0 }
open(my $td, ">", "$ENV{D}/tmpdir") or die; print $td $ENV{TMPDIR}; close $td;
open(my $tf, ">", "$ENV{TMPDIR}/left") or die; print $tf "work"; close $tf;
open(my $rd, ">", "$ENV{D}/ready"); close $rd;
sleep 60;
`

// TestReducedTierTreeEndsWithAgentbox: in the reduced tier (no pid
// namespace), the init outlives agentbox's death long enough to end the
// program's tree, also when the init was stopped, and then exits itself.
// A stopped init re-parented to the host's init is resumed by the kernel
// anyway (its process group becomes orphaned); one re-parented to a
// subreaper in its session (here: this test) is not, and only its
// parent-death signal, SIGCONT, wakes it. The init then removes the
// tier's private temporary directory from the host's /tmp, which
// agentbox, dead, cannot (a directory per crash was left there, with
// what the program wrote in it).
func TestReducedTierTreeEndsWithAgentbox(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses a root caller")
	}
	for _, tt := range []struct {
		name      string
		stop      bool // the init is stopped when agentbox dies
		subreaper bool // this test adopts the init
	}{
		{"running init", false, false},
		{"stopped init", true, false},
		{"stopped init adopted in its session", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir, mark := hostDir(t), rt26dMark()
			cmd, so, se := rt26dStart(t, rt26dJob{Tier: "reduced", Dir: dir, Mark: mark, Script: rtParentDeathScript, Timeout: 60 * time.Second})
			if !rtAwaitFile(filepath.Join(dir, "ready"), 20*time.Second) {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("the program never got ready: %s %s", so, se)
			}
			init := rtInitOf(t, dir)
			defer func() { // what a failed run left
				_ = syscall.Kill(init, syscall.SIGKILL)
				rt26dMarked(mark, dir)
				if tt.subreaper {
					rtStopAdopting(init)
				}
			}()
			if tt.stop {
				if err := syscall.Kill(init, syscall.SIGSTOP); err != nil {
					t.Fatal(err)
				}
				for deadline := time.Now().Add(2 * time.Second); rt9State(init) != "T" && time.Now().Before(deadline); {
					time.Sleep(10 * time.Millisecond)
				}
			}
			if tt.subreaper {
				if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
					t.Fatal(err)
				}
			}
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			if left := rt26dAwaitGone(mark, dir, 1500*time.Millisecond); len(left) > 0 {
				t.Errorf("processes of the run outlived agentbox:\n%s", strings.Join(left, "\n"))
			}
			for deadline := time.Now().Add(2 * time.Second); rt9State(init) != "" && rt9State(init) != "Z"; {
				if time.Now().After(deadline) {
					t.Errorf("the init (%d) outlived agentbox: state %s", init, rt9State(init))
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			// The private temporary directory, with what the program
			// left in it, goes with the tree (the init removes it).
			b, _ := os.ReadFile(filepath.Join(dir, "tmpdir"))
			tmp := string(b)
			if !strings.HasPrefix(tmp, "/") {
				t.Fatalf("the program saw no private TMPDIR: %q", tmp)
			}
			defer os.RemoveAll(tmp)
			if _, err := os.Stat(tmp); err == nil {
				t.Errorf("the private temporary directory %s outlived the run", tmp)
			}
		})
	}
}

// rtStopAdopting ends this process's time as a subreaper and reaps what
// it adopted meanwhile: the init, killed by then, and any zombie.
func rtStopAdopting(init int) {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	_, _ = unix.Wait4(init, nil, 0, nil)
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && rt9State(pid) == "Z" {
				_, _ = unix.Wait4(pid, nil, unix.WNOHANG, nil)
			}
		}
	}
}

// rtInitOf is the reduced tier's init: the parent of the program whose pid
// leads dir/pids.
func rtInitOf(t *testing.T, dir string) int {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, "pids"))
	f := strings.Fields(string(b))
	if len(f) == 0 {
		t.Fatal("no program pid")
	}
	stat, err := os.ReadFile("/proc/" + f[0] + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	init, err := strconv.Atoi(fields[1])
	if err != nil || init <= 1 {
		t.Fatalf("the program's parent: %q", s)
	}
	return init
}
