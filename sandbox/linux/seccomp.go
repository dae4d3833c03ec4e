//go:build linux

package linux

import (
	"fmt"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter is a deny list, written as data:
//
//   - denied: syscalls refused outright (EPERM), the kernel attack surface a
//     workload never needs;
//   - argRules: syscalls refused only for some arguments (namespace flags
//     to clone, TIOCSTI and TIOCSETD to ioctl (and TIOCSCTTY on the
//     caller's terminal), F_SETLEASE to fcntl, set-user-ID
//     bits to chmod and open, exotic socket families).
//
// The reduced tier (hostShared), in the host's namespaces and without
// read-only mounts, refuses more: what reaches the user's other processes
// and IPC, and what changes the inode of a host file the user owns
// (owner, world-write bit, extended attributes, flags, generation).
//
// The filter first checks the architecture (anything but the native one is
// killed, and on amd64 so is the x32 ABI), so a syscall number can never be
// read in another table.

// argCheck says how an argument is judged.
type argCheck int

const (
	denyIfEqual   argCheck = iota // deny when arg equals one of values
	denyIfNotIn                   // deny unless arg equals one of values
	denyIfAnyBits                 // deny when arg & values[0] != 0
	denyIfAbove                   // deny when arg > values[0]
	// onlyIfIn allows the call unless arg equals one of values: the tests
	// after it judge only those calls. It comes after the rule's other
	// tests.
	onlyIfIn
)

// argTest judges one argument (its low 32 bits, or its high ones when high
// is set, masked when mask is set); errno, when set, is its own answer
// instead of the rule's.
type argTest struct {
	arg    int
	high   bool
	mask   uint32
	check  argCheck
	values []uint32
	errno  unix.Errno
}

// argRule refuses a syscall with errno when any of its tests denies.
type argRule struct {
	nr    uintptr
	tests []argTest
	errno unix.Errno
}

// rule is shorthand for a one-test argRule.
func rule(nr uintptr, arg int, check argCheck, errno unix.Errno, values ...uint32) argRule {
	return argRule{nr: nr, tests: []argTest{{arg: arg, check: check, values: values}}, errno: errno}
}

const (
	nsCloneFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
		unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET
	setIDBits = unix.S_ISUID | unix.S_ISGID
)

// commonArgRules apply on every architecture. The set-ID rules keep a
// sandboxed program from leaving a set-user-ID file in a writable root that
// a host user might later run.
var commonArgRules = []argRule{
	openRule(unix.SYS_OPENAT, 2, 3),
	rule(unix.SYS_CLONE, 0, denyIfAnyBits, unix.EPERM, nsCloneFlags),
	// fcntl: fcntlRule.
	rule(unix.SYS_MKNODAT, 2, denyIfAnyBits, unix.EPERM, setIDBits),
	// Only the personalities Docker's default profile allows: Linux,
	// PER_LINUX32, UNAME26, the last two together, and the query.
	// ADDR_NO_RANDOMIZE and READ_IMPLIES_EXEC stay refused: they weaken the
	// exploit mitigations of the sandbox's own processes, and the debuggers
	// that turn randomisation off need ptrace, which is refused anyway.
	rule(unix.SYS_PERSONALITY, 0, denyIfNotIn, unix.EPERM, 0, 0x0008, 0x20000, 0x20008, 0xffffffff),
}

// openRule refuses set-ID bits in an open's mode (argument mode) and the
// access mode 3 in its flags (argument flags). Mode 3 (O_WRONLY|O_RDWR)
// opens a file for neither reading nor writing, for ioctls: Landlock asks
// an open for the rights of the descriptor's mode, so it asks for none,
// and a denied file opened so in the reduced tier was compared with a
// guess by FIDEDUPERANGE until it matched (red-team round 62: a 4-digit
// PIN in under a second). No program's work needs it.
func openRule(nr uintptr, flags, mode int) argRule {
	return argRule{nr: nr, errno: unix.EPERM, tests: []argTest{
		{arg: mode, check: denyIfAnyBits, values: []uint32{setIDBits}},
		{arg: flags, mask: unix.O_ACCMODE, check: denyIfEqual, values: []uint32{unix.O_ACCMODE}},
	}}
}

// terminalIoctls: TIOCSTI pushes input into a terminal, TIOCLINUX drives
// the console, TIOCSETD changes a terminal's line discipline: N_NULL on the
// user's terminal swallows everything written to it afterwards, and any
// number the kernel has not loaded makes it load that discipline's module
// (n_hdlc and n_gsm have had privilege escalations).
var terminalIoctls = []uint32{unix.TIOCSTI, unix.TIOCLINUX, unix.TIOCSETD}

// fsIocFSSetXattr is FS_IOC_FSSETXATTR, _IOW('X', 32, struct fsxattr);
// fsIocSetVersion is FS_IOC_SETVERSION, _IOW('v', 2, long), and
// ext4IocSetVersionOld ext4's older number for it, _IOW('f', 4, long).
const (
	fsIocFSSetXattr      = 0x401c5820
	fsIocSetVersion      = 0x40087602
	ext4IocSetVersionOld = 0x40086604
)

// hostInodeIoctls change a file's inode flags (append-only, immutable,
// nodump, noatime, ...) or its generation number (chattr -v: NFS handles
// to it go stale) through a descriptor open for reading only: the
// kernel asks only that the caller own the file. The full tier's
// read-only mounts answer EROFS outside the writable roots and chattr
// inside them is the program's own business; the reduced tier has no such
// mounts and Landlock no right for it, so there they are refused.
var hostInodeIoctls = []uint32{unix.FS_IOC_SETFLAGS, fsIocFSSetXattr, fsIocSetVersion, ext4IocSetVersionOld}

// fscryptKeyIoctls add and remove fscrypt master keys. The kernel asks
// only that the caller's uid hold a claim on the key, through any
// descriptor on the file system (a read-only one too): the sandbox runs as
// the caller's uid, so it could lock the caller's encrypted directories
// (remove) or fill the caller's key quota (add). Found by red-team round 47.
//
// FS_IOC_SET_ENCRYPTION_POLICY encrypts an empty directory the caller
// owns, for good, with a key that need not be present (a v1 policy): every
// later create there fails, root's too. The full tier's read-only mounts
// answer EROFS outside the writable roots; the reduced tier has none, and
// Landlock no right for it (red-team round 61). No agent's work sets one.
var fscryptKeyIoctls = []uint32{unix.FS_IOC_ADD_ENCRYPTION_KEY, unix.FS_IOC_REMOVE_ENCRYPTION_KEY,
	unix.FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS, unix.FS_IOC_SET_ENCRYPTION_POLICY}

// btrfsSubvolIoctls create, snapshot, destroy and flag btrfs subvolumes
// (_IOW/_IOWR(0x94, …), from linux/btrfs.h). A snapshot copies a whole
// subvolume, the files under the sandbox's deny masks too, into any
// writable directory of the same file system: a home on btrfs (as
// systemd-homed makes it) snapshotted into a writable root showed
// ~/.ssh's keys under new names, in both tiers; in the reduced tier, with
// no read-only mounts and no Landlock hook on the ioctl, one also planted
// a tree outside the writable roots (red-team round 61). Refused in every
// tier; clones and dedupe (FICLONE, FICLONERANGE, FIDEDUPERANGE, which
// share the 0x94 type) need their source open for reading and stay.
var btrfsSubvolIoctls = []uint32{
	0x50009401, // BTRFS_IOC_SNAP_CREATE
	0x5000940e, // BTRFS_IOC_SUBVOL_CREATE
	0x5000940f, // BTRFS_IOC_SNAP_DESTROY
	0x50009417, // BTRFS_IOC_SNAP_CREATE_V2
	0x50009418, // BTRFS_IOC_SUBVOL_CREATE_V2
	0x5000943f, // BTRFS_IOC_SNAP_DESTROY_V2
	0x4008941a, // BTRFS_IOC_SUBVOL_SETFLAGS
	0xc0c89425, // BTRFS_IOC_SET_RECEIVED_SUBVOL
	// Its packed 32-bit layout's number, which btrfs takes from 64-bit
	// callers too (red-team round 62).
	0xc0c09425, // BTRFS_IOC_SET_RECEIVED_SUBVOL_32
}

// ioctlRule refuses the terminal ioctls, fscrypt's key and policy
// ioctls, btrfs's subvolume ioctls, TIOCSCTTY
// and TIOCSWINSZ when the program holds the caller's terminal (see
// seccompOptions.callerTerminal), and in the reduced tier the inode-flag
// ones and those that set a file's owner (keeperRules) too.
func ioctlRule(o seccompOptions) argRule {
	cmds := slices.Concat(terminalIoctls, fscryptKeyIoctls, btrfsSubvolIoctls)
	if o.callerTerminal {
		cmds = append(cmds, unix.TIOCSCTTY, unix.TIOCSWINSZ)
	}
	if o.hostShared {
		cmds = slices.Concat(cmds, hostInodeIoctls, ownerIoctls)
	}
	return rule(unix.SYS_IOCTL, 1, denyIfEqual, unix.EPERM, cmds...)
}

// modeArg names a syscall that sets a file's mode and the argument that
// holds the mode.
type modeArg struct {
	nr  uintptr
	arg int
}

// commonChmods set a mode on every architecture (archChmods adds the
// path-only chmod where the architecture has it).
var commonChmods = []modeArg{{unix.SYS_FCHMOD, 1}, {unix.SYS_FCHMODAT, 2}, {unix.SYS_FCHMODAT2, 2}}

// hostModeBits are the mode bits the reduced tier refuses to set on top of
// setIDBits. Landlock has no right for chmod and the reduced tier no
// read-only mounts, so a program may chmod any file the user owns, outside
// its writable roots too: making one writable by every local user (the
// user's ~/.bashrc, say) hands it to them. Group write is left: with user
// private groups it is the user's own, and npm, pip, tar and git chmod
// files in the writable roots to everything else (+x, g+w).
const hostModeBits = unix.S_IWOTH

// chmodRules refuse the set-ID bits everywhere, so that a sandboxed
// program leaves no set-user-ID file in a writable root that a host user
// might later run, and in the reduced tier also hostModeBits. The mode is
// an argument's low 32 bits, all that mode_t holds.
func chmodRules(o seccompOptions) []argRule {
	bits := uint32(setIDBits)
	if o.hostShared {
		bits |= hostModeBits
	}
	var rules []argRule
	for _, c := range slices.Concat(commonChmods, archChmods) {
		rules = append(rules, rule(c.nr, c.arg, denyIfAnyBits, unix.EPERM, bits))
	}
	return rules
}

// hostInodeCalls change a file's owner, extended attributes or attributes
// by path or through any descriptor, checked by the kernel only against
// the file's owner, and by Landlock not at all: refused (EPERM) in the
// reduced tier, whose host files have no read-only mounts over them. The
// extended attributes go whole, for seccomp cannot read their names:
// system.posix_acl_access would grant what chmodRules refuses. Timestamps
// (utimensat) stay allowed: tar, cp -p and make set them, and the README
// says the tier leaves them to the user's programs.
var hostInodeCalls = []uintptr{
	unix.SYS_FCHOWN, unix.SYS_FCHOWNAT,
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_SETXATTRAT,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_REMOVEXATTRAT,
	unix.SYS_FILE_SETATTR,
}

// commonDenied are refused with EPERM on every architecture.
var commonDenied = []uintptr{
	// Tracing and reading other processes.
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_GETFD,
	unix.SYS_KCMP, unix.SYS_MOVE_PAGES, unix.SYS_MIGRATE_PAGES,
	// Mounts, old and new API, and changing root.
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT, unix.SYS_MOVE_MOUNT,
	unix.SYS_OPEN_TREE, unix.SYS_OPEN_TREE_ATTR, unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT,
	unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	// Namespaces.
	unix.SYS_UNSHARE, unix.SYS_SETNS,
	// Kernel attack surface.
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE,
	unix.SYS_DELETE_MODULE, unix.SYS_REBOOT, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KEYCTL,
	unix.SYS_ACCT, unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_SYSLOG, unix.SYS_QUOTACTL,
	unix.SYS_QUOTACTL_FD, unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT, unix.SYS_FANOTIFY_INIT,
	unix.SYS_LOOKUP_DCOOKIE, unix.SYS_NFSSERVCTL, unix.SYS_VHANGUP,
	// Host identity and time.
	unix.SYS_SETHOSTNAME, unix.SYS_SETDOMAINNAME, unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME,
	unix.SYS_CLOCK_ADJTIME,
}

// enosys are answered with ENOSYS so that libraries fall back to a variant
// the filter can inspect: clone3, openat2 and setxattrat pass their
// arguments in a structure seccomp cannot read. Native AIO (io_setup) is
// answered so too, as by a kernel built without it (libaio users fall back
// to threads): fs.aio-max-nr bounds the events of every AIO context on the
// machine together, in no namespace and for no user of its own, and two
// contexts of a sandbox took them all, failing the host's databases and
// virtual machines.
var enosys = []uintptr{unix.SYS_CLONE3, unix.SYS_OPENAT2, unix.SYS_SETXATTRAT, unix.SYS_IO_SETUP}

// maxXattrValue bounds the value of an extended attribute a sandboxed
// program may set; a larger one is answered EOPNOTSUPP, as by a
// filesystem without extended attributes. tmpfs keeps a file's POSIX ACLs
// in kernel memory that no count and no limit sees (not its blocks, not
// its inode space, and not the memory cgroup: posix_acl_alloc allocates
// unaccounted): ACLs of 8,000 entries on directories in /tmp held
// gigabytes. seccomp cannot read an attribute's name, but it can read the
// value's size: 128 bytes hold an ACL of 15 entries (what cp -a and cp -p
// copy), so the two ACLs an inode may have cost a few hundred bytes of
// kernel memory, and the memory areas' inodes are bounded (areasInodes):
// under a tenth of the limit. User attributes are charged to the tmpfs's
// inode space, which the monitor counts. The value's size is the low 32
// bits of the argument; one with higher bits set is past XATTR_SIZE_MAX,
// which the kernel refuses itself.
const maxXattrValue = 128

// xattrRules bound setxattr's value (see maxXattrValue); setxattrat passes
// it in a structure seccomp cannot read, so it is in enosys.
var xattrRules = []argRule{
	rule(unix.SYS_SETXATTR, 3, denyIfAbove, unix.EOPNOTSUPP, maxXattrValue),
	rule(unix.SYS_LSETXATTR, 3, denyIfAbove, unix.EOPNOTSUPP, maxXattrValue),
	rule(unix.SYS_FSETXATTR, 3, denyIfAbove, unix.EOPNOTSUPP, maxXattrValue),
}

// Offsets into struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

func bpfStmt(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }

func bpfJump(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
}

const (
	ldAbs  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	jeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	jgeK   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	jsetK  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	jgtK   = unix.BPF_JMP | unix.BPF_JGT | unix.BPF_K
	retK   = unix.BPF_RET | unix.BPF_K
	retOK  = unix.SECCOMP_RET_ALLOW
	retErr = unix.SECCOMP_RET_ERRNO
)

// hostProcessRules keep a program of the reduced tier, which has no pid
// namespace, from changing the user's other processes: these calls check
// only that the uids match, and Landlock (which scopes signals and ptrace)
// has no hook for them. A program may change itself (pid 0), not another
// process by pid, process group or user: capping a host process's
// RLIMIT_CPU had the kernel kill it.
var hostProcessRules = []argRule{
	rule(unix.SYS_PRLIMIT64, 0, denyIfNotIn, unix.EPERM, 0),
	rule(unix.SYS_SCHED_SETATTR, 0, denyIfNotIn, unix.EPERM, 0),
	rule(unix.SYS_SCHED_SETSCHEDULER, 0, denyIfNotIn, unix.EPERM, 0),
	rule(unix.SYS_SCHED_SETPARAM, 0, denyIfNotIn, unix.EPERM, 0),
	rule(unix.SYS_SCHED_SETAFFINITY, 0, denyIfNotIn, unix.EPERM, 0),
	{nr: unix.SYS_SETPRIORITY, errno: unix.EPERM, tests: []argTest{
		{arg: 0, check: denyIfNotIn, values: []uint32{unix.PRIO_PROCESS}},
		{arg: 1, check: denyIfNotIn, values: []uint32{0}},
	}},
	{nr: unix.SYS_IOPRIO_SET, errno: unix.EPERM, tests: []argTest{
		{arg: 0, check: denyIfNotIn, values: []uint32{ioprioWhoProcess}},
		{arg: 1, check: denyIfNotIn, values: []uint32{0}},
	}},
}

// ioprioWhoProcess is IOPRIO_WHO_PROCESS.
const ioprioWhoProcess = 1

// hostIPC are System V IPC's calls, answered ENOSYS in the reduced tier:
// without an IPC namespace a program would find, attach, read and write
// the user's own segments, queues and semaphores (by key or by the ids
// /proc/sysvipc lists), which check only the uid. POSIX message queues
// are refused by Landlock (mq_open), as /dev/shm's files are.
var hostIPC = []uintptr{
	unix.SYS_SHMGET, unix.SYS_SHMAT, unix.SYS_SHMCTL, unix.SYS_SHMDT,
	unix.SYS_MSGGET, unix.SYS_MSGSND, unix.SYS_MSGRCV, unix.SYS_MSGCTL,
	unix.SYS_SEMGET, unix.SYS_SEMOP, unix.SYS_SEMTIMEDOP, unix.SYS_SEMCTL,
}

// seccompOptions vary the filter with the policy and the tier.
type seccompOptions struct {
	allowUnix  bool // AF_UNIX sockets may be created
	streamOnly bool // only TCP sockets (no network namespace)
	// noTCP says the reduced tier allows no TCP connect or bind at all
	// (no port to connect to): a TCP socket is then good for nothing but
	// listen(2)'s implicit bind (see refusesInet).
	noTCP bool
	// hostShared refuses what reaches the user's other processes without
	// a pid and an IPC namespace (hostProcessRules, hostIPC): the reduced
	// tier.
	hostShared bool
	// uncountedMemory refuses the shared memory that no count of a
	// process's memory sees (see uncountedMemory): set when a memory limit
	// is enforced without a memory cgroup.
	uncountedMemory bool
	// dataLimit refuses changes to RLIMIT_DATA (dataLimitRules): set when
	// the memory limit is one.
	dataLimit bool
	// keeper is the id of the init's thread that forks the program and
	// stays alive in the reduced tier; signals to it are refused (see
	// keeperRules). Zero when there is none.
	keeper uint32
	// callerTerminal says a standard stream of the program is a terminal
	// it does not own: the caller's, handed over as it is. TIOCSCTTY is
	// then refused: on a terminal that is no session's controlling
	// terminal (a harness's pty opened without setsid, one whose shell
	// exited) it would make the caller's terminal the program's, and
	// TIOCSPGRP then its group the foreground one: the caller's ^C and ^Z
	// would go to the program. A terminal of the program's own (the
	// init's pty) or none leaves TIOCSCTTY allowed: the program's
	// Setctty needs it (the filter is loaded before the fork), and so do
	// forkpty, script, tmux and expect inside, on ptys of the sandbox's
	// own (the host's /dev/pts is out of reach in both tiers).
	// TIOCSWINSZ is refused with it: a window size set on the caller's
	// terminal would outlast the command (restoring it afterwards would
	// also undo the user's own resizing meanwhile), and the programs that
	// set one on a pty of their own (tmux, pexpect) need TIOCSCTTY too.
	callerTerminal bool
}

// newestSyscall is the highest syscall number the lists above were written
// against (file_setattr, Linux 6.17; the number is the same in every
// table since 424). A deny list allows what it does not name, so a syscall
// a later kernel adds would reach the program unexamined, as the mount
// API's open_tree_attr did after the mount calls were first listed. The
// filter answers every number above it with ENOSYS, as a kernel that
// predates the call would: libraries fall back from that. Raise it only
// after judging each call below the new number.
const newestSyscall = unix.SYS_FILE_SETATTR

// buildSeccomp assembles the filter for the native architecture.
func buildSeccomp(o seccompOptions) ([]unix.SockFilter, error) {
	return buildSeccompUpTo(o, newestSyscall)
}

// buildSeccompUpTo assembles the filter answering ENOSYS above newest.
func buildSeccompUpTo(o seccompOptions, newest uint32) ([]unix.SockFilter, error) {
	var p []unix.SockFilter
	p = append(p,
		bpfStmt(ldAbs, offArch),
		bpfJump(jeqK, nativeAuditArch, 1, 0),
		bpfStmt(retK, unix.SECCOMP_RET_KILL_PROCESS),
		bpfStmt(ldAbs, offNr),
	)
	p = append(p, archPrologue()...)
	p = append(p,
		bpfJump(jgtK, newest, 0, 1),
		bpfStmt(retK, retErr|uint32(unix.ENOSYS)),
	)
	rules := slices.Concat([]argRule{socketRule(o), ioctlRule(o), fcntlRule(o)}, socketpairRule(o), commonArgRules,
		chmodRules(o), archArgRules, keeperRules(o))
	denied := slices.Concat(commonDenied, archDenied, streamDenied(o))
	if o.hostShared {
		rules = append(rules, hostProcessRules...)
		// Refused whole (hostInodeCalls), so not bounded by size.
		denied = slices.Concat(denied, hostInodeCalls, archHostInodeCalls)
	} else {
		rules = append(rules, xattrRules...)
	}
	if o.dataLimit {
		for _, r := range dataLimitRules {
			rules = joinRule(rules, r)
		}
	}
	if o.uncountedMemory {
		rules = append(rules, countedMemoryRules...)
		denied = slices.Concat(denied, pinningCalls)
	}
	for _, r := range rules {
		blk, err := r.assemble()
		if err != nil {
			return nil, err
		}
		p = append(p, blk...)
	}
	p = append(p, answer(denied, unix.EPERM)...)
	if o.uncountedMemory {
		p = append(p, answer(pageCacheCalls, unix.EINVAL)...)
	}
	nosys := slices.Clone(enosys)
	if o.uncountedMemory {
		nosys = append(nosys, uncountedMemory...)
	}
	if o.hostShared {
		// setxattrat is refused outright there, not sent to a fallback.
		nosys = slices.DeleteFunc(nosys, func(nr uintptr) bool { return slices.Contains(denied, nr) })
		nosys = slices.Concat(nosys, hostIPC, hostSignal)
	}
	slices.Sort(nosys)
	p = append(p, answer(slices.Compact(nosys), unix.ENOSYS)...)
	p = append(p, bpfStmt(retK, retOK))
	if len(p) > 4096 {
		return nil, fmt.Errorf("seccomp filter too long (%d instructions)", len(p))
	}
	return p, nil
}

// answer emits: if the syscall is one of nrs, return errno.
func answer(nrs []uintptr, errno unix.Errno) []unix.SockFilter {
	var p []unix.SockFilter
	for _, nr := range nrs {
		p = append(p, bpfJump(jeqK, uint32(nr), 0, 1), bpfStmt(retK, retErr|uint32(errno)))
	}
	return p
}

// assemble emits: if nr matches, judge each argument in turn and return
// errno at the first that denies, allow after the last; otherwise fall
// through to the next block with the syscall number still in the
// accumulator. The deny return sits at the end of the block, after the
// allow, so every test jumps forward to it.
func (r argRule) assemble() ([]unix.SockFilter, error) {
	type patch struct {
		at    int
		errno unix.Errno
		fall  bool // denyIfNotIn's fall-through: an unconditional jump (K)
	}
	var body []unix.SockFilter
	var patches []patch
	var allows []int // onlyIfIn's fall-throughs: unconditional jumps to the allow
	for _, t := range r.tests {
		errno := r.errno
		if t.errno != 0 {
			errno = t.errno
		}
		off := uint32(offArgs + 8*t.arg) // low 32 bits (little endian)
		if t.high {
			off += 4
		}
		body = append(body, bpfStmt(ldAbs, off))
		if t.mask != 0 {
			body = append(body, bpfStmt(unix.BPF_ALU|unix.BPF_AND|unix.BPF_K, t.mask))
		}
		switch t.check {
		case denyIfAnyBits:
			patches = append(patches, patch{at: len(body), errno: errno})
			body = append(body, bpfJump(jsetK, t.values[0], 0, 0))
		case denyIfAbove:
			patches = append(patches, patch{at: len(body), errno: errno})
			body = append(body, bpfJump(jgtK, t.values[0], 0, 0))
		case denyIfEqual:
			for _, v := range t.values {
				patches = append(patches, patch{at: len(body), errno: errno})
				body = append(body, bpfJump(jeqK, v, 0, 0))
			}
		case denyIfNotIn:
			// A match skips to the next test; no match falls into a jump to deny.
			n := len(t.values)
			for i, v := range t.values {
				body = append(body, bpfJump(jeqK, v, uint8(n-i), 0))
			}
			patches = append(patches, patch{at: len(body), errno: errno, fall: true})
			body = append(body, bpfJump(unix.BPF_JMP|unix.BPF_JA, 0, 0, 0))
		case onlyIfIn:
			// A match goes on to the next test; no match falls into a jump to allow.
			n := len(t.values)
			for i, v := range t.values {
				body = append(body, bpfJump(jeqK, v, uint8(n-i), 0))
			}
			allows = append(allows, len(body))
			body = append(body, bpfJump(unix.BPF_JMP|unix.BPF_JA, 0, 0, 0))
		default:
			return nil, fmt.Errorf("unknown argument check %d", t.check)
		}
	}
	for _, at := range allows {
		body[at].K = uint32(len(body) - at - 1)
	}
	body = append(body, bpfStmt(retK, retOK))
	// One deny return per errno, after the allow, so that every test jumps
	// forward to its own.
	deny := make(map[unix.Errno]int)
	for _, p := range patches {
		if _, ok := deny[p.errno]; !ok {
			deny[p.errno] = len(body)
			body = append(body, bpfStmt(retK, retErr|uint32(p.errno)))
		}
	}
	for _, p := range patches {
		off := deny[p.errno] - p.at - 1
		switch {
		case p.fall:
			body[p.at].K = uint32(off)
		case off > 255:
			return nil, fmt.Errorf("seccomp rule for syscall %d too long", r.nr)
		default:
			body[p.at].Jt = uint8(off)
		}
	}
	if len(body) > 255 {
		return nil, fmt.Errorf("seccomp rule for syscall %d too long", r.nr)
	}
	return append([]unix.SockFilter{bpfJump(jeqK, uint32(r.nr), 0, uint8(len(body)))}, body...), nil
}

// loadSeccomp installs the filter on the current thread (no TSYNC: the
// init's other threads stay unfiltered; the program inherits the filter from
// the thread that forks it). no_new_privs must already be set.
func loadSeccomp(filter []unix.SockFilter) error {
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog)))
	if errno != 0 {
		return errno
	}
	return nil
}
