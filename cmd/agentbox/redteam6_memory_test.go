//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// Red team 6: the memory limit without a cgroup. An unprivileged user with
// no delegated cgroup v2 gets "rlimit+monitor": RLIMIT_DATA per process plus
// the resident-memory monitor of supervise/memory.go, which sums RssAnon and
// RssShmem of the processes in the sandbox's pid namespace. These tests run
// `agentbox run` as the unprivileged test user (root gets a cgroup here),
// so that the monitor is what enforces max_memory_mb.

// rt6Monitored is the unprivileged user's side of one test: a copy of the
// test binary it may run, a state directory of its own and a directory the
// sandbox can read scripts and manifests from. Run as root, the tests act
// as the user agentbox-ci; run as an unprivileged user (as CI's second run
// is), they act as that user, with this test binary.
type rt6Monitored struct {
	user, home, bin, state, dir string // user "": the test's own
	uid, gid                    int
}

func rt6NewMonitored(t *testing.T) *rt6Monitored {
	t.Helper()
	if runRaceEnabled {
		t.Skip("the sandbox's init is this test binary; built with the race detector it cannot live under a small RLIMIT_DATA")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3")
	}
	m := &rt6Monitored{uid: os.Getuid(), gid: os.Getgid()}
	if os.Geteuid() == 0 {
		name, bin := rt4OtherUser(t)
		u, err := user.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		m.user, m.home, m.bin = name, u.HomeDir, bin
		m.uid, _ = strconv.Atoi(u.Uid)
		m.gid, _ = strconv.Atoi(u.Gid)
	} else {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		m.home, _ = os.UserHomeDir()
		m.bin = exe
	}
	dir, err := os.MkdirTemp("/var/tmp", "agentbox-rt6mem-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m.dir = dir
	m.state = filepath.Join(dir, "state")
	if err := os.Mkdir(m.state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(m.state, m.uid, m.gid); err != nil {
		t.Fatal(err)
	}
	return m
}

// command is `agentbox ARGS...` run as the user, with a clean
// environment and the test's state directory.
func (m *rt6Monitored) command(ctx context.Context, args ...string) *exec.Cmd {
	argv := []string{"env", "-i", "HOME=" + m.home, "PATH=/usr/bin:/bin", cliEnv + "=1", paths.EnvStateDir + "=" + m.state, m.bin}
	if m.user != "" {
		argv = append([]string{"runuser", "-u", m.user, "--"}, argv...)
	}
	return exec.CommandContext(ctx, argv[0], append(argv[1:], args...)...)
}

// monitored skips a test whose run got a memory cgroup: it is about the
// monitor.
func monitored(t *testing.T, code int, stderr string) {
	t.Helper()
	if !strings.Contains(stderr, "via rlimit+monitor") {
		if strings.Contains(stderr, "via cgroup") {
			t.Skip("this user's runs get a memory cgroup here")
		}
		t.Fatalf("the run did not use the monitor: exit %d\nstderr %q", code, stderr)
	}
}

// file writes a file the user and its sandbox can read.
func (m *rt6Monitored) file(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(m.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs `agentbox run --manifest MANIFEST -- python3 SCRIPT` as the
// user and returns its exit status, stdout and stderr.
func (m *rt6Monitored) run(t *testing.T, manifest, script string, within time.Duration) (int, string, string) {
	t.Helper()
	return m.runArgs(t, manifest, within, script)
}

// runArgs is run with arguments for the script.
func (m *rt6Monitored) runArgs(t *testing.T, manifest string, within time.Duration, script string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	cmd := m.command(ctx, append([]string{"run", "--manifest", manifest, "--", "/usr/bin/python3", script}, args...)...)
	cmd.Dir = m.dir
	// runuser and agentbox in a group of their own: a timeout kills both.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("agentbox run still running after %v\nstdout %q\nstderr %q", within, stdout.String(), stderr.String())
	}
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// rt6MemScripts hold memory past a 256 MiB limit in ways the kernel does
// not charge to any process's RssAnon or RssShmem, then report "survived"
// and stay a while, so that the monitor has many samples to catch them.
// Each stops at 768 MiB, so a broken limit costs the machine little.
var rt6MemScripts = map[string]string{
	// A memfd filled with write(2), never mapped: shmem pages no process
	// maps are in no /proc/PID/status.
	"memfd_written": `
import os, time
fd = os.memfd_create("hold")
chunk = b"\1" * (1 << 20)
for i in range(768):
    os.write(fd, chunk)
print("survived: 768 MiB in a memfd", flush=True)
time.sleep(3)
print("alive", flush=True)
`,
	// System V shared memory (the sandbox's own IPC namespace), written
	// while attached and then detached: the segments stay, mapped by no one.
	"sysv_detached": `
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
for i in range(6):
    sid = libc.shmget(0, 128 << 20, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
    if sid < 0:
        raise SystemExit("shmget: errno %d" % ctypes.get_errno())
    p = libc.shmat(sid, None, 0)
    ctypes.memset(p, 1, 128 << 20)
    libc.shmdt(p)
    time.sleep(0.2)  # the monitor samples between segments
print("survived: 768 MiB of System V shared memory", flush=True)
time.sleep(3)
print("alive", flush=True)
`,
	// Files in the private /tmp and /dev/shm (tmpfs, each as large as the
	// limit): page cache held in memory, mapped by no one.
	"tmpfs_files": `
import time
chunk = b"\1" * (1 << 20)
for d in ("/tmp", "/dev/shm"):
    with open(d + "/hold", "wb") as f:
        for i in range(240):
            f.write(chunk)
print("survived: 480 MiB in /tmp and /dev/shm", flush=True)
time.sleep(3)
print("alive", flush=True)
`,
	// Controls. The same amount of memory, but mapped where the monitor
	// counts it (RssAnon), in processes RLIMIT_DATA does not stop one by
	// one, so the run must end 137. (A shared anonymous mapping is refused
	// on the monitor path: TestRedteam26MonitorMissesZappedSharedAnonymous.)
	"control_mapped": rt6ForkedAnonScript(6, 128),
	// Files in /tmp and /dev/shm that fit the memory areas (256 MiB in
	// all) and anonymous memory beside them: each alone is within the
	// limit, together they are well past it.
	"tmpfs_and_anon": `
import time
chunk = b"\1" * (1 << 20)
with open("/dev/shm/hold", "wb") as f:
    for i in range(200):
        f.write(chunk)
held = bytearray(200 << 20)
for off in range(0, len(held), 4096):
    held[off] = 1
print("survived: 200 MiB in /dev/shm and 200 MiB anonymous", flush=True)
time.sleep(3)
print("alive", flush=True)
`,
	// Legitimate work under the limit: shared memory through /dev/shm (what
	// libraries fall back to without memfd_create) and 32 MiB in /tmp.
	"control_small": `
import mmap, os
fd = os.open("/dev/shm/small", os.O_RDWR | os.O_CREAT, 0o600)
os.ftruncate(fd, 64 << 20)
m = mmap.mmap(fd, 64 << 20)
for off in range(0, 64 << 20, 4096):
    m[off] = 1
with open("/tmp/small", "wb") as f:
    f.write(b"\1" * (32 << 20))
print("survived: small", flush=True)
`,
}

// rt6ForkedAnonScript holds n×each MiB of private anonymous memory, each
// MiB in one of n forked processes, all alive at once; it prints
// "survived" when every one holds its share.
func rt6ForkedAnonScript(n, each int) string {
	return fmt.Sprintf(`
import os, time
n, each = %d, %d << 20
r, w = os.pipe()
for i in range(n):
    if os.fork() == 0:
        b = bytearray(each)
        for off in range(0, each, 4096):
            b[off] = 1
        os.write(w, b"x")
        time.sleep(10)
        os._exit(0)
got = 0
while got < n:
    got += len(os.read(r, n))
print("survived: %%d MiB mapped in %%d processes" %% ((n * each) >> 20, n), flush=True)
time.sleep(3)
print("alive", flush=True)
`, n, each)
}

// TestRedteam6MonitorMissesUnmappedSharedMemory: with max_memory_mb 256
// enforced by the monitor, the agent holds three times that in shared
// memory no process maps (a memfd written with write(2), detached System V
// segments) or nearly twice that in tmpfs files, and `agentbox run` exits
// 0. Each must end the run with 137 for the memory limit, as the mapped
// control does; the small control must run to its end.
//
// Fixed: run's sandboxes without a cgroup refuse memfd and System V shared memory, and /tmp, /dev/shm and the scratch layers share one tmpfs of the limit's size, which the monitor counts.
func TestRedteam6MonitorMissesUnmappedSharedMemory(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt6-mem\nlimits: {max_memory_mb: 256, max_duration: 15s}\n")
	for _, tc := range []struct {
		script string
		ok     bool // the legitimate control: runs to its end, exit 0

		refused string // what the sandbox says instead of holding the memory
	}{
		{"control_small", true, ""},
		{"control_mapped", false, ""},
		{"memfd_written", false, "Function not implemented"},
		{"sysv_detached", false, "shmget: errno 38"},
		{"tmpfs_files", false, "No space left on device"},
		{"tmpfs_and_anon", false, ""},
	} {
		t.Run(tc.script, func(t *testing.T) {
			script := m.file(t, tc.script+".py", rt6MemScripts[tc.script])
			code, out, errOut := m.run(t, manifest, script, 20*time.Second)
			monitored(t, code, errOut)
			if tc.ok {
				if code != 0 || !strings.Contains(out, "survived") {
					t.Errorf("control: exit %d, stdout %q, stderr %q; want 0", code, out, errOut)
				}
				return
			}
			if tc.refused != "" && code != 137 {
				// Without a memory cgroup, memfd_create and System V
				// shared memory are refused (ENOSYS), and the memory
				// areas (/tmp, /dev/shm) are one tmpfs of the limit's size.
				if code == 0 || strings.Contains(out, "survived") || !strings.Contains(errOut, tc.refused) {
					t.Errorf("ESCAPE: %s: exit %d, want 137 or the attempt refused (%q)\nstdout %q\nstderr %q", tc.script, code, tc.refused, out, errOut)
				}
				return
			}
			if code != 137 || strings.Contains(out, "alive") || !strings.Contains(errOut, "memory limit exceeded") {
				t.Errorf("ESCAPE: %s past max_memory_mb 256 without being killed: exit %d, want 137 for the memory limit\nstdout %q\nstderr %q",
					tc.script, code, out, errOut)
			}
		})
	}
}
