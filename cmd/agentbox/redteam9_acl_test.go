//go:build linux

package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// rt9ACLScript makes ARGV[2] directories under ARGV[1] and gives each an
// access and a default POSIX ACL of ARGV[3] ACL_USER entries (all naming
// the caller's own uid: the kernel takes duplicates), through the
// system.posix_acl_* attributes, then reports "survived", waits 3 s and
// reports "alive". tmpfs keeps an ACL only in memory (struct posix_acl,
// 8 bytes an entry: some 64 KiB for 8,000), charged to neither its blocks
// nor its inode space.
const rt9ACLScript = `
import os, struct, sys, time
d, ndirs, nent = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
uid = os.getuid()
acl = struct.pack("<I", 2) + struct.pack("<HHI", 1, 7, 0xffffffff)
acl += struct.pack("<HHI", 2, 7, uid) * nent
acl += struct.pack("<HHI", 4, 7, 0xffffffff) + struct.pack("<HHI", 0x10, 7, 0xffffffff) + struct.pack("<HHI", 0x20, 7, 0xffffffff)
base = d + "/rt9acl"
os.makedirs(base, exist_ok=True)
for i in range(ndirs):
    p = "%s/d%d" % (base, i)
    os.mkdir(p)
    if nent >= 0:
        os.setxattr(p, "system.posix_acl_access", acl)
        os.setxattr(p, "system.posix_acl_default", acl)
st = os.statvfs(d)
print("survived: %d directories with two ACLs of %d entries each; blocks used %d KiB, inodes used %d" % (
    ndirs, nent, (st.f_blocks - st.f_bfree) * st.f_frsize >> 10, st.f_files - st.f_ffree), flush=True)
time.sleep(3)
print("alive", flush=True)
`

// TestRedteam9MonitorMissesTmpfsACLs: red team 8's fix counts the memory
// areas' blocks and inode space (statfs), which hold file data, inodes
// and user extended attributes. POSIX ACLs are neither: tmpfs keeps them
// as struct posix_acl in kernel memory (simple_set_acl), charged to
// nothing statfs shows, and the kernel takes an ACL of some 8,000 entries
// (XATTR_SIZE_MAX) even when every entry names the same uid. 4,000
// directories in /tmp, each with an access and a default ACL of 8,000
// entries, hold about 500 MiB of unreclaimable kernel memory
// (/proc/meminfo's SUnreclaim grows by as much) under max_memory_mb 256,
// while the monitor sees 4,000 inodes (4 MiB); the run exits 0. The
// 65,536 inodes the limit allows would hold some 8 GiB. The run must end
// 137 for the memory limit, or setting the ACLs must fail before they
// pass the limit; an ordinary ACL (a few entries, what setfacl -m u:…
// makes) must still work.
//
// Fixed: the seccomp filter answers a setxattr whose value is over 128
// bytes EOPNOTSUPP (maxXattrValue), as a filesystem without extended
// attributes does: seccomp cannot read the attribute's name, and no count
// sees an ACL. The control is the same directories without ACLs (red team
// 10's TestRedteam10CopyInDefaultACLProject copies small ACLs).
func TestRedteam9MonitorMissesTmpfsACLs(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt9-acl\nlimits: {max_memory_mb: 256, max_duration: 15s}\n")
	path := m.file(t, "acl.py", rt9ACLScript)
	for _, tc := range []struct {
		name, dirs, entries string
		ok                  bool // a legitimate use: exit 0
	}{
		{"control_dirs_without_acls", "20", "-1", true},
		{"tmp_4000_dirs_8000_entries", "4000", "8000", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 20*time.Second, path, "/tmp", tc.dirs, tc.entries)
			monitored(t, code, errOut)
			rtMemoryVerdict(t, tc.ok, code, out, errOut, "OSError", tc.name+": ACLs of some 500 MiB")
		})
	}
	// The same as root, whose run gets a memory cgroup: the kernel
	// charges struct posix_acl to no cgroup either (posix_acl_alloc
	// allocates without __GFP_ACCOUNT), so it escapes there too.
	t.Run("cgroup_as_root", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root for a memory cgroup")
		}
		runEnv(t)
		a := startCLI(t, "run", "--manifest", manifest, "--", "/usr/bin/python3", path, "/tmp", "4000", "8000")
		code := a.wait(t, 20*time.Second)
		if !strings.Contains(a.stderr.String(), "via cgroup") {
			t.Skipf("root got no cgroup here: %q", a.stderr.String())
		}
		out, errOut := a.stdout.String(), a.stderr.String()
		if code == 137 && !strings.Contains(out, "alive") {
			return
		}
		if code != 0 && !strings.Contains(out, "survived") && strings.Contains(errOut, "OSError") {
			return
		}
		t.Errorf("ESCAPE: ACLs of some 500 MiB past max_memory_mb 256 under a memory cgroup: exit %d, want 137 or the ACLs refused\nstdout %q\nstderr %q",
			code, out, errOut)
	})
}
