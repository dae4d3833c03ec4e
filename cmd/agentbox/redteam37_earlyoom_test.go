//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRedteam37EarlyOOMEndsTree attacks the cgroup memory mechanism of
// `agentbox run` from the agent's side. Under cgroup v1 the kernel's OOM
// killer ends one process and the others run on; the supervisor watches
// the sandbox cgroup's oom_kill counter and ends the tree at the first
// kill. It used to count from a baseline read after the program had
// started, so a kill landing before that read would never have ended the
// tree; red-team round 37 could not make one land there (the baseline was
// read within milliseconds), and the watch now counts from zero. The
// agent here forks at its first instruction a child that allocates past
// max_memory_mb at once, then lives on and prints SURVIVED: the run must
// exit 137 with the breach reported. The control, the same program with a
// child that stays under the limit, runs to its end.
func TestRedteam37EarlyOOMEndsTree(t *testing.T) {
	runEnv(t)
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "early.c")
	if err := os.WriteFile(src, []byte(`#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>
#include <sys/wait.h>
int main(int argc, char **argv) {
	long mib = atol(argv[1]);
	pid_t p = fork();
	if (p == 0) {
		for (long i = 0; i < mib; i += 16) { char *b = malloc(16 << 20); if (!b) _exit(3); memset(b, 1, 16 << 20); }
		_exit(0);
	}
	int st; waitpid(p, &st, 0);
	printf("child done\n"); fflush(stdout);
	sleep(3);
	printf("SURVIVED\n"); fflush(stdout);
	return 0;
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "early")
	if out, err := exec.Command(gcc, "-O2", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("gcc: %v\n%s", err, out)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} { // the sandbox runs as another uid
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	manifest := writeManifest(t, fmt.Sprintf("name: rt37-earlyoom\nlimits: {max_memory_mb: 64, max_duration: 60s}\npermissions: {filesystem: {read: [%q, %q]}}\n", dir, wd))

	// Control: a child under the limit; the program runs to its end.
	p := startCLI(t, "run", "--manifest", manifest, "--", bin, "16")
	if code := p.wait(t, 30*time.Second); code != 0 || !strings.Contains(p.stdout.String(), "SURVIVED") {
		t.Fatalf("control: exit %d, stdout %q, stderr %q", code, p.stdout.String(), p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "via cgroup") {
		t.Skipf("memory is not held by a cgroup here: %q", p.stderr.String())
	}

	// Attack: a child past the limit at once.
	for i := 0; i < 3; i++ {
		p := startCLI(t, "run", "--manifest", manifest, "--", bin, "256")
		code := p.wait(t, 30*time.Second)
		if code != 137 || strings.Contains(p.stdout.String(), "SURVIVED") {
			t.Fatalf("run %d: an OOM kill in the first instants did not end the tree: exit %d, stdout %q, stderr %q",
				i, code, p.stdout.String(), p.stderr.String())
		}
		if !strings.Contains(p.stderr.String(), "memory limit exceeded") {
			t.Fatalf("run %d: no memory breach reported: %q", i, p.stderr.String())
		}
	}
}
