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

// Red team 15: max_memory_mb without a cgroup (rlimit+monitor) and a
// writable root on a memory file system of the host.

// rt15FillScript writes ARGV[2] MiB into the file ARGV[1], keeps the file
// while it reports "survived", waits 3 s, reports "alive" and removes it.
const rt15FillScript = `
import os, sys, time
path, mib = sys.argv[1], int(sys.argv[2])
chunk = b"\1" * (1 << 20)
with open(path, "wb") as f:
    for i in range(mib):
        f.write(chunk)
print("survived: %d MiB in %s" % (mib, path), flush=True)
time.sleep(3)
print("alive", flush=True)
os.unlink(path)
`

// TestRedteam15MonitorMissesTmpfsWritableRoot: a manifest that grants a
// writable root on a tmpfs of the host (a directory in /dev/shm, or in /tmp
// where /tmp is a tmpfs, or under $XDG_RUNTIME_DIR) lets the agent hold host
// RAM past max_memory_mb. The monitor counts the processes' anonymous and
// shared pages and the sandbox's own memory areas (private /tmp, /dev/shm,
// scratch), never a writable root, and a file written with write(2) is
// mapped by no process: 192 MiB under max_memory_mb 64 run to the end. (A
// memory cgroup would charge those tmpfs pages to the writer; the monitor
// has nothing like it.) The same file in the sandbox's private /dev/shm is
// refused (ENOSPC), and the same write to a writable root on disk is
// legitimate (page cache the kernel may write back and drop).
//
// Want: the run ends 137 for the memory limit, or is refused before the
// agent runs (the root's file system named), when its writable root is a
// host tmpfs; the on-disk control runs to its end.
//
// Fixed: a writable place whose files are memory (a root on a tmpfs or
// ramfs, or such a mount inside one) refuses a run whose declared
// max_memory_mb the monitor enforces (exit 125, the place named), and the
// default limit warns (supervise.memoryRoots, MemoryRootError).
func TestRedteam15MonitorMissesTmpfsWritableRoot(t *testing.T) {
	var sfs unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &sfs); err != nil || sfs.Type != unix.TMPFS_MAGIC {
		t.Skip("/dev/shm is not a tmpfs here")
	}
	m := rt6NewMonitored(t)
	shmRoot, err := os.MkdirTemp("/dev/shm", "agentbox-rt15-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shmRoot) })
	diskRoot := filepath.Join(m.dir, "work")
	if err := os.Mkdir(diskRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{shmRoot, diskRoot} {
		if err := os.Chown(d, m.uid, m.gid); err != nil {
			t.Fatal(err)
		}
	}
	script := m.file(t, "fill.py", rt15FillScript)
	for _, tc := range []struct {
		name, root string
		ok         bool // legitimate: runs to its end
	}{
		{"control_disk_root_192", diskRoot, true},
		{"tmpfs_root_192", shmRoot, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			manifest := m.file(t, tc.name+".yaml", "name: rt15-tmpfsroot\npermissions:\n  filesystem:\n    write: ["+
				tc.root+"]\nlimits: {max_memory_mb: 64, max_duration: 15s}\n")
			code, out, errOut := m.runArgs(t, manifest, 25*time.Second, script, filepath.Join(tc.root, "big"), "192")
			if !tc.ok && code == 125 && strings.Contains(errOut, tc.root+" (tmpfs) keeps its files in memory") && !strings.Contains(out, "survived") {
				return // refused before the agent ran, the place named
			}
			monitored(t, code, errOut)
			switch {
			case tc.ok:
				if code != 0 || !strings.Contains(out, "alive") {
					t.Errorf("control: exit %d, stdout %q, stderr %q; want 0", code, out, errOut)
				}
			case code == 137 && strings.Contains(errOut, "memory limit exceeded") && !strings.Contains(out, "alive"):
			case code != 0 && !strings.Contains(out, "survived"):
				// Refused before the agent could hold the memory.
			default:
				t.Errorf("ESCAPE: 192 MiB of host RAM held in a tmpfs writable root under max_memory_mb 64 (rlimit+monitor) without being killed: exit %d\nstdout %q\nstderr %q",
					code, out, errOut)
			}
		})
	}
	// With no max_memory_mb declared the default limit applies: the run
	// goes on, and says the place is not counted.
	t.Run("tmpfs_root_default_limit_warns", func(t *testing.T) {
		manifest := m.file(t, "default.yaml", "name: rt15-tmpfsroot\npermissions:\n  filesystem:\n    write: ["+shmRoot+"]\nlimits: {max_duration: 15s}\n")
		code, out, errOut := m.runArgs(t, manifest, 25*time.Second, script, filepath.Join(shmRoot, "small"), "8")
		monitored(t, code, errOut)
		if code != 0 || !strings.Contains(out, "alive") || !strings.Contains(errOut, shmRoot+" (tmpfs) keeps its files in memory, which the default memory limit does not count") {
			t.Errorf("exit %d, stdout %q, stderr %q; want 0 and the warning", code, out, errOut)
		}
	})
}
