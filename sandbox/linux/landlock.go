//go:build linux

package linux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// Landlock access rights, grouped the way agentbox grants them.
const (
	llRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// llWrite is everything a writable root allows on top of llRead; device
	// creation is never granted.
	llWrite = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_SYM |
		unix.LANDLOCK_ACCESS_FS_REFER | unix.LANDLOCK_ACCESS_FS_TRUNCATE |
		unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	llDevice = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

// llHandledFS is the set of filesystem rights each Landlock ABI knows.
func llHandledFS(abi int) uint64 {
	switch {
	case abi <= 0:
		return 0
	case abi == 1:
		return 1<<13 - 1
	case abi == 2:
		return 1<<14 - 1
	case abi <= 4:
		return 1<<15 - 1
	case abi <= 8:
		return 1<<16 - 1
	default:
		return 1<<17 - 1
	}
}

// LandlockABI returns the Landlock ABI version the kernel offers, 0 when
// Landlock is not available (not built, or not enabled at boot).
func LandlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// landlockRuleset is a ruleset built in the sandbox's final view, ready to be
// enforced on the thread that starts the program.
type landlockRuleset struct {
	fd    int
	abi   int
	rules int
	tcp   bool // TCP bind and connect restricted
}

func (r *landlockRuleset) close() {
	if r != nil && r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
}

func (r *landlockRuleset) layer() string {
	if r == nil {
		return LayerNoLandlock
	}
	if r.abi >= 6 {
		return fmt.Sprintf("landlock(abi %d: filesystem, signal and abstract-socket scoping)", r.abi)
	}
	return fmt.Sprintf("landlock(abi %d: filesystem)", r.abi)
}

// confinesUnixSockets reports whether the ruleset restricts connecting to
// path sockets (LANDLOCK_ACCESS_FS_RESOLVE_UNIX, ABI 9).
func (r *landlockRuleset) confinesUnixSockets() bool { return r != nil && r.abi >= 9 }

func (r *landlockRuleset) restrictThread() error {
	if r == nil {
		return nil // no Landlock: the layer list says so
	}
	_, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(r.fd), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// errNoLandlock reports a kernel without Landlock.
var errNoLandlock = errors.New("the kernel does not offer Landlock")

// prepareLandlock creates the ruleset for spec. Landlock grants rights
// beneath a path and cannot subtract, so a denied path is carved out of a
// readable tree by granting read on each of its siblings instead of on their
// common parent (listing directories stays allowed everywhere; the mount
// layer hides what denied directories hold). Paths created later under a
// carved-out parent get no rights at all, so a denied path that does not
// exist yet stays unreadable when it appears. Hidden paths are carved out
// alike, but a read root inside one is granted (see llBuilder.cover).
func prepareLandlock(s *landlockSpec) (*landlockRuleset, error) {
	abi := LandlockABI()
	if abi == 0 {
		return nil, errNoLandlock
	}
	handled := llHandledFS(abi)
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handled}
	if s.TCP && abi >= 4 {
		attr.Handled_access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if abi >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	// Pass only the fields this ABI knows; the kernel refuses a larger struct
	// whose extra fields it cannot check.
	size := unsafe.Offsetof(attr.Scoped)
	if abi >= 6 {
		size = unsafe.Offsetof(attr.Quiet_access_fs)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return nil, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	r := &landlockRuleset{fd: int(fd), abi: abi}
	b := &llBuilder{r: r, handled: handled, deny: cleanAll(s.DenyRead), hidden: cleanAll(s.Hidden)}
	if err := b.add("/", unix.LANDLOCK_ACCESS_FS_READ_DIR, typeUnknown); err != nil {
		r.close()
		return nil, err
	}
	for _, p := range s.ReadRoots {
		if err := b.cover(filepath.Clean(p), llRead, typeUnknown); err != nil {
			r.close()
			return nil, err
		}
	}
	for _, p := range s.WriteRoots {
		if err := b.add(p, llRead|llWrite, typeUnknown); err != nil && !errors.Is(err, unix.ENOENT) {
			r.close()
			return nil, err
		}
	}
	for _, p := range s.Devices {
		if err := b.add(p, llDevice, typeUnknown); err != nil && !errors.Is(err, unix.ENOENT) {
			r.close()
			return nil, err
		}
	}
	if attr.Handled_access_net != 0 {
		for _, port := range s.ConnectPorts {
			if err := r.addPort(port); err != nil {
				r.close()
				return nil, err
			}
		}
		r.tcp = true
	}
	return r, nil
}

// llNetPortAttr is struct landlock_net_port_attr.
type llNetPortAttr struct {
	allowedAccess uint64
	port          uint64
}

const llRuleNetPort = 2 // LANDLOCK_RULE_NET_PORT

// addPort allows TCP connections to port.
func (r *landlockRuleset) addPort(port int) error {
	attr := llNetPortAttr{allowedAccess: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, port: uint64(port)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(r.fd), llRuleNetPort,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_add_rule port %d: %w", port, errno)
	}
	return nil
}

// netLayer describes the network restriction of the reduced tier, with
// what seccomp refuses beside it (o).
func (r *landlockRuleset) netLayer(s *landlockSpec, o seccompOptions) string {
	switch {
	case !s.TCP:
		return "network(host: allowed)"
	case o.refusesInet():
		return "network(none; " + o.streamLayer() + ")"
	case r == nil:
		return "network(UNRESTRICTED TCP: no Landlock)"
	case !r.tcp:
		return fmt.Sprintf("network(UNRESTRICTED TCP: landlock ABI %d has no TCP rules)", r.abi)
	case len(s.ConnectPorts) == 0:
		return "landlock-net(no TCP; " + o.streamLayer() + ")"
	default:
		return fmt.Sprintf("landlock-net(TCP connect to port %v only; %s)", s.ConnectPorts, o.streamLayer())
	}
}

type llBuilder struct {
	r       *landlockRuleset
	handled uint64
	deny    []string
	hidden  []string
}

func cleanAll(ps []string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, filepath.Clean(p))
	}
	sort.Strings(out)
	return out
}

// cover grants rights beneath p, except beneath denied paths, and beneath
// hidden paths unless p lies inside one: a hidden path itself is never
// granted (the walk from a root above it stops there), what is shown
// inside it is, as a read root of its own. t is what p is, when a listing
// said so.
func (b *llBuilder) cover(p string, rights uint64, t entryType) error {
	skip, hasDenyBelow := b.judge(p)
	if skip {
		return nil
	}
	if !hasDenyBelow {
		return b.addIfThere(p, rights, t)
	}
	// O_DIRECTORY and O_NONBLOCK: a FIFO an earlier command left where a
	// denied path's parent was would block an open for reading until a
	// writer came (red-team round 58). O_NOFOLLOW for an entry of a walk
	// (see add): a link swapped in since would have the walk grant its
	// target's entries under this directory's names.
	flags := os.O_RDONLY | unix.O_DIRECTORY | unix.O_NONBLOCK
	if t != typeUnknown {
		flags |= unix.O_NOFOLLOW
	}
	f, err := os.OpenFile(p, flags, 0)
	if errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
		// Nothing is below it to deny: granted as any file is (a link,
		// its own inode: nothing). Should a directory replace it, the
		// rule is the old inode's.
		return b.addIfThere(p, rights, typeOther)
	}
	if err != nil {
		// An unreadable directory (DAC) grants nothing below it anyway.
		return nil
	}
	// The entries' types come with the directory (lstat only where the
	// file system does not report them).
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			continue // a symlink's target is judged where it lives
		}
		t := typeOther
		if e.IsDir() {
			t = typeDir
		}
		if err := b.cover(filepath.Join(p, e.Name()), rights, t); err != nil {
			return err
		}
	}
	return nil
}

