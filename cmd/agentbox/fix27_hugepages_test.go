//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/probes"
)

// fix27HugePagesOff are the lines probes.THPScript prints where the monitor
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
	script := m.file(t, "thp.py", probes.THPScript)
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

// fix27PageCacheScript writes TOTAL MiB to a file in DIR (a writable
// root on disk) 2 MiB at a time, which ext4 and XFS cache in 2 MiB
// folios, hands 4 KiB of each 2 MiB to pipes (mode "splice": splice(2);
// "sendfile": sendfile(2) into the pipe), truncates and removes the file,
// and holds the pipes: each folio stays, out of the file and out of every
// process's count.
const fix27PageCacheScript = `
import os, sys, time
total, mode, path = int(sys.argv[1]) << 20, sys.argv[2], sys.argv[3] + "/pagecache.bin"
H = 2 << 20
fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
for i in range(total // H):
    os.write(fd, b"\x5a" * H)
pipes = []
for i in range(total // H):
    if i % 16 == 0:
        pipes.append(os.pipe())
    try:
        if mode == "none":
            pass
        elif mode == "splice":
            os.splice(fd, pipes[-1][1], 4096, offset_src=i * H)
        else:
            os.sendfile(pipes[-1][1], fd, i * H, 4096)
    except OSError as e:
        print("refused: %s errno %d" % (mode, e.errno), flush=True)
        sys.exit(3)
os.ftruncate(fd, 0)
os.close(fd)
os.unlink(path)
print("survived: %d MiB in %d pipes" % (total >> 20, len(pipes)), flush=True)
time.sleep(3)
print("alive", flush=True)
`

// TestFix27MonitorPathPageCachePipes: on run's monitor path, pipes holding
// 4 KiB of each 2 MiB page-cache folio of a file since truncated held 512
// MiB under a 64 MiB limit, whatever the program's huge-page setting (the
// folios are the file's, not the program's). Fixed: splice(2) and
// sendfile(2) answer EINVAL there (pageCacheCalls in
// sandbox/linux/seccomp_memory.go). The same file written and removed
// without pipes is the control.
func TestFix27MonitorPathPageCachePipes(t *testing.T) {
	m := rt6NewMonitored(t)
	dir := filepath.Join(m.dir, "work")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, m.uid, m.gid); err != nil {
		t.Fatal(err)
	}
	manifest := m.file(t, "mem.yaml", "name: fix27-pagecache\npermissions:\n  filesystem:\n    write: ["+dir+
		"]\nlimits: {max_memory_mb: 64, max_duration: 30s}\n")
	script := m.file(t, "pagecache.py", fix27PageCacheScript)
	for _, tc := range []struct {
		name, mib, mode string
		want            rt26Outcome
	}{
		{"control_no_pipes_512", "512", "none", rt26Alive},
		// What the fix costs: splice is refused however little it moves.
		{"small_splice_refused", "16", "splice", rt26Refused},
		{"attack_splice_512", "512", "splice", rt26Stopped},
		{"attack_sendfile_512", "512", "sendfile", rt26Stopped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 40*time.Second, script, tc.mib, tc.mode, dir)
			monitored(t, code, errOut)
			t.Logf("exit %d stdout %q", code, out)
			if msg := tc.want.check(code, out, errOut, 64); msg != "" {
				t.Errorf("%s: %s MiB (%s) past max_memory_mb 64: exit %d\nstdout %q\nstderr %q", msg, tc.mib, tc.mode, code, out, errOut)
			}
		})
	}
}
