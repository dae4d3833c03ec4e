//go:build linux

package audit

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// r14fOther returns the uid and gid of the unprivileged user the red team
// plays "another user" with, skipping when the test cannot act as it.
func r14fOther(t *testing.T) (int, int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	u, err := user.Lookup("agentbox-ci")
	if err != nil {
		t.Skip("no user agentbox-ci")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if _, err := exec.LookPath("runuser"); err != nil {
		t.Skip("no runuser")
	}
	return uid, gid
}

// r14fAs runs a shell line as agentbox-ci and reports whether it succeeded.
func r14fAs(t *testing.T, line string) error {
	t.Helper()
	out, err := exec.Command("runuser", "-u", "agentbox-ci", "--", "sh", "-c", line).CombinedOutput()
	if err != nil {
		t.Logf("as agentbox-ci: %s: %v: %s", line, err, out)
	}
	return err
}

// r14fACL builds a system.posix_acl_access value granting uid rwx (mask
// rwx) besides the owner's rwx, the group's r-x and others' r-x: what
// setfacl -m u:UID:rwx does.
func r14fACL(uid int) []byte {
	const undef = 0xffffffff
	ents := []struct {
		tag, perm uint16
		id        uint32
	}{
		{0x01, 7, undef},       // ACL_USER_OBJ
		{0x02, 7, uint32(uid)}, // ACL_USER
		{0x04, 5, undef},       // ACL_GROUP_OBJ
		{0x10, 7, undef},       // ACL_MASK
		{0x20, 5, undef},       // ACL_OTHER
	}
	b := binary.LittleEndian.AppendUint32(nil, 2)
	for _, e := range ents {
		b = binary.LittleEndian.AppendUint16(b, e.tag)
		b = binary.LittleEndian.AppendUint16(b, e.perm)
		b = binary.LittleEndian.AppendUint32(b, e.id)
	}
	return b
}

// TestRedteam14CheckLocationACL: checkLocation must refuse a log's
// directory another user can write into. A POSIX ACL (setfacl -m
// u:OTHER:rwx) grants another user write: the mode's group bits are then the
// ACL mask, and the private-group exception takes them for the caller's
// own group's write and accepts the directory.
//
// Fixed: the private-group exception holds only for a directory without an
// access control list (hasACL): with one, the group bits are its mask.
func TestRedteam14CheckLocationACL(t *testing.T) {
	r14fLocationCases(t, func(uid, gid int, base string, mkdir func(string, os.FileMode, int) string) []r14fCase {
		return []r14fCase{
			{"control: own directory others may read", func(t *testing.T) (string, string) {
				d := mkdir("plain", 0o755, -1)
				return filepath.Join(d, "a.log"), "touch " + filepath.Join(d, "planted")
			}, false},
			{"ACL grants another user write on the log's directory", func(t *testing.T) (string, string) {
				d := mkdir("acl", 0o755, -1)
				if err := syscall.Setxattr(d, "system.posix_acl_access", r14fACL(uid), 0); err != nil {
					t.Skipf("no POSIX ACLs here: %v", err)
				}
				return filepath.Join(d, "a.log"), "touch " + filepath.Join(d, "planted")
			}, true},
		}
	})
}

type r14fCase struct {
	name   string
	setup  func(t *testing.T) (path string, attack string)
	refuse bool
}

// r14fLocationCases runs checkLocation on each case's path; a case to be
// refused that is accepted fails, with proof that agentbox-ci can run its
// attack; an accepted control must hold against the same attack.
func r14fLocationCases(t *testing.T, cases func(uid, gid int, base string, mkdir func(string, os.FileMode, int) string) []r14fCase) {
	uid, gid := r14fOther(t)
	base, err := os.MkdirTemp("", "r14f-loc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	mkdir := func(name string, mode os.FileMode, owner int) string {
		d := filepath.Join(base, name)
		if err := os.Mkdir(d, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
		if owner >= 0 {
			if err := os.Chown(d, owner, gid); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}

	for _, tc := range cases(uid, gid, base, mkdir) {
		t.Run(tc.name, func(t *testing.T) {
			path, attack := tc.setup(t)
			err := checkLocation(path)
			if tc.refuse {
				if !errors.Is(err, ErrUnsafeLocation) {
					// Prove the other user really can write there or
					// redirect the log's directory.
					if r14fAs(t, attack) == nil {
						real, _ := filepath.EvalSymlinks(filepath.Dir(path))
						t.Errorf("checkLocation(%s) = %v, yet agentbox-ci just ran %q (the log's directory is now %s)", path, err, attack, real)
					} else {
						t.Errorf("checkLocation(%s) = %v, want ErrUnsafeLocation", path, err)
					}
				}
				return
			}
			if err != nil {
				t.Errorf("control: checkLocation(%s) = %v, want nil", path, err)
			}
			if r14fAs(t, attack) == nil {
				t.Errorf("control: agentbox-ci could %q", attack)
			}
		})
	}
}
