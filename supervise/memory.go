package supervise

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// How an agent's memory limit is enforced (Record.Memory, the agent_start
// details and `run`'s start line say which).
const (
	// MemoryCgroup: the sandbox runs in a memory cgroup (v2 or v1) whose
	// limit the kernel enforces on the whole tree. supervise watches the
	// cgroup's OOM counter and ends the whole tree when the kernel killed
	// any process of it.
	MemoryCgroup = "cgroup"
	// MemoryMonitor: no cgroup could be used. Every process is bounded by
	// RLIMIT_DATA, and supervise samples what the whole tree holds (the
	// anonymous and shared memory, page tables and swap of every process
	// in the sandbox's pid namespace, and the files of its memory-backed
	// /tmp, /dev/shm and scratch layers; see treeSampler) and kills the
	// tree when the sum exceeds the limit.
	MemoryMonitor = "rlimit+monitor"
)

// DefaultSampleInterval is how often the memory watcher samples; it samples
// four times as often once the tree uses more than half of its limit.
const DefaultSampleInterval = 100 * time.Millisecond

// maxSampleWait bounds the wait between two samples of a tree that is
// slow to sample (sampleWait).
const maxSampleWait = time.Second

// sampleWait returns how long the monitor waits before its next count,
// given the last one (used bytes, taking took): the interval, a quarter
// of it past half the limit. A sandbox of many processes costs more to
// sample: the wait keeps the monitor under a fifth of a CPU, but never
// past maxSampleWait, which a tree cheap to make and holding no memory
// (many idle processes, many mappings) could otherwise stretch without
// bound, hiding memory taken meanwhile.
func sampleWait(interval time.Duration, used, limit int64, took time.Duration) time.Duration {
	next := interval
	if used > limit/2 {
		next = interval / 4
	}
	return max(next, min(4*took, maxSampleWait))
}

// memoryMechanism picks the mechanism from the layers the sandbox applied.
func memoryMechanism(layers []string) string {
	for _, l := range layers {
		if len(l) >= 6 && l[:6] == "cgroup" {
			return MemoryCgroup
		}
	}
	return MemoryMonitor
}

// memorySampler counts what a sandbox holds (treeSampler).
type memorySampler interface {
	// sample returns the bytes the sandbox holds and its number of
	// processes; exact asks for the dearer, proportional count.
	sample(exact bool) (int64, int, error)
	close()
}

// memoryWatch enforces an agent's memory limit from outside the sandbox.
type memoryWatch struct {
	mechanism string
	limit     int64
	interval  time.Duration
	breach    func(reason string)

	sampler memorySampler // MemoryMonitor
	// oomFile is the OOM counter of the sandbox's memory cgroup
	// (MemoryCgroup; "" if not found). The cgroup was made for this
	// sandbox, so every kill it counts is the sandbox's: no count is read
	// as a base at start, which would absorb a kill in the program's first
	// instants (TestRedteam37EarlyOOMEndsTree).
	oomFile string

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}

	mu    sync.Mutex
	peak  int64
	procs int
}

// startMemoryWatch starts watching the sandbox whose init is initPid. It
// fails when the monitor cannot see the sandbox's processes: a limit that
// cannot be enforced is refused, never pretended.
func startMemoryWatch(mechanism string, initPid int, limit int64, interval time.Duration, breach func(string)) (*memoryWatch, error) {
	if interval <= 0 {
		interval = DefaultSampleInterval
	}
	w := &memoryWatch{mechanism: mechanism, limit: limit, interval: interval, breach: breach,
		stop: make(chan struct{}), done: make(chan struct{})}
	switch mechanism {
	case MemoryCgroup:
		w.oomFile = sandboxOOMFile(initPid)
	default:
		start, err := procStartTime(initPid)
		if errors.Is(err, ErrGone) {
			close(w.done) // the agent has ended: nothing to watch
			return w, nil
		}
		var ts *treeSampler
		if err == nil {
			ts, err = openTreeSampler(initPid, start, limit)
		}
		if err != nil {
			if !alive(initPid, start) {
				close(w.done)
				return w, nil
			}
			return nil, fmt.Errorf("memory monitor: cannot see the sandbox's processes: %w", err)
		}
		w.sampler = ts
	}
	go w.run()
	return w, nil
}

