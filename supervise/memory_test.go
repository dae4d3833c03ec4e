//go:build linux

package supervise

import (
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
	"golang.org/x/sys/unix"
)

// Memory bombs that RLIMIT_DATA alone does not stop: it bounds each
// process's private data, so shared memory and a tree of processes each
// under the limit get past it. The cgroup (where agentbox has one) or the
// resident-memory monitor must end the whole tree. Every bomb stops growing
// at 1 GiB, so a broken limit fails the test without hurting the machine.
var memoryBombs = []struct {
	name   string
	script string
}{
	// Where the monitor enforces the limit, seccomp refuses shared
	// anonymous mappings (their pages can be hidden from every count), so
	// the bomb says "refused" and ends there.
	{"shared mmap", `
import mmap, sys, time
maps = []
for i in range(64):
    try:
        m = mmap.mmap(-1, 16 << 20)   # MAP_SHARED: not counted by RLIMIT_DATA
    except PermissionError:
        print("refused", flush=True)
        sys.exit(3)
    for off in range(0, 16 << 20, 4096):
        m[off] = 1
    maps.append(m)
    time.sleep(0.005)
print("survived", flush=True)
time.sleep(30)
`},
	// "survived" only if the three children held their memory at once:
	// with cgroup v1 the kernel ends the largest process and the others go
	// on until supervise, seeing the OOM counter, ends the tree.
	{"process tree", `
import os, time
r, w = os.pipe()
kids = []
for i in range(3):
    pid = os.fork()
    if pid == 0:
        b = bytearray(112 << 20)   # each child stays under RLIMIT_DATA
        for off in range(0, len(b), 4096):
            b[off] = 1
        os.write(w, b"x")
        time.sleep(30)
        os._exit(0)
    kids.append(pid)
os.close(w)
got = 0
while got < 3:
    chunk = os.read(r, 3)
    if not chunk:   # every child gone, one before it wrote
        break
    got += len(chunk)
if all(os.waitpid(pid, os.WNOHANG) == (0, 0) for pid in kids):
    print("survived", flush=True)
time.sleep(30)
`},
}

func TestMemoryLimit(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Skip("needs " + python)
	}
	// 256 MiB: the native runtime also applies the limit as RLIMIT_DATA to
	// its own Go init, which needs more than 100 MiB of address space.
	if raceEnabled {
		t.Skip("the sandbox's init is this test binary; built with the race detector it cannot live under a 256 MiB RLIMIT_DATA")
	}
	for _, bomb := range memoryBombs {
		t.Run(strings.ReplaceAll(bomb.name, " ", "_"), func(t *testing.T) {
			f := newFixture(t)
			m := f.manifest("name: bomb\nlimits: {max_memory_mb: 256}\naudit: {alert_on: [limit_breached]}\n")
			// From a file: the classifier rightly refuses "python3 -c" with a
			// fork loop as a fork bomb.
			r := f.start(m, python, scriptFile(t, "bomb.py", bomb.script))
			res := r.wait(t, 60*time.Second)
			// The kernel stops a bomb at a cgroup's limit; the monitor
			// samples, and memory taken between two samples is held
			// for that long (README): it must end the bomb soon after.
			if strings.Contains(r.stdout.String(), "survived") && res.Memory != MemoryMonitor {
				t.Fatalf("the bomb survived the limit (memory %s): %q", res.Memory, r.stdout.String())
			}
			if res.Memory == MemoryMonitor && strings.Contains(r.stdout.String(), "refused") {
				if res.ExitCode != 3 || strings.Contains(r.stdout.String(), "survived") {
					t.Fatalf("refused, yet exit %d; output %q", res.ExitCode, r.stdout.String())
				}
				return
			}
			if res.Memory == MemoryMonitor && res.Duration > 5*time.Second {
				t.Errorf("the monitor ended the bomb after %v", res.Duration)
			}
			// The bomb sleeps 30 s once it holds its memory: the kernel's
			// first OOM kill, seen on the sandbox's counter, ends the tree.
			if res.Memory == MemoryCgroup && res.Duration > 20*time.Second {
				t.Errorf("the tree outlived the kernel's OOM kill: ended after %v", res.Duration)
			}
			if res.ExitCode != 137 || res.Killed == nil || res.Killed.Cause != CauseMemory {
				t.Fatalf("exit %d killed %+v (memory %s), want 137 for the memory limit; output %q", res.ExitCode, res.Killed, res.Memory, r.stdout.String())
			}
			if want := memoryMechanism(res.Layers); res.Memory != want {
				t.Errorf("memory mechanism %q, layers say %q", res.Memory, want)
			}
			t.Logf("%s: %s (mechanism %s, peak seen %s)", bomb.name, res.Killed.Reason, res.Memory, mib(res.MemoryPeak))
			evs := f.events(res.AuditLog, res.ID)
			b := findEvent(evs, audit.LimitBreached)
			if b == nil || b.Resource != string(CauseMemory) || b.Details["mechanism"] != res.Memory {
				t.Errorf("limit_breached %+v in %q", b, eventTypes(evs))
			}
			if s := findEvent(evs, audit.AgentStart); s == nil || s.Details["memory"] != res.Memory {
				t.Errorf("agent_start does not name the memory mechanism: %+v", s)
			}
			if k := findEvent(evs, audit.AgentKilled); k == nil || k.Rule != string(CauseMemory) {
				t.Errorf("agent_killed %+v", k)
			}
		})
	}
}

