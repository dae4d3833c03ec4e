//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRedteam18MemoryRootCheckBypassed: the fix for
// TestRedteam15MonitorMissesTmpfsWritableRoot (supervise.memoryRoots)
// refuses a writable root whose files are memory, "or with such a mount
// inside it", when max_memory_mb is declared and no memory cgroup enforces
// it. The root itself is judged by statfs (which follows links), but the
// mounts inside it by comparing mountinfo's mount points with the root's
// path as the manifest names it, and by the file system's name (tmpfs,
// ramfs):
//   - a root named through a symbolic link (~/proj -> /data/proj) whose
//     build directory is a tmpfs: mountinfo names /data/proj/mem, which is
//     not textually within ~/proj, so the mount is not seen;
//   - an overlay mount inside the root whose upper layer is a tmpfs: its
//     files are memory, but its name is "overlay".
//
// Either way the agent writes 192 MiB of host RAM under max_memory_mb 64
// and runs to its end. The control: the same tmpfs named through its real
// path is refused (exit 125).
//
// Fixed: memoryRoots resolves each root's links and judges the mount the
// root lies on and every mount inside it, an overlay by the file system
// of its upper layer.
func TestRedteam18MemoryRootCheckBypassed(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount the tmpfs the user's project would have")
	}
	m := rt6NewMonitored(t)
	real := filepath.Join(m.dir, "real") // a project with a tmpfs build directory
	mem := filepath.Join(real, "mem")
	proj2 := filepath.Join(m.dir, "proj2") // a project with an overlay on a tmpfs
	ov := filepath.Join(proj2, "ov")
	backing := filepath.Join(m.dir, "backing")
	lower := filepath.Join(m.dir, "lower")
	for _, d := range []string{real, mem, proj2, ov, backing, lower} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mount := func(src, dst, fstype, data string) {
		t.Helper()
		if err := unix.Mount(src, dst, fstype, 0, data); err != nil {
			t.Skipf("mount %s: %v", fstype, err)
		}
		t.Cleanup(func() { _ = unix.Unmount(dst, unix.MNT_DETACH) })
	}
	mount("rt18mem", mem, "tmpfs", "size=256m,mode=0777")
	mount("rt18backing", backing, "tmpfs", "size=256m,mode=0755")
	for _, d := range []string{"upper", "work"} {
		if err := os.Mkdir(filepath.Join(backing, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(filepath.Join(backing, "upper"), m.uid, m.gid); err != nil {
		t.Fatal(err)
	}
	mount("rt18ov", ov, "overlay", "lowerdir="+lower+",upperdir="+backing+"/upper,workdir="+backing+"/work")
	for _, d := range []string{real, proj2, ov} {
		if err := os.Chown(d, m.uid, m.gid); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(m.dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	script := m.file(t, "fill.py", rt15FillScript)
	for _, tc := range []struct {
		name, root, file string
		control          bool // the check holds: refused, 125
	}{
		{"control_real_path_tmpfs_inside", real, filepath.Join(mem, "big"), true},
		{"root_via_symlink_tmpfs_inside", link, filepath.Join(link, "mem", "big"), false},
		{"overlay_on_tmpfs_inside", proj2, filepath.Join(ov, "big"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			manifest := m.file(t, tc.name+".yaml", "name: rt18-memroot\npermissions:\n  filesystem:\n    write: ["+
				tc.root+"]\nlimits: {max_memory_mb: 64, max_duration: 15s}\n")
			code, out, errOut := m.runArgs(t, manifest, 25*time.Second, script, tc.file, "192")
			refused := code == 125 && strings.Contains(errOut, "keeps its files in memory") && !strings.Contains(out, "survived")
			if tc.control {
				if !refused {
					t.Errorf("control: exit %d, stdout %q, stderr %q; want 125, the tmpfs named", code, out, errOut)
				}
				return
			}
			if refused {
				return
			}
			monitored(t, code, errOut)
			if code == 0 || strings.Contains(out, "survived") {
				t.Errorf("ESCAPE: 192 MiB of host RAM held in a memory-backed mount inside the writable root %s under max_memory_mb 64 (rlimit+monitor): exit %d\nstdout %q\nstderr %q",
					tc.root, code, out, errOut)
			}
		})
	}
}
