//go:build linux

package linux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The mount operations the plan is made of, each done through descriptors
// opened without following symbolic links.

func bindSelfReadOnly(p string) error {
	fd, err := openNoSymlinks(p)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
	if err != nil {
		return fmt.Errorf("open_tree: %w", err)
	}
	defer unix.Close(tree)
	return attachTree(tree, fd, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
}

// maskFileFD covers the file at dstFD with the empty, mode 000 mask file.
func maskFileFD(dstFD int) error {
	tree, err := unix.OpenTree(unix.AT_FDCWD, emptyFile, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return fmt.Errorf("open_tree: %w", err)
	}
	defer unix.Close(tree)
	return attachTree(tree, dstFD, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
}

// maskDirFD covers the directory at dstFD with a read-only bind of an
// empty directory of mode 000 (emptyDir, in the init's scratch root, which
// nothing else shows). One bind is three system calls; a tmpfs of its own
// for each mask, as before, cost eight and a superblock (20 µs a mask).
func maskDirFD(dstFD int) error {
	tree, err := unix.OpenTree(unix.AT_FDCWD, emptyDir, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return fmt.Errorf("open_tree: %w", err)
	}
	defer unix.Close(tree)
	return attachTree(tree, dstFD, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
}

// newTmpfsAt mounts a new tmpfs with the given options and attributes at
// dstFD, through the new mount API.
func newTmpfsAt(dstFD int, opts [][2]string, attr int) error {
	fsfd, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("fsopen: %w", err)
	}
	defer unix.Close(fsfd)
	for _, kv := range opts {
		if err := unix.FsconfigSetString(fsfd, kv[0], kv[1]); err != nil {
			return fmt.Errorf("fsconfig %s: %w", kv[0], err)
		}
	}
	if err := unix.FsconfigCreate(fsfd); err != nil {
		return fmt.Errorf("fsconfig create: %w", err)
	}
	mfd, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, attr)
	if err != nil {
		return fmt.Errorf("fsmount: %w", err)
	}
	defer unix.Close(mfd)
	if err := unix.MoveMount(mfd, "", dstFD, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount: %w", err)
	}
	return nil
}

func maskFile(p string) error {
	fd, err := openNoSymlinks(p)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return maskFileFD(fd)
}

// applyOp performs one step of the plan. Sources and targets are opened
// with RESOLVE_NO_SYMLINKS and mounts are cloned, restricted and attached
// through descriptors, so a path swapped for a symlink after the parent
// planned it makes the step fail instead of mounting the wrong place.
func applyOp(op mountOp, idmapFDs []int) error {
	dst := newRoot + op.Dst
	if op.Kind == opHoldLink {
		return holdLink(dst)
	}
	if op.Kind == opMaskAuto {
		fi, err := os.Lstat(dst)
		switch {
		case errors.Is(err, os.ErrNotExist), errors.Is(err, os.ErrPermission):
			// Missing, or out of reach of the init and so of the program too.
			return nil
		case err == nil && fi.Mode()&os.ModeSymlink != 0:
			// The caller could not look (opMaskAuto), so it did not deny the
			// link's target as it does where it can: hide the name itself.
			return maskLink(dst)
		case err != nil:
			return err
		case fi.IsDir():
			op.Kind, op.Dir = opMaskDir, true
		default:
			op.Kind = opMaskFile
		}
	}
	if op.Kind == opTmpfs {
		if _, err := os.Lstat(dst); err != nil {
			return nil // nothing to hide
		}
	}
	if err := ensureMountpoint(dst, op.Dir); err != nil {
		isMask := op.Kind == opMaskDir || op.Kind == opMaskFile
		if (isMask || op.Kind == opPin) && errors.Is(err, unix.EROFS) {
			// Gone since the plan (another sandbox's placeholder, removed), or
			// to be made in a scratch overlay the kernel refused: there is
			// nothing to hide or pin, and nothing here can create it; if the
			// host does, Landlock still refuses it.
			return nil
		}
		if errors.Is(err, unix.EACCES) {
			// The init cannot reach it: it is a path whose owner is not mapped
			// into the sandbox, and the program, with less, cannot reach it
			// either (Landlock still judges it outside writable roots).
			return nil
		}
		return err
	}
	dstFD, err := openNoSymlinks(dst)
	if err != nil {
		return err
	}
	defer unix.Close(dstFD)
	const restrict = unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV
	switch op.Kind {
	case opPin:
		tree, err := unix.OpenTree(dstFD, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
		if err != nil {
			return fmt.Errorf("open_tree: %w", err)
		}
		defer unix.Close(tree)
		return attachTree(tree, dstFD, restrict)
	case opBindRW, opBindRO:
		srcFD := dstFD
		if op.Src != "" {
			if srcFD, err = openNoSymlinks(oldRoot + op.Src); err != nil {
				return err
			}
			defer unix.Close(srcFD)
		}
		tree, err := unix.OpenTree(srcFD, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
		if err != nil {
			return fmt.Errorf("open_tree %s: %w", op.Src, err)
		}
		defer unix.Close(tree)
		attr := uint64(restrict)
		if op.Kind == opBindRO {
			attr |= unix.MOUNT_ATTR_RDONLY
		}
		return attachTree(tree, dstFD, attr)
	case opIdmapRW, opIdmapRO:
		// The parent made the tree and set its attributes: it belongs to the
		// host's user namespace, where only the parent may change it.
		if op.FD < 0 || op.FD >= len(idmapFDs) {
			return fmt.Errorf("idmapped mount %d was not received", op.FD)
		}
		if err := unix.MoveMount(idmapFDs[op.FD], "", dstFD, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
			return fmt.Errorf("move_mount: %w", err)
		}
		return nil
	case opMaskDir, opMaskFile:
		mask := maskDirFD
		if op.Kind == opMaskFile {
			mask = maskFileFD
		}
		if err := mask(dstFD); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
		return nil // ENOENT: removed since it was opened; nothing left to hide
	case opTmpfs:
		// A few inodes: the program may make no file there (Landlock),
		// and its inode space would hold kernel memory no limit counts.
		return newTmpfsAt(dstFD, [][2]string{{"mode", "0755"}, {"size", "16m"}, {"nr_inodes", "256"}}, restrict)
	}
	return fmt.Errorf("unknown mount step %q", op.Kind)
}

// holdLink binds the symbolic link at dst onto itself: it still leads
// where it did, for the command too, but as a mountpoint it can be neither
// removed nor renamed, so nothing can take its place. A link gone or
// changed since the plan fails the set-up.
func holdLink(dst string) error {
	fd, err := openLink(dst)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH)
	if err != nil {
		return fmt.Errorf("open_tree %s: %w", dst, err)
	}
	defer unix.Close(tree)
	return attachTree(tree, fd, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
}

// maskLink mounts an empty file on the symbolic link at dst itself: the
// name leads nowhere.
func maskLink(dst string) error {
	fd, err := openLink(dst)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return maskFileFD(fd)
}

// openLink opens the symbolic link at dst itself (O_PATH), refusing
// anything else.
func openLink(dst string) (int, error) {
	fd, err := openNoSymlinks(dst)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("stat %s: %w", dst, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFLNK {
		unix.Close(fd)
		return -1, fmt.Errorf("%s is no longer a symbolic link", dst)
	}
	return fd, nil
}

// attachTree restricts the detached mount tree and attaches it at dstFD.
func attachTree(tree, dstFD int, attr uint64) error {
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: attr}); err != nil {
		return fmt.Errorf("mount_setattr: %w", err)
	}
	if err := unix.MoveMount(tree, "", dstFD, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount: %w", err)
	}
	return nil
}

func openNoSymlinks(p string) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC | unix.O_NOFOLLOW,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", p, err)
	}
	return fd, nil
}

