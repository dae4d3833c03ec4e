//go:build linux

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRedteam10CopyUserXattrsCopes: with every setxattr answered
// EOPNOTSUPP, the common copiers of a tree whose files carry user
// extended attributes (a download's user.xdg.origin.url, say) must still
// finish with exit 0, into /tmp and into a writable root: cp -a,
// cp --preserve=all, tar --xattrs -x (a warning), shutil.copy2/copytree.
// Held: each exits 0.
func TestRedteam10CopyUserXattrsCopes(t *testing.T) {
	m := rt6NewMonitored(t)
	src := filepath.Join(m.dir, "src")
	wr := filepath.Join(m.dir, "wr")
	for _, d := range []string{filepath.Join(src, "sub"), wr} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f := filepath.Join(src, "sub", "f")
	if err := os.WriteFile(f, []byte("data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := unix.Setxattr(f, "user.xdg.origin.url", []byte("https://example.test/f"), 0); err != nil {
		t.Skipf("no user xattrs here: %v", err)
	}
	tarball := filepath.Join(m.dir, "src.tar")
	if out, err := exec.Command("tar", "--xattrs", "-cf", tarball, "-C", m.dir, "src").CombinedOutput(); err != nil {
		t.Fatalf("tar: %v %s", err, out)
	}
	for _, p := range []string{src, filepath.Join(src, "sub"), f, wr, tarball} {
		if err := os.Lchown(p, m.uid, m.gid); err != nil {
			t.Fatal(err)
		}
	}
	for _, dst := range []string{"/tmp", wr} {
		for _, tc := range []struct{ name, script string }{
			{"cp_a", "cp -a " + src + " " + dst + "/a"},
			{"cp_preserve_all", "cp -r --preserve=all " + src + " " + dst + "/b"},
			{"tar_xattrs_x", "mkdir " + dst + "/c && tar --xattrs -xf " + tarball + " -C " + dst + "/c"},
			{"shutil", "python3 -c \"import shutil; shutil.copytree('" + src + "', '" + dst + "/d'); shutil.copy2('" + f + "', '" + dst + "/e')\""},
		} {
			t.Run(filepath.Base(dst)+"/"+tc.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				cmd := m.command(ctx, "exec", "--write", wr, "--", "/bin/sh", "-c", tc.script)
				cmd.Dir = m.dir
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
				out, err := cmd.CombinedOutput()
				var ee *exec.ExitError
				if errors.As(err, &ee) || err != nil {
					t.Errorf("REGRESSION: %s: %v, want exit 0 (attributes dropped as on a file system without them)\n%s", tc.script, err, out)
				}
			})
		}
	}
}
