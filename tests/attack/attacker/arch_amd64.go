//go:build linux && amd64

package main

import "golang.org/x/sys/unix"

// Legacy system calls that only some architectures have; -1 where absent.
const (
	sysOpen  = unix.SYS_OPEN
	sysCreat = unix.SYS_CREAT
	sysChmod = unix.SYS_CHMOD
)

// x32Bit marks a system call of the x32 ABI.
const x32Bit = 0x40000000

// int80 makes a 32-bit (i386 ABI) system call through INT 0x80 and returns
// the raw result. Implemented in int80_amd64.s.
func int80(trap uintptr) uintptr

const haveInt80 = true

// i386Getpid is getpid's number in the i386 table.
const i386Getpid = 20

// archKernelCalls are the amd64-only system calls of the kernel surface.
func archKernelCalls() map[string]func() error {
	return map[string]func() error{
		"iopl":       func() error { return rawCall(unix.SYS_IOPL, 3) },
		"ioperm":     func() error { return rawCall(unix.SYS_IOPERM, 0x80, 1, 1) },
		"modify_ldt": func() error { var b [16]byte; return rawCall(unix.SYS_MODIFY_LDT, 0, ptr(&b), 16) },
		"uselib":     func() error { return rawCall(unix.SYS_USELIB, cstr("/agentbox-attack-none")) },
	}
}
