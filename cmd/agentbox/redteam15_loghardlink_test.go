//go:build linux

package main

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Red team 15 (held): an agent hard-linking its audit log into its
// writable root, to rewrite it from there in this or a later run (a hard
// link keeps the inode, and the location check judges only the log's own
// name). The log's directory is a read root of the manifest, so the agent
// sees the directory; the live log, its checkpoints and lock are masked by
// mounts, and any other file of the directory lies on another mount than
// the writable root: link(2) fails with EXDEV. Run as an unprivileged user,
// as agentbox is meant to be used.
func TestRedteam15AgentHardLinksAuditLog(t *testing.T) {
	name, bin := rt4OtherUser(t)
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	base, err := os.MkdirTemp("", "r15b-hardlink-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	proj := filepath.Join(base, "proj")
	work := filepath.Join(proj, "work")
	for _, d := range []string{proj, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(proj, "audit.log")
	m := filepath.Join(base, "agent.yaml")
	src := "name: linker\npermissions:\n  filesystem: {read: [" + proj + "], write: [" + work + "]}\naudit: {log_level: standard, log_path: " + logPath + "}\n"
	if err := os.WriteFile(m, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{base, proj, work, m} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"AGENTBOX_STATE_DIR=" + filepath.Join(base, "state")}
	if code, out, errOut := r15bAsUserIn(t, work, name, bin, env, "run", "--manifest", m, "--", "/bin/true"); code != 0 {
		t.Fatalf("first run: exit %d %q %q", code, out, errOut)
	}
	if code, out, errOut := r15bAsUserIn(t, work, name, bin, env, "audit", "rotate", "--log", logPath); code != 0 {
		t.Fatalf("rotate: exit %d %q %q", code, out, errOut)
	}
	if code, out, errOut := r15bAsUserIn(t, work, name, bin, env, "run", "--manifest", m, "--", "/bin/true"); code != 0 {
		t.Fatalf("second run: exit %d %q %q", code, out, errOut)
	}
	rotated, _ := filepath.Glob(logPath + ".2*Z")
	if len(rotated) != 1 {
		t.Fatalf("rotated logs: %v", rotated)
	}
	if err := os.WriteFile(filepath.Join(work, "mine"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chown(filepath.Join(work, "mine"), uid, gid)

	cases := []struct {
		name, src string
		control   bool
	}{
		{"control: a file of the writable root", filepath.Join(work, "mine"), true},
		{"the live log", logPath, false},
		{"the live log's checkpoints", logPath + ".checkpoints", false},
		{"the rotated log", rotated[0], false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dst := filepath.Join(work, "hl"+strconv.Itoa(i))
			code, out, errOut := r15bAsUserIn(t, work, name, bin, env, "run", "--manifest", m, "--", "/bin/sh", "-c", "ln "+tc.src+" "+dst+" && echo LINKED")
			linked := strings.Contains(out, "LINKED")
			var same bool
			var a, b syscall.Stat_t
			if syscall.Stat(tc.src, &a) == nil && syscall.Stat(dst, &b) == nil {
				same = a.Dev == b.Dev && a.Ino == b.Ino
			}
			if tc.control {
				if !linked || !same {
					t.Fatalf("control: link in the writable root failed: exit %d %q %q", code, out, errOut)
				}
				return
			}
			if same {
				t.Errorf("attack succeeded: the agent hard-linked %s into its writable root as %s", tc.src, dst)
			} else if linked {
				t.Logf("linked something else (a mask?) as %s", dst)
			}
		})
	}
}
