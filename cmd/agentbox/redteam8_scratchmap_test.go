//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rt8MapScript maps ARGV[2] MiB of a new file in the directory ARGV[1]
// MAP_SHARED (as sqlite, LMDB or a model loader may), writes every page
// and holds it 2 s.
const rt8MapScript = `
import mmap, os, sys, time
size = int(sys.argv[2]) << 20
fd = os.open(os.path.join(sys.argv[1], "rt8data"), os.O_RDWR | os.O_CREAT, 0o600)
os.ftruncate(fd, size)
m = mmap.mmap(fd, size)
for off in range(0, size, 4096):
    m[off] = 1
print("survived: %s MiB mapped in %s" % (sys.argv[2], sys.argv[1]), flush=True)
time.sleep(2)
print("alive", flush=True)
`

// TestRedteam8MonitorDoubleCountsMappedScratchFiles: a file a command
// writes in a scratch directory (an overlay whose upper layer is on the
// memory areas' tmpfs) and maps is counted twice: once in the tmpfs's
// use, and again as the process's Pss_Shmem, since smaps names the
// overlay's device, not the areas', and the exact count subtracts only
// mappings of the areas' device. A legitimate run that maps 150 MiB there
// under max_memory_mb 256 is killed "for the memory limit"; the same file
// in /dev/shm (the control) runs to its end.
//
// Fixed: the monitor takes the devices of the overlays whose upper layer
// lies in the memory areas (the init's mountinfo) as the areas' own
// (scratchOverlays, deviceKinds); since red team 29, only as much of
// their mappings as the process's Pss_Shmem can hold (mapShares).
func TestRedteam8MonitorDoubleCountsMappedScratchFiles(t *testing.T) {
	m := rt6NewMonitored(t)
	scratch := filepath.Join(m.dir, "scratch")
	if err := os.Mkdir(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(scratch, m.uid, m.gid); err != nil {
		t.Fatal(err)
	}
	manifest := m.file(t, "mem.yaml", "name: rt8-scratch\nlimits: {max_memory_mb: 256, max_duration: 15s}\n"+
		"permissions: {filesystem: {scratch: ["+scratch+"]}}\n")
	path := m.file(t, "map.py", rt8MapScript)
	for _, tc := range []struct{ name, dir string }{
		{"control_dev_shm", "/dev/shm"},
		{"scratch_overlay", scratch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 20*time.Second, path, tc.dir, "150")
			monitored(t, code, errOut)
			if code != 0 || !strings.Contains(out, "alive") {
				t.Errorf("FALSE KILL: %s holds 150 MiB under max_memory_mb 256 but the run failed: exit %d\nstdout %q\nstderr %q", tc.name, code, out, errOut)
			}
		})
	}
}
