//go:build linux

package linux

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// runBPF interprets the classic-BPF subset the filter uses over one
// struct seccomp_data. It is the logic check; the attack suite checks the
// kernel really enforces the filter.
func runBPF(t *testing.T, prog []unix.SockFilter, arch uint32, nr int, args [6]uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[0:], uint32(nr))
	binary.LittleEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case ldAbs:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_ALU | unix.BPF_AND | unix.BPF_K:
			acc &= in.K
		case jeqK, jgeK, jgtK, jsetK:
			var ok bool
			switch in.Code {
			case jeqK:
				ok = acc == in.K
			case jgeK:
				ok = acc >= in.K
			case jgtK:
				ok = acc > in.K
			default:
				ok = acc&in.K != 0
			}
			if ok {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_JMP | unix.BPF_JA:
			pc += int(in.K)
		case retK:
			return in.K
		default:
			t.Fatalf("instruction %d: unexpected code %#x", pc, in.Code)
		}
	}
	t.Fatal("filter fell off its end")
	return 0
}

func TestSeccompDecisions(t *testing.T) {
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	noAF := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EAFNOSUPPORT))
	noProto := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPROTONOSUPPORT))
	enosys := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	noXattr := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EOPNOTSUPP))
	einval := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EINVAL))
	notSupported := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EOPNOTSUPP))
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	kill := uint32(unix.SECCOMP_RET_KILL_PROCESS)
	type call struct {
		name string
		opts seccompOptions
		arch uint32
		nr   int
		args [6]uint64
		want uint32
	}
	native := uint32(nativeAuditArch)
	reduced := seccompOptions{hostShared: true, streamOnly: true}
	keeper := seccompOptions{hostShared: true, streamOnly: true, keeper: 4242}
	dataLimit := seccompOptions{dataLimit: true}
	reducedData := seccompOptions{hostShared: true, streamOnly: true, dataLimit: true}
	tests := []call{
		{"read allowed", seccompOptions{}, native, unix.SYS_READ, [6]uint64{}, allow},
		{"setrlimit data, memory limit", dataLimit, native, unix.SYS_SETRLIMIT, [6]uint64{unix.RLIMIT_DATA, 0x1000}, eperm},
		{"setrlimit data, no memory limit", seccompOptions{}, native, unix.SYS_SETRLIMIT, [6]uint64{unix.RLIMIT_DATA, 0x1000}, allow},
		{"setrlimit nofile, memory limit", dataLimit, native, unix.SYS_SETRLIMIT, [6]uint64{unix.RLIMIT_NOFILE, 0x1000}, allow},
		{"prlimit64 sets data", dataLimit, native, unix.SYS_PRLIMIT64, [6]uint64{0, unix.RLIMIT_DATA, 0x7ffc1000, 0}, eperm},
		{"prlimit64 sets data, pointer in the high half", dataLimit, native, unix.SYS_PRLIMIT64, [6]uint64{0, unix.RLIMIT_DATA, 0x100000000, 0}, eperm},
		{"prlimit64 reads data", dataLimit, native, unix.SYS_PRLIMIT64, [6]uint64{0, unix.RLIMIT_DATA, 0, 0x7ffc1000}, allow},
		{"prlimit64 sets nofile", dataLimit, native, unix.SYS_PRLIMIT64, [6]uint64{0, unix.RLIMIT_NOFILE, 0x7ffc1000, 0}, allow},
		{"reduced: prlimit64 sets data", reducedData, native, unix.SYS_PRLIMIT64, [6]uint64{0, unix.RLIMIT_DATA, 0x7ffc1000, 0}, eperm},
		{"reduced: prlimit64 sets data, high half", reducedData, native, unix.SYS_PRLIMIT64, [6]uint64{0, unix.RLIMIT_DATA, 0x100000000, 0}, eperm},
		{"reduced: prlimit64 reads data", reducedData, native, unix.SYS_PRLIMIT64, [6]uint64{0, unix.RLIMIT_DATA, 0, 0x7ffc1000}, allow},
		{"reduced: prlimit64 sets own nofile", reducedData, native, unix.SYS_PRLIMIT64, [6]uint64{0, unix.RLIMIT_NOFILE, 0x7ffc1000, 0}, allow},
		{"reduced: prlimit64 on another pid", reducedData, native, unix.SYS_PRLIMIT64, [6]uint64{1234, unix.RLIMIT_NOFILE, 0, 0x7ffc1000}, eperm},
		{"reduced: setrlimit data", reducedData, native, unix.SYS_SETRLIMIT, [6]uint64{unix.RLIMIT_DATA, 0x1000}, eperm},
		{"prlimit64 sets data, no memory limit", seccompOptions{}, native, unix.SYS_PRLIMIT64, [6]uint64{0, unix.RLIMIT_DATA, 0x7ffc1000, 0}, allow},
		{"foreign architecture killed", seccompOptions{}, unix.AUDIT_ARCH_I386, unix.SYS_READ, [6]uint64{}, kill},
		{"ptrace", seccompOptions{}, native, unix.SYS_PTRACE, [6]uint64{}, eperm},
		{"mount", seccompOptions{}, native, unix.SYS_MOUNT, [6]uint64{}, eperm},
		{"new mount API", seccompOptions{}, native, unix.SYS_FSOPEN, [6]uint64{}, eperm},
		{"bpf", seccompOptions{}, native, unix.SYS_BPF, [6]uint64{}, eperm},
		{"io_uring", seccompOptions{}, native, unix.SYS_IO_URING_SETUP, [6]uint64{}, eperm},
		{"unshare", seccompOptions{}, native, unix.SYS_UNSHARE, [6]uint64{}, eperm},
		{"clone3 falls back", seccompOptions{}, native, unix.SYS_CLONE3, [6]uint64{}, enosys},
		{"a syscall newer than the lists", seccompOptions{}, native, newestSyscall + 1, [6]uint64{}, enosys},
		{"reduced: a syscall newer than the lists", reduced, native, newestSyscall + 1, [6]uint64{}, enosys},
		{"far above the lists", seccompOptions{}, native, 0x3fffffff, [6]uint64{}, enosys},
		{"the newest listed syscall is judged by the lists", seccompOptions{}, native, newestSyscall, [6]uint64{}, allow},
		{"reduced: the newest listed syscall is judged by the lists", reduced, native, newestSyscall, [6]uint64{}, eperm},
		{"mseal, below the newest", seccompOptions{}, native, unix.SYS_MSEAL, [6]uint64{}, allow},
		{"plain fork", seccompOptions{}, native, unix.SYS_CLONE, [6]uint64{uint64(unix.SIGCHLD)}, allow},
		{"clone a user namespace", seccompOptions{}, native, unix.SYS_CLONE, [6]uint64{unix.CLONE_NEWUSER | uint64(unix.SIGCHLD)}, eperm},
		{"thread clone", seccompOptions{}, native, unix.SYS_CLONE, [6]uint64{unix.CLONE_VM | unix.CLONE_THREAD | unix.CLONE_SIGHAND}, allow},
		{"TIOCSTI", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCSTI}, eperm},
		{"TIOCSTI with garbage in the high bits", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{0, 0xdead00000000 | unix.TIOCSTI}, eperm},
		{"TIOCLINUX", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCLINUX}, eperm},
		{"TIOCSETD", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCSETD}, eperm},
		{"TIOCGETD", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCGETD}, allow},
		{"TIOCSCTTY on a terminal of the program's own", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCSCTTY, 1}, allow},
		{"TIOCSCTTY holding the caller's terminal", seccompOptions{callerTerminal: true}, native, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCSCTTY}, eperm},
		{"TIOCSCTTY holding the caller's terminal, high bits", seccompOptions{callerTerminal: true}, native, unix.SYS_IOCTL, [6]uint64{0, 0xdead00000000 | unix.TIOCSCTTY}, eperm},
		{"TIOCSWINSZ holding the caller's terminal", seccompOptions{callerTerminal: true}, native, unix.SYS_IOCTL, [6]uint64{1, unix.TIOCSWINSZ}, eperm},
		{"TIOCSWINSZ holding the caller's terminal, high bits", seccompOptions{callerTerminal: true}, native, unix.SYS_IOCTL, [6]uint64{1, 0xdead00000000 | unix.TIOCSWINSZ}, eperm},
		{"TIOCSWINSZ on a terminal of the program's own", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{1, unix.TIOCSWINSZ}, allow},
		{"TIOCGWINSZ holding the caller's terminal", seccompOptions{callerTerminal: true}, native, unix.SYS_IOCTL, [6]uint64{1, unix.TIOCGWINSZ}, allow},
		{"TIOCSPGRP holding the caller's terminal", seccompOptions{callerTerminal: true}, native, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCSPGRP}, allow},
		{"TIOCSTI holding the caller's terminal", seccompOptions{callerTerminal: true}, native, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCSTI}, eperm},
		{"TCGETS", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{0, unix.TCGETS}, allow},
		{"FS_IOC_SET_ENCRYPTION_POLICY", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{3, unix.FS_IOC_SET_ENCRYPTION_POLICY}, eperm},
		{"FS_IOC_GET_ENCRYPTION_POLICY", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{3, unix.FS_IOC_GET_ENCRYPTION_POLICY}, allow},
		{"BTRFS_IOC_SNAP_CREATE_V2", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{3, 0x50009417}, eperm},
		{"BTRFS_IOC_SUBVOL_CREATE, high bits", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{3, 0xdead00000000 | 0x5000940e}, eperm},
		{"FICLONE (btrfs's type, a reflink)", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{3, unix.FICLONE}, allow},
		{"F_SETLEASE", seccompOptions{}, native, unix.SYS_FCNTL, [6]uint64{0, unix.F_SETLEASE, unix.F_RDLCK}, eperm},
		{"F_SETLEASE with garbage in the high bits", seccompOptions{}, native, unix.SYS_FCNTL, [6]uint64{0, 0xbeef00000000 | unix.F_SETLEASE, unix.F_WRLCK}, eperm},
		{"F_GETLEASE", seccompOptions{}, native, unix.SYS_FCNTL, [6]uint64{0, unix.F_GETLEASE}, allow},
		{"F_SETLK", seccompOptions{}, native, unix.SYS_FCNTL, [6]uint64{0, unix.F_SETLK}, allow},
		{"F_SETFL", seccompOptions{}, native, unix.SYS_FCNTL, [6]uint64{0, unix.F_SETFL}, allow},
		{"inet socket", seccompOptions{}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM}, allow},
		{"udp socket", seccompOptions{}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_INET6, unix.SOCK_DGRAM}, allow},
		{"unix socket refused", seccompOptions{}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM}, noAF},
		{"unix socket allowed", seccompOptions{allowUnix: true}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM}, allow},
		{"vsock", seccompOptions{allowUnix: true}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_VSOCK, unix.SOCK_STREAM}, noAF},
		{"packet", seccompOptions{}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_PACKET, unix.SOCK_RAW}, noAF},
		{"stream only: tcp", seccompOptions{streamOnly: true}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM | unix.SOCK_CLOEXEC | unix.SOCK_NONBLOCK}, allow},
		{"stream only: udp", seccompOptions{streamOnly: true}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC}, noAF},
		{"stream only: raw", seccompOptions{streamOnly: true}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_INET6, unix.SOCK_RAW}, noAF},
		{"stream only: netlink", seccompOptions{streamOnly: true}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_NETLINK, unix.SOCK_DGRAM}, noAF},
		{"stream only: tcp by protocol", seccompOptions{streamOnly: true}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP}, allow},
		{"stream only: mptcp", seccompOptions{streamOnly: true}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP}, noProto},
		{"stream only: sctp", seccompOptions{streamOnly: true}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP}, noProto},
		{"namespaced: mptcp", seccompOptions{}, native, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP}, allow},
		{"host processes: prlimit of self", seccompOptions{hostShared: true}, native, unix.SYS_PRLIMIT64, [6]uint64{0, unix.RLIMIT_NOFILE}, allow},
		{"host processes: prlimit of another", seccompOptions{hostShared: true}, native, unix.SYS_PRLIMIT64, [6]uint64{1234, unix.RLIMIT_NOFILE}, eperm},
		{"host processes: setpriority of the user", seccompOptions{hostShared: true}, native, unix.SYS_SETPRIORITY, [6]uint64{unix.PRIO_USER, 0, 19}, eperm},
		{"host processes: setpriority of self", seccompOptions{hostShared: true}, native, unix.SYS_SETPRIORITY, [6]uint64{unix.PRIO_PROCESS, 0, 19}, allow},
		{"namespaced: prlimit of another", seccompOptions{}, native, unix.SYS_PRLIMIT64, [6]uint64{1234, unix.RLIMIT_NOFILE}, allow},
		{"host IPC: shmat", seccompOptions{hostShared: true}, native, unix.SYS_SHMAT, [6]uint64{}, enosys},
		{"native AIO", seccompOptions{}, native, unix.SYS_IO_SETUP, [6]uint64{}, enosys},
		{"socketpair stream", seccompOptions{}, native, unix.SYS_SOCKETPAIR, [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC}, allow},
		{"socketpair seqpacket", seccompOptions{}, native, unix.SYS_SOCKETPAIR, [6]uint64{unix.AF_UNIX, unix.SOCK_SEQPACKET}, allow},
		{"socketpair dgram reaches paths", seccompOptions{}, native, unix.SYS_SOCKETPAIR, [6]uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, eperm},
		{"socketpair dgram with unix allowed", seccompOptions{allowUnix: true}, native, unix.SYS_SOCKETPAIR, [6]uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, allow},
		{"open 0644", seccompOptions{}, native, unix.SYS_OPENAT, [6]uint64{0, 0, unix.O_CREAT, 0o644}, allow},
		{"open setuid", seccompOptions{}, native, unix.SYS_OPENAT, [6]uint64{0, 0, unix.O_CREAT, 0o4755}, eperm},
		{"open for neither reading nor writing (access mode 3)", seccompOptions{}, native, unix.SYS_OPENAT, [6]uint64{0, 0, 3}, eperm},
		{"open mode 3 with other flags", seccompOptions{}, native, unix.SYS_OPENAT, [6]uint64{0, 0, 3 | unix.O_CLOEXEC | unix.O_NONBLOCK}, eperm},
		{"open read-write", seccompOptions{}, native, unix.SYS_OPENAT, [6]uint64{0, 0, unix.O_RDWR | unix.O_CLOEXEC}, allow},
		{"open write-only, created", seccompOptions{}, native, unix.SYS_OPENAT, [6]uint64{0, 0, unix.O_WRONLY | unix.O_CREAT, 0o644}, allow},
		{"open O_PATH", seccompOptions{}, native, unix.SYS_OPENAT, [6]uint64{0, 0, unix.O_PATH}, allow},
		{"BTRFS_IOC_SET_RECEIVED_SUBVOL_32", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{3, 0xc0c09425}, eperm},
		{"chmod setgid", seccompOptions{}, native, unix.SYS_FCHMODAT, [6]uint64{0, 0, 0o2755}, eperm},
		{"chmod 0755", seccompOptions{}, native, unix.SYS_FCHMODAT, [6]uint64{0, 0, 0o755}, allow},
		{"personality query", seccompOptions{}, native, unix.SYS_PERSONALITY, [6]uint64{0xffffffff}, allow},
		{"personality READ_IMPLIES_EXEC", seccompOptions{}, native, unix.SYS_PERSONALITY, [6]uint64{0x0400000}, eperm},
		{"memfd with a memory cgroup", seccompOptions{}, native, unix.SYS_MEMFD_CREATE, [6]uint64{}, allow},
		{"shmget with a memory cgroup", seccompOptions{}, native, unix.SYS_SHMGET, [6]uint64{}, allow},
		{"memfd, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_MEMFD_CREATE, [6]uint64{}, enosys},
		{"memfd_secret, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_MEMFD_SECRET, [6]uint64{}, enosys},
		{"shmget, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_SHMGET, [6]uint64{}, enosys},
		{"mmap, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_MMAP, [6]uint64{}, allow},
		{"mmap shared anonymous", seccompOptions{uncountedMemory: true}, native, unix.SYS_MMAP, [6]uint64{0, 4096, unix.PROT_READ | unix.PROT_WRITE, unix.MAP_SHARED | unix.MAP_ANONYMOUS, 0xffffffff}, eperm},
		{"mmap shared-validate anonymous", seccompOptions{uncountedMemory: true}, native, unix.SYS_MMAP, [6]uint64{0, 4096, unix.PROT_READ | unix.PROT_WRITE, unix.MAP_SHARED_VALIDATE | unix.MAP_ANONYMOUS, 0xffffffff}, eperm},
		{"mmap shared anonymous with more flags", seccompOptions{uncountedMemory: true}, native, unix.SYS_MMAP, [6]uint64{0, 4096, unix.PROT_READ | unix.PROT_WRITE, unix.MAP_SHARED | unix.MAP_ANONYMOUS | unix.MAP_NORESERVE | unix.MAP_POPULATE | unix.MAP_HUGETLB, 0xffffffff}, eperm},
		{"mmap shared anonymous, garbage in the high bits", seccompOptions{uncountedMemory: true}, native, unix.SYS_MMAP, [6]uint64{0, 4096, unix.PROT_READ | unix.PROT_WRITE, 0xdead00000000 | unix.MAP_SHARED | unix.MAP_ANONYMOUS, 0xffffffff}, eperm},
		{"mmap private anonymous", seccompOptions{uncountedMemory: true}, native, unix.SYS_MMAP, [6]uint64{0, 4096, unix.PROT_READ | unix.PROT_WRITE, unix.MAP_PRIVATE | unix.MAP_ANONYMOUS, 0xffffffff}, allow},
		{"mmap private anonymous stack", seccompOptions{uncountedMemory: true}, native, unix.SYS_MMAP, [6]uint64{0, 4096, unix.PROT_READ | unix.PROT_WRITE, unix.MAP_PRIVATE | unix.MAP_ANONYMOUS | unix.MAP_STACK | unix.MAP_GROWSDOWN, 0xffffffff}, allow},
		{"mmap shared file", seccompOptions{uncountedMemory: true}, native, unix.SYS_MMAP, [6]uint64{0, 4096, unix.PROT_READ | unix.PROT_WRITE, unix.MAP_SHARED, 0xffffffff}, allow},
		{"mmap shared-validate file", seccompOptions{uncountedMemory: true}, native, unix.SYS_MMAP, [6]uint64{0, 4096, unix.PROT_READ | unix.PROT_WRITE, unix.MAP_SHARED_VALIDATE | unix.MAP_SYNC, 0xffffffff}, allow},
		{"mmap private file", seccompOptions{uncountedMemory: true}, native, unix.SYS_MMAP, [6]uint64{0, 4096, unix.PROT_READ | unix.PROT_WRITE, unix.MAP_PRIVATE | unix.MAP_FIXED, 0xffffffff}, allow},
		{"mmap shared anonymous with a memory cgroup", seccompOptions{}, native, unix.SYS_MMAP, [6]uint64{0, 4096, unix.PROT_READ | unix.PROT_WRITE, unix.MAP_SHARED | unix.MAP_ANONYMOUS, 0xffffffff}, allow},
		{"reduced: mmap shared anonymous, counted per process", seccompOptions{hostShared: true, uncountedMemory: true}, native, unix.SYS_MMAP, [6]uint64{0, 4096, unix.PROT_READ | unix.PROT_WRITE, unix.MAP_SHARED | unix.MAP_ANONYMOUS, 0xffffffff}, eperm},
		{"vmsplice, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_VMSPLICE, [6]uint64{4, 0, 1, 0}, eperm},
		{"reduced: vmsplice, memory counted per process", seccompOptions{hostShared: true, streamOnly: true, uncountedMemory: true}, native, unix.SYS_VMSPLICE, [6]uint64{4, 0, 1, 0}, eperm},
		{"vmsplice with a memory cgroup", seccompOptions{}, native, unix.SYS_VMSPLICE, [6]uint64{4, 0, 1, 0}, allow},
		{"splice, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_SPLICE, [6]uint64{3, 0, 4, 0, 4096, 0}, einval},
		{"reduced: splice, memory counted per process", seccompOptions{hostShared: true, streamOnly: true, uncountedMemory: true}, native, unix.SYS_SPLICE, [6]uint64{3, 0, 4, 0, 4096, 0}, einval},
		{"sendfile, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_SENDFILE, [6]uint64{4, 3, 0, 4096}, einval},
		{"splice with a memory cgroup", seccompOptions{}, native, unix.SYS_SPLICE, [6]uint64{3, 0, 4, 0, 4096, 0}, allow},
		{"sendfile with a memory cgroup", seccompOptions{}, native, unix.SYS_SENDFILE, [6]uint64{4, 3, 0, 4096}, allow},
		{"copy_file_range, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_COPY_FILE_RANGE, [6]uint64{3, 0, 4, 0, 4096, 0}, allow},
		{"SO_ZEROCOPY, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_SETSOCKOPT, [6]uint64{3, unix.SOL_SOCKET, unix.SO_ZEROCOPY, 0, 4}, notSupported},
		{"reduced: SO_ZEROCOPY, memory counted per process", seccompOptions{hostShared: true, streamOnly: true, uncountedMemory: true}, native, unix.SYS_SETSOCKOPT, [6]uint64{3, unix.SOL_SOCKET, unix.SO_ZEROCOPY, 0, 4}, notSupported},
		{"SO_REUSEADDR, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_SETSOCKOPT, [6]uint64{3, unix.SOL_SOCKET, unix.SO_REUSEADDR, 0, 4}, allow},
		{"TCP option numbered SO_ZEROCOPY, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_SETSOCKOPT, [6]uint64{3, unix.IPPROTO_TCP, unix.SO_ZEROCOPY, 0, 4}, allow},
		{"SO_ZEROCOPY with a memory cgroup", seccompOptions{}, native, unix.SYS_SETSOCKOPT, [6]uint64{3, unix.SOL_SOCKET, unix.SO_ZEROCOPY, 0, 4}, allow},
		{"tee, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_TEE, [6]uint64{3, 4, 4096, 0}, allow},
		{"huge pages back on, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_PRCTL, [6]uint64{unix.PR_SET_THP_DISABLE, 0}, eperm},
		{"huge pages on when advised, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_PRCTL, [6]uint64{unix.PR_SET_THP_DISABLE, 1, 1 << 1}, eperm},
		{"huge pages back on, garbage in the high bits", seccompOptions{uncountedMemory: true}, native, unix.SYS_PRCTL, [6]uint64{unix.PR_SET_THP_DISABLE, 0xdead00000000}, eperm},
		{"reduced: huge pages back on, memory counted per process", seccompOptions{hostShared: true, streamOnly: true, uncountedMemory: true}, native, unix.SYS_PRCTL, [6]uint64{unix.PR_SET_THP_DISABLE, 0}, eperm},
		{"huge pages off again (Redis), memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_PRCTL, [6]uint64{unix.PR_SET_THP_DISABLE, 1, 0}, allow},
		{"PR_GET_THP_DISABLE, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_PRCTL, [6]uint64{unix.PR_GET_THP_DISABLE}, allow},
		{"PR_SET_NAME, memory counted per process", seccompOptions{uncountedMemory: true}, native, unix.SYS_PRCTL, [6]uint64{unix.PR_SET_NAME, 0}, allow},
		{"huge pages back on with a memory cgroup", seccompOptions{}, native, unix.SYS_PRCTL, [6]uint64{unix.PR_SET_THP_DISABLE, 0}, allow},
		{"setxattr, a small ACL", seccompOptions{}, native, unix.SYS_SETXATTR, [6]uint64{0, 0, 0, 4 + 8*5}, allow},
		{"setxattr, 128 bytes", seccompOptions{}, native, unix.SYS_SETXATTR, [6]uint64{0, 0, 0, 128}, allow},
		{"setxattr, 129 bytes", seccompOptions{}, native, unix.SYS_SETXATTR, [6]uint64{0, 0, 0, 129}, noXattr},
		{"setxattr, an ACL of 8,000 entries", seccompOptions{}, native, unix.SYS_SETXATTR, [6]uint64{0, 0, 0, 4 + 8*8000}, noXattr},
		{"lsetxattr, 64 KiB", seccompOptions{}, native, unix.SYS_LSETXATTR, [6]uint64{0, 0, 0, 65536}, noXattr},
		{"fsetxattr, 64 KiB", seccompOptions{}, native, unix.SYS_FSETXATTR, [6]uint64{0, 0, 0, 65536}, noXattr},
		{"fsetxattr, 16 bytes", seccompOptions{}, native, unix.SYS_FSETXATTR, [6]uint64{0, 0, 0, 16}, allow},
		{"setxattrat falls back", seccompOptions{}, native, unix.SYS_SETXATTRAT, [6]uint64{}, enosys},
		{"getxattr", seccompOptions{}, native, unix.SYS_GETXATTR, [6]uint64{}, allow},
		{"removexattr", seccompOptions{}, native, unix.SYS_REMOVEXATTR, [6]uint64{}, allow},
		{"keeper: kill it", keeper, native, unix.SYS_KILL, [6]uint64{4242, 19}, eperm},
		{"keeper: kill it, high bits set", keeper, native, unix.SYS_KILL, [6]uint64{0x100000000 | 4242, 19}, eperm},
		{"keeper: kill another", keeper, native, unix.SYS_KILL, [6]uint64{4243, 19}, allow},
		{"keeper: kill own group", keeper, native, unix.SYS_KILL, [6]uint64{0, 15}, allow},
		{"keeper: tkill it", keeper, native, unix.SYS_TKILL, [6]uint64{4242, 19}, eperm},
		{"keeper: tgkill it", keeper, native, unix.SYS_TGKILL, [6]uint64{1, 4242, 19}, eperm},
		{"keeper: tgkill another", keeper, native, unix.SYS_TGKILL, [6]uint64{4242, 4243, 19}, allow},
		{"keeper: rt_sigqueueinfo it", keeper, native, unix.SYS_RT_SIGQUEUEINFO, [6]uint64{4242, 19}, eperm},
		{"keeper: rt_tgsigqueueinfo it", keeper, native, unix.SYS_RT_TGSIGQUEUEINFO, [6]uint64{1, 4242, 19}, eperm},
		{"keeper: pidfd_open it", keeper, native, unix.SYS_PIDFD_OPEN, [6]uint64{4242, 0}, eperm},
		{"keeper: pidfd_open another", keeper, native, unix.SYS_PIDFD_OPEN, [6]uint64{4243, 0}, allow},
		{"reduced: pidfd_send_signal falls back", reduced, native, unix.SYS_PIDFD_SEND_SIGNAL, [6]uint64{3, 19}, enosys},
		{"namespaced: pidfd_send_signal", seccompOptions{}, native, unix.SYS_PIDFD_SEND_SIGNAL, [6]uint64{3, 19}, allow},
		{"keeper: F_SETOWN it", keeper, native, unix.SYS_FCNTL, [6]uint64{3, unix.F_SETOWN, 4242}, eperm},
		{"keeper: F_SETOWN self", keeper, native, unix.SYS_FCNTL, [6]uint64{3, unix.F_SETOWN, 4243}, allow},
		{"keeper: F_SETFL with its id", keeper, native, unix.SYS_FCNTL, [6]uint64{3, unix.F_SETFL, 4242}, allow},
		{"keeper: F_SETLEASE", keeper, native, unix.SYS_FCNTL, [6]uint64{3, unix.F_SETLEASE, unix.F_RDLCK}, eperm},
		{"reduced: F_SETOWN_EX", reduced, native, unix.SYS_FCNTL, [6]uint64{3, unix.F_SETOWN_EX, 0}, eperm},
		{"namespaced: F_SETOWN_EX", seccompOptions{}, native, unix.SYS_FCNTL, [6]uint64{3, unix.F_SETOWN_EX, 0}, allow},
		{"reduced: FIOSETOWN", reduced, native, unix.SYS_IOCTL, [6]uint64{3, fioSetOwn}, eperm},
		{"reduced: SIOCSPGRP", reduced, native, unix.SYS_IOCTL, [6]uint64{3, unix.SIOCSPGRP}, eperm},
		{"namespaced: FIOSETOWN", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{3, fioSetOwn}, allow},
		{"reduced: chmod world-writable", reduced, native, unix.SYS_FCHMODAT, [6]uint64{0, 0, 0o666}, eperm},
		{"reduced: fchmod o+w", reduced, native, unix.SYS_FCHMOD, [6]uint64{0, 0o646}, eperm},
		{"reduced: fchmodat2 setuid", reduced, native, unix.SYS_FCHMODAT2, [6]uint64{0, 0, 0o4755, 0}, eperm},
		{"reduced: chmod o+w with garbage in the high bits", reduced, native, unix.SYS_FCHMODAT, [6]uint64{0, 0, 0xdead00000000 | 0o602}, eperm},
		{"reduced: chmod +x", reduced, native, unix.SYS_FCHMODAT, [6]uint64{0, 0, 0o755}, allow},
		{"reduced: chmod g+w", reduced, native, unix.SYS_FCHMODAT, [6]uint64{0, 0, 0o775}, allow},
		{"reduced: fchmod 0600", reduced, native, unix.SYS_FCHMOD, [6]uint64{0, 0o600}, allow},
		{"reduced: chmod 0755, garbage in the high bits", reduced, native, unix.SYS_FCHMODAT, [6]uint64{0, 0, 0xdead00000000 | 0o755}, allow},
		{"namespaced: chmod world-writable", seccompOptions{}, native, unix.SYS_FCHMODAT, [6]uint64{0, 0, 0o666}, allow},
		{"reduced: fchownat", reduced, native, unix.SYS_FCHOWNAT, [6]uint64{}, eperm},
		{"reduced: fchown", reduced, native, unix.SYS_FCHOWN, [6]uint64{}, eperm},
		{"namespaced: fchownat", seccompOptions{}, native, unix.SYS_FCHOWNAT, [6]uint64{}, allow},
		{"reduced: setxattr, a small ACL", reduced, native, unix.SYS_SETXATTR, [6]uint64{0, 0, 0, 4 + 8*5}, eperm},
		{"reduced: fsetxattr", reduced, native, unix.SYS_FSETXATTR, [6]uint64{0, 0, 0, 1}, eperm},
		{"reduced: setxattrat", reduced, native, unix.SYS_SETXATTRAT, [6]uint64{}, eperm},
		{"reduced: lremovexattr", reduced, native, unix.SYS_LREMOVEXATTR, [6]uint64{}, eperm},
		{"reduced: removexattrat", reduced, native, unix.SYS_REMOVEXATTRAT, [6]uint64{}, eperm},
		{"reduced: getxattr", reduced, native, unix.SYS_GETXATTR, [6]uint64{}, allow},
		{"reduced: file_setattr", reduced, native, unix.SYS_FILE_SETATTR, [6]uint64{}, eperm},
		{"reduced: FS_IOC_SETFLAGS", reduced, native, unix.SYS_IOCTL, [6]uint64{0, unix.FS_IOC_SETFLAGS}, eperm},
		{"reduced: FS_IOC_SETVERSION", reduced, native, unix.SYS_IOCTL, [6]uint64{0, fsIocSetVersion}, eperm},
		{"reduced: EXT4_IOC_SETVERSION_OLD", reduced, native, unix.SYS_IOCTL, [6]uint64{0, ext4IocSetVersionOld}, eperm},
		{"reduced: FS_IOC_FSSETXATTR", reduced, native, unix.SYS_IOCTL, [6]uint64{0, fsIocFSSetXattr}, eperm},
		{"reduced: FS_IOC_GETFLAGS", reduced, native, unix.SYS_IOCTL, [6]uint64{0, unix.FS_IOC_GETFLAGS}, allow},
		{"reduced: TIOCSTI", reduced, native, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCSTI}, eperm},
		{"reduced: TIOCSCTTY on a terminal of the program's own", reduced, native, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCSCTTY}, allow},
		{"reduced: TIOCSCTTY holding the caller's terminal", seccompOptions{hostShared: true, streamOnly: true, callerTerminal: true}, native, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCSCTTY}, eperm},
		{"reduced: FS_IOC_SETFLAGS holding the caller's terminal", seccompOptions{hostShared: true, callerTerminal: true}, native, unix.SYS_IOCTL, [6]uint64{3, unix.FS_IOC_SETFLAGS}, eperm},
		{"namespaced: FS_IOC_SETFLAGS", seccompOptions{}, native, unix.SYS_IOCTL, [6]uint64{0, unix.FS_IOC_SETFLAGS}, allow},
		{"reduced: utimensat", reduced, native, unix.SYS_UTIMENSAT, [6]uint64{}, allow},
		{"reduced: inotify_init1", reduced, native, unix.SYS_INOTIFY_INIT1, [6]uint64{}, allow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prog, err := buildSeccomp(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := runBPF(t, prog, tc.arch, tc.nr, tc.args); got != tc.want {
				t.Errorf("got %#x, want %#x", got, tc.want)
			}
		})
	}
}

func TestSeccompX32Killed(t *testing.T) {
	if nativeAuditArch != unix.AUDIT_ARCH_X86_64 {
		t.Skip("x32 exists on amd64 only")
	}
	prog, err := buildSeccomp(seccompOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := runBPF(t, prog, nativeAuditArch, 0x40000000|unix.SYS_READ, [6]uint64{}); got != unix.SECCOMP_RET_KILL_PROCESS {
		t.Fatalf("x32 read: got %#x, want kill", got)
	}
}

// TestSeccompReducedArchCalls checks the architecture's own forms of chmod,
// and chown (amd64's path-only calls) in the reduced tier.
func TestSeccompReducedArchCalls(t *testing.T) {
	prog, err := buildSeccomp(seccompOptions{hostShared: true})
	if err != nil {
		t.Fatal(err)
	}
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	check := func(what string, nr uintptr, args [6]uint64, want uint32) {
		t.Helper()
		if got := runBPF(t, prog, nativeAuditArch, int(nr), args); got != want {
			t.Errorf("%s (syscall %d): got %#x, want %#x", what, nr, got, want)
		}
	}
	for _, c := range archChmods {
		var world, exec [6]uint64
		world[c.arg], exec[c.arg] = 0o666, 0o755
		check("chmod 0666", c.nr, world, eperm)
		check("chmod 0755", c.nr, exec, allow)
	}
	for _, nr := range archHostInodeCalls {
		check("chown", nr, [6]uint64{}, eperm)
	}
}