// TestMemoryMonitorSeesTheTree: the monitor's sampler sees every process
// of the sandbox (as many as the host's view of its pid namespace holds,
// the test's own not among them) and what the sandbox keeps in its
// memory-backed /tmp.
func TestMemoryMonitorSeesTheTree(t *testing.T) {
	f := newFixture(t)
	m := f.manifest("name: watched\n")
	r := f.start(m, "/bin/sh", "-c", "head -c 16777216 /dev/zero > /tmp/held; sleep 30 & sleep 30 & echo ready; wait")
	r.waitOutput(t, "ready")
	ns, pids := waitProcs(t, r.ag.Pid(), 4)
	if own, _ := pidNamespace(os.Getpid()); own == ns {
		t.Fatal("the sandbox shares the test's pid namespace")
	}
	start, err := procStartTime(r.ag.Pid())
	if err != nil {
		t.Fatal(err)
	}
	s, err := openTreeSampler(r.ag.Pid(), start, r.ag.MemoryLimit())
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if s.areas < 0 {
		t.Fatal("the sampler found no memory areas")
	}
	for _, exact := range []bool{false, true} {
		used, procs, err := s.sample(exact)
		if err != nil || procs != len(pids) || used < 16<<20 {
			t.Errorf("sampler (exact %v) saw %d processes holding %d bytes (%v); the namespace has %v, and /tmp holds 16 MiB", exact, procs, used, err, pids)
		}
	}
}

func TestCgroupPathHelpers(t *testing.T) {
	tests := []struct {
		path, root string
		want       string
		ok         bool
	}{
		{"/a/b", "/", "/a/b", true},
		{"/a/b", "/a", "/b", true},
		{"/a", "/a", "/", true},
		{"/ab", "/a", "", false},
		{"/x", "/a", "", false},
	}
	for _, tt := range tests {
		got, ok := underRoot(tt.path, tt.root)
		if got != tt.want || ok != tt.ok {
			t.Errorf("underRoot(%q, %q) = %q, %v", tt.path, tt.root, got, ok)
		}
	}
	if !hasOption("rw,memory", "memory") || hasOption("rw,memoryx", "memory") {
		t.Error("hasOption")
	}
	// This process's own memory cgroup, where the machine has one.
	if f := memoryCgroupOOMFile(os.Getpid()); f != "" {
		if _, err := oomKills(f); err != nil {
			t.Errorf("oom counter of %s: %v", f, err)
		}
	}
}

