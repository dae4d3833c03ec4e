//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rt29LowerScript forks ARGV[2] processes; each maps ARGV[1]/lower.bin
// read-only and reads every page (when ARGV[4] is "map"), then writes
// ARGV[3] MiB of private anonymous memory and holds it 4 s. The parent
// prints "alive" when every child ended by itself.
const rt29LowerScript = `
import mmap, os, sys, time
d, procs, anon, mapit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "map"
def child():
    keep = None
    if mapit:
        fd = os.open(os.path.join(d, "lower.bin"), os.O_RDONLY)
        size = os.fstat(fd).st_size
        keep = mmap.mmap(fd, size, prot=mmap.PROT_READ)
        s = 0
        for off in range(0, size, 4096):
            s += keep[off]
    buf = bytearray(anon << 20)
    for off in range(0, len(buf), 4096):
        buf[off] = 1
    time.sleep(4)
    os._exit(0)
pids = []
for i in range(procs):
    p = os.fork()
    if p == 0:
        child()
    pids.append(p)
ok = all(os.waitpid(p, 0)[1] == 0 for p in pids)
print("alive" if ok else "a child died", flush=True)
`

// TestRedteam29MonitorScratchLowerFileHidesAnon: the exact recount of
// the memory monitor subtracts, from each process's anonymous and shmem
// shares, the Pss of every mapping whose smaps device is one of the
// memory areas' devices, and since round 8 the devices of the scratch
// overlays are among them (so that a copied-up file, whose pages are the
// areas' tmpfs's, is not counted twice). But a file of a scratch
// directory's LOWER layer (a host file; the home's tool caches, ~/.cache,
// ~/go/pkg/mod, ~/.cargo/registry, ..., are scratch overlays warm with the
// host's contents by default, often GiBs: go-build objects, downloaded
// models under ~/.cache/huggingface) is shown by
// smaps under the same overlay device, and its pages are the host disk's
// page cache (Pss_File), never part of the sum it is subtracted from.
// Mapping such a file read-only and touching its pages therefore erases
// as much of the process's real anonymous memory from the count: three
// processes each writing 150 MiB of anonymous memory (450 MiB, under
// max_memory_mb 256) while mapping a 480 MiB lower-layer file run to
// their end; without the mapping the same tree is killed (control), and
// a tree within the limit that maps the file is not killed (control).
//
// Severity: medium (with the default policy the monitor path's memory
// limit is bypassed by as much as the host files of the tool caches an
// agent can map, with no privilege and no special configuration; the
// host can be driven to OOM).
//
// Fix: subtract only what the areas' tmpfs holds: for a mapping of an
// overlay device, count just its shmem pages (the copied-up file's), e.g.
// subtract from the mapping's Pss only when its pages are shmem (smaps
// per-mapping "Pss_Shmem" where available, or tell upper from lower by
// the real inode), never Pss of file pages that were never in the sum.
//
// Fixed: of a scratch overlay's mappings, the exact count takes away only
// as much as can be shared memory: the process's Pss_Shmem less the whole
// Pss of every other mapping that may hold some (supervise's mapShares,
// mapShares.inAreas); a lower file's page cache is no Pss_Shmem.
func TestRedteam29MonitorScratchLowerFileHidesAnon(t *testing.T) {
	m := rt6NewMonitored(t)
	scratch := filepath.Join(m.dir, "scratch")
	if err := os.Mkdir(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	// The lower layer's file: a host file (sparse, so cheap on disk);
	// reading it through the mapping fills the host's page cache.
	lower := filepath.Join(scratch, "lower.bin")
	if err := os.WriteFile(lower, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(lower, 480<<20); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(scratch, m.uid, m.gid); err != nil {
		t.Fatal(err)
	}
	manifest := m.file(t, "mem.yaml", "name: rt29-lower\nlimits: {max_memory_mb: 256, max_duration: 30s}\n"+
		"permissions: {filesystem: {scratch: ["+scratch+"]}}\n")
	path := m.file(t, "lower.py", rt29LowerScript)
	for _, tc := range []struct {
		name, procs, anon, mode string
		wantAlive               bool
	}{
		{"control_within_limit_mapped", "1", "100", "map", true},
		{"control_over_limit_unmapped", "3", "150", "nomap", false},
		{"attack_over_limit_mapped", "3", "150", "map", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 40*time.Second, path, scratch, tc.procs, tc.anon, tc.mode)
			monitored(t, code, errOut)
			alive := code == 0 && strings.Contains(out, "alive")
			switch {
			case tc.wantAlive && !alive:
				t.Errorf("FALSE KILL: %s procs x %s MiB (within the limit) failed: exit %d\nstdout %q\nstderr %q", tc.procs, tc.anon, code, out, errOut)
			case !tc.wantAlive && alive:
				t.Errorf("ESCAPE: %s processes held %s MiB of anonymous memory each (mapping: %s) under max_memory_mb 256 and ran to their end\nstdout %q\nstderr %q", tc.procs, tc.anon, tc.mode, out, errOut)
			}
			t.Logf("exit %d stdout %q stderr tail %q", code, out, rt29Tail(errOut, 300))
		})
	}
}

func rt29Tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
