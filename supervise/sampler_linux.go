//go:build linux

package supervise

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox/linux"
	"golang.org/x/sys/unix"
)

// treeSampler measures, from the host, the memory a sandbox's processes
// hold, where no memory cgroup does:
//
//   - through the sandbox's own /proc, which lists the processes of its
//     pid namespace and no others (no scan of every process of the host,
//     and no pid of the host that a recycled number could make wrong);
//   - plus what its memory areas hold: the one tmpfs behind its private
//     /tmp, /dev/shm and scratch layers (sandbox/linux's memoryAreas),
//     whose files no process needs to map;
//   - plus the bytes queued in the TCP sockets of its own network
//     namespace (socketBytes), which autotuning grows past rmem_max.
//
// memfd_create and System V shared memory, which no count per process
// sees, are refused inside such a sandbox (sandbox/linux's seccomp
// filter), so the sum covers what the sandbox can hold in memory.
type treeSampler struct {
	proc  *os.File // the sandbox's /proc
	areas int      // O_PATH descriptor of the memory areas' tmpfs; -1 if none
	// devKinds classifies the devices, as smaps writes them, that mappings
	// may name (deviceKinds): mapped files of the memory areas count once,
	// in the tmpfs's use, not again as a share; nil without areas.
	devKinds map[string]mappingKind
	pidNS    string // the sandbox's pid namespace, as /proc/PID/ns/pid reads
	// smapsUntil ends, in an exact count, the reading of smaps (see
	// smapsBudget).
	smapsUntil time.Time
	ownNet     bool // the sandbox has a network namespace of its own (socketBytes)
	buf        []byte
}

