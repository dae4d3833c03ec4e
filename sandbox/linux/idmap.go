//go:build linux

package linux

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	"github.com/agentbox-dev/agentbox/sandbox"
	"golang.org/x/sys/unix"
)

// A sandbox started by root runs as the host's nobody, so that DAC keeps
// root-only files closed. Its writable roots (and its home) are handed to it
// as idmapped mounts in which their owner appears as the sandbox's user: it
// can write there, and what it creates belongs on disk to the same owner.
//
// An idmapped mount needs a user namespace that holds the mapping; one is
// created per owner, once, by a short-lived helper process, and kept open.

// usernsHolderArg0 marks a re-executed agentbox that only holds a user
// namespace open until its stdin closes.
const usernsHolderArg0 = "agentbox-userns-holder"

func init() {
	if len(os.Args) > 0 && os.Args[0] == usernsHolderArg0 {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
}

type idmapKey struct{ uid, gid uint32 }

// idmapCache keeps one user namespace per owner, until the Runtime closes.
type idmapCache struct {
	mu     sync.Mutex
	fds    map[idmapKey]int
	closed bool // the Runtime closed: a namespace made now is not kept
}

// makeIdmaps creates the idmapped trees of a root caller's plan. init,
// when set, is an init already running: its own user namespace maps root
// to the sandbox's id, so paths root owns need no helper process.
func (h *handle) makeIdmaps(c *idmapCache, init initProc) error {
	if len(h.plan.idmapped) == 0 {
		return nil
	}
	// The namespaces opened here are this call's own (the cache's are
	// duplicated): Runtime.Close may close the cache's meanwhile.
	opened := map[idmapKey]int{}
	defer func() {
		for _, fd := range opened {
			unix.Close(fd)
		}
	}()
	nsFor := func(k idmapKey) (int, error) {
		if fd, ok := opened[k]; ok {
			return fd, nil
		}
		var fd int
		var err error
		if k != (idmapKey{}) || init == nil {
			fd, err = c.userns(k)
		} else {
			fd, err = openUserNS(init)
		}
		if err != nil {
			return -1, err
		}
		opened[k] = fd
		return fd, nil
	}
	kept := h.plan.idmapped[:0]
	for _, m := range h.plan.idmapped {
		f, err := idmappedTree(m.path, m.ro, nsFor)
		if err != nil && m.ro {
			// The home is a courtesy: without it the sandbox sees the home
			// as the host shows it to nobody.
			h.plan.dropIdmap(m.path)
			continue
		}
		if err != nil {
			return fmt.Errorf("%w: %w", sandbox.ErrUnavailable, err)
		}
		h.idmaps = append(h.idmaps, f)
		kept = append(kept, m)
	}
	h.plan.idmapped = kept
	return nil
}

// openUserNS opens the user namespace of a running init. It goes by pid;
// the init is still alive after the open (asked through its pidfd, or of a
// child not yet reaped), so the pid was not another process's.
func openUserNS(init initProc) (int, error) {
	fd, err := unix.Open("/proc/"+strconv.Itoa(init.pid())+"/ns/user", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("idmap: open user namespace: %w", err)
	}
	if err := init.signal(0); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("idmap: the sandbox's init exited before its user namespace was opened: %w", err)
	}
	return fd, nil
}

// dropIdmap removes the idmapped mount of path from the plan and renumbers
// the descriptors of those after it.
func (pl *plan) dropIdmap(path string) {
	ops := pl.init.Mounts[:0]
	dropped := -1
	for _, op := range pl.init.Mounts {
		if (op.Kind == opIdmapRO || op.Kind == opIdmapRW) && op.Dst == path && dropped < 0 {
			dropped = op.FD
			continue
		}
		ops = append(ops, op)
	}
	for i := range ops {
		if (ops[i].Kind == opIdmapRO || ops[i].Kind == opIdmapRW) && dropped >= 0 && ops[i].FD > dropped {
			ops[i].FD--
		}
	}
	pl.init.Mounts = ops
}

// idmappedTree returns a detached recursive copy of the mount tree at path,
// idmapped so that path's owner is the sandbox's user, nosuid and nodev,
// read-only if ro.
//
// path is opened once, without following any symlink, and the tree is
// cloned from that descriptor: another sandbox that may write path's
// parent could otherwise swap path for a link (to a root-only directory, or
// /etc) between the plan's checks and the clone, and the sandbox would get
// the link's target writable as its own.
func idmappedTree(path string, ro bool, nsFor func(idmapKey) (int, error)) (*os.File, error) {
	fd, err := openNoSymlinks(path)
	if err != nil {
		return nil, fmt.Errorf("idmap: %w", err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("idmap %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		// openNoSymlinks opens a trailing link itself.
		return nil, fmt.Errorf("idmap %s: %w", path, unix.ELOOP)
	}
	nsfd, err := nsFor(idmapKey{st.Uid, st.Gid})
	if err != nil {
		return nil, err
	}
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
	if err != nil {
		return nil, fmt.Errorf("idmap %s: open_tree: %w", path, err)
	}
	attr := uint64(unix.MOUNT_ATTR_IDMAP | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV)
	if ro {
		attr |= unix.MOUNT_ATTR_RDONLY
	}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE,
		&unix.MountAttr{Attr_set: attr, Userns_fd: uint64(nsfd)}); err != nil {
		unix.Close(tree)
		return nil, fmt.Errorf("idmap %s: the filesystem does not support idmapped mounts (%w); run agentbox as an unprivileged user to grant it", path, err)
	}
	return os.NewFile(uintptr(tree), "idmapped:"+path), nil
}

// userns returns a descriptor, the caller's to close, of a user namespace
// mapping k to the sandbox's id.
func (c *idmapCache) userns(k idmapKey) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fd, ok := c.fds[k]
	if !ok {
		var err error
		if fd, err = newUserNS(k); err != nil {
			return -1, err
		}
		if c.closed {
			return fd, nil // not kept: nothing would close it
		}
		if c.fds == nil {
			c.fds = make(map[idmapKey]int)
		}
		c.fds[k] = fd
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("idmap: %w", err)
	}
	return dup, nil
}

// close closes the namespaces kept; later calls to userns keep none.
func (c *idmapCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, fd := range c.fds {
		unix.Close(fd)
	}
	c.fds, c.closed = nil, true
}

// newUserNS makes a user namespace mapping k to the sandbox's id, held
// by a helper process only until its descriptor is open.
func newUserNS(k idmapKey) (int, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return -1, err
	}
	defer r.Close()
	defer w.Close()
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{usernsHolderArg0}
	cmd.Env = []string{}
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: int(k.uid), HostID: sandboxID, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: int(k.gid), HostID: sandboxID, Size: 1}},
		Pdeathsig:   syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		return -1, fmt.Errorf("idmap: user namespace for uid %d: %w", k.uid, err)
	}
	fd, err := unix.Open("/proc/"+strconv.Itoa(cmd.Process.Pid)+"/ns/user", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	w.Close()
	_ = cmd.Wait()
	if err != nil {
		return -1, fmt.Errorf("idmap: open user namespace: %w", err)
	}
	return fd, nil
}
