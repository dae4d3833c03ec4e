//go:build linux && amd64

package agentbox_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/probes"
)

// fix27ReducedTHP runs probes.THPScript from a shell.
const fix27ReducedTHP = "python3 -c '" + probes.THPScript + "'"

// fix27Vmsplice vmsplices 4 KiB into a pipe, then splices 4 KiB of a
// file into it, and prints what each got.
const fix27Vmsplice = `
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
buf = ctypes.create_string_buffer(4096)
r, w = os.pipe()
n = libc.vmsplice(w, ctypes.byref(iovec(ctypes.addressof(buf), 4096)), 1, 0)
print("vmsplice", "refused %d" % ctypes.get_errno() if n < 0 else n)
f = os.open("/usr/bin/python3", os.O_RDONLY)
try:
    print("splice", os.splice(f, w, 4096, offset_src=0))
except OSError as e:
    print("splice refused", e.errno)
`

// TestFix27ReducedHugePagesOff: the reduced tier's init, on the monitor
// path (a memory limit no cgroup enforces), turns transparent huge pages
// off for the program as the full tier's does, and refuses vmsplice
// (TestRedteam27MonitorMissesVmsplicedHugePages) and splice
// (TestFix27MonitorPathPageCachePipes).
func TestFix27ReducedHugePagesOff(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs python3")
	}
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(b), "[never]") {
		t.Skipf("no transparent huge pages here: %q %v", b, err)
	}
	vmsplice := ` && python3 -c '` + fix27Vmsplice + `'`
	s := rt9Scenario{API: "exec", Script: fix27ReducedTHP + vmsplice, Timeout: 20 * time.Second, CountedMemory: 64 << 20}
	o := rt10RunReduced(t, hostDir(t), s)
	t.Logf("exit %d: %s", o.Code, o.Stdout)
	for _, want := range []string{"THP_enabled 0", "AnonHugePages 0\n", "clear refused 1", "set ok", "vmsplice refused 1", "splice refused 22"} {
		if !strings.Contains(o.Stdout, want) {
			t.Errorf("want %q in the output", want)
		}
	}
}