// TestSandboxOOMFile: the OOM counter watched is the sandbox's memory
// cgroup's, not the init's. Under cgroup v1 the init stays in agentbox's
// own cgroup (only the program's tree joins the sandbox's), whose counter
// never counts the sandbox's OOM kills and counts the host's.
func TestSandboxOOMFile(t *testing.T) {
	f := newFixture(t)
	r := f.start(f.manifest("name: counted\nlimits: {max_memory_mb: 256}\n"), "/bin/sh", "-c", "echo ready; sleep 30")
	r.waitOutput(t, "ready")
	if r.ag.MemoryMechanism() != MemoryCgroup {
		t.Skip("no memory cgroup: " + r.ag.MemoryMechanism())
	}
	got := sandboxOOMFile(r.ag.Pid())
	if got == "" {
		t.Fatal("no OOM counter found for the sandbox")
	}
	if own := memoryCgroupOOMFile(os.Getpid()); got == own {
		t.Errorf("the sandbox's OOM counter is agentbox's own: %s", got)
	}
	// The runtime names each sandbox's cgroup sandbox-PID-N-RANDOM.
	if !strings.Contains(got, "/sandbox-"+strconv.Itoa(os.Getpid())+"-") {
		t.Errorf("the OOM counter %s is not in a cgroup of this process's sandboxes", got)
	}
	if _, err := oomKills(got); err != nil {
		t.Errorf("read %s: %v", got, err)
	}
	// procParent, which sandboxOOMFile relies on, names the init's parent.
	if ppid, err := procParent(r.ag.Pid()); err != nil || ppid != os.Getpid() {
		t.Errorf("procParent(init) = %d, %v; want this process, %d", ppid, err, os.Getpid())
	}
}

// oneMemory holds 64 MiB, then makes a second process: with "vfork", one
// that shares its memory (clone with CLONE_VM and CLONE_VFORK: the parent
// waits, and never resumes, as the test kills both) and keeps mapping,
// writing and unmapping a little more, so no two reads of the memory's
// counts are alike to the byte; with "fork", a child
// that writes every page, so the two hold 64 MiB each and their
// smaps_rollup look alike. The clone's number is the test's architecture's.
const oneMemory = `
import ctypes, os, sys, time
held = bytearray(64 << 20)
for off in range(0, len(held), 4096):
    held[off] = 1
if sys.argv[1] == "vfork":
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(int(sys.argv[2]), 0x100 | 0x4000 | 17, 0, 0, 0, 0) == 0:
        import mmap
        os.write(1, b"ready\n")
        end = time.time() + 60
        while time.time() < end:
            m = mmap.mmap(-1, 256 << 10, flags=mmap.MAP_PRIVATE)
            m.write(b"x" * (256 << 10))
            m.close()
        os._exit(0)
elif os.fork() == 0:
    for off in range(0, len(held), 4096):
        held[off] = 2
    os.write(1, b"ready\n")
    time.sleep(60)
    os._exit(0)
time.sleep(60)
`

// TestMemoryMonitorCountsOneMemoryOnce: the exact count counts a memory
// two processes share once (a vfork child's, before its execve: counted
// twice, a program that starts others is killed for memory it does not
// hold), and a forked child's own memory in full, however much its
// smaps_rollup looks like its parent's.
func TestMemoryMonitorCountsOneMemoryOnce(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Skip("needs " + python)
	}
	const held = 64 << 20
	for _, tt := range []struct {
		mode     string
		min, max int64 // what the exact count may say
		pairs    int   // processes that share their parent's memory
	}{
		{"vfork", held, 2*held - 16<<20, 1},
		{"fork", 2 * held, 4 * held, 0},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			f := newFixture(t)
			m := f.manifest("name: shared\n")
			r := f.start(m, python, scriptFile(t, "one.py", oneMemory), tt.mode, strconv.Itoa(unix.SYS_CLONE))
			r.waitOutput(t, "ready")
			waitProcs(t, r.ag.Pid(), 3)
			start, err := procStartTime(r.ag.Pid())
			if err != nil {
				t.Fatal(err)
			}
			s, err := openTreeSampler(r.ag.Pid(), start, r.ag.MemoryLimit())
			if err != nil {
				t.Fatal(err)
			}
			defer s.close()
			cheap, _, err := s.sample(false)
			if err != nil || cheap < 2*held {
				t.Fatalf("the resident sum says %s (%v); both processes show the 64 MiB", mib(cheap), err)
			}
			exact, procs, err := s.sample(true)
			if err != nil || exact < tt.min || exact > tt.max || procs != 3 {
				t.Errorf("%s: the exact count says %s in %d processes (%v), want %s to %s in 3", tt.mode, mib(exact), procs, err, mib(tt.min), mib(tt.max))
			}
			t.Logf("%s: resident sum %s, exact %s", tt.mode, mib(cheap), mib(exact))
			// Asked with a pid map built before the child started (a
			// spawner's next child), the kernel is still asked.
			late := &sharedMemory{ns: s.pidNS, host: map[int]int{}}
			if got := sharedPairs(t, s, late); got != tt.pairs {
				t.Errorf("%s: %d pairs share their memory by a stale pid map, want %d", tt.mode, got, tt.pairs)
			}
		})
	}
}