// addIfThere is add, where a path gone or unreadable grants nothing.
func (b *llBuilder) addIfThere(p string, rights uint64, t entryType) error {
	err := b.add(p, rights, t)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) {
		return nil
	}
	return err
}

// judge says whether cover grants nothing at p (p is denied or hidden),
// or must walk p's entries, a denied or hidden path lying below it.
func (b *llBuilder) judge(p string) (skip, walk bool) {
	for _, d := range b.deny {
		if paths.Within(p, d) {
			return true, false
		}
		walk = walk || paths.Within(d, p)
	}
	for _, h := range b.hidden {
		if p == h {
			return true, false
		}
		walk = walk || paths.Within(h, p)
	}
	return false, walk
}

// entryType is what a directory's listing said a path is: the walks of
// cover meet most of the rules' paths there, and need no fstat of each.
type entryType uint8

const (
	typeUnknown entryType = iota // not listed: add looks
	typeDir
	typeOther // anything but a directory
)

// add grants rights beneath p, t being what p is if known. A path met in
// a walk (t known) was no symbolic link when listed, and is not followed
// should it be one by now: a command of another sandbox that may write
// there could have swapped it for a link to a denied directory, whose
// inode would get the rule (the reduced tier has no mask to stop that).
// The rule goes to the link's own inode then, which grants nothing.
func (b *llBuilder) add(p string, rights uint64, t entryType) error {
	flags := unix.O_PATH | unix.O_CLOEXEC
	switch t {
	case typeDir:
		flags |= unix.O_DIRECTORY | unix.O_NOFOLLOW
	case typeOther:
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(p, flags, 0)
	if t == typeDir && (errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP)) {
		return b.add(p, rights, typeOther) // no longer a directory: a file's rights at most
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	switch t {
	case typeDir: // O_DIRECTORY made sure
	case typeOther:
		// Listed as no directory (or no longer one): a directory made
		// there since gets no more than a file's rights.
		rights &= fileRights
	default:
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			rights &= fileRights
		}
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights & b.handled, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(b.r.fd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", p, errno)
	}
	b.r.rules++
	return nil
}

// fileRights are the rights that mean something on a file (not a directory).
const fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
	unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE |
	unix.LANDLOCK_ACCESS_FS_IOCTL_DEV | unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX

func uintptrOf(p *uint32) uintptr { return uintptr(unsafe.Pointer(p)) }
