//go:build linux

package main

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rt10ACL is a POSIX ACL in the kernel's xattr form (what setfacl writes):
// user::rwx, user:UID:r-x, group::r-x, mask::r-x, other::r-x.
func rt10ACL(uid int) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 2)
	for _, e := range []struct {
		tag, perm uint16
		id        uint32
	}{{1, 7, ^uint32(0)}, {2, 5, uint32(uid)}, {4, 5, ^uint32(0)}, {0x10, 5, ^uint32(0)}, {0x20, 5, ^uint32(0)}} {
		b = binary.LittleEndian.AppendUint16(b, e.tag)
		b = binary.LittleEndian.AppendUint16(b, e.perm)
		b = binary.LittleEndian.AppendUint32(b, e.id)
	}
	return b
}

// TestRedteam10CopyInDefaultACLProject: a regression of today's noXattrs.
// Every setxattr now answers EOPNOTSUPP, on the writable roots' own disk
// too, where no tmpfs memory is at stake. A project directory with a
// default POSIX ACL (setfacl -d -m u:…: a team's shared checkout) gives
// every file made in it an ACL, and `cp -a`/`cp -p` of such a file —
// inside the project itself — must set that ACL on the copy: coreutils
// (gnulib's qcopy_acl) reports "preserving permissions for …: Operation
// not supported" and exits 1, where it exits 0 outside the sandbox and
// before the change. README says `cp -a` takes the refusal as a file
// system without extended attributes; for an ACL it fails instead.
// Controls: the same copy outside the sandbox, and `cp -a` of a tree
// without an ACL inside it.
//
// Fixed: only a value over 128 bytes is refused (maxXattrValue); an ACL of
// up to 15 entries is set.
func TestRedteam10CopyInDefaultACLProject(t *testing.T) {
	m := rt6NewMonitored(t)
	proj := filepath.Join(m.dir, "proj")
	plain := filepath.Join(m.dir, "plain")
	for _, d := range []string{proj, plain} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	acl := rt10ACL(m.uid)
	for _, name := range []string{"system.posix_acl_default", "system.posix_acl_access"} {
		if err := unix.Setxattr(proj, name, acl, 0); err != nil {
			if errors.Is(err, unix.EOPNOTSUPP) {
				t.Skipf("%s keeps no ACLs: %v", m.dir, err)
			}
			t.Fatal(err)
		}
	}
	// Made after the default ACL, so they inherit it, as every file a
	// developer makes there does.
	if err := os.MkdirAll(filepath.Join(proj, "sub", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(proj, "sub", "pkg", "a.go"), filepath.Join(plain, "a.go")} {
		if err := os.WriteFile(f, []byte("package a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if sz, err := unix.Getxattr(filepath.Join(proj, "sub", "pkg", "a.go"), "system.posix_acl_access", nil); err != nil || sz <= 0 {
		t.Skipf("the file did not inherit the default ACL: %d %v", sz, err)
	}
	for _, d := range []string{proj, plain} {
		if err := filepath.Walk(d, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, m.uid, m.gid)
		}); err != nil {
			t.Fatal(err)
		}
	}

	shell := func(sandboxed bool, write, script string) (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var cmd *exec.Cmd
		if sandboxed {
			cmd = m.command(ctx, "exec", "--write", write, "--", "/bin/sh", "-c", script)
		} else {
			argv := []string{"/bin/sh", "-c", script}
			if m.user != "" {
				argv = append([]string{"runuser", "-u", m.user, "--"}, argv...)
			}
			cmd = exec.CommandContext(ctx, argv[0], argv[1:]...)
		}
		cmd.Dir = m.dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("%q still running after 30 s: %s", script, out)
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}

	for _, tc := range []struct {
		name      string
		sandboxed bool
		write     string
		script    string
	}{
		{"control_outside_cp_a", false, proj, "cd " + proj + " && cp -a sub out-a && cp -p sub/pkg/a.go out-p"},
		{"control_inside_cp_a_no_acl", true, plain, "cd " + plain + " && cp -a a.go b.go && cp -p a.go c.go"},
		{"inside_cp_a_in_acl_project", true, proj, "cd " + proj + " && cp -a sub in-a"},
		{"inside_cp_p_in_acl_project", true, proj, "cd " + proj + " && cp -p sub/pkg/a.go in-p"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := shell(tc.sandboxed, tc.write, tc.script)
			if code != 0 {
				what := "REGRESSION"
				if strings.HasPrefix(tc.name, "control") {
					what = "control"
				}
				t.Errorf("%s: %s: exit %d, want 0 (a copy inside the project, as outside the sandbox)\n%s", what, tc.script, code, out)
			}
		})
	}
}
