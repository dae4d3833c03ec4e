//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt38PlantScript plants, in the writable root, one tree of 1,000 empty
// directories (t/) and N bare-looking .git directories (r/rN/.git) that
// hold nothing but a symbolic link modules -> ../../../t. Each .git is no
// risk by riskyGitDir's judgement (no hooks, no config), so it is never
// disabled, and stays for every later run.
const rt38PlantScript = `
import os, sys
W, n = sys.argv[1], int(sys.argv[2])
os.makedirs(W + "/t", exist_ok=True)
for i in range(1000):
    os.mkdir(W + "/t/d%d" % i)
os.makedirs(W + "/r", exist_ok=True)
for i in range(n):
    g = W + "/r/r%d/.git" % i
    os.makedirs(g)
    os.symlink("../../../t", g + "/modules")
print("planted", n)
`

// TestRedteam38InnerScanAmplified: a command plants N .git directories
// whose modules entry is a symbolic link to one shared tree of 1,000
// directories. agentbox's walk for submodule git directories
// (innerGitDirs) lists with os.ReadDir, which follows the link, and its
// bound (gitDirScanMax = 1000 directories) is per repository, not per
// root: so every sweep after a run, and every plan before one
// (protectRepositories -> innerGitKeys), does N x 1,000 directory
// listings (plus two lstats per entry) that the command paid for with N
// mkdirs and N symlinks. The repositories are judged harmless, so they
// are never disabled: every later command on that writable root (the
// CLI's `exec --write DIR` too) spends as long before it starts, with no
// context or deadline honoured. Here N = 300 makes the next run take
// ~6 s (500: ~12 s, 1,000: ~20 s); N up to gitScanMaxDirs (50,000) makes it ~hours.
// The same link also makes agentbox list host directories outside the
// writable root (modules -> /home/user), naming entries with a HEAD or
// config (.ssh) in its planted-repository reports.
//
// Severity: medium (a lasting denial of service of a writable root and
// of the caller's Exec, from a sandboxed command; an unconfined listing
// of host directories).
//
// Found by red-team round 38; fixed: the inner walks of a root's
// repositories share one budget per phase (innerScanBudget), list beneath
// the git directory without following links, and take a modules or
// worktrees that is a link for a risk to judge whole; a repository whose
// walk a bound cuts short keeps modules and worktrees read-only whole.
//
// Control: the user's repository ctl/ in the same root is found and its
// hooks stay read-only in the timed run.
func TestRedteam38InnerScanAmplified(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 needed")
	}
	n := 300
	if s := os.Getenv("RT38_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	w := hostDir(t)
	if err := os.Chmod(w, 0o777); err != nil {
		t.Fatal(err)
	}
	ctl := filepath.Join(w, "ctl")
	if out, err := exec.Command("git", "init", "-q", ctl).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	m := newManager(t, agentbox.CIConfig())
	opts := []agentbox.Option{agentbox.WithWritableRoots(w), agentbox.WithWorkingDir(w), agentbox.WithTimeout(60 * time.Second)}

	start := time.Now()
	res, err := m.ExecArgs(context.Background(), "python3", []string{"-c", rt38PlantScript, w, strconv.Itoa(n)}, opts...)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("plant: %v %+v", err, res)
	}
	t.Logf("plant run (with its sweep): %v, %d violations", time.Since(start), len(res.Violations))

	start = time.Now()
	res, err = m.Exec(context.Background(), "echo x > ctl/.git/hooks/pre-commit 2>/dev/null && echo hookwritten; echo ran", opts...)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	t.Logf("second run on the same root: %v", took)
	if !strings.Contains(res.Stdout, "ran") || strings.Contains(res.Stdout, "hookwritten") {
		t.Errorf("control: the user's repository ctl was not protected (stdout %q)", res.Stdout)
	}
	if took > 4*time.Second {
		t.Errorf("a later run on the root took %v: agentbox walked %d x 1000 directories through the planted modules links", took, n)
	}
}
