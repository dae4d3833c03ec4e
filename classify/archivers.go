package classify

import "strings"

// Archivers other than tar, zip and 7z (found by red-team round 62): jar
// (c/u pack, x unpacks, in tar's old-style cluster), pax (-w packs, -r
// unpacks), cpio (-o packs the names on its input, -i unpacks, into -D
// DIR), and Python's tarfile and zipfile modules run as programs
// (python3 -m tarfile -c OUT SRC…, -e ARCHIVE [DIR]). Packing a tree is a
// recursive read of it (recursiveread.go); unpacking fills the directory
// it unpacks into, as tar -x does (writetargets.go's home-overwrite).

// archiver describes one: how its packing and unpacking modes are chosen,
// and where it unpacks.
type archiver struct {
	reader recursiveReader      // its packing mode, as a recursive reader
	unpack func(u *unit) bool   // whether it unpacks
	into   func(u *unit) *field // the directory it unpacks into; nil: the working directory
}

// pyArchiveModule is Python's tarfile or zipfile run as a program: -c
// OUT SRC… packs, -e ARCHIVE [DIR] unpacks.
var pyArchiveModule = archiver{
	reader: recursiveReader{always: true, mode: func(u *unit) bool { return viaPython(u) && u.hasExactFlag("c", "--create") },
		values: "c", longValues: []string{"--create"}},
	unpack: func(u *unit) bool { return viaPython(u) && u.hasExactFlag("e", "--extract") },
	into: func(u *unit) *field {
		for i, f := range u.args {
			if (f.val == "-e" || f.val == "--extract") && i+2 < len(u.args) {
				return &u.args[i+2]
			}
		}
		return nil
	},
}

// archivers are those programs, by name.
var archivers = map[string]archiver{
	"jar": {
		reader: recursiveReader{always: true, mode: func(u *unit) bool { return jarMode(u, "cu") }, values: "fmeC"},
		unpack: func(u *unit) bool { return jarMode(u, "x") },
	},
	"pax": {
		reader: recursiveReader{always: true, mode: func(u *unit) bool { return u.hasFlag("w") && !u.hasFlag("r") },
			values: "bfopsxBGTU"},
		unpack: func(u *unit) bool { return u.hasFlag("r") && !u.hasFlag("w") },
	},
	"cpio": {
		unpack: func(u *unit) bool { return u.hasFlag("i", "--extract") },
		into:   func(u *unit) *field { return optValue(u, "D", "--directory") },
	},
	"tarfile": pyArchiveModule,
	"zipfile": pyArchiveModule,
}

func init() {
	for name, a := range archivers {
		if a.reader.mode != nil {
			recursiveReaders[name] = a.reader
		}
	}
}

// jarMode reports whether jar's mode (its first word's cluster, or a
// long option) is one of modes: c, u, x.
func jarMode(u *unit, modes string) bool {
	long := map[byte]string{'c': "--create", 'u': "--update", 'x': "--extract"}
	for i := range len(modes) {
		if u.hasExactFlag("", long[modes[i]]) {
			return true
		}
	}
	first := strings.TrimPrefix(u.arg(0), "-")
	return first != "" && !strings.HasPrefix(first, "-") && strings.ContainsAny(first[:1], modes)
}

// archiverUnpackDirs returns the directory an archiver u unpacks into, or
// nothing when it does not unpack.
func archiverUnpackDirs(u *unit) []field {
	a, ok := archivers[u.name]
	if !ok || a.unpack == nil || !a.unpack(u) {
		return nil
	}
	if a.into != nil {
		if d := a.into(u); d != nil {
			return []field{*d}
		}
	}
	return []field{{val: "."}}
}
