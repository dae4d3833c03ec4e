//go:build linux

package linux

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// A cgroup bounds a sandbox's memory and process count as a whole, which
// rlimits (per process) cannot. agentbox uses cgroup v2 where a subtree with
// the memory and pids controllers is delegated to it (or it is root), and the
// v1 memory and pids hierarchies when it is root on a machine that still
// mounts them. Without either, the runtime falls back to rlimits and says so.

// cgroupLimits is what a sandbox's cgroup enforces.
type cgroupLimits struct {
	memory int64 // bytes; 0: none
	pids   int64 // 0: none
}

// sandboxCgroup is one sandbox's cgroup (in one or two hierarchies).
type sandboxCgroup struct {
	version int
	dirs    []string // the sandbox's directories (v2: one; v1: memory, pids)
	memDir  string
}

// cgroupBase is where sandbox cgroups are created, found once.
type cgroupBase struct {
	once    sync.Once
	version int      // 0: unavailable
	bases   []string // v2: [base]; v1: [memory base, pids base]
	reason  string   // why unavailable
	sweep   sync.Once
}

var cgroups cgroupBase

func (b *cgroupBase) find() {
	b.once.Do(func() {
		if dir, err := ownCgroupV2(); err == nil {
			base, err := v2Base(dir)
			if err == nil {
				b.version, b.bases = 2, []string{base}
				return
			}
			b.reason = err.Error()
		} else {
			b.reason = err.Error()
		}
		if os.Geteuid() != 0 {
			return
		}
		mem, pids, err := v1Bases()
		if err != nil {
			b.reason += "; cgroup v1: " + err.Error()
			return
		}
		b.version, b.bases = 1, []string{mem, pids}
	})
	b.sweep.Do(func() {
		for _, base := range b.bases {
			cleanups.Go(func() { sweepStale(base) })
		}
	})
}

// v2Base returns a directory, with the memory and pids controllers enabled
// for its children, under which sandbox cgroups can be created: for root, a
// top-level "agentbox"; otherwise an "agentbox" child of the topmost
// delegated ancestor of the process's own cgroup.
func v2Base(own string) (string, error) {
	root := own
	for root != "/" && !strings.HasSuffix(root, "/cgroup") && !strings.HasSuffix(root, "/unified") {
		root = filepath.Dir(root)
	}
	var parent string
	if os.Geteuid() == 0 {
		parent = root
	} else {
		// Walk up while we may still create cgroups.
		for d := own; d != root && unix.Access(d, unix.W_OK) == nil; d = filepath.Dir(d) {
			parent = d
		}
		if parent == "" || parent == own {
			return "", fmt.Errorf("no cgroup v2 subtree is delegated to uid %d", os.Geteuid())
		}
	}
	if !hasControllers(parent, "memory", "pids") {
		return "", fmt.Errorf("cgroup v2 at %s lacks the memory and pids controllers", parent)
	}
	if err := enableControllers(parent); err != nil {
		return "", err
	}
	base := filepath.Join(parent, "agentbox")
	if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("create %s: %w", base, err)
	}
	if err := enableControllers(base); err != nil {
		return "", err
	}
	return base, nil
}

func hasControllers(dir string, want ...string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return false
	}
	have := strings.Fields(string(b))
	for _, w := range want {
		if !contains(have, w) {
			return false
		}
	}
	return true
}

func enableControllers(dir string) error {
	b, _ := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	on := strings.Fields(string(b))
	if contains(on, "memory") && contains(on, "pids") {
		return nil
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+memory +pids"), 0); err != nil {
		return fmt.Errorf("enable memory and pids in %s: %w", dir, err)
	}
	return nil
}

// v1Bases finds this process's cgroups in the v1 memory and pids
// hierarchies and makes an "agentbox" child in each.
func v1Bases() (mem, pids string, err error) {
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", "", err
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", "", err
	}
	var out [2]string
	for i, ctrl := range []string{"memory", "pids"} {
		mnt := v1Mount(mounts, ctrl)
		rel := v1Path(own, ctrl)
		if mnt == "" || rel == "" {
			return "", "", fmt.Errorf("no %s hierarchy", ctrl)
		}
		base := filepath.Join(mnt, rel, "agentbox")
		if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return "", "", fmt.Errorf("create %s: %w", base, err)
		}
		out[i] = base
	}
	return out[0], out[1], nil
}

