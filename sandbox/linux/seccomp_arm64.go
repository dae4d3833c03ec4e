//go:build linux

package linux

import "golang.org/x/sys/unix"

const nativeAuditArch = unix.AUDIT_ARCH_AARCH64

func archPrologue() []unix.SockFilter { return nil }

var archArgRules []argRule

var archDenied []uintptr

// arm64 has only the *at forms of chmod and chown.
var (
	archChmods         []modeArg
	archHostInodeCalls []uintptr
)
