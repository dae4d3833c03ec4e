//go:build linux

package linux

import (
	"fmt"
	"slices"

	"golang.org/x/sys/unix"
)

// The rules here apply where a memory limit is enforced by summing what
// the processes' /proc shows (supervise's monitor, seccompOptions'
// uncountedMemory) rather than by a memory cgroup: what that sum cannot
// see is refused.

// uncountedMemory are the calls that make memory a process can hold
// without mapping it: a memfd's pages filled with write(2), a System V
// segment detached and left, System V message queues and semaphore sets
// (kernel memory of the IPC namespace). Without a memory cgroup the kernel charges
// them to nothing that /proc shows per process, so a memory limit enforced
// by summing the processes' memory (supervise's monitor) could not see
// them. They are answered ENOSYS, as on a kernel without them: libraries
// fall back to files in /dev/shm, whose tmpfs the monitor counts.
var uncountedMemory = []uintptr{unix.SYS_MEMFD_CREATE, unix.SYS_MEMFD_SECRET, unix.SYS_SHMGET, unix.SYS_MSGGET, unix.SYS_SEMGET}

// mmapKind masks mmap's flags down to the mapping's type (MAP_TYPE) and
// MAP_ANONYMOUS, which together say whether a mapping is shared anonymous
// memory.
const mmapKind = unix.MAP_TYPE | unix.MAP_ANONYMOUS

// sharedAnonRule refuses (EPERM) shared anonymous mappings
// (MAP_SHARED|MAP_ANONYMOUS, MAP_SHARED_VALIDATE|MAP_ANONYMOUS) where
// uncountedMemory is: their pages live in a shmem object of the kernel's
// own, on no mount, and madvise(MADV_DONTNEED) or unmapping all but one
// page takes them out of the page tables, and so out of RssShmem and Pss,
// while the object keeps them (TestRedteam26MonitorMissesZappedSharedAnonymous).
// Counting the mappings' sizes would miss the unmapped part as well.
// Private anonymous memory (malloc, thread stacks) stays allowed; shared
// memory between processes goes through files in /dev/shm (POSIX shm_open,
// Python's multiprocessing), whose tmpfs the monitor counts. The mapping
// of /dev/zero shared, which makes the same object, is closed by the
// sandbox's /dev (see zeroDevice).
var sharedAnonRule = argRule{nr: unix.SYS_MMAP, errno: unix.EPERM, tests: []argTest{{
	arg: 3, mask: mmapKind, check: denyIfEqual,
	values: []uint32{unix.MAP_SHARED | unix.MAP_ANONYMOUS, unix.MAP_SHARED_VALIDATE | unix.MAP_ANONYMOUS},
}}}

// pinningCalls are refused (EPERM) where uncountedMemory is. vmsplice(2)
// hands a pipe references to the caller's own pages: after munmap no
// process maps them, so they leave RssAnon and RLIMIT_DATA's count, and
// a reference to one 4 KiB page of a transparent huge page holds the whole
// 2 MiB folio (TestRedteam27MonitorMissesVmsplicedHugePages: 512 MiB in
// 16 pipes under a 64 MiB limit). Nothing everyday needs it; libraries
// that use it for zero-copy plumbing fall back to write(2) on an error.
var pinningCalls = []uintptr{unix.SYS_VMSPLICE}

// pageCacheCalls are answered EINVAL where uncountedMemory is, as for
// descriptors that cannot splice (Go's io.Copy and Python's
// socket.sendfile and shutil then copy through a buffer). splice(2) and
// sendfile(2) (whose output may be a pipe) hand a pipe references to a
// file's page-cache folios, which no huge-page setting of the program's
// keeps small: ext4 and XFS cache a file written 2 MiB at a time in 2 MiB
// folios, and 4 KiB of each spliced into pipes held the whole file after
// it was truncated, out of every file and every process's count (512 MiB
// in 16 pipes). tee(2) stays: it copies references between pipes, and
// pipes then hold only what write(2) put in them.
var pageCacheCalls = []uintptr{unix.SYS_SPLICE, unix.SYS_SENDFILE}

