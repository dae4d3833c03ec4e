//go:build linux

package supervise

import (
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// smapsEntry writes one mapping of an smaps text: its device and inode,
// Pss and Anonymous in kB.
func smapsEntry(dev, ino string, pss, anon int) string {
	return fmt.Sprintf("7f0000000000-7f0000100000 rw-s 00000000 %s %s /x\nSize: 1024 kB\nRss: %d kB\nPss: %d kB\nAnonymous: %d kB\nVmFlags: rd wr sh\n",
		dev, ino, pss, pss, anon)
}

// TestMapSharesScratchLower: of a scratch overlay's mappings, only what
// can be shared memory (Pss_Shmem less every other mapping's possible
// share) counts as the areas'; a lower file's page cache is never taken
// from the anonymous memory, a copied-up file's is (no double count).
func TestMapSharesScratchLower(t *testing.T) {
	mountinfo := `100 80 0:45 /tmp /tmp rw - tmpfs tmpfs rw,size=262144k
101 80 254:0 / / rw - ext4 /dev/vda rw
102 80 0:50 / /scratch rw - overlay overlay rw,lowerdir=/l,upperdir=/memory-areas/layers/0/upper,workdir=/memory-areas/layers/0/work
103 80 0:60 / /other rw - tmpfs tmpfs rw
`
	s := &treeSampler{devKinds: deviceKinds(mountinfo, unix.Mkdev(0, 45))}
	const areas, disk, scratch, other, shmAnon = "00:2d", "fe:00", "00:32", "00:3c", "00:01"
	lib := smapsEntry(disk, "7", 10<<10, 0)            // a library: page cache
	heap := smapsEntry("00:00", "0", 300<<10, 300<<10) // private anonymous
	for _, tc := range []struct {
		name    string
		smaps   string
		shmem   int64 // Pss_Shmem of smaps_rollup, MiB
		inAreas int64 // MiB
	}{
		{"lower_file_not_shmem", lib + heap + smapsEntry(scratch, "9", 480<<10, 0), 0, 0},
		{"copied_up_file", lib + heap + smapsEntry(scratch, "9", 150<<10, 0), 150, 150},
		{"copied_up_and_lower", smapsEntry(scratch, "9", 150<<10, 0) + smapsEntry(scratch, "8", 480<<10, 0), 150, 150},
		{"lower_and_shared_anon", smapsEntry(shmAnon, "5", 150<<10, 0) + smapsEntry(scratch, "9", 480<<10, 0), 150, 0},
		{"lower_and_other_tmpfs", smapsEntry(other, "5", 100<<10, 0) + smapsEntry(scratch, "9", 480<<10, 0), 100, 0},
		{"areas_file", lib + smapsEntry(areas, "3", 200<<10, 0), 200, 200},
		{"areas_private_copies", smapsEntry(areas, "3", 200<<10, 150<<10), 200, 50},
		{"areas_and_lower", smapsEntry(areas, "3", 100<<10, 0) + smapsEntry(scratch, "9", 480<<10, 0), 100, 100},
		{"scratch_private_copies", smapsEntry(scratch, "9", 200<<10, 200<<10), 0, 0},
		{"unknown_header", "7f00-7f01 rw-s 0 00:2d\nPss: 4096 kB\n", 4, 0},
	} {
		m, ok := s.mapShares([]byte(tc.smaps))
		if !ok {
			t.Errorf("%s: no mapping read", tc.name)
		}
		if got := m.inAreas(tc.shmem << 20); got != tc.inAreas<<20 {
			t.Errorf("%s: inAreas = %d MiB, want %d MiB", tc.name, got>>20, tc.inAreas)
		}
	}
	if _, ok := s.mapShares(nil); ok {
		t.Error("an empty smaps read as mappings")
	}
	for dev, want := range map[string]mappingKind{areas: areasFile, scratch: scratchFile, disk: noShmem, other: maybeShmem, shmAnon: maybeShmem, "00:00": noShmem} {
		if got := s.devKinds[dev]; got != want { // absent: maybeShmem
			t.Errorf("device %s: kind %d, want %d", dev, got, want)
		}
	}
}