func (w *memoryWatch) run() {
	defer close(w.done)
	if w.sampler != nil {
		defer w.sampler.close()
	}
	if w.mechanism == MemoryCgroup && w.oomFile == "" {
		return // the kernel enforces; the exit status tells (see Agent.Wait)
	}
	t := time.NewTimer(w.interval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		next := w.interval
		if w.mechanism == MemoryCgroup {
			if n, err := oomKills(w.oomFile); err == nil && n > 0 {
				w.breach(fmt.Sprintf("memory limit exceeded: %s (the kernel's OOM killer ended a process)", mib(w.limit)))
				return
			}
		} else {
			began := time.Now()
			used, procs, over := w.count()
			if over {
				w.breach(fmt.Sprintf("memory limit exceeded: %s (%s held by %d processes and their memory-backed files)", mib(w.limit), mib(used), procs))
				return
			}
			next = sampleWait(w.interval, used, w.limit, time.Since(began))
		}
		t.Reset(next)
	}
}

// confirmDelay returns how long the monitor waits before it counts again
// a sandbox it found past its limit: 5 to 15 ms, drawn each time, so that
// no program can time its memory to be gone at the second count (holding
// it, say, 10 ms of every 20).
func confirmDelay() time.Duration {
	return 5*time.Millisecond + rand.N(10*time.Millisecond)
}

// count returns what the sandbox holds, how many processes it has, and
// whether that is past the limit: by two exact counts, confirmDelay apart.
// A count reads each process's files one after another while the
// processes run, so it can see one memory twice: a vfork child that
// execs, before the sampler can ask whether it is its parent's memory
// again; a mapping of a /dev/shm file dropped between the two reads of its
// process's use. Such a moment has passed by the second count; memory
// held past the limit has not.
func (w *memoryWatch) count() (int64, int, bool) {
	used, procs := w.sample(false)
	if used <= w.limit {
		return used, procs, false
	}
	// The cheap sum counts shared pages once per process: judge by the
	// shares.
	if used, procs = w.sample(true); used <= w.limit {
		return used, procs, false
	}
	t := time.NewTimer(confirmDelay())
	defer t.Stop()
	select {
	case <-w.stop:
		return used, procs, false
	case <-t.C:
	}
	again, n := w.sample(true)
	return min(used, again), n, again > w.limit
}

// sample returns what the sandbox holds (see treeSampler) and how many
// processes it has, and keeps the largest values seen.
func (w *memoryWatch) sample(exact bool) (int64, int) {
	used, procs, err := w.sampler.sample(exact)
	if err != nil {
		return 0, 0 // the sandbox is going: its /proc is empty or gone
	}
	w.mu.Lock()
	w.peak = max(w.peak, used)
	w.procs = max(w.procs, procs)
	w.mu.Unlock()
	return used, procs
}

// close stops the watcher and waits for it.
func (w *memoryWatch) close() {
	if w == nil {
		return
	}
	w.stopOnce.Do(func() { close(w.stop) })
	<-w.done
}

// peakBytes is the largest sum the monitor saw (0 for a cgroup).
func (w *memoryWatch) peakBytes() int64 {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak
}

// mib formats a byte count in MiB.
func mib(b int64) string {
	if b%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", b>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// MemoryRootError refuses a run whose writable roots (or mounts inside
// them) keep their files in memory where the monitor enforces the memory
// limit: what the agent writes there no process maps, so the monitor
// cannot count it, and only a memory cgroup charges it.
type MemoryRootError struct {
	Places []string // "PATH (tmpfs)"
}

func (e *MemoryRootError) Error() string {
	return fmt.Sprintf("writable %s keeps its files in memory, which limits.max_memory_mb cannot count here (%s: no memory cgroup): choose a writable root on disk, or drop limits.max_memory_mb",
		strings.Join(e.Places, ", "), MemoryMonitor)
}

// memoryRootsCheck judges the writable places in memory (memoryRoots) for
// a run whose memory limit mechanism enforces: the monitor cannot count
// them, so a declared limit refuses the run (MemoryRootError) and the
// default one warns.
func memoryRootsCheck(places []string, mechanism string, declared bool) (warning string, err error) {
	if len(places) == 0 || mechanism != MemoryMonitor {
		return "", nil
	}
	if declared {
		return "", &MemoryRootError{Places: places}
	}
	return fmt.Sprintf("writable %s keeps its files in memory, which the default memory limit does not count here (%s)",
		strings.Join(places, ", "), MemoryMonitor), nil
}
