//go:build linux

package supervise

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestMemoryRoots(t *testing.T) {
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &st); err != nil || st.Type != unix.TMPFS_MAGIC {
		t.Skip("/dev/shm is not a tmpfs here")
	}
	shm, err := os.MkdirTemp("/dev/shm", "agentbox-memroots-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shm)
	disk, err := os.MkdirTemp("/var/tmp", "agentbox-memroots-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(disk)
	if got := memoryRoots([]string{disk}); len(got) != 0 {
		t.Errorf("a root on disk: %q, want none", got)
	}
	if got := memoryRoots([]string{disk, shm}); !slices.Equal(got, []string{shm + " (tmpfs)"}) {
		t.Errorf("a root in /dev/shm: %q", got)
	}
	// A mount inside a root counts as the root's own: / holds /dev/shm.
	if got := memoryRoots([]string{"/"}); !slices.Contains(got, "/dev/shm (tmpfs)") {
		t.Errorf("the root /: %q, want /dev/shm among them", got)
	}
}

func TestMemoryRootsCheck(t *testing.T) {
	places := []string{"/dev/shm/w (tmpfs)"}
	for _, tc := range []struct {
		name      string
		places    []string
		mechanism string
		declared  bool
		refused   bool
		warned    bool
	}{
		{"monitor, declared limit", places, MemoryMonitor, true, true, false},
		{"monitor, default limit", places, MemoryMonitor, false, false, true},
		{"cgroup counts them", places, MemoryCgroup, true, false, false},
		{"nothing in memory", nil, MemoryMonitor, true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			warning, err := memoryRootsCheck(tc.places, tc.mechanism, tc.declared)
			var mre *MemoryRootError
			if refused := errors.As(err, &mre); refused != tc.refused {
				t.Errorf("refused %v (%v), want %v", refused, err, tc.refused)
			}
			if tc.refused && !strings.Contains(err.Error(), "/dev/shm/w (tmpfs) keeps its files in memory") {
				t.Errorf("the refusal does not name the place: %v", err)
			}
			if (warning != "") != tc.warned {
				t.Errorf("warning %q, want one: %v", warning, tc.warned)
			}
		})
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	for in, want := range map[string]string{`/a\040b`: "/a b", `/plain`: "/plain", `/x\134y`: `/x\y`, `/end\04`: `/end\04`} {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMemoryKind(t *testing.T) {
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &st); err != nil || st.Type != unix.TMPFS_MAGIC {
		t.Skip("/dev/shm is not a tmpfs here")
	}
	for _, tc := range []struct{ fstype, super, want string }{
		{"tmpfs", "rw,size=1024k", "tmpfs"},
		{"ramfs", "rw", "ramfs"},
		{"overlay", "rw,lowerdir=/usr,upperdir=/dev/shm,workdir=/dev/shm", "overlay on tmpfs"},
		{"overlay", "rw,lowerdir=/usr,upperdir=/var/tmp,workdir=/var/tmp", ""},
		{"ext4", "rw", ""},
	} {
		if got := memoryKind(tc.fstype, tc.super); got != tc.want {
			t.Errorf("memoryKind(%s, %s) = %q, want %q", tc.fstype, tc.super, got, tc.want)
		}
	}
}
