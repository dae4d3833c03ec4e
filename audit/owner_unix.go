//go:build unix

package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// checkLocation judges the log at path before it is opened: its directory
// must be the caller's (or root's) and writable by no one else, every
// directory above it too (and above where links on the way lead), except
// that a sticky one (/tmp) may be writable by others (they cannot rename
// what is not theirs there) and the caller's private group counts as the
// caller (privateGroup); an existing log must be the caller's and writable
// by no one else.
func checkLocation(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	me := os.Geteuid()
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist), err == nil && fi.Mode()&fs.ModeSymlink != 0:
		// Made by Open, or a link that openRegular refuses.
	case err != nil:
		return fmt.Errorf("audit: %w", err)
	default:
		if uid, ok := fileOwner(fi); ok && uid != me {
			return fmt.Errorf("%w: %s belongs to uid %d, not to this user (%d): move it away or choose another audit.log_path", ErrUnsafeLocation, abs, uid, me)
		}
		if fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("%w: %s is writable by group or others (mode %v): run chmod go-w %s", ErrUnsafeLocation, abs, fi.Mode().Perm(), abs)
		}
	}
	// Every directory the kernel passes through: the path's own, and
	// where its links lead.
	dir := filepath.Dir(abs)
	dirs, leaf := ancestors(dir), map[string]bool{dir: true}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dirs, leaf[real] = append(dirs, ancestors(real)...), true
	}
	for _, dir := range dirs {
		fi, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		uid, ok := fileOwner(fi)
		perm := fi.Mode().Perm()
		if perm&0o020 != 0 && privateGroup(fi) {
			perm &^= 0o020 // the caller's own group, with no one else in it
		}
		switch {
		case ok && uid != me && uid != 0:
			return fmt.Errorf("%w: the log's directory %s belongs to uid %d: choose an audit.log_path in a directory of this user's", ErrUnsafeLocation, dir, uid)
		case perm&0o022 != 0 && (leaf[dir] || fi.Mode()&fs.ModeSticky == 0):
			return fmt.Errorf("%w: the log's directory %s is writable by others (mode %v): choose an audit.log_path in a directory only this user can write", ErrUnsafeLocation, dir, fi.Mode())
		}
	}
	return nil
}

// ancestors lists dir and every directory above it, up to /.
func ancestors(dir string) []string {
	out := []string{dir}
	for d := dir; d != filepath.Dir(d); {
		d = filepath.Dir(d)
		out = append(out, d)
	}
	return out
}

// privateGroup reports whether the group of the file fi describes is the
// caller's own private group (the user-private-group scheme, where umask
// 002 makes every directory group-writable): the caller's group, named as
// the caller, with no other member and no other user's primary group.
// Where the user and group databases cannot tell, it is not.
func privateGroup(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Gid) != os.Getegid() {
		return false
	}
	u, err := user.Current()
	if err != nil {
		return false
	}
	gid := strconv.Itoa(int(st.Gid))
	g, err := user.LookupGroupId(gid)
	if err != nil || g.Name != u.Username {
		return false
	}
	return onlyMember("/etc/group", "/etc/passwd", gid, u.Username)
}

// onlyMember reports whether user is the only one in the group gid by the
// files groupFile and passwdFile: the group lists no other member, and no
// other user has it as primary group.
func onlyMember(groupFile, passwdFile, gid, user string) bool {
	groups, err1 := os.ReadFile(groupFile)
	users, err2 := os.ReadFile(passwdFile)
	if err1 != nil || err2 != nil {
		return false
	}
	for line := range strings.SplitSeq(string(groups), "\n") {
		f := strings.Split(line, ":") // name:pw:gid:members
		if len(f) != 4 || f[2] != gid {
			continue
		}
		for m := range strings.SplitSeq(f[3], ",") {
			if m != "" && m != user {
				return false
			}
		}
	}
	for line := range strings.SplitSeq(string(users), "\n") {
		f := strings.Split(line, ":") // name:pw:uid:gid:...
		if len(f) >= 4 && f[3] == gid && f[0] != user {
			return false
		}
	}
	return true
}
