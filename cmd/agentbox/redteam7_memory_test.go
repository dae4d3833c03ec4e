//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

// Red team 7: the memory limit without a cgroup (rlimit+monitor), after
// the fixes for red team 6. Run as the unprivileged test user (see
// rt6NewMonitored).

var rt7MemScripts = map[string]string{
	// System V message queues of the sandbox's own IPC namespace: 16 KiB
	// of kernel memory per queue (msgmnb), 32,000 queues (msgmni), in no
	// process's status, on no tmpfs, bounded by no rlimit. memfd_create and
	// shmget are refused for that reason; msgget is not.
	"sysv_msg": `
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
libc.msgsnd.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
size = 8192
buf = ctypes.create_string_buffer(8 + size)
ctypes.memmove(buf, (1).to_bytes(8, "little"), 8)
held = 0
for i in range(24000):
    q = libc.msgget(0, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
    if q < 0:
        raise SystemExit("msgget: errno %d after %d MiB" % (ctypes.get_errno(), held >> 20))
    for j in range(2):
        if libc.msgsnd(q, buf, size, 0o4000) != 0:  # IPC_NOWAIT
            raise SystemExit("msgsnd: errno %d after %d MiB" % (ctypes.get_errno(), held >> 20))
        held += size
print("survived: %d MiB in System V message queues" % (held >> 20), flush=True)
time.sleep(3)
print("alive", flush=True)
`,
	// The control: the same amount of memory mapped where the monitor
	// counts it, in processes RLIMIT_DATA does not stop one by one, is
	// killed. (A shared anonymous mapping, the control before, is refused
	// on the monitor path: TestRedteam26MonitorMissesZappedSharedAnonymous.)
	"control_mapped": rt6ForkedAnonScript(3, 125),
}

// TestRedteam7MonitorMissesMessageQueues: with max_memory_mb 256 enforced
// by the monitor, the agent holds 375 MiB of kernel memory in System V
// message queues and `agentbox run` exits 0. It must end with 137 for the
// memory limit (or have msgget refused), as the mapped control does.
func TestRedteam7MonitorMissesMessageQueues(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt7-mem\nlimits: {max_memory_mb: 256, max_duration: 15s}\n")
	for _, script := range []string{"control_mapped", "sysv_msg"} {
		t.Run(script, func(t *testing.T) {
			path := m.file(t, script+".py", rt7MemScripts[script])
			code, out, errOut := m.run(t, manifest, path, 20*time.Second)
			monitored(t, code, errOut)
			if code == 137 && strings.Contains(errOut, "memory limit exceeded") && !strings.Contains(out, "alive") {
				return
			}
			if script == "sysv_msg" && code != 0 && !strings.Contains(out, "survived") && strings.Contains(errOut, "errno 38") {
				return // msgget refused (ENOSYS), as shmget is
			}
			t.Errorf("ESCAPE: %s past max_memory_mb 256 without being killed: exit %d, want 137 for the memory limit\nstdout %q\nstderr %q",
				script, code, out, errOut)
		})
	}
}

// rt7ShmScripts are legitimate runs well under a 256 MiB limit that share
// memory through /dev/shm (what libraries use once memfd_create answers
// ENOSYS: Python's multiprocessing.shared_memory, glibc's shm_open).
var rt7ShmScripts = map[string]string{
	// The control: 96 MiB written to a file of /dev/shm, not mapped.
	"control_unmapped": `
with open("/dev/shm/data", "wb") as f:
    f.write(b"\1" * (96 << 20))
print("survived: 96 MiB in /dev/shm", flush=True)
`,
	// 150 MiB of shared memory, mapped and filled by its creator: the
	// sandbox holds 150 MiB, but the monitor counts the file on the tmpfs
	// and again the pages the process maps (RssShmem / Pss_Shmem).
	"shared_memory_150": `
from multiprocessing import shared_memory
shm = shared_memory.SharedMemory(create=True, size=150 << 20)
for off in range(0, 150 << 20, 4096):
    shm.buf[off] = 1
import time
time.sleep(1)
print("survived: 150 MiB of shared memory", flush=True)
shm.close()
shm.unlink()
`,
}

// TestRedteam7MonitorDoubleCountsMappedShm: a run that maps 150 MiB of
// /dev/shm under max_memory_mb 256 is killed "for the memory limit" with
// 300 MiB counted: the monitor adds the memory areas' tmpfs usage to the
// processes' shared pages, and a mapped file of /dev/shm is both. A
// legitimate run under the limit must run to its end, as the unmapped
// control does.
func TestRedteam7MonitorDoubleCountsMappedShm(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt7-shm\nlimits: {max_memory_mb: 256, max_duration: 15s}\n")
	for _, script := range []string{"control_unmapped", "shared_memory_150"} {
		t.Run(script, func(t *testing.T) {
			path := m.file(t, script+".py", rt7ShmScripts[script])
			code, out, errOut := m.run(t, manifest, path, 20*time.Second)
			monitored(t, code, errOut)
			if code != 0 || !strings.Contains(out, "survived") {
				t.Errorf("FALSE KILL: %s holds less than max_memory_mb 256 but the run failed: exit %d\nstdout %q\nstderr %q", script, code, out, errOut)
			}
		})
	}
}

// rt7SemScript holds kernel memory in System V semaphore sets of the
// sandbox's own IPC namespace: each set of 32,000 semaphores (semmsl) is
// some 2 MiB of kernel memory, and semmns allows a billion semaphores.
// Nothing counts it without a cgroup.
const rt7SemScript = `
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
sets = 0
for i in range(200):
    if libc.semget(0, 32000, 0o1000 | 0o600) < 0:  # IPC_PRIVATE, IPC_CREAT
        raise SystemExit("semget: errno %d after %d sets" % (ctypes.get_errno(), sets))
    sets += 1
print("survived: %d sets of 32000 semaphores" % sets, flush=True)
time.sleep(3)
print("alive", flush=True)
`

// TestRedteam7MonitorMissesSemaphores: with max_memory_mb 256 enforced by
// the monitor, the agent holds about 400 MiB of kernel memory in System V
// semaphore sets (/proc/meminfo's Slab/VmallocUsed grow by that much) and
// the run exits 0. It must end with 137 for the memory limit or have
// semget refused, as the mapped control (control_mapped) is killed.
func TestRedteam7MonitorMissesSemaphores(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt7-sem\nlimits: {max_memory_mb: 256, max_duration: 15s}\n")
	for _, tc := range []struct{ name, script string }{
		{"control_mapped", rt7MemScripts["control_mapped"]},
		{"sysv_sem", rt7SemScript},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := m.file(t, tc.name+".py", tc.script)
			code, out, errOut := m.run(t, manifest, path, 20*time.Second)
			monitored(t, code, errOut)
			if code == 137 && strings.Contains(errOut, "memory limit exceeded") && !strings.Contains(out, "alive") {
				return
			}
			if tc.name == "sysv_sem" && code != 0 && !strings.Contains(out, "survived") && strings.Contains(errOut, "errno 38") {
				return // semget refused (ENOSYS)
			}
			t.Errorf("ESCAPE: %s past max_memory_mb 256 without being killed: exit %d\nstdout %q\nstderr %q", tc.name, code, out, errOut)
		})
	}
}
