//go:build linux

package supervise

import (
	"bytes"
	"strings"
)

// mappingKind says what the pages of a mapping of a device may be, as far
// as the exact count must know: which of them the memory areas' tmpfs
// counts already, and which may be shared memory (Pss_Shmem).
type mappingKind int

const (
	// maybeShmem: a device the monitor knows nothing of (a tmpfs outside
	// the areas, the kernel's shm mount behind shared anonymous mappings,
	// another overlay): its pages may be shared memory.
	maybeShmem mappingKind = iota
	// areasFile: a file of the memory areas' tmpfs: shared memory the
	// tmpfs's use counts.
	areasFile
	// scratchFile: a file of a scratch overlay. smaps names the overlay's
	// device for a file of either layer: a copied-up file's pages are the
	// areas' (shared memory), a lower file's are the host disk's page
	// cache (never in the sum), and a mapping made before a copy-up keeps
	// the lower file's. Nothing per mapping tells them apart.
	scratchFile
	// noShmem: no file, or a file of a filesystem whose pages are page
	// cache: never shared memory.
	noShmem
)

// pageCacheFS are the filesystem types whose mapped pages are page cache
// (Pss_File), never shared memory. A type not listed is taken to maybe
// hold some: that only counts more.
var pageCacheFS = map[string]bool{
	"ext2": true, "ext3": true, "ext4": true, "xfs": true, "btrfs": true, "f2fs": true,
	"vfat": true, "exfat": true, "ntfs3": true, "squashfs": true, "erofs": true,
	"iso9660": true, "nfs": true, "nfs4": true, "9p": true, "virtiofs": true,
}

// deviceKinds classifies, from the init's mountinfo (its text), the
// devices smaps may name: the areas' tmpfs (areasDev), the scratch
// overlays, and the mounts of page-cache filesystems.
func deviceKinds(mountinfo string, areasDev uint64) map[string]mappingKind {
	kinds := map[string]mappingKind{"00:00": noShmem}
	for line := range strings.SplitSeq(mountinfo, "\n") {
		left, right, ok := strings.Cut(line, " - ")
		lf, rf := strings.Fields(left), strings.Fields(right)
		if !ok || len(lf) < 5 || len(rf) < 1 || !pageCacheFS[rf[0]] {
			continue
		}
		if dev, ok := parseMountDev(lf[2]); ok {
			kinds[smapsDev(dev)] = noShmem
		}
	}
	for _, d := range scratchOverlays(mountinfo) {
		kinds[smapsDev(d)] = scratchFile
	}
	kinds[smapsDev(areasDev)] = areasFile
	return kinds
}

// mapShares are the shares of a process's mappings, from its smaps, that
// the exact count needs.
type mapShares struct {
	areas   int64 // files of the areas: Pss less Anonymous
	scratch int64 // files of scratch overlays: Pss less Anonymous
	// otherShmem bounds the shared memory of every mapping but the
	// scratch overlays': the whole Pss of each that may hold some.
	otherShmem int64
}

// inAreas is what of a process's shares the tmpfs's use counts already,
// given its Pss_Shmem (smaps_rollup): all its shares of the areas' files,
// and of the scratch overlays' only as much as can be shared memory, that
// is the copied-up files' (Pss_Shmem less what every other mapping may
// hold of it). A lower file's pages, page cache, are no Pss_Shmem: taking
// them away hid as much anonymous memory.
func (m mapShares) inAreas(shmem int64) int64 {
	budget := max(0, shmem-m.otherShmem)
	return m.areas + min(m.scratch, budget)
}

// mapShares sums, in the text of an smaps file, the shares of the
// mappings by the kind of their device. Of a file of the areas or of a
// scratch overlay, a mapping counts its Pss less its anonymous pages
// (Anonymous, the private copies of a MAP_PRIVATE mapping written to,
// which are not the tmpfs's pages and stay when the file's pages are
// punched out). Anonymous is whole pages where Pss is a share, so at most
// the file's share is taken away: never too much. ok is false when the
// text lists no mapping.
func (s *treeSampler) mapShares(b []byte) (mapShares, bool) {
	var m mapShares
	var pss, anon int64
	mapped, kind := false, noShmem
	flush := func() {
		switch kind {
		case areasFile:
			m.areas += max(0, pss-anon)
			m.otherShmem += pss
		case scratchFile:
			m.scratch += max(0, pss-anon)
		case maybeShmem:
			m.otherShmem += pss
		}
		pss, anon = 0, 0
	}
	for line := range bytes.Lines(b) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if isMappingHeader(line) {
			flush()
			mapped = true
			kind = s.mappingKind(bytes.Fields(line))
			continue
		}
		if kind == noShmem {
			continue
		}
		if rest, ok := bytes.CutPrefix(line, []byte("Pss:")); ok {
			pss = kbField(rest)
		} else if rest, ok := bytes.CutPrefix(line, []byte("Anonymous:")); ok {
			anon = kbField(rest)
		}
	}
	flush()
	return m, mapped
}

// mappingKind classifies a mapping by the fields of its smaps header
// ("start-end perms offset dev inode path"). No file (device 00:00, inode
// 0) holds no shared memory; a device not known may.
func (s *treeSampler) mappingKind(fields [][]byte) mappingKind {
	if len(fields) < 5 {
		return maybeShmem
	}
	dev := string(fields[3])
	if dev == "00:00" && string(fields[4]) != "0" {
		return maybeShmem
	}
	if k, ok := s.devKinds[dev]; ok {
		return k
	}
	return maybeShmem
}
