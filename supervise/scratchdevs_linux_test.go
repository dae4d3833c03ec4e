//go:build linux

package supervise

import (
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestScratchOverlays: the devices taken as the memory areas' are those of
// overlays whose upper layer lies in them, not any other mount's.
func TestScratchOverlays(t *testing.T) {
	mountinfo := `108 78 0:45 /shm /dev/shm rw,nosuid,nodev,relatime - tmpfs tmpfs rw,size=262144k,nr_inodes=65536,mode=700
114 86 0:48 / /home/u/.cache rw,nosuid,nodev,relatime - overlay overlay rw,lowerdir=/newroot/proc/self/fd/11,upperdir=/memory-areas/layers/0/upper,workdir=/memory-areas/layers/0/work,userxattr
121 86 0:55 / /work/scratch rw,nosuid,nodev,relatime - overlay overlay rw,lowerdir=/newroot/proc/self/fd/11,upperdir=/memory-areas/layers/2/upper,workdir=/memory-areas/layers/2/work
130 86 0:60 / /elsewhere rw,relatime - overlay overlay rw,lowerdir=/a,upperdir=/disk/upper,workdir=/disk/work
131 86 0:61 / /tricky rw,relatime - overlay overlay rw,lowerdir=/a,upperdir=/memory-areas-not/upper,workdir=/w
132 86 0:62 / /fake rw,relatime - tmpfs upperdir=/memory-areas/x rw
bad line
`
	got := scratchOverlays(mountinfo)
	want := []uint64{unix.Mkdev(0, 48), unix.Mkdev(0, 55)}
	if !slices.Equal(got, want) {
		t.Errorf("scratchOverlays = %v, want %v", got, want)
	}
	if d := smapsDev(unix.Mkdev(0, 55)); d != "00:37" {
		t.Errorf("smapsDev(0:55) = %q, want 00:37 as smaps writes it", d)
	}
	if scratchOverlays("") != nil {
		t.Error("no mounts gave devices")
	}
}
