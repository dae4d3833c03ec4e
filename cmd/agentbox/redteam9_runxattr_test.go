//go:build linux

package main

import (
	"testing"
	"time"
)

// Red team 9: the memory limit without a cgroup (rlimit+monitor), after
// red team 8's fix bounded the memory areas' inodes. Run as the
// unprivileged test user (see rt6NewMonitored).

// rt9DirXattrScript sets user extended attributes of 65,000 bytes each
// on the directory ARGV[1] (no file is created: Landlock has no say over
// setxattr) until ARGV[2] MiB of values are set or setxattr fails, then
// reports "survived", waits 3 s and reports "alive". tmpfs keeps the
// values in kernel memory and charges them to its inode space alone.
const rt9DirXattrScript = `
import os, sys, time
d, want = sys.argv[1], int(sys.argv[2]) << 20
with open("/tmp/rt9ok", "w") as f:  # ordinary work
    f.write("ok")
val = b"\1" * 65000
held, i = 0, 0
while held < want:
    os.setxattr(d, "user.rt9a%d" % i, val)
    held += len(val)
    i += 1
print("survived: %d MiB of xattrs on %s" % (held >> 20, d), flush=True)
time.sleep(3)
print("alive", flush=True)
`

// TestRedteam9MonitorMissesRunXattrs: red team 8's fix gave the memory
// areas' tmpfs (/tmp, /dev/shm, the scratch layers) nr_inodes of a
// quarter of the limit and has the monitor count its inode space. But the
// sandbox's private /run is a tmpfs of its own (plan.go's opTmpfs,
// applyOp's newTmpfsAt: size=16m, no nr_inodes), mounted read-write,
// owned by the command's uid, and left to the default inode count (half
// the host's RAM pages: some 3 million here, 3 GiB of inode space).
// Landlock keeps files from being made in it, but not setxattr on the
// directory itself: 600 MiB of user attributes on /run (kernel memory,
// /proc/meminfo's SUnreclaim grows by as much) under max_memory_mb 256,
// and the run exits 0. The monitor's statfs looks at the memory areas
// only. The run must end 137 for the memory limit, or setxattr must fail
// before the values pass the limit; a few small attributes on a file in
// /tmp (what curl or a browser set) must still work.
//
// Fixed: the seccomp filter answers a setxattr of a value over 128 bytes
// EOPNOTSUPP (maxXattrValue, see TestRedteam9MonitorMissesTmpfsACLs), and
// /run has 256 inodes. The control is the script's ordinary work without
// attributes.
func TestRedteam9MonitorMissesRunXattrs(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt9-runxattr\nlimits: {max_memory_mb: 256, max_duration: 15s}\n")
	path := m.file(t, "dirxattr.py", rt9DirXattrScript)
	for _, tc := range []struct {
		name, dir, mib string
		ok             bool // a legitimate use: exit 0
	}{
		{"control_no_xattrs", "/tmp", "0", true},
		{"run_600", "/run", "600", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 20*time.Second, path, tc.dir, tc.mib)
			monitored(t, code, errOut)
			rtMemoryVerdict(t, tc.ok, code, out, errOut, "OSError", tc.name+": "+tc.mib+" MiB of xattrs on "+tc.dir)
		})
	}
}
