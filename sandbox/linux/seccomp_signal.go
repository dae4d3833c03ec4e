//go:build linux

package linux

import "golang.org/x/sys/unix"

// In the reduced tier the init keeps alive the thread that forked the
// program (startLocked), so that the program's parent-death signal fires
// only when the init dies. That thread was locked down first, so it is in
// the program's own Landlock domain and runs as the same user: Landlock's
// signal scoping, which keeps the program from signalling the init's
// other threads and every host process, allows signals within a domain,
// and the kernel judges a signal by the task it names, not its thread
// group's leader. A program that named the kept thread could stop its init
// (which then could no longer carry out a timeout or a kill, and left the
// program's children behind when the caller killed it) or kill it.
//
// keeperRules refuse every call that names a task to signal when it names
// the kept thread (o.keeper), by its id: kill(2) and rt_sigqueueinfo(2)
// (whose process-directed signal is judged against the thread the id
// names), tkill(2), tgkill(2) and rt_tgsigqueueinfo(2), pidfd_open(2), and
// F_SETOWN, whose SIGIO or SIGURG (or any signal F_SETSIG names) is judged
// against the owner's domain. The calls that name the task through memory
// seccomp cannot read (F_SETOWN_EX, FIOSETOWN, SIOCSPGRP) are refused in
// the tier whole (ownerIoctls, fcntlRule), and pidfd_send_signal(2), whose
// descriptor may be a /proc/TID directory, is answered ENOSYS (hostSignal):
// libraries fall back to kill(2). An id is compared in its low 32 bits,
// all that pid_t holds.
func keeperRules(o seccompOptions) []argRule {
	if o.keeper == 0 {
		return nil
	}
	k := o.keeper
	return []argRule{
		rule(unix.SYS_KILL, 0, denyIfEqual, unix.EPERM, k),
		rule(unix.SYS_TKILL, 0, denyIfEqual, unix.EPERM, k),
		rule(unix.SYS_TGKILL, 1, denyIfEqual, unix.EPERM, k),
		rule(unix.SYS_RT_SIGQUEUEINFO, 0, denyIfEqual, unix.EPERM, k),
		rule(unix.SYS_RT_TGSIGQUEUEINFO, 1, denyIfEqual, unix.EPERM, k),
		rule(unix.SYS_PIDFD_OPEN, 0, denyIfEqual, unix.EPERM, k),
	}
}

// hostSignal is answered ENOSYS in the reduced tier: see keeperRules.
var hostSignal = []uintptr{unix.SYS_PIDFD_SEND_SIGNAL}

// fioSetOwn is FIOSETOWN (asm-generic/sockios.h; x/sys/unix has no name
// for it). With SIOCSPGRP it sets a file's owner, as F_SETOWN does,
// through a pointer.
const fioSetOwn = 0x8901

// ownerIoctls are refused in the reduced tier: see keeperRules.
var ownerIoctls = []uint32{fioSetOwn, unix.SIOCSPGRP}

// fcntlRule refuses F_SETLEASE everywhere (a lease stalls every other
// process that opens the file: the host's editor, shell or agent, on any
// file the program may read; no ordinary workload takes leases, and
// F_GETLEASE stays allowed), and in the reduced tier F_SETOWN_EX, and
// F_SETOWN naming the init's kept thread (see keeperRules).
func fcntlRule(o seccompOptions) argRule {
	r := rule(unix.SYS_FCNTL, 1, denyIfEqual, unix.EPERM, unix.F_SETLEASE)
	if o.hostShared {
		r.tests[0].values = append(r.tests[0].values, unix.F_SETOWN_EX)
	}
	if o.keeper != 0 {
		r.tests = append(r.tests,
			argTest{arg: 1, check: onlyIfIn, values: []uint32{unix.F_SETOWN}},
			argTest{arg: 2, check: denyIfEqual, values: []uint32{o.keeper}})
	}
	return r
}