// v1Mount returns where the v1 hierarchy of controller is mounted.
func v1Mount(mountinfo []byte, controller string) string {
	sc := bufio.NewScanner(bytes.NewReader(mountinfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		sep := -1
		for i, x := range f {
			if x == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || sep+3 >= len(f) || f[sep+1] != "cgroup" {
			continue
		}
		for _, opt := range strings.Split(f[sep+3], ",") {
			if opt == controller {
				return f[4]
			}
		}
	}
	return ""
}

// v1Path returns this process's cgroup path in the v1 hierarchy of controller.
func v1Path(cgroupFile []byte, controller string) string {
	sc := bufio.NewScanner(bytes.NewReader(cgroupFile))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) == 3 && contains(strings.Split(parts[1], ","), controller) {
			return parts[2]
		}
	}
	return ""
}

// cgroupSeq numbers this process's sandbox cgroups.
var cgroupSeq atomic.Uint64

// newSandboxCgroup creates an empty cgroup for one sandbox, or returns the
// reason cgroups are unavailable.
func newSandboxCgroup() (*sandboxCgroup, error) {
	cgroups.find()
	if cgroups.version == 0 {
		return nil, fmt.Errorf("cgroups unavailable: %s", cgroups.reason)
	}
	// The pid and a number name it for sweepStale; the random part keeps
	// apart processes of other pid namespaces that share the hierarchy
	// (another container's agentbox with the same pid), where a
	// collision would leave a sandbox without its limits.
	name := fmt.Sprintf("sandbox-%d-%d-%08x", os.Getpid(), cgroupSeq.Add(1), rand.Uint32())
	cg := &sandboxCgroup{version: cgroups.version}
	for _, base := range cgroups.bases {
		d := filepath.Join(base, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			cg.close()
			return nil, fmt.Errorf("create cgroup: %w", err)
		}
		cg.dirs = append(cg.dirs, d)
	}
	cg.memDir = cg.dirs[0]
	return cg, nil
}

// setLimits applies lim; a zero field leaves that resource unlimited.
func (cg *sandboxCgroup) setLimits(lim cgroupLimits) error {
	var settings [][2]string
	if cg.version == 2 {
		if lim.memory > 0 {
			m := strconv.FormatInt(lim.memory, 10)
			settings = append(settings, [2]string{cg.dirs[0] + "/memory.max", m},
				[2]string{cg.dirs[0] + "/memory.swap.max", "0"}, [2]string{cg.dirs[0] + "/memory.oom.group", "1"})
		}
		if lim.pids > 0 {
			settings = append(settings, [2]string{cg.dirs[0] + "/pids.max", strconv.FormatInt(lim.pids, 10)})
		}
	} else {
		if lim.memory > 0 {
			// A v1 memory cgroup charges no socket buffers until its TCP
			// limit is written (v2 charges them to memory.max): without it a
			// sandbox held TCP buffers of any size, from the machine's one
			// pool for every network namespace (net.ipv4.tcp_mem).
			m := strconv.FormatInt(lim.memory, 10)
			settings = append(settings, [2]string{cg.dirs[0] + "/memory.limit_in_bytes", m},
				[2]string{cg.dirs[0] + "/memory.memsw.limit_in_bytes", m},
				[2]string{cg.dirs[0] + "/memory.kmem.tcp.limit_in_bytes", m})
		}
		if lim.pids > 0 {
			settings = append(settings, [2]string{cg.dirs[1] + "/pids.max", strconv.FormatInt(lim.pids, 10)})
		}
	}
	for _, s := range settings {
		if err := os.WriteFile(s[0], []byte(s[1]), 0); err != nil {
			isSwap := strings.Contains(s[0], "swap") || strings.Contains(s[0], "memsw")
			if isSwap && errors.Is(err, os.ErrNotExist) {
				continue // swap accounting off: the memory limit alone holds
			}
			return fmt.Errorf("cgroup %s: %w", filepath.Base(s[0]), err)
		}
	}
	return nil
}