// ensureMountpoint makes sure dst exists. Only places on a tmpfs the init
// created itself (the private /tmp, /dev/shm) may gain new entries; the
// parent creates any placeholder needed on the host before the start.
func ensureMountpoint(dst string, dir bool) error {
	fi, err := os.Lstat(dst)
	if err == nil {
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink", dst)
		}
		return nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return err // EACCES included: the caller decides
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if dir {
		return os.Mkdir(dst, 0o755)
	}
	return os.WriteFile(dst, nil, 0o644)
}

// writeFiles puts the spec's files into the sandbox's private /run,
// readable by the program and by nothing on the host.
func writeFiles(files []fileSpec) error {
	if len(files) == 0 {
		return nil
	}
	dir := newRoot + FilesDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if f.Name == "" || filepath.Base(f.Name) != f.Name {
			return fmt.Errorf("bad file name %q", f.Name)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o444); err != nil {
			return err
		}
	}
	return nil
}

// bindReadOnly binds the host tree at src read-only at dst, creating the
// mountpoint in the skeleton.
func bindReadOnly(src, dst string, dir bool) error {
	srcFD, err := openNoSymlinks(src)
	if err != nil {
		return err
	}
	defer unix.Close(srcFD)
	if err := ensureMountpoint(dst, dir); err != nil {
		return err
	}
	dstFD, err := openNoSymlinks(dst)
	if err != nil {
		return err
	}
	defer unix.Close(dstFD)
	tree, err := unix.OpenTree(srcFD, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
	if err != nil {
		return fmt.Errorf("open_tree: %w", err)
	}
	defer unix.Close(tree)
	return attachTree(tree, dstFD, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
}
