//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rt7MlockScript pins file pages the kernel cannot drop: 48 processes each
// map 8 MiB (RLIMIT_MEMLOCK, left as the caller's) of a sparse file on a
// writable root with MAP_LOCKED, which faults the pages in and locks them:
// 384 MiB of unevictable page cache in all. The monitor leaves RssFile out
// ("the kernel can drop them") and does not read VmLck.
const rt7MlockScript = `
import mmap, os, sys, time
path, n, lock = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "lock"
chunk = 8 << 20
MAP_LOCKED = 0x2000
kids = []
for i in range(n):
    pid = os.fork()
    if pid == 0:
        fd = os.open(path, os.O_RDONLY)
        flags = mmap.MAP_SHARED | (MAP_LOCKED if lock else 0)
        m = mmap.mmap(fd, chunk, flags=flags, prot=mmap.PROT_READ, offset=i * chunk)
        m[0:chunk]  # fault every page in
        print("pinned", flush=True)
        time.sleep(4)
        os._exit(0)
    kids.append(pid)
time.sleep(1)
print("survived: %d MiB locked" % (n * 8), flush=True)
time.sleep(2)
print("alive", flush=True)
for pid in kids:
    os.waitpid(pid, 0)
`

// TestRedteam7MonitorMissesMlockedFilePages: with max_memory_mb 256
// enforced by the monitor, the agent's processes lock 384 MiB of file
// pages in memory and the run exits 0. It must end with 137 for the memory
// limit, or fail to lock.
//
// Fixed: run's sandboxes without a cgroup get RLIMIT_MEMLOCK 0, so nothing
// is locked (ENOMEM/EAGAIN from mmap). The control: the same mappings
// unlocked, which the kernel may drop, run to their end.
func TestRedteam7MonitorMissesMlockedFilePages(t *testing.T) {
	m := rt6NewMonitored(t)
	sparse := filepath.Join(m.dir, "sparse")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 48<<23); err != nil {
		t.Fatal(err)
	}
	manifest := m.file(t, "mem.yaml", "name: rt7-mlock\nlimits: {max_memory_mb: 256, max_duration: 15s}\n")
	script := m.file(t, "mlock.py", rt7MlockScript)
	for _, tc := range []struct {
		lock   string
		killed bool
	}{{"nolock", false}, {"lock", true}} {
		t.Run(tc.lock, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 20*time.Second, script, sparse, "48", tc.lock)
			monitored(t, code, errOut)
			if !tc.killed {
				if code != 0 || !strings.Contains(out, "alive") || strings.Count(out, "pinned") != 48 {
					t.Fatalf("control: exit %d\nstdout %q\nstderr %q", code, out, errOut)
				}
				return
			}
			if strings.Count(out, "pinned") > 0 && (code != 137 || strings.Contains(out, "alive") || !strings.Contains(errOut, "memory limit exceeded")) {
				t.Errorf("ESCAPE: %d pinned lines, past max_memory_mb 256 without being killed: exit %d\nstdout %q\nstderr %q",
					strings.Count(out, "pinned"), code, out, errOut)
			}
		})
	}
}