// layer names the cgroup layer for ExecResult.Layers.
func (cg *sandboxCgroup) layer() string {
	return fmt.Sprintf("cgroup(v%d: memory, pids)", cg.version)
}

// add moves pid (and the children it will have) into the cgroup.
func (cg *sandboxCgroup) add(pid int) error {
	for _, d := range cg.dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return fmt.Errorf("cgroup: add %d: %w", pid, err)
		}
	}
	return nil
}

// oomKilled reports whether the memory limit made the kernel kill a process.
func (cg *sandboxCgroup) oomKilled() bool {
	file, key := "memory.events", "oom_kill"
	if cg.version == 1 {
		file = "memory.oom_control"
	}
	b, err := os.ReadFile(filepath.Join(cg.memDir, file))
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == key && f[1] != "0" {
			return true
		}
	}
	return false
}

// cleanups tracks the cgroup removals in flight. Runtime.Close waits for
// them: a short-lived program (the CLI) would otherwise exit before they
// ran and leave a cgroup behind for every sandbox.
var cleanups inFlight

// inFlight counts background work that may be waited for. Unlike a
// sync.WaitGroup, new work may start while another goroutine waits (one
// Manager closing while another's sandbox ends).
type inFlight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0; nil while n is 0
}

// Go runs fn in a new goroutine, counted until it returns.
func (f *inFlight) Go(fn func()) {
	f.mu.Lock()
	if f.n == 0 {
		f.idle = make(chan struct{})
	}
	f.n++
	f.mu.Unlock()
	go func() {
		defer f.done()
		fn()
	}()
}

func (f *inFlight) done() {
	f.mu.Lock()
	if f.n--; f.n == 0 {
		close(f.idle)
		f.idle = nil
	}
	f.mu.Unlock()
}

// Wait returns once no work is in flight.
func (f *inFlight) Wait() {
	for {
		f.mu.Lock()
		idle := f.idle
		f.mu.Unlock()
		if idle == nil {
			return
		}
		<-idle
	}
}

// closeAsync removes the cgroup in the background: taking a memory cgroup
// offline can be slow, and the command's result does not wait for it.
func (cg *sandboxCgroup) closeAsync() {
	if cg != nil {
		cleanups.Go(cg.close)
	}
}

// sweepStale removes the sandbox cgroups under base that processes which
// no longer exist left behind (agentbox killed before it could remove
// them). A directory that still holds processes stays (rmdir refuses), and
// so does a recent one: its creator may live in another pid namespace,
// where this process cannot see it, and be about to use it.
func sweepStale(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		var pid, seq int
		if n, _ := fmt.Sscanf(e.Name(), "sandbox-%d-%d", &pid, &seq); n != 2 || pid == os.Getpid() || !e.IsDir() {
			continue
		}
		if err := unix.Kill(pid, 0); !errors.Is(err, unix.ESRCH) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleAfter {
			_ = os.Remove(filepath.Join(base, e.Name()))
		}
	}
}

// staleAfter is how old a sandbox cgroup of a process that is gone must be
// before sweepStale removes it.
const staleAfter = time.Minute

// close kills whatever is left and removes the cgroup, retrying while the
// killed processes exit: a tree that held hundreds of MiB takes a while to
// free them on a loaded machine, longer than the fifty 1 ms tries this
// once made (a cgroup left behind in CI, TestRedteam34CgroupGoneAfterClose).
// It runs in the background (closeAsync); Runtime.Close waits for it.
func (cg *sandboxCgroup) close() {
	if cg == nil {
		return
	}
	deadline := time.Now().Add(cgroupRemoveWait)
	for _, d := range cg.dirs {
		if cg.version == 2 {
			_ = os.WriteFile(filepath.Join(d, "cgroup.kill"), []byte("1"), 0)
		}
		for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
			if err := os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
				break
			}
			killProcs(filepath.Join(d, "cgroup.procs"))
			time.Sleep(pause)
		}
	}
}

// cgroupRemoveWait bounds how long close tries to remove a sandbox's
// cgroups; one still busy after it is left to sweepStale.
const cgroupRemoveWait = 10 * time.Second

func killProcs(procsFile string) {
	b, err := os.ReadFile(procsFile)
	if err != nil {
		return
	}
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
	}
}
