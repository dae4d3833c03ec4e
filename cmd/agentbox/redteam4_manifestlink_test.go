//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam4ManifestThroughASymlink: run names its manifest's path in the
// sandbox's deny-write set as given, so that the agent cannot widen its own
// next run. Given through a symbolic link in a directory the sandbox shows
// (the working directory), the run fails to start (exit 125, "bind-ro ...
// is a symlink") instead of resolving the link and protecting the file it
// names. Control: the real path runs, and the agent cannot write the file.
func TestRedteam4ManifestThroughASymlink(t *testing.T) {
	runEnv(t)
	dir, proj, real, src := linkedManifestProject(t, "")
	link := filepath.Join(dir, "agent.yaml")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	script := "echo '# widened' >> " + real + " && echo WROTE; echo ok > " + filepath.Join(proj, "legit") + " && echo LEGIT"
	for _, m := range []string{real, link} {
		code, out, errOut := runCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", script)
		if strings.Contains(out, "WROTE") {
			t.Errorf("ESCAPE: through %s the agent appended to its manifest", m)
		}
		if code != 0 || !strings.Contains(out, "LEGIT") {
			t.Errorf("run --manifest %s: exit %d, stdout %q, stderr %q", m, code, out, errOut)
		}
	}
	if b, _ := os.ReadFile(real); string(b) != src {
		t.Errorf("ESCAPE: the manifest now reads %q", b)
	}
}
