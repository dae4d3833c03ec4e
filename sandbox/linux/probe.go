//go:build linux

package linux

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentbox-dev/agentbox/sandbox"
	"golang.org/x/sys/unix"
)

// probeArg0 marks a re-executed agentbox that only proves it could be
// started in new namespaces.
const probeArg0 = "agentbox-probe"

// probeNoCaps is the probe's exit status when the namespaces could be
// made but grant no capability in them.
const probeNoCaps = 3

func init() {
	if len(os.Args) > 0 && os.Args[0] == probeArg0 {
		// Usable, not only creatable: Ubuntu's AppArmor restriction lets an
		// unprivileged process make a user namespace but grants it no
		// capability there, so the sandbox's first mount would fail.
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			fmt.Fprint(os.Stderr, err)
			os.Exit(probeNoCaps)
		}
		os.Exit(0)
	}
}

// Probe reports which layers this machine offers the native runtime.
func Probe() []sandbox.Check {
	var checks []sandbox.Check
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		checks = append(checks, sandbox.Check{Name: "kernel", OK: true,
			Detail: unix.ByteSliceToString(uts.Release[:]) + " " + unix.ByteSliceToString(uts.Machine[:])})
	}
	checks = append(checks, probeUserns())
	abi := LandlockABI()
	ll := sandbox.Check{Name: "landlock", OK: abi > 0, Required: true}
	switch {
	case abi >= 6:
		ll.Detail = fmt.Sprintf("ABI %d: filesystem rules, signal and abstract-socket scoping", abi)
	case abi > 0:
		ll.Detail = fmt.Sprintf("ABI %d: filesystem rules (no signal or abstract-socket scoping before ABI 6)", abi)
	default:
		ll.Detail = "not available (kernel without CONFIG_SECURITY_LANDLOCK, or landlock missing from the lsm= boot list)"
	}
	checks = append(checks, ll, probeSeccomp(), probeCgroup())
	return checks
}

func probeUserns() sandbox.Check {
	c := sandbox.Check{Name: "user namespaces", Required: true}
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{probeArg0}
	cmd.Env = []string{}
	// Cloned as an init is, so that it has the capabilities an init has.
	cmd.SysProcAttr = initAttrFor(kindNetns, os.Geteuid() == 0 && inInitialUserNS())
	cmd.SysProcAttr.Pdeathsig = 0
	cmd.SysProcAttr.Setpgid = false
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() == probeNoCaps:
		c.Detail = "user namespaces can be made but grant no capability in them (a mount was refused: " +
			strings.TrimSpace(stderr.String()) + ")" + usernsHint()
		return c
	case err != nil:
		c.Detail = "cannot create user, mount, pid and network namespaces: " + err.Error() + usernsHint()
		return c
	}
	c.OK = true
	c.Detail = "user, mount, pid, net, ipc, uts and cgroup namespaces"
	return c
}

// usernsHint names the usual reason user namespaces are refused.
func usernsHint() string {
	for _, h := range []struct{ file, bad, msg string }{
		{"/proc/sys/kernel/unprivileged_userns_clone", "0", "; sysctl kernel.unprivileged_userns_clone=0"},
		{"/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1", "; AppArmor restricts unprivileged user namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns=1)"},
		{"/proc/sys/user/max_user_namespaces", "0", "; sysctl user.max_user_namespaces=0"},
	} {
		if b, err := os.ReadFile(h.file); err == nil && strings.TrimSpace(string(b)) == h.bad {
			return h.msg
		}
	}
	return ""
}

func probeSeccomp() sandbox.Check {
	c := sandbox.Check{Name: "seccomp", Required: true}
	action := uint32(unix.SECCOMP_RET_KILL_PROCESS)
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, 2 /* SECCOMP_GET_ACTION_AVAIL */, 0, uintptrOf(&action))
	if errno != 0 {
		c.Detail = "seccomp filters not available: " + errno.Error()
		return c
	}
	c.OK, c.Detail = true, "filter mode with kill-process"
	return c
}

// probeCgroup says whether sandboxes get a cgroup for memory and
// processes (v2 delegated or as root, v1 as root), or rlimits only.
func probeCgroup() sandbox.Check {
	c := sandbox.Check{Name: "cgroup limits"}
	cgroups.find()
	if cgroups.version == 0 {
		c.Detail = "no cgroup for sandboxes (" + cgroups.reason + "); memory is bounded per process by RLIMIT_DATA and processes by RLIMIT_NPROC"
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("cgroup v%d memory and pids limits per sandbox, under %s", cgroups.version, cgroups.bases[0])
	return c
}

// MemoryMechanism names how a sandbox's memory limit is enforced on this
// machine: "cgroup v2", "cgroup v1" or "rlimit" (RLIMIT_DATA per process).
func MemoryMechanism() string {
	cgroups.find()
	if cgroups.version == 0 {
		return "rlimit"
	}
	return fmt.Sprintf("cgroup v%d", cgroups.version)
}

// ownCgroupV2 returns the directory of this process's cgroup v2.
func ownCgroupV2() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	var rel string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "0::"); ok {
			rel = p
		}
	}
	if rel == "" {
		return "", fmt.Errorf("not in a cgroup v2 hierarchy")
	}
	for _, mnt := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		var st unix.Statfs_t
		if unix.Statfs(mnt, &st) == nil && st.Type == unix.CGROUP2_SUPER_MAGIC {
			return filepath.Join(mnt, rel), nil
		}
	}
	return "", fmt.Errorf("cgroup2 is not mounted")
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