// zeroCopyRule refuses SO_ZEROCOPY (EOPNOTSUPP, as for a socket without
// it), without which MSG_ZEROCOPY sends copy: a zero-copy send pins the
// pages it sends (of a file mapping too, whose folios may be 2 MiB) until
// the peer acknowledges them, past munmap and truncation, and its socket
// buffer counts only the bytes sent.
var zeroCopyRule = argRule{nr: unix.SYS_SETSOCKOPT, errno: unix.EOPNOTSUPP, tests: []argTest{
	{arg: 1, check: onlyIfIn, values: []uint32{unix.SOL_SOCKET}},
	{arg: 2, check: denyIfEqual, values: []uint32{unix.SO_ZEROCOPY}},
}}

// thpDisableRule keeps the PR_SET_THP_DISABLE the init sets for the
// program (see disableHugePages): clearing it, or narrowing it with flags
// (PR_THP_DISABLE_EXCEPT_ADVISED, which lets madvise(MADV_HUGEPAGE) back
// memory with huge pages again), is refused (EPERM). Setting it whole
// again, as Redis does at start-up, is allowed: it changes nothing.
var thpDisableRule = argRule{nr: unix.SYS_PRCTL, errno: unix.EPERM, tests: []argTest{
	{arg: 0, check: onlyIfIn, values: []uint32{unix.PR_SET_THP_DISABLE}},
	{arg: 1, check: denyIfNotIn, values: []uint32{1}},
	{arg: 2, check: denyIfNotIn, values: []uint32{0}},
}}

// countedMemoryRules are the argument rules where uncountedMemory is.
var countedMemoryRules = []argRule{sharedAnonRule, thpDisableRule, zeroCopyRule}

// dataLimitRules refuse setting RLIMIT_DATA, where it holds the memory
// limit. The program starts with the limit as its soft one and the init's
// hard one (inheritDataLimit) until limitMemory lowers the hard one too: a
// child it forked at once would keep the init's hard limit, to which it
// could raise its soft one again. Lowering is refused with raising (the
// new limit lies in memory seccomp cannot read); reading stays allowed:
// glibc's getrlimit is prlimit64 with no new limit, whose pointer is
// tested in both halves.
var dataLimitRules = []argRule{
	rule(unix.SYS_SETRLIMIT, 0, denyIfEqual, unix.EPERM, unix.RLIMIT_DATA),
	{nr: unix.SYS_PRLIMIT64, errno: unix.EPERM, tests: []argTest{
		{arg: 1, check: onlyIfIn, values: []uint32{unix.RLIMIT_DATA}},
		{arg: 2, check: denyIfAnyBits, values: []uint32{0xffffffff}},
		{arg: 2, high: true, check: denyIfAnyBits, values: []uint32{0xffffffff}},
	}},
}

// joinRule adds r to rules, into the rule for the same syscall if there is
// one: a rule's block allows what it does not refuse, so a second block for
// that syscall would never be reached. r's tests go after the other rule's,
// which therefore must hold no onlyIfIn (it would gate them).
func joinRule(rules []argRule, r argRule) []argRule {
	i := slices.IndexFunc(rules, func(o argRule) bool { return o.nr == r.nr })
	if i < 0 {
		return append(rules, r)
	}
	joined := rules[i]
	joined.tests = slices.Clone(joined.tests)
	for _, t := range joined.tests {
		if t.check == onlyIfIn {
			panic(fmt.Sprintf("seccomp: joinRule into syscall %d, whose rule has an onlyIfIn test", r.nr))
		}
	}
	for _, t := range r.tests {
		if t.errno == 0 {
			t.errno = r.errno
		}
		joined.tests = append(joined.tests, t)
	}
	out := slices.Clone(rules)
	out[i] = joined
	return out
}
