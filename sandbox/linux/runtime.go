//go:build linux

// Package linux is agentbox's native Linux sandbox: user, mount, pid, net,
// ipc, uts and cgroup namespaces; a new read-only root built with
// pivot_root; Landlock as an independent second filesystem layer; a seccomp
// filter; no capabilities and no new privileges; rlimits.
//
// The agentbox binary re-executes itself (/proc/self/exe) as the sandbox's
// init, pid 1 of the new namespaces. The init builds the root, applies the
// per-thread layers to one locked thread and forks the program from it, then
// forwards signals, reaps orphans and reports the program's exit status.
package linux

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/agentbox-dev/agentbox/sandbox"
	"golang.org/x/sys/unix"
)

// sandboxID is the host uid and gid a sandbox started by root runs as: root
// inside the sandbox, nobody outside it, so root-only files on the host
// (/etc/shadow, ...) stay unreadable. The writable roots are idmapped so that
// their owner appears as the sandbox's root.
const sandboxID = 65534

// Runtime is the native runtime. The zero value is ready to use.
type Runtime struct {
	idmaps idmapCache
}

// Name returns "native".
func (*Runtime) Name() string { return "native" }

// Prepare implements sandbox.Runtime.
func (r *Runtime) Prepare(spec *sandbox.Spec, cmd *exec.Cmd) (sandbox.Handle, error) {
	if cmd == nil {
		return nil, fmt.Errorf("%w: nil command", sandbox.ErrSetup)
	}
	asRoot := os.Geteuid() == 0
	pl, err := buildPlan(spec, asRoot)
	if err != nil {
		return nil, err
	}
	h := &handle{spec: spec, cmd: cmd, plan: pl, ready: make(chan struct{}), done: make(chan struct{})}
	if err := h.prepare(r, cmd, asRoot); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// prepare fills the init spec from cmd and rewrites cmd to start the init.
func (h *handle) prepare(r *Runtime, cmd *exec.Cmd, asRoot bool) error {
	s := &h.plan.init
	s.Path = cmd.Path
	s.Args = cmd.Args
	if len(s.Args) == 0 {
		s.Args = []string{cmd.Path}
	}
	s.Env = cmd.Env
	if s.Env == nil {
		s.Env = []string{}
	}
	s.Dir = cmd.Dir
	if s.Dir == "" {
		s.Dir = "/"
	}

	if asRoot {
		s.IdmapCount = len(h.plan.idmapped)
	}
	memfd, err := specMemfd(s)
	if err != nil {
		return fmt.Errorf("%w: %w", sandbox.ErrSetup, err)
	}
	h.files = append(h.files, memfd)
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%w: socketpair: %w", sandbox.ErrSetup, err)
	}
	h.ctl = os.NewFile(uintptr(fds[0]), "agentbox-ctl")
	child := os.NewFile(uintptr(fds[1]), "agentbox-ctl-child")
	h.files = append(h.files, child)
	extra := []*os.File{memfd, child}

	uid, gid := os.Geteuid(), os.Getegid()
	attr := &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
			syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | syscall.CLONE_NEWCGROUP,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		Pdeathsig:   syscall.SIGKILL,
		Setpgid:     true,
	}
	if !asRoot {
		// The init keeps the caller's uid inside the namespace, so execve
		// would drop the capabilities the new user namespace gave it; raise
		// them as ambient so they survive into the init, which drops them
		// all before the program starts.
		for c := 0; c <= lastCap(); c++ {
			attr.AmbientCaps = append(attr.AmbientCaps, uintptr(c))
		}
	}
	if h.spec.Network != sandbox.NetworkAllowed {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	if asRoot {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: sandboxID, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: sandboxID, Size: 1}}
		// Drop root's supplementary groups: the kernel would keep honouring
		// them inside the namespace.
		attr.GidMappingsEnableSetgroups = true
		attr.Credential = &syscall.Credential{Uid: 0, Gid: 0, Groups: []uint32{}}
		for _, m := range h.plan.idmapped {
			f, err := r.idmaps.idmappedTree(m.path, m.ro)
			if err != nil {
				return fmt.Errorf("%w: %w", sandbox.ErrUnavailable, err)
			}
			h.files = append(h.files, f)
			extra = append(extra, f)
		}
	}

	cmd.Path = "/proc/self/exe"
	cmd.Args = []string{initArg0}
	cmd.Env = []string{"GOMAXPROCS=1"}
	cmd.Dir = "/"
	cmd.ExtraFiles = extra
	cmd.SysProcAttr = attr
	h.serving = true
	go h.serve()
	return nil
}
