//go:build linux

package linux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Locations inside the init's scratch root while the new root is built.
const (
	oldRoot   = "/oldroot"             // the host's tree
	newRoot   = "/newroot"             // the sandbox's tree
	staging   = "/staging"             // the sandbox's /proc and /dev, made ahead of the spec
	emptyFile = "/.agentbox-empty"     // mode 000, bound over masked files
	emptyDir  = "/.agentbox-empty-dir" // mode 000, bound over masked directories
)

// maxPtys bounds the pseudo-terminals of a sandbox's own devpts: every
// non-initial devpts instance draws on one machine-wide pool
// (kernel.pty.max less kernel.pty.reserve), which one sandbox could
// otherwise exhaust for every other sandbox and container.
const maxPtys = 256

// buildRoot builds the sandbox's filesystem and makes it the root:
//
//  1. make every mount a slave, so that nothing done here reaches the host
//     while the host's mounts and unmounts still reach this copy;
//  2. mount a scratch tmpfs and pivot into it, so the host tree sits at
//     /oldroot and /tmp is free to be replaced;
//  3. mount a fresh /proc and a minimal /dev at /staging;
//  4. once the spec is known, bind the host tree recursively at /newroot
//     (or, with a read allow-list, only those paths on an empty skeleton),
//     stop all propagation into it, and make every mount in it read-only,
//     nosuid and nodev in one mount_setattr call;
//  5. move /proc and /dev into it; mount a private /tmp and /dev/shm;
//  6. apply the plan: writable roots, scratch overlays, masks, read-only
//     protected paths;
//  7. pivot into /newroot and detach everything else.
//
// The mounts of step 6 that alone protect a path (mountOp.Watch) are
// recorded in watch, to be watched while the program runs.
//
// Steps 1 to 3 depend on no spec: a warm init takes them while it waits
// (prebuildRoot), and prebuilt says it did. The host tree is bound
// only when the spec comes, so the sandbox sees the host's mounts as they
// are then, not as they were when the init started.
//
// It returns the layers its mounts add (none, or the scratch directories'
// and the shown directories left unsealed). A scratch overlay the kernel
// refuses leaves its directory read-only, and says so.
func buildRoot(s *initSpec, idmapFDs []int, prebuilt bool, watch *mountWatch) ([]string, error) {
	if !prebuilt {
		if err := prebuildRoot(); err != nil {
			return nil, err
		}
	}
	if len(s.ReadOnly) > 0 {
		if err := mountAllowList(s.ReadOnly); err != nil {
			return nil, err
		}
	} else if err := unix.Mount(oldRoot, newRoot, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return nil, stageErr("mount: bind host root", err)
	}
	// From here on the sandbox's view is its own: the host's later mounts
	// do not reach it (nor, being a slave copy, did anything go back).
	if err := unix.Mount("", newRoot, "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, stageErr("mount: make the new root private", err)
	}
	if len(s.ReadOnly) == 0 {
		if err := setAttr(newRoot, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, true); err != nil {
			return nil, stageErr("mount: read-only host root", err)
		}
	}
	for _, d := range []string{"/proc", "/dev"} {
		if err := unix.Mount(staging+d, newRoot+d, "", unix.MS_MOVE, ""); err != nil {
			return nil, stageErr("mount: "+d, err)
		}
	}
	if s.Limits.uncounted() {
		if err := zeroDevice(); err != nil {
			return nil, err
		}
	}
	if err := mountMemoryAreas(s.TmpfsSize); err != nil {
		return nil, err
	}
	scratch := &overlays{layers: MemoryAreas + "/layers"}
	var unsealed []string // shown directories seal could not mask whole
	for _, op := range s.Mounts {
		if op.Kind == opOverlay {
			if err := scratch.mount(newRoot + op.Dst); err != nil {
				scratch.fail(s, op.Dst, err)
			} else {
				scratch.made = append(scratch.made, op.Dst)
			}
			continue
		}
		if op.Kind == opSeal {
			if err := seal(newRoot + op.Dst); err != nil {
				unsealed = append(unsealed, fmt.Sprintf("%s: %v", op.Dst, err))
			}
			continue
		}
		if err := applyOp(op, idmapFDs); err != nil {
			return nil, stageErr(fmt.Sprintf("mount: %s %s", op.Kind, op.Dst), err)
		}
		if op.Watch {
			if err := watch.note(newRoot+op.Dst, op.Dst); err != nil {
				return nil, stageErr("mount watch", err)
			}
		}
	}
	if err := writeFiles(s.Files); err != nil {
		return nil, stageErr("files", err)
	}
	if len(s.ReadOnly) > 0 {
		// The skeleton that holds the allowed paths gains nothing more.
		if err := setAttr(newRoot, unix.MOUNT_ATTR_RDONLY, false); err != nil {
			return nil, stageErr("mount: read-only skeleton", err)
		}
	}

	if err := unix.Chdir(newRoot); err != nil {
		return nil, stageErr("chdir", err)
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return nil, stageErr("pivot_root", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return nil, stageErr("detach old root", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return nil, stageErr("chdir", err)
	}
	var layers []string
	for _, l := range []string{scratch.layer(), unsealedLayer(unsealed)} {
		if l != "" {
			layers = append(layers, l)
		}
	}
	return layers, nil
}

// prebuildRoot builds what no spec changes, while a warm init waits for its
// spec: the scratch root, and the sandbox's /proc and /dev. An error is the
// spec's to report, as if the spec had been there.
func prebuildRoot() error {
	if err := enterScratch(); err != nil {
		return err
	}
	return mountSystem()
}

// enterScratch makes every mount a slave and pivots into a scratch tmpfs,
// with the host's tree at oldRoot and empty newRoot and staging
// directories.
func enterScratch() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		if errors.Is(err, unix.EPERM) {
			// The namespaces were made, but grant no capability in them
			// (Ubuntu's AppArmor restriction): as good as none.
			return &initError{stage: stageNoCapabilities, unavailable: true,
				err: fmt.Errorf("user namespaces grant no capability in them here (a mount was refused: %w)%s", err, usernsHint())}
		}
		return stageErr("mount: make / a slave", err)
	}
	if err := unix.Mount("tmpfs", "/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0700,size=64k"); err != nil {
		return stageErr("mount: scratch tmpfs", err)
	}
	for _, d := range []string{oldRoot, newRoot, staging, staging + "/proc", staging + "/dev"} {
		if err := os.Mkdir("/tmp"+d, 0o700); err != nil {
			return stageErr("mount: scratch", err)
		}
	}
	if err := unix.PivotRoot("/tmp", "/tmp"+oldRoot); err != nil {
		return stageErr("pivot_root (scratch)", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return stageErr("chdir", err)
	}
	if err := os.WriteFile(emptyFile, nil, 0); err != nil {
		return stageErr("mount: mask file", err)
	}
	if err := os.Mkdir(emptyDir, 0); err != nil {
		return stageErr("mount: mask directory", err)
	}
	return nil
}

// mountSystem mounts the sandbox's /proc and /dev (but /dev/shm) at
// staging.
func mountSystem() error {
	if err := mountProc(); err != nil {
		return err
	}
	return mountDev()
}

// setAttr changes mount attributes of the mount at path (and, if recursive,
// of every mount below it) with one mount_setattr(2) call.
func setAttr(path string, set uint64, recursive bool) error {
	flags := unix.AT_NO_AUTOMOUNT
	if recursive {
		flags |= unix.AT_RECURSIVE
	}
	return unix.MountSetattr(unix.AT_FDCWD, path, uint(flags), &unix.MountAttr{Attr_set: set})
}

// MemoryAreas is the one tmpfs, in the init's scratch root, that holds
// what the command may keep in memory-backed files: the private /tmp and
// /dev/shm (bound from its tmp and shm directories) and the scratch
// overlays' upper layers (its layers directory). Sized by the memory
// limit, it bounds them all together, not once each; statfs of the
// sandbox's /tmp tells how much they hold (supervise's memory monitor
// counts it).
const MemoryAreas = "/memory-areas"

// mountMemoryAreas mounts the memory areas, of size bytes (0: no limit).
// Their inodes are bounded too: each holds about a KiB of kernel memory
// that no block counts, and tmpfs charges user extended attributes to the
// same inode space. Left to its default (half the host's pages), an empty
// file or an attribute at a time would hold gigabytes; areasInodes keeps
// that within a quarter of the limit, and the monitor counts what is used.
func mountMemoryAreas(size int64) error {
	if err := os.Mkdir(MemoryAreas, 0o700); err != nil {
		return stageErr("mount: memory areas", err)
	}
	opts := "mode=0700"
	if size > 0 {
		opts += ",nr_inodes=" + strconv.FormatInt(areasInodes(size), 10)
	}
	if err := mountTmpfs(MemoryAreas, opts, size); err != nil {
		return stageErr("mount: memory areas", err)
	}
	for _, a := range []struct {
		dir, dst string
		mode     os.FileMode
	}{
		{"shm", newRoot + "/dev/shm", 0o777 | os.ModeSticky},
		{"tmp", newRoot + "/tmp", 0o777 | os.ModeSticky},
		{"layers", "", 0o700},
	} {
		dir := MemoryAreas + "/" + a.dir
		if err := os.Mkdir(dir, 0o700); err != nil {
			return stageErr("mount: memory areas", err)
		}
		if err := os.Chmod(dir, a.mode); err != nil {
			return stageErr("mount: memory areas", err)
		}
		if a.dst == "" {
			continue
		}
		if err := unix.Mount(dir, a.dst, "", unix.MS_BIND, ""); err != nil {
			return stageErr("mount: private "+strings.TrimPrefix(a.dst, newRoot), err)
		}
	}
	return nil
}

// areasInodes is the memory areas' inode count for a tmpfs of size bytes:
// one per 4 KiB, each charged a KiB of inode space, so at most a quarter
// of the size (a 256 MiB limit allows 65,536 files; the default 2 GiB,
// 524,288).
func areasInodes(size int64) int64 { return max(size>>12, 1024) }

func mountTmpfs(dst, opts string, size int64) error {
	if size > 0 {
		opts += ",size=" + strconv.FormatInt(size, 10)
	}
	return unix.Mount("tmpfs", dst, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts)
}

// procReadOnly and procMasked harden the fresh /proc the way container
// runtimes do: kernel knobs read-only, kernel memory and key lists hidden.
var (
	procReadOnly = []string{"sys", "sysrq-trigger", "irq", "bus", "fs"}
	procMasked   = []string{"kcore", "keys", "timer_list", "sched_debug", "kallsyms", "latency_stats"}
)

func mountProc() error {
	dst := staging + "/proc"
	if err := unix.Mount("proc", dst, "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return stageErr("mount: /proc", err)
	}
	if err := limitUserCounts(dst + "/sys"); err != nil {
		return stageErr("limits", err)
	}
	for _, p := range procReadOnly {
		full := dst + "/" + p
		if _, err := os.Lstat(full); err != nil {
			continue
		}
		if err := bindSelfReadOnly(full); err != nil {
			return stageErr("mount: read-only /proc/"+p, err)
		}
	}
	for _, p := range procMasked {
		full := dst + "/" + p
		if _, err := os.Lstat(full); err != nil {
			continue
		}
		if err := maskFile(full); err != nil {
			return stageErr("mount: mask /proc/"+p, err)
		}
	}
	return nil
}

// devices are bound from the host into the sandbox's /dev.
var devices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// mountDev makes a minimal, read-only /dev; /dev/shm, a tmpfs sized by
// the spec, is mounted on it later.
func mountDev() error {
	dev := staging + "/dev"
	if err := mountTmpfs(dev, "mode=0755", 1<<20); err != nil {
		return stageErr("mount: /dev", err)
	}
	for _, d := range devices {
		dst := dev + "/" + d
		if err := os.WriteFile(dst, nil, 0o666); err != nil {
			return stageErr("mount: /dev/"+d, err)
		}
		if err := unix.Mount(oldRoot+"/dev/"+d, dst, "", unix.MS_BIND, ""); err != nil {
			return stageErr("mount: /dev/"+d, err)
		}
	}
	for _, d := range []string{"pts", "shm"} {
		if err := os.Mkdir(dev+"/"+d, 0o755); err != nil {
			return stageErr("mount: /dev/"+d, err)
		}
	}
	if err := unix.Mount("devpts", dev+"/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC,
		"newinstance,ptmxmode=0666,mode=0620,max="+strconv.Itoa(maxPtys)); err != nil {
		return stageErr("mount: /dev/pts", err)
	}
	links := [][2]string{
		{"pts/ptmx", "ptmx"}, {"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"},
		{"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"}, {"/proc/kcore", "core"},
	}
	for _, l := range links[:5] {
		if err := os.Symlink(l[0], dev+"/"+l[1]); err != nil {
			return stageErr("mount: /dev/"+l[1], err)
		}
	}
	if err := setAttr(dev, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC, false); err != nil {
		return stageErr("mount: read-only /dev", err)
	}
	return nil
}

// zeroDevice puts /dev/full in the place of the sandbox's /dev/zero where
// a monitor sums its memory (limitsSpec.uncounted). A MAP_SHARED mapping
// of /dev/zero is shared anonymous memory (the kernel gives it a shmem
// object of its own, as for MAP_SHARED|MAP_ANONYMOUS, which seccomp
// refuses there: sharedAnonRule), and its pages, written and then
// dropped from the page tables with MADV_DONTNEED, stay held where no
// count per process sees them. seccomp cannot tell which file an mmap
// maps, but /dev/full reads as zeros too and cannot be mapped at all
// (ENODEV). What changes: writes to /dev/zero fail with ENOSPC instead of
// being discarded, and MAP_PRIVATE mappings of it, anonymous memory
// before MAP_ANONYMOUS existed, fail too. The /dev tmpfs stays read-only:
// the bind goes on top of the file it holds.
func zeroDevice() error {
	dst := newRoot + "/dev/zero"
	if err := unix.Unmount(dst, unix.MNT_DETACH); err != nil {
		return stageErr("mount: /dev/zero", err)
	}
	if err := unix.Mount(newRoot+"/dev/full", dst, "", unix.MS_BIND, ""); err != nil {
		return stageErr("mount: /dev/full as /dev/zero", err)
	}
	return nil
}

// skeletonDirs are the mountpoints every new root needs.
var skeletonDirs = []string{"/proc", "/dev", "/tmp", "/run"}

// mountAllowList builds a new root that holds only the given host paths,
// read-only, on an empty tmpfs: what a read allow-list does not name is not
// there at all. Symlinks among them (/bin -> usr/bin) are recreated as such.
func mountAllowList(paths []string) error {
	if err := unix.Mount("tmpfs", newRoot, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=1m"); err != nil {
		return stageErr("mount: root skeleton", err)
	}
	for _, d := range skeletonDirs {
		if err := os.MkdirAll(newRoot+d, 0o755); err != nil {
			return stageErr("mount: root skeleton", err)
		}
	}
	for _, p := range paths {
		if p == "/" || contains(skeletonDirs, p) {
			continue // mounted on their own
		}
		fi, err := os.Lstat(oldRoot + p)
		if err != nil {
			continue // not on this host
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			if err := copySymlink(p); err != nil {
				return stageErr("mount: read "+p, err)
			}
			continue
		}
		if _, err := os.Lstat(newRoot + p); err == nil {
			continue // already inside a path bound before
		}
		if err := bindReadOnly(oldRoot+p, newRoot+p, fi.IsDir()); err != nil {
			if errors.Is(err, unix.EACCES) {
				continue // the program could not read it either
			}
			return stageErr("mount: read "+p, err)
		}
	}
	return nil
}

func copySymlink(p string) error {
	target, err := os.Readlink(oldRoot + p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(newRoot+p), 0o755); err != nil {
		return err
	}
	if err := os.Symlink(target, newRoot+p); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return nil
}
