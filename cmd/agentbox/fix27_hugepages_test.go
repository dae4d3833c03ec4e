//go:build linux

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// fix27THPScript prints whether transparent huge pages are on for the
// process (THP_enabled), how much of 2 MiB of aligned private memory,
// advised MADV_HUGEPAGE and written, huge pages back (AnonHugePages, kB),
// and what prctl(PR_SET_THP_DISABLE) answers when it turns them back on
// (0) and off again (1).
const fix27THPScript = `
import ctypes, mmap
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
st = [l.split()[1] for l in open("/proc/self/status") if l.startswith("THP_enabled:")]
print("THP_enabled", st[0] if st else "?")
H = 2 << 20
m = mmap.mmap(-1, 3 * H, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
base = ctypes.addressof(ctypes.c_char.from_buffer(m))
al = (base + H - 1) & ~(H - 1)
libc.madvise(al, H, 14)
ctypes.memset(al, 0x5a, H)
thp = [l.split()[1] for l in open("/proc/self/smaps_rollup") if l.startswith("AnonHugePages:")][0]
print("AnonHugePages", thp)
r = libc.prctl(41, 0, 0, 0, 0)
print("clear", "refused %d" % ctypes.get_errno() if r else "ok")
r = libc.prctl(41, 1, 0, 0, 0)
print("set", "refused %d" % ctypes.get_errno() if r else "ok")
`

// fix27HugePagesOff are the lines fix27THPScript prints where the monitor
// counts the memory: huge pages off and kept off.
var fix27HugePagesOff = []string{"THP_enabled 0", "AnonHugePages 0\n", "clear refused 1", "set ok"}

// TestFix27MonitorPathHugePagesOff: on run's monitor path the program has
// transparent huge pages off (PR_SET_THP_DISABLE, set by the init), even
// for memory it advises MADV_HUGEPAGE, and cannot turn them back on, so a
// page some kernel path pins after munmap holds 4 KiB, not 2 MiB
// (TestRedteam27MonitorMissesVmsplicedHugePages). The same script run
// outside the sandbox is the control: there the memory is a huge page
// where the kernel has one to give (logged, not required).
func TestFix27MonitorPathHugePagesOff(t *testing.T) {
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(b), "[never]") {
		t.Skipf("no transparent huge pages here: %q %v", b, err)
	}
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: fix27-thp\nlimits: {max_memory_mb: 64, max_duration: 30s}\n")
	script := m.file(t, "thp.py", fix27THPScript)
	if out, err := exec.Command("/usr/bin/python3", script).CombinedOutput(); err == nil {
		t.Logf("outside the sandbox: %q", out)
	}
	code, out, errOut := m.runArgs(t, manifest, 40*time.Second, script)
	monitored(t, code, errOut)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	for _, want := range fix27HugePagesOff {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in the output: %q", want, out)
		}
	}
}