// sharedPairs counts the processes of the sandbox s samples that share
// their parent's memory, as m tells.
func sharedPairs(t *testing.T, s *treeSampler, m *sharedMemory) int {
	t.Helper()
	if _, err := s.proc.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	names, err := s.proc.Readdirnames(-1)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if ppid := s.parent(name); ppid > 0 && m.same(pid, ppid) {
			n++
		}
	}
	return n
}

// fakeSampler returns its counts in turn, the last one ever after.
type fakeSampler struct {
	counts []int64
	exact  []bool // what each call asked for
}

func (f *fakeSampler) sample(exact bool) (int64, int, error) {
	f.exact = append(f.exact, exact)
	n := f.counts[min(len(f.exact), len(f.counts))-1]
	return n, 2, nil
}

func (f *fakeSampler) close() {}

// TestMemoryCountConfirmsBreach: the monitor kills only for a sandbox past
// its limit in the cheap sum and in two exact counts, so a moment a count
// sees one memory twice is no breach.
func TestMemoryCountConfirmsBreach(t *testing.T) {
	const limit = 100
	for _, tt := range []struct {
		name   string
		counts []int64 // cheap, exact, exact again
		over   bool
		used   int64
		calls  int
	}{
		{"under in the cheap sum", []int64{90}, false, 90, 1},
		{"shared pages counted once", []int64{150, 80}, false, 80, 2},
		{"a moment seen twice", []int64{200, 190, 95}, false, 95, 3},
		{"held past the limit", []int64{200, 190, 180}, true, 180, 3},
		{"growing past it", []int64{200, 120, 300}, true, 120, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeSampler{counts: tt.counts}
			w := &memoryWatch{limit: limit, sampler: f, stop: make(chan struct{})}
			used, _, over := w.count()
			if over != tt.over || used != tt.used || len(f.exact) != tt.calls {
				t.Errorf("count() = %d, over %v after %d samples; want %d, %v after %d", used, over, len(f.exact), tt.used, tt.over, tt.calls)
			}
			for i, exact := range f.exact {
				if exact != (i > 0) {
					t.Errorf("sample %d asked exact=%v", i, exact)
				}
			}
		})
	}
}

// TestConfirmDelayDrawn: the second count's delay is drawn each time,
// within 5 to 15 ms, so a program cannot time its memory around it.
func TestConfirmDelayDrawn(t *testing.T) {
	seen := map[time.Duration]bool{}
	for range 100 {
		d := confirmDelay()
		if d < 5*time.Millisecond || d >= 15*time.Millisecond {
			t.Fatalf("confirmDelay() = %v, want 5 to 15 ms", d)
		}
		seen[d] = true
	}
	if len(seen) < 50 {
		t.Errorf("100 draws gave %d distinct delays: not drawn", len(seen))
	}
}

func TestSampleWait(t *testing.T) {
	const ms = time.Millisecond
	for _, tc := range []struct {
		name       string
		used       int64
		took, want time.Duration
	}{
		{"below half the limit", 100, 1 * ms, 100 * ms},
		{"past half the limit", 600, 1 * ms, 25 * ms},
		{"a slow count: four times its time", 600, 50 * ms, 200 * ms},
		{"a very slow count: bounded", 100, 5 * time.Second, maxSampleWait},
	} {
		if got := sampleWait(100*ms, tc.used, 1000, tc.took); got != tc.want {
			t.Errorf("%s: sampleWait = %v, want %v", tc.name, got, tc.want)
		}
	}
}
