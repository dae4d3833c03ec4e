//go:build linux && amd64

package agentbox_test

import (
	"os"
	"strings"
	"testing"
	"time"
)

// rt26DevZero maps the host's /dev/zero shared and writable in the reduced
// tier, writes 256 MiB through it 16 MiB at a time, dropping each chunk
// from the page tables (MADV_DONTNEED) as it goes, and prints HELD when it
// is all in. The controls print: /dev/zero read, a private mapping of it
// written, shared anonymous memory refused.
const rt26DevZero = `python3 -c '
import mmap, os
with open("/dev/zero", "rb") as f:
    assert f.read(4096) == bytes(4096)
    m = mmap.mmap(f.fileno(), 1 << 20, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    m[:5] = b"hello"; assert m[:5] == b"hello"
print("control: read and private mapping ok")
try:
    mmap.mmap(-1, 1 << 20)
    print("shared anonymous mapped")
except OSError as e:
    print("control: shared anonymous refused", e.errno)
try:
    fd = os.open("/dev/zero", os.O_RDWR)
except OSError as e:
    print("attack: open for writing refused", e.errno); raise SystemExit(0)
size, chunk = 256 << 20, 16 << 20
m = mmap.mmap(fd, size, flags=mmap.MAP_SHARED)
for off in range(0, size, chunk):
    m[off:off + chunk] = b"x" * chunk
    m.madvise(mmap.MADV_DONTNEED, off, chunk)
print("HELD", m[size - 1:size])
'`

// TestRedteam26ReducedDevZeroShared: on the monitor path (a memory limit no
// cgroup enforces) the full tier's /dev/zero is /dev/full, since a shared
// mapping of /dev/zero is a shmem object whose pages, once dropped from
// the page tables, no per-process count sees
// (TestRedteam26MonitorMissesZappedSharedAnonymous). The reduced tier has
// no /dev of its own: its programs open the host's /dev/zero, which
// Landlock granted for writing as a device. A 64 MiB limit then held 256
// MiB (medium: the monitor path's memory limit, in the tier).
//
// Fixed: without a memory cgroup the reduced tier's Landlock grants
// /dev/zero for reading only (init.go): a shared mapping needs a
// descriptor open for writing to be writable, and a read-only one
// allocates nothing when read. Reading it and mapping it privately still
// work.
func TestRedteam26ReducedDevZeroShared(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3")
	}
	s := rt9Scenario{API: "exec", Script: rt26DevZero + " 2>&1", Timeout: 20 * time.Second, CountedMemory: 64 << 20}
	o := rt10RunReduced(t, hostDir(t), s)
	t.Logf("exit %d: %s", o.Code, o.Stdout)
	if !strings.Contains(o.Stdout, "control: read and private mapping ok") {
		t.Fatalf("the control failed: /dev/zero cannot be read or mapped privately")
	}
	if !strings.Contains(o.Stdout, "control: shared anonymous refused") {
		t.Errorf("shared anonymous memory was not refused without a memory cgroup")
	}
	if strings.Contains(o.Stdout, "HELD") {
		t.Errorf("ESCAPE: 256 MiB held through a shared mapping of /dev/zero under a 64 MiB limit")
	}
	if !strings.Contains(o.Stdout, "attack: open for writing refused") {
		t.Errorf("/dev/zero opened for writing")
	}
}
