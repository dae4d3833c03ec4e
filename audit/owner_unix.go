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

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// checkLocation judges the log at path before it is opened: every
// directory the kernel passes through to reach it (those that hold a link
// on the way included) must be the caller's or root's and writable by no
// one else, except that a sticky one (/tmp) other than the log's own may be
// writable by others (they cannot rename what is not theirs there), and
// the caller's private group counts as the caller (privateGroup); a link
// on the way in a directory others may write must be the caller's or
// root's (judgeLink); an
// existing log must be the caller's and writable by no one else. Open
// checks the file it opened again (checkOpened).
func checkLocation(path string) error {
	_, err := locateLog(path)
	return err
}

// locateLog judges the log at path as checkLocation does and returns its
// path as canonicalPath resolves it: the one path the log, its lock and
// its checkpoints are then opened by, so that what is opened is what was
// judged.
func locateLog(path string) (string, error) {
	// Every directory the kernel enters on the way, those that hold a
	// link among them (paths.Resolve); the last is the log's own.
	r, abs, err := resolveLog(path)
	if err != nil {
		return "", err
	}
	leaf := r.Target
	for _, dir := range append(r.Dirs, leaf) {
		if err := judgeDir(dir, dir == leaf); err != nil {
			return "", err
		}
	}
	for _, link := range r.Links {
		if err := judgeLink(link); err != nil {
			return "", err
		}
	}
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist), err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return abs, nil // made by Open, or a link that openRegular refuses
	case err != nil:
		return "", fmt.Errorf("audit: %w", err)
	}
	return abs, judgeFile(abs, fi)
}

// canonicalPath returns the log at path with the links in its directory
// resolved (resolveLog), so that every route to one log names the same
// state-directory copy and the same files beside it.
func canonicalPath(path string) (string, error) {
	_, abs, err := resolveLog(path)
	return abs, err
}

// resolveLog resolves the directory of the log at path as the kernel does
// when it opens path (paths.Resolve): a name at a time, ".." after a link
// climbing from where the link leads, where filepath.Abs would have taken
// "hop/.." away first and named another directory. It returns the
// resolution and the log's path in the directory reached, with no link
// in it.
func resolveLog(path string) (paths.Resolution, string, error) {
	p := path
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return paths.Resolution{}, "", fmt.Errorf("audit: %w", err)
		}
		p = wd + "/" + p
	}
	i := strings.LastIndexByte(p, '/')
	dir, name := p[:i+1], p[i+1:]
	if name == "" || name == "." || name == ".." {
		return paths.Resolution{}, "", fmt.Errorf("audit: %s names a directory, not a log file", path)
	}
	r, err := paths.Resolve(dir)
	if err != nil {
		return r, "", fmt.Errorf("audit: %s: %w", path, err)
	}
	return r, filepath.Join(r.Target, name), nil
}

// checkOpened judges the log Open opened, by its descriptor: what the
// location's check saw may have been replaced since.
func checkOpened(path string, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return judgeFile(path, fi)
}

// judgeFile refuses a log another user owns or may write.
func judgeFile(path string, fi fs.FileInfo) error {
	me := os.Geteuid()
	if uid, ok := fileOwner(fi); ok && uid != me {
		return fmt.Errorf("%w: %s belongs to uid %d, not to this user (%d): move it away or choose another audit.log_path", ErrUnsafeLocation, path, uid, me)
	}
	if othersMayWrite(path, fi) {
		return fmt.Errorf("%w: %s is writable by others (mode %v): run chmod go-w %s", ErrUnsafeLocation, path, fi.Mode().Perm(), path)
	}
	return nil
}

// judgeDir refuses a directory on the log's way that another user owns or
// may write; leaf is the log's own.
func judgeDir(dir string, leaf bool) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	me := os.Geteuid()
	if uid, ok := fileOwner(fi); ok && uid != me && uid != 0 {
		return fmt.Errorf("%w: the log's directory %s belongs to uid %d: choose an audit.log_path in a directory of this user's", ErrUnsafeLocation, dir, uid)
	}
	if othersMayWrite(dir, fi) && (leaf || fi.Mode()&fs.ModeSticky == 0) {
		return fmt.Errorf("%w: the log's directory %s may be written by another user (mode %v): choose an audit.log_path in a directory only this user can write", ErrUnsafeLocation, dir, fi.Mode())
	}
	return nil
}

// judgeLink refuses a symbolic link on the log's way that another user
// (not root) owns in a directory others may write: a sticky one (/tmp)
// stops others from replacing a name, not the name's owner, who may point
// the link, and so the log's directory, elsewhere at will.
func judgeLink(link string) error {
	fi, err := os.Lstat(link)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	me := os.Geteuid()
	uid, ok := fileOwner(fi)
	if !ok || uid == me || uid == 0 {
		return nil
	}
	dir := filepath.Dir(link)
	di, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if othersMayWrite(dir, di) {
		return fmt.Errorf("%w: the symbolic link %s on the log's way belongs to uid %d, who may point it elsewhere (%s may be written by others): name the log's directory by a path without it", ErrUnsafeLocation, link, uid, dir)
	}
	return nil
}

// othersMayWrite reports whether anyone but the owner may write the file at
// path: others by its mode; its group, unless that is the caller's private
// group and no access control list widens it (with one, the group bits are
// the list's mask, the most any named user or group gets).
func othersMayWrite(path string, fi fs.FileInfo) bool {
	perm := fi.Mode().Perm()
	switch {
	case perm&0o002 != 0:
		return true
	case perm&0o020 == 0:
		return false
	}
	return hasACL(path) || !privateGroup(fi)
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
