package agentbox

import (
	"os/exec"
	"reflect"

	"golang.org/x/sys/unix"
)

// birthTime is the creation time of the file at p (not following a link)
// in nanoseconds, 0 where the file system does not keep one.
func birthTime(p string) int64 {
	var stx unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &stx) != nil || stx.Mask&unix.STATX_BTIME == 0 {
		return 0
	}
	return stx.Btime.Sec*1e9 + int64(stx.Btime.Nsec)
}

// checkProcAttr refuses a cmd whose SysProcAttr asks for what the sandbox
// would silently not do: it makes the process attributes itself (its
// namespaces, credentials, root, terminal). Setpgid without a Pgid and
// Pdeathsig may be set: the init gets a process group of its own, and dies
// with agentbox, anyway.
func checkProcAttr(api string, cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		return nil
	}
	a := *cmd.SysProcAttr
	if a.Pgid == 0 {
		a.Setpgid = false
	}
	a.Pdeathsig = 0
	if !reflect.ValueOf(a).IsZero() {
		return configErr(api, "cmd.SysProcAttr sets process attributes the sandbox cannot honour (it makes its own namespaces, credentials and root); leave it nil, or set only Setpgid and Pdeathsig")
	}
	return nil
}
