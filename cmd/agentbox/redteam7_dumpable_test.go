//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

// rt7NonDumpable: two processes of 200 MiB anonymous memory each (400 MiB
// past a 256 MiB limit), made not dumpable first when asked, so that a
// monitor that cannot read their smaps_rollup (ptrace access) would count
// them as nothing when it recounts by shares.
const rt7NonDumpable = `
import ctypes, os, sys, time
if len(sys.argv) > 1:
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
pid = os.fork()
held = bytearray(200 << 20)
for off in range(0, len(held), 4096):
    held[off] = 1
print("survived", flush=True)
time.sleep(3)
print("alive", flush=True)
if pid:
    os.waitpid(pid, 0)
`

// TestRedteam7MonitorNonDumpable: processes that are not dumpable are
// still counted (the monitor owns the sandbox's user namespace, so
// smaps_rollup stays readable): the run is killed for the memory limit.
func TestRedteam7MonitorNonDumpable(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt7-nd\nlimits: {max_memory_mb: 256, max_duration: 15s}\n")
	script := m.file(t, "nd.py", rt7NonDumpable)
	for _, tc := range []struct {
		name string
		args []string
	}{{"control: dumpable", nil}, {"not dumpable", []string{"x"}}} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 20*time.Second, script, tc.args...)
			monitored(t, code, errOut)
			if code != 137 || strings.Contains(out, "alive") || !strings.Contains(errOut, "memory limit exceeded") {
				t.Errorf("ESCAPE: %s: 400 MiB past max_memory_mb 256 without being killed: exit %d\nstdout %q\nstderr %q", tc.name, code, out, errOut)
			}
		})
	}
}
