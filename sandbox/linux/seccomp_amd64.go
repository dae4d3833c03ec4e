//go:build linux

package linux

import "golang.org/x/sys/unix"

const nativeAuditArch = unix.AUDIT_ARCH_X86_64

// x32Bit marks syscalls of the x32 ABI, which shares AUDIT_ARCH_X86_64.
const x32Bit = 0x40000000

// archPrologue kills x32 syscalls (the accumulator holds the number).
func archPrologue() []unix.SockFilter {
	return []unix.SockFilter{
		bpfJump(jgeK, x32Bit, 0, 1),
		bpfStmt(retK, unix.SECCOMP_RET_KILL_PROCESS),
	}
}

var archArgRules = []argRule{
	openRule(unix.SYS_OPEN, 1, 2),
	rule(unix.SYS_CREAT, 1, denyIfAnyBits, unix.EPERM, setIDBits),
	rule(unix.SYS_MKNOD, 1, denyIfAnyBits, unix.EPERM, setIDBits),
}

var archDenied = []uintptr{
	unix.SYS_IOPL, unix.SYS_IOPERM, unix.SYS_MODIFY_LDT, unix.SYS_USELIB, unix.SYS_USTAT,
	unix.SYS_SYSFS, unix.SYS__SYSCTL, unix.SYS_CREATE_MODULE, unix.SYS_GET_KERNEL_SYMS,
	unix.SYS_QUERY_MODULE,
}

// archChmods: chmod(2) by path (fchmodat's older form).
var archChmods = []modeArg{{unix.SYS_CHMOD, 1}}

// archHostInodeCalls: the path forms of chown that predate fchownat (the
// 16-bit ones exist only in the 32-bit ABIs, which the filter kills).
var archHostInodeCalls = []uintptr{unix.SYS_CHOWN, unix.SYS_LCHOWN}