// openTreeSampler opens the /proc and the memory areas of the sandbox whose
// init is initPid (with start time start), through the init's root.
func openTreeSampler(initPid int, start uint64, limit int64) (*treeSampler, error) {
	base := "/proc/" + strconv.Itoa(initPid)
	root, err := unix.Open(base+"/root", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open the sandbox's root: %w", err)
	}
	defer unix.Close(root)
	// Nothing the sandbox made may redirect these: no link is followed.
	beneath := func(path string, flags uint64) (int, error) {
		return unix.Openat2(root, path, &unix.OpenHow{Flags: flags | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	}
	pfd, err := beneath("proc", unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, fmt.Errorf("open the sandbox's /proc: %w", err)
	}
	s := &treeSampler{proc: os.NewFile(uintptr(pfd), "sandbox /proc"), areas: -1, buf: make([]byte, 0, 4096)}
	if err := s.checkProc(initPid, start); err != nil {
		s.close()
		return nil, err
	}
	// Without it no two processes are taken for one memory: counted apart.
	s.pidNS, _ = pidNamespace(initPid)
	s.ownNet = ownNetwork(initPid)
	if limit <= 0 {
		return s, nil // no limit, no areas sized by one
	}
	mounts, err := os.ReadFile(base + "/mountinfo")
	if err != nil {
		s.close()
		return nil, fmt.Errorf("read the sandbox's mounts: %w", err)
	}
	dev, at, err := memoryAreasMount(string(mounts), limit)
	if err != nil {
		s.close()
		return nil, err
	}
	fd, err := beneath(strings.TrimPrefix(at, "/"), unix.O_PATH|unix.O_DIRECTORY)
	var st unix.Stat_t
	if err == nil {
		err = unix.Fstat(fd, &st)
	}
	if err != nil || st.Dev != dev {
		if err == nil {
			unix.Close(fd)
		}
		s.close()
		return nil, fmt.Errorf("the sandbox's memory areas at %s cannot be measured (a writable root over them?): %v", at, err)
	}
	s.areas = fd
	s.devKinds = deviceKinds(string(mounts), dev)
	return s, nil
}

// smapsDev writes a device as smaps names a mapping's: hex "major:minor".
func smapsDev(dev uint64) string { return fmt.Sprintf("%02x:%02x", unix.Major(dev), unix.Minor(dev)) }

// scratchOverlays lists, from the init's mountinfo (its text), the devices
// of the scratch directories' overlays: those whose upper layer lies in the
// memory areas. No program in the sandbox can mount one of its own.
func scratchOverlays(mountinfo string) []uint64 {
	var out []uint64
	for line := range strings.SplitSeq(mountinfo, "\n") {
		left, right, ok := strings.Cut(line, " - ")
		lf, rf := strings.Fields(left), strings.Fields(right)
		if !ok || len(lf) < 5 || len(rf) < 3 || rf[0] != "overlay" {
			continue
		}
		inAreas := false
		for opt := range strings.SplitSeq(rf[2], ",") {
			if upper, ok := strings.CutPrefix(opt, "upperdir="); ok && strings.HasPrefix(upper, linux.MemoryAreas+"/") {
				inAreas = true
			}
		}
		if dev, ok := parseMountDev(lf[2]); ok && inAreas {
			out = append(out, dev)
		}
	}
	return out
}

// parseMountDev parses mountinfo's decimal "major:minor".
func parseMountDev(s string) (uint64, bool) {
	maj, min, ok := strings.Cut(s, ":")
	ma, err1 := strconv.ParseUint(maj, 10, 32)
	mi, err2 := strconv.ParseUint(min, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, false
	}
	return unix.Mkdev(uint32(ma), uint32(mi)), true
}

// checkProc makes sure s.proc is the procfs of the sandbox's pid
// namespace: its process 1 is the init.
func (s *treeSampler) checkProc(initPid int, start uint64) error {
	var fs unix.Statfs_t
	if err := unix.Fstatfs(int(s.proc.Fd()), &fs); err != nil || fs.Type != unix.PROC_SUPER_MAGIC {
		return fmt.Errorf("the sandbox's /proc is not a procfs (%v)", err)
	}
	b, err := s.readAll("1/stat")
	if err != nil {
		return fmt.Errorf("the sandbox's /proc: %w", err)
	}
	if st, err := parseStatStart(b); err != nil || st != start {
		return fmt.Errorf("the sandbox's /proc does not show its init (pid %d) as process 1", initPid)
	}
	return nil
}

// memoryAreasMount finds, in the init's mountinfo (its text), the tmpfs of the memory
// areas (sized by limit, bound at /tmp from its tmp directory or at
// /dev/shm from its shm one) and returns its device and a mount point the
// sandbox's root still shows it at.
func memoryAreasMount(mountinfo string, limit int64) (uint64, string, error) {
	page := int64(os.Getpagesize())
	// tmpfs rounds its size up to pages.
	size := "size=" + strconv.FormatInt((limit+page-1)/page*page>>10, 10) + "k"
	top := map[string]string{} // mount point → root of its last (top) mount
	var dev uint64
	var found string
	for line := range strings.SplitSeq(mountinfo, "\n") {
		left, right, ok := strings.Cut(line, " - ")
		lf, rf := strings.Fields(left), strings.Fields(right)
		if !ok || len(lf) < 5 || len(rf) < 3 {
			continue
		}
		root, at := lf[3], lf[4]
		top[at] = root
		ours := rf[0] == "tmpfs" && (at == "/tmp" && root == "/tmp" || at == "/dev/shm" && root == "/shm") &&
			strings.Contains(","+rf[2]+",", ","+size+",")
		if !ours || found != "" {
			continue
		}
		d, ok := parseMountDev(lf[2])
		if !ok {
			continue
		}
		dev, found = d, at
	}
	if found == "" {
		return 0, "", fmt.Errorf("the sandbox's memory areas (a tmpfs of %s at /tmp or /dev/shm) are not among its mounts", mib(limit))
	}
	// A writable root at /tmp covers the areas' bind there: use /dev/shm.
	for _, at := range []string{"/tmp", "/dev/shm"} {
		if want := map[string]string{"/tmp": "/tmp", "/dev/shm": "/shm"}[at]; top[at] == want {
			return dev, at, nil
		}
	}
	return dev, "", fmt.Errorf("the sandbox's memory areas are covered at both /tmp and /dev/shm; a memory limit cannot be enforced without a cgroup")
}

// close releases the sampler's descriptors.
func (s *treeSampler) close() {
	if s == nil {
		return
	}
	s.proc.Close()
	if s.areas >= 0 {
		unix.Close(s.areas)
	}
}

// readAll reads the file name of the sandbox's /proc whole, into s.buf
// (valid until the next read).
func (s *treeSampler) readAll(name string) ([]byte, error) {
	fd, err := unix.Openat(int(s.proc.Fd()), name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	buf := s.buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) || err == nil && n == 0 {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	s.buf = buf
	return buf, nil
}

// sample returns the memory the sandbox holds and its number of
// processes. With exact false it sums each process's resident counts
// (/proc/PID/status, cheap): pages several processes share, such as those
// a fork shares with its parent until either writes, count once for each,
// so the sum is at or above what the sandbox holds. With exact true it
// sums their proportional shares (/proc/PID/smaps_rollup, which walks the
// page tables: dearer), which add up to what the sandbox holds; the
// monitor asks for it when the cheap sum is past the limit.
func (s *treeSampler) sample(exact bool) (int64, int, error) {
	var shared *sharedMemory
	var seen map[int]bool // exact: the processes whose memory has been read
	if exact {
		shared = &sharedMemory{ns: s.pidNS}
		seen = map[int]bool{}
		s.smapsUntil = time.Now().Add(smapsBudget)
	}
	list := func() ([]string, error) {
		if _, err := s.proc.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return s.proc.Readdirnames(-1)
	}
	read := func(name string) (int64, string, bool) {
		n, ok := s.processBytes(name, "status", residentFields)
		var parent string
		if ok && exact {
			n, parent = s.exactBytes(name, seen, shared)
		}
		return n, parent, ok
	}
	used, procs, err := walkTree(list, read, walkRounds, !exact)
	if err != nil {
		return 0, 0, err
	}
	if s.areas >= 0 {
		var fs unix.Statfs_t
		if err := unix.Fstatfs(s.areas, &fs); err != nil {
			return 0, 0, err
		}
		used += int64(fs.Blocks-fs.Bfree) * fs.Bsize
		// Its inodes and user extended attributes hold kernel memory
		// that no block shows: tmpfs charges them to its inode space,
		// which statfs tells in units of a KiB (BOGO_INODE_SIZE).
		used += int64(fs.Files-fs.Ffree) << 10
	}
	used += s.socketBytes()
	return used, procs, nil
}

// parent returns the parent (PPid, in the sandbox) of the process name,
// or 0.
func (s *treeSampler) parent(name string) int {
	b, err := s.readAll(name + "/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(b) {
		if rest, ok := bytes.CutPrefix(line, []byte("PPid:")); ok {
			p, _ := strconv.Atoi(string(bytes.TrimSpace(rest)))
			return p
		}
	}
	return 0
}

// processBytes sums fields of the file (status or smaps_rollup) of the
// process name (its pid in the sandbox); ok is false when the process is
// gone.
func (s *treeSampler) processBytes(name, file string, fields [][]byte) (int64, bool) {
	return s.processFunc(name, file, func(b []byte) (int64, bool) { return sumFields(b, fields) })
}

// processFunc reads the file of the process name and sums it with sum; ok
// is false when the process is gone. A process whose first thread has
// exited shows no memory in its own files: another thread's show the
// memory they share.
func (s *treeSampler) processFunc(name, file string, sum func([]byte) (int64, bool)) (int64, bool) {
	b, err := s.readAll(name + "/" + file)
	if err == nil {
		if n, ok := sum(b); ok {
			return n, true
		}
	}
	// Nothing there, or no memory to show (smaps_rollup fails then).
	tasks, terr := s.taskNames(name)
	if terr != nil {
		return 0, err == nil // gone, or a zombie with nothing left
	}
	for _, tid := range tasks {
		if tid == name {
			continue
		}
		if b, err := s.readAll(name + "/task/" + tid + "/" + file); err == nil {
			if n, ok := sum(b); ok {
				return n, true
			}
		}
	}
	return 0, true
}

// exactBytes returns the memory the process name holds: the proportional
// shares (smaps_rollup, which walks its page tables) of the memory it
// maps, anonymous, shared and swapped, less the shares of the files of
// the memory areas it maps (read from smaps; mapShares), which their
// tmpfs's use counts already, plus its page tables, and the name of its
// parent. It returns 0 for a process that
// is its parent's memory again (see sharedMemory); seen records the
// processes whose memory has been read, for their children.
//
// A process only ever stops sharing its parent's memory (a vfork child at
// its execve), so the kernel is asked before the read, and again after it
// when the two shared: a child that shared before and after was that
// memory throughout; one that stopped during the read (a spawner's child,
// every few milliseconds) is read again, its own memory now. Asked only
// after the read, such a child counted its parent's memory a second time
// (CI: a 150 MiB spawner killed under a 256 MiB limit).
func (s *treeSampler) exactBytes(name string, seen map[int]bool, shared *sharedMemory) (int64, string) {
	pid, _ := strconv.Atoi(name)
	ppid := s.parent(name)
	parent := strconv.Itoa(ppid)
	wasShared := seen[ppid] && s.sameSize(name, ppid) && shared.same(pid, ppid)
	b, err := s.readAll(name + "/smaps_rollup")
	if wasShared {
		if shared.same(pid, ppid) {
			seen[pid] = true // its own vfork children share it too
			return 0, parent
		}
		b, err = s.readAll(name + "/smaps_rollup")
	}
	var n, shmem int64
	ok := false
	if err == nil {
		n, shmem, ok = rollupShares(b)
	}
	if ok {
		seen[pid] = true
	} else {
		// No memory in the first thread's: another thread's.
		s.processFunc(name, "smaps_rollup", func(b []byte) (int64, bool) {
			var ok bool
			n, shmem, ok = rollupShares(b)
			return n, ok
		})
	}
	if s.devKinds != nil && shmem > 0 && time.Now().Before(s.smapsUntil) {
		var shares mapShares
		s.processFunc(name, "smaps", func(b []byte) (int64, bool) {
			var ok bool
			shares, ok = s.mapShares(b)
			return 0, ok
		})
		n = max(0, n-shares.inAreas(shmem))
	}
	own, _ := s.processBytes(name, "status", ownFields)
	return n + own, parent
}

// sameSize reports whether the process name and the process parent map
// as much address space (the first field of statm). Two processes of one
// memory always do, so a difference settles that they are two without
// asking the kernel, which costs a walk of the host's /proc for a process
// started since the last (sharedMemory.same): every process of a chain
// that forks and exits at once is such a process, and the walk let it hop
// before its read (TestRedteam30MonitorMissesForkHoppingMemory). The reads
// are moments apart, and a mapping made between two of them makes one
// memory look like two, counted twice (a vfork child mapping and
// unmapping in a loop: TestMemoryMonitorCountsOneMemoryOnce): so the two
// are read in turn, up to sizeReads times each, and any two reads next to
// each other that agree send the question on to the kernel. Two memories
// of equal size only cost that question (kcmp decides), never a miscount.
func (s *treeSampler) sameSize(name string, parent int) bool {
	pname := strconv.Itoa(parent)
	a, ok := s.statmSize(name)
	for range sizeReads {
		b, okB := s.statmSize(pname)
		if !ok || !okB || a == b {
			return true
		}
		if a, ok = s.statmSize(name); !ok || a == b {
			return true
		}
	}
	return false
}

// sizeReads is how many times sameSize reads the parent's size.
const sizeReads = 3

// statmSize returns the first field of the statm of the process name.
func (s *treeSampler) statmSize(name string) (string, bool) {
	b, err := s.readAll(name + "/statm")
	if err != nil {
		return "", false
	}
	f, _, _ := bytes.Cut(b, []byte(" "))
	return string(f), len(f) > 0
}

// smapsBudget bounds the time an exact count spends reading smaps, whose
// text grows with the number of mappings, which cost no memory: 80 idle
// processes of 30000 untouched mappings made each count take seconds
// (TestRedteam30MonitorSlowedBySmapsOfManyMappings). smaps is read only
// for what it may take away, the shares of the memory areas' files, which
// are shared memory: a process whose smaps_rollup shows no Pss_Shmem has
// none to take away. Past the budget the remaining processes keep their
// shares of those files, which the tmpfs's use counts too: the count errs
// high, by no more than the areas' files such processes map, and never
// hides anonymous memory behind a slow read.
const smapsBudget = 200 * time.Millisecond

// kbField parses the value of an smaps field ("  1234 kB") in bytes; 0 if
// it is not one.
func kbField(rest []byte) int64 {
	kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
}

// isMappingHeader reports whether a line of smaps starts a mapping
// ("7f00...-7f01... rw-p ..."), not one of its "Field: value" lines.
func isMappingHeader(line []byte) bool {
	i := bytes.IndexByte(line, ' ')
	return i > 0 && bytes.IndexByte(line[:i], '-') > 0 && !bytes.HasSuffix(line[:i], []byte(":"))
}

func (s *treeSampler) taskNames(name string) ([]string, error) {
	fd, err := unix.Openat(int(s.proc.Fd()), name+"/task", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	d := os.NewFile(uintptr(fd), "task")
	defer d.Close()
	return d.Readdirnames(-1)
}

// The fields the monitor sums: memory only reclaiming it from the
// process would free. Anonymous pages, shared memory it maps (shared
// anonymous mappings, files of tmpfs), its page tables (a process can make
// them large with sparse mappings) and what of all that was swapped out.
// File-backed pages (RssFile) are left out: the kernel can drop them. A
// mapped file of the memory areas counts there too: that errs on the safe
// side.
var (
	residentFields     = [][]byte{[]byte("RssAnon:"), []byte("RssShmem:"), []byte("VmPTE:"), []byte("VmSwap:")}
	ownFields          = [][]byte{[]byte("VmPTE:")}
	proportionalFields = [][]byte{[]byte("Pss_Anon:"), []byte("Pss_Shmem:"), []byte("SwapPss:")}
	shmemFields        = [][]byte{[]byte("Pss_Shmem:")}
)

// rollupShares reads the text of an smaps_rollup: the proportional shares
// the monitor sums (n) and, of them, the shared memory's (shmem); ok is
// false when it has none.
func rollupShares(b []byte) (n, shmem int64, ok bool) {
	n, ok = sumFields(b, proportionalFields)
	shmem, _ = sumFields(b, shmemFields)
	return n, shmem, ok
}

// sumFields sums fields (values in kB) in the text of a /proc file; ok is
// false when it has none of them (an exited thread's, a zombie's).
func sumFields(b []byte, fields [][]byte) (int64, bool) {
	var total int64
	ok := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Bytes()
		for _, f := range fields {
			rest, found := bytes.CutPrefix(line, f)
			if !found {
				continue
			}
			kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			if err == nil {
				total += kb << 10
				ok = true
			}
		}
	}
	return total, ok
}
