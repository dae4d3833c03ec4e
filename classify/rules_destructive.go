package classify

import (
	"path"
	"strings"
)

// Matchers for the destructive families: deletes, disks, formats,
// partitions, permissions, find, xargs and writes to system files.

// deleteTargets returns what a command deletes (or moves away) recursively.
func deleteTargets(u *unit) []field {
	if u.kind != kCall || u.dynName {
		return nil
	}
	switch u.name {
	case "rm", "srm", "grm":
		if !u.hasFlag("rR", "--recursive") {
			return nil
		}
		return expandFindRoots(u, u.operands())
	case "rimraf", "del-cli", "trash-put", "rmtree":
		return expandFindRoots(u, u.operands())
	case "rd", "rmdir", "del", "erase", "deltree":
		if u.name != "deltree" && !winFlag(u, "/s") {
			return nil
		}
		var out []field
		for _, f := range u.args {
			if l := strings.ToLower(f.val); len(l) == 2 && l[0] == '/' && l != "/." {
				continue
			}
			out = append(out, f)
		}
		return out
	case "Remove-Item", "ri":
		if !psFlag(u, "-recurse", "-r") {
			return nil
		}
		var out []field
		for _, f := range u.args {
			if !strings.HasPrefix(f.val, "-") {
				out = append(out, f)
			}
		}
		return out
	case "mv":
		ops := u.operands()
		if len(ops) < 2 {
			return nil
		}
		return expandFindRoots(u, ops[:len(ops)-1])
	case "rsync":
		if !u.hasFlag("", "--delete", "--delete-before", "--delete-during", "--delete-delay", "--delete-after", "--delete-excluded", "--del") {
			return nil
		}
		ops := u.operands()
		if len(ops) == 0 {
			return nil
		}
		return ops[len(ops)-1:]
	}
	return nil
}

// expandFindRoots replaces {} in the operands of a find -exec payload with
// find's starting points, and resolves relative operands against the
// working directory an earlier cd set.
func expandFindRoots(u *unit, ops []field) []field {
	var out []field
	for _, f := range ops {
		if len(u.findRoots) == 0 || !strings.Contains(f.val, "{}") {
			out = append(out, u.resolve(f))
			continue
		}
		for _, r := range u.findRoots {
			g := r
			g.val = strings.ReplaceAll(f.val, "{}", r.val)
			out = append(out, u.resolve(g))
		}
	}
	return out
}

func winFlag(u *unit, flag string) bool {
	for _, f := range u.args {
		if strings.EqualFold(f.val, flag) {
			return true
		}
	}
	return false
}

func psFlag(u *unit, flags ...string) bool {
	for _, f := range u.args {
		for _, fl := range flags {
			if strings.EqualFold(f.val, fl) {
				return true
			}
		}
	}
	return false
}

func anyCritical(fs []field) bool {
	for _, f := range fs {
		if criticalTarget(f) {
			return true
		}
	}
	return false
}

func matchRecursiveDeleteRoot(u *unit, _ *Classifier) bool {
	if u.code != nil && u.code.deleteRoot {
		return true
	}
	return anyCritical(deleteTargets(u))
}

// matchDynamicDelete: a recursive delete whose target is only known at run
// time and could be the root, a home or a system directory: all of it
// ("$DIR", "$(cmd)"), or a run-time prefix that an empty value would turn
// into one ("$X/", "$X"/*, "$PREFIX/etc" — not "$TMPDIR/x").
func matchDynamicDelete(u *unit, _ *Classifier) bool {
	if u.code != nil && u.code.dynDelete {
		return true
	}
	for _, f := range deleteTargets(u) {
		if f.dynPrefix && !strings.HasPrefix(f.val, "~") {
			if dynBareCritical(f.bare) {
				return true
			}
			continue
		}
		if f.dyn && (strings.HasPrefix(f.val, "/$") || strings.HasPrefix(f.val, "~/$") || strings.HasPrefix(f.val, "/\"$")) {
			return true
		}
	}
	return false
}

// dynBareCritical reports whether a delete target that starts with a part
// only known at run time is risky: with that part empty (bare) it is the
// root, a home, the working directory or a system directory.
func dynBareCritical(bare string) bool {
	b := cleanTarget(bare)
	return b == "" || b == "." || b == "/" || b == "~" || criticalTarget(field{val: b}) && !topLevelOnly(b)
}

// topLevelOnly reports whether p is a directory directly under / that no
// system list names (/x, /build): what "$DIR/x" is with DIR empty.
func topLevelOnly(p string) bool {
	return strings.Count(p, "/") == 1 && len(p) > 1 && !systemTops.has(p[1:])
}

var wipers = newSet("shred", "wipe", "scrub", "blkdiscard", "secure-delete", "sg_format", "nwipe", "dban")

func matchDiskWipe(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName {
		return false
	}
	switch {
	case u.name == "dd":
		for _, f := range u.args {
			if strings.HasPrefix(f.val, "of=") {
				g := f
				g.val = f.val[3:]
				if isBlockDevice(g.val) {
					return true
				}
			}
		}
	case wipers.has(u.name):
		if u.name == "blkdiscard" || u.name == "nwipe" || u.name == "dban" {
			return true
		}
		for _, f := range u.operands() {
			if isBlockDevice(f.val) {
				return true
			}
		}
	case u.name == "hdparm":
		return u.hasFlag("", "--security-erase", "--security-erase-enhanced", "--trim-sector-ranges")
	case u.name == "vssadmin" || u.name == "wbadmin":
		s, _ := u.sub()
		s = strings.ToLower(s)
		return s == "delete" || s == "resize"
	case u.name == "cipher":
		for _, f := range u.args {
			if strings.HasPrefix(strings.ToLower(f.val), "/w") {
				return true
			}
		}
	case u.name == "nvme":
		s, _ := u.sub()
		return s == "format" || s == "sanitize"
	case u.name == "diskutil":
		s, _ := u.sub()
		return s == "secureErase" || s == "zeroDisk" || s == "randomDisk"
	case u.name == "cp" || u.name == "pv" || u.name == "cat" || u.name == "tee":
		ops := u.operands()
		if len(ops) > 0 && u.name != "cat" && isBlockDevice(ops[len(ops)-1].val) {
			return true
		}
	}
	return false
}

func matchChmodRoot(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName || (u.name != "chmod" && u.name != "setfacl" && u.name != "chattr") {
		return false
	}
	ops := u.operands()
	if u.name == "chmod" && len(ops) > 0 && !u.hasFlag("", "--reference") {
		ops = ops[1:]
	}
	ops = expandFindRoots(u, ops)
	if u.hasFlag("R", "--recursive") {
		return anyCritical(ops)
	}
	for _, f := range ops {
		if cleanTarget(f.val) == "/" || cleanTarget(f.val) == "~" {
			return true
		}
	}
	return false
}

func matchChownRoot(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName || (u.name != "chown" && u.name != "chgrp") {
		return false
	}
	ops := u.operands()
	if len(ops) > 0 && !u.hasFlag("", "--reference") {
		ops = ops[1:]
	}
	ops = expandFindRoots(u, ops)
	if u.hasFlag("R", "--recursive") {
		return anyCritical(ops)
	}
	for _, f := range ops {
		if cleanTarget(f.val) == "/" {
			return true
		}
	}
	return false
}

var formatters = newSet("mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "mkexfatfs", "mkfs.exfat", "newfs",
	"newfs_msdos", "newfs_hfs", "newfs_apfs", "mkudffs", "mformat", "mkreiserfs", "mkhfs", "jfs_mkfs", "mkfatfs")

func matchFilesystemFormat(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName {
		return false
	}
	switch {
	case formatters.has(u.name), strings.HasPrefix(u.name, "mkfs."), strings.HasPrefix(u.name, "mkfs_"):
		return !u.hasExactFlag("V", "--version", "--help") || len(u.operands()) > 0
	case strings.EqualFold(u.name, "format"):
		for _, f := range u.args {
			if l := f.val; len(l) == 2 && l[1] == ':' {
				return true
			}
		}
	case u.name == "diskutil":
		s, _ := u.sub()
		return s == "eraseDisk" || s == "eraseVolume" || s == "reformat"
	case u.name == "cryptsetup":
		s, _ := u.sub()
		return s == "luksFormat" || s == "erase" || s == "luksErase"
	case u.name == "zpool":
		s, _ := u.sub()
		return s == "create" || s == "destroy" || s == "labelclear"
	case u.name == "Format-Volume", u.name == "Clear-Disk", u.name == "Initialize-Disk":
		return true
	}
	return false
}

var partitioners = newSet("fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "cgdisk", "parted", "gparted", "wipefs",
	"diskpart", "partx", "kpartx", "pvremove", "vgremove", "lvremove", "pvcreate", "vgcreate", "lvcreate", "mdadm")

func matchPartition(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName || !partitioners.has(u.name) {
		return false
	}
	switch u.name {
	case "fdisk", "sfdisk", "gdisk", "sgdisk":
		if u.hasExactFlag("lV", "--list", "--version", "--help", "--dump", "--show-size", "--print") && !u.hasFlag("", "--delete", "--wipe", "--zap-all") {
			return false
		}
		if u.name == "sfdisk" && u.hasFlag("d") {
			return false
		}
		if u.name == "sgdisk" && u.hasFlag("p") && !u.hasFlag("ZozdnNc") {
			return false
		}
	case "parted":
		if u.hasExactFlag("lv", "--list", "--version", "--help") {
			return false
		}
		if w := u.vals(); len(w) > 0 && w[len(w)-1] == "print" {
			return false
		}
	case "wipefs":
		if u.hasExactFlag("n", "--no-act") {
			return false
		}
	case "mdadm":
		return u.hasFlag("C", "--create", "--zero-superblock")
	case "partx", "kpartx":
		return u.hasFlag("ad", "--add", "--delete")
	}
	return true
}

func matchDestructiveFind(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName || u.name != "find" {
		return false
	}
	roots, execs := findParse(u.args)
	roots = expandFindRoots(u, roots)
	destructive := false
	for _, f := range u.args {
		if f.val == "-delete" {
			destructive = true
		}
	}
	for _, ex := range execs {
		if len(ex) > 0 && destructiveProgram(normName(ex[0].val), ex[1:]) {
			destructive = true
		}
	}
	return destructive && anyCritical(roots)
}

// destructiveProgram reports whether a command deletes, wipes or formats.
func destructiveProgram(name string, args []field) bool {
	switch name {
	case "rm", "srm", "rimraf", "shred", "unlink", "rmdir", "wipe", "truncate", "dd", "wipefs":
		return true
	case "chmod", "chown", "chgrp":
		return hasFlag(args, "R", "--recursive")
	case "mv":
		return true
	}
	return strings.HasPrefix(name, "mkfs") || formatters.has(name)
}

func matchDestructiveXargs(u *unit, _ *Classifier) bool {
	if !u.viaXargs || u.kind != kCall {
		return false
	}
	switch u.name {
	case "rm", "srm", "grm":
		return u.hasFlag("rR", "--recursive")
	case "rimraf", "shred", "wipe", "dd", "wipefs", "mkfs":
		return true
	case "chmod", "chown", "chgrp":
		return u.hasFlag("R", "--recursive")
	}
	return strings.HasPrefix(u.name, "mkfs")
}

// writeTarget is a path a command writes. A tree target is a directory
// the command fills or replaces wholesale (tar -x -C DIR, unzip -d DIR,
// cp -r/mv/rsync into DIR): whatever lies below it may be written.
type writeTarget struct {
	f    field
	tree bool
}

// operandWriters write (create, empty or remove) every operand.
var operandWriters = newSet("tee", "touch", "truncate", "mkdir", "rm", "rmdir", "shred", "unlink", "srm", "wipe")

// destWriters write their last operand (or -t DIR); treeDest says which
// of them copy whole trees there (with tree options for cp and scp).
var destWriters = newSet("cp", "mv", "install", "ln", "rsync", "scp", "gcp", "gmv")

// otherWriters are the other programs writeTargets knows.
var otherWriters = newSet("dd", "sed", "gsed", "perl", "curl", "wget", "chmod", "chown", "chgrp", "find",
	"tar", "gtar", "bsdtar", "unzip", "7z", "7za", "bsdunzip")

// writeTargets returns the files a unit writes, relative paths resolved
// against the working directory an earlier cd (or tar -C) set: write
// redirections, and the operands or destinations of tee, touch, truncate,
// rm, shred, unlink, dd of=, cp/mv/install/ln/rsync, sed -i, perl -i,
// tar (the archive it creates, the directory it extracts into), unzip -d,
// curl -o and wget -O.
//
// A path under home (the caller's home directory as an absolute path) is
// also given as the same path under ~, so that the rules that protect the
// home treat /home/user/.ssh as they treat ~/.ssh.
func writeTargets(u *unit, home string) []writeTarget {
	out := pathWriteTargets(u, home)
	for _, t := range out {
		if h, ok := inHome(t.f, home); ok {
			out = append(out, writeTarget{h, t.tree})
		}
	}
	return out
}

func pathWriteTargets(u *unit, home string) []writeTarget {
	var out []writeTarget
	add := func(f field, tree bool) { out = append(out, writeTarget{u.resolve(f), tree}) }
	for _, r := range u.redirs {
		if r.isWrite() {
			add(r.target, false)
		}
	}
	if u.kind != kCall || u.dynName || !operandWriters.has(u.name) && !destWriters.has(u.name) && !otherWriters.has(u.name) {
		return out
	}
	ops := u.operands()
	switch {
	case operandWriters.has(u.name):
		for _, f := range ops {
			add(f, false)
		}
		return out
	case destWriters.has(u.name):
		tree := u.name == "mv" || u.name == "gmv" || u.name == "rsync" ||
			u.hasFlag("rRa", "--recursive", "--archive")
		dest, srcs := optValue(u, "t", "--target-directory"), ops
		if dest == nil && len(ops) > 1 {
			dest, srcs = &ops[len(ops)-1], ops[:len(ops)-1]
		}
		if dest != nil {
			// cd ~ && cp -r /tmp/proj . copies into the home.
			d := u.resolve(*dest)
			if h, ok := inHome(d, home); ok && isHome(h) {
				add(d, tree) // and, below, what lands in ~
				d = h
			}
			dest = &d
		}
		// cp -T/mv -T: the source's contents become the destination.
		noTarget := u.name != "rsync" && u.name != "scp" && u.hasFlag("T", "--no-target-directory")
		if dest != nil && isHome(*dest) && noTarget {
			add(*dest, true) // cp -rT d ~ fills the home wholesale
		} else if dest != nil && isHome(*dest) {
			// The home always exists: each source lands in it under
			// its own name, or fills it wholesale (dir/., rsync dir/).
			for _, f := range srcs {
				add(homeEntry(*dest, f, u.name), tree)
			}
		} else if dest != nil {
			add(*dest, tree)
		} else if len(ops) == 1 && u.name == "ln" {
			// ln -s TARGET: the link is made in the working directory.
			g := ops[0]
			g.val = path.Base(g.val)
			add(g, false)
		}
		if (u.name == "mv" || u.name == "gmv") && len(ops) > 1 {
			for _, f := range ops[:len(ops)-1] {
				add(f, false)
			}
		}
		return out
	}
	switch u.name {
	case "dd":
		for _, f := range u.args {
			if strings.HasPrefix(f.val, "of=") {
				g := f
				g.val = f.val[3:]
				add(g, false)
			}
		}
	case "sed", "gsed", "perl":
		if u.hasFlag("i", "--in-place") && len(ops) > 0 {
			// The first operand is the script or code, unless it came
			// attached to its option (--expression=…, perl -pi -e'…').
			first := 1
			if u.name == "perl" && !codeOptionSeparate(u) || u.name != "perl" && hasPrefixArg(u, "--expression=") && !hasWord(u, "-e", "--expression", "-f", "--file") {
				first = 0
			}
			for _, f := range ops[min(first, len(ops)):] {
				add(f, false)
			}
		}
	case "curl":
		if t := optValue(u, "o", "--output"); t != nil {
			add(*t, false)
		}
	case "wget":
		if t := optValue(u, "O", "--output-document"); t != nil {
			add(*t, false)
		}
	case "chmod", "chown", "chgrp":
		if len(ops) > 1 {
			for _, f := range ops[1:] {
				add(f, false)
			}
		}
	case "find":
		for _, f := range findWrites(u) {
			add(f, false)
		}
	case "tar", "gtar", "bsdtar":
		out = append(out, tarWrites(u)...)
	case "unzip", "7z", "7za", "bsdunzip":
		if a := sevenZipArchiveWrite(u); a != nil {
			add(*a, false) // 7z a, u, d: the archive is written
		}
		if !extracts(u) {
			break
		}
		dir := field{val: "."}
		if d := optValue(u, "d", ""); d != nil && u.name != "7z" && u.name != "7za" {
			dir = *d
		} else if d := optPrefix(u, "-o"); d != nil && (u.name == "7z" || u.name == "7za") {
			dir = *d
		}
		add(dir, true)
	}
	return out
}

// isHome reports whether f names a home directory itself (~, $HOME/, ~user).
func isHome(f field) bool {
	c := cleanTarget(f.val)
	return !f.dynPrefix && (c == "~" || c == "~user")
}

// homeEntry returns what copying or moving src into the home directory
// dest writes: dest/NAME, or dest itself when src's content goes there
// wholesale (dir/., rsync's dir/, a glob).
func homeEntry(dest, src field, name string) field {
	base := path.Base(src.val)
	if base == "." || base == ".." || base == "/" || strings.ContainsAny(base, "*?[") ||
		(name == "rsync" && strings.HasSuffix(src.val, "/")) {
		return dest
	}
	g := dest
	g.val = strings.TrimSuffix(dest.val, "/") + "/" + base
	return g
}

// extracts reports whether an unzip or 7z command writes files out: not
// unzip's listing, testing, comment or pipe modes (-l, -t, -v, -z, -Z, -p),
// and 7z only with its extracting commands (x, e).
func extracts(u *unit) bool {
	if u.name == "7z" || u.name == "7za" {
		for _, f := range u.args {
			if !strings.HasPrefix(f.val, "-") {
				return f.val == "x" || f.val == "e"
			}
		}
		return false
	}
	return !hasExactFlag(u.args, "ltvzZp")
}

// sevenZipArchiveWrite returns the archive a 7z command that adds to,
// updates or deletes from it writes; nil for others.
func sevenZipArchiveWrite(u *unit) *field {
	if u.name != "7z" && u.name != "7za" {
		return nil
	}
	var words []field
	for _, f := range u.args {
		if !strings.HasPrefix(f.val, "-") {
			words = append(words, f)
		}
	}
	if len(words) < 2 || !strings.Contains("aud", words[0].val) || len(words[0].val) != 1 {
		return nil
	}
	return &words[1]
}

// codeOptionSeparate reports whether perl's code is a separate word: an
// option cluster that ends in e or E (-e CODE, -pie CODE).
func codeOptionSeparate(u *unit) bool {
	for _, f := range u.args {
		v := f.val
		if len(v) > 1 && v[0] == '-' && v[1] != '-' && (v[len(v)-1] == 'e' || v[len(v)-1] == 'E') {
			return true
		}
	}
	return false
}

// optPrefix returns the value of an option written with its value
// attached (7z -oDIR), or nil.
func optPrefix(u *unit, opt string) *field {
	for _, f := range u.args {
		if strings.HasPrefix(f.val, opt) && len(f.val) > len(opt) {
			g := f
			g.val = f.val[len(opt):]
			return &g
		}
	}
	return nil
}

// tarWrites returns what tar writes: the archive it creates (-f), or the
// directory it extracts into (-C, else the working directory).
func tarWrites(u *unit) []writeTarget {
	extract, create := false, false
	for i, f := range u.args {
		v := f.val
		switch {
		case v == "--extract" || v == "--get":
			extract = true
		case v == "--create" || v == "--append" || v == "--update":
			create = true
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-") || i == 0:
			// -xzf, and the old style whose first word is the cluster (xf).
			extract = extract || strings.ContainsRune(v, 'x')
			create = create || strings.ContainsAny(v, "cru")
		}
	}
	var out []writeTarget
	if extract {
		dir := u.dirAt(len(u.args))
		if dir == "" {
			dir = "."
		}
		out = append(out, writeTarget{field{val: dir}, true})
	} else if create {
		f := optValue(u, "f", "--file")
		if vals, _ := oldStyleValues(u.name, u.args); vals != nil {
			if k, ok := vals['f']; ok {
				f = &u.args[k] // tar cf A.tar DIR
			}
		}
		if f != nil && f.val != "-" {
			out = append(out, writeTarget{u.resolve(*f), false})
		}
	}
	return out
}

// findWrites returns the files find's -fprint, -fprint0, -fprintf and -fls
// actions write.
func findWrites(u *unit) []field {
	var out []field
	for i, f := range u.args {
		switch f.val {
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(u.args) {
				out = append(out, u.args[i+1])
			}
		}
	}
	return out
}

// optValue returns the value of a short or long option, or nil.
func optValue(u *unit, short, long string) *field {
	for i, f := range u.args {
		v := f.val
		if long != "" && strings.HasPrefix(v, long+"=") {
			g := f
			g.val = v[len(long)+1:]
			return &g
		}
		if (long != "" && v == long) || (len(v) >= 2 && v[0] == '-' && v[1] != '-' && strings.HasSuffix(v, short)) {
			if i+1 < len(u.args) {
				g := u.args[i+1]
				return &g
			}
		}
		if len(v) > 2 && v[0] == '-' && v[1] != '-' && v[1:2] == short {
			g := f
			g.val = v[2:]
			return &g
		}
	}
	return nil
}

// systemTree reports whether a directory filled wholesale holds system
// files: the root, or a directory above or at a system location (another
// user's home holds ~user/.ssh). The caller's own home is homeTree's.
func systemTree(f field) bool {
	if f.dynPrefix && !strings.HasPrefix(f.val, "~") {
		return false
	}
	c := cleanTarget(f.val)
	if c == "/" {
		return true
	}
	if c == "~" {
		return false
	}
	if !strings.HasPrefix(c, "/") && !strings.HasPrefix(c, "~") {
		return false
	}
	for _, p := range systemWritePrefixes {
		if strings.HasPrefix(p, c+"/") {
			return true
		}
	}
	return false
}

// homeTree reports whether a directory filled wholesale is the caller's
// home: an ordinary install or dotfiles step, but one that can overwrite
// ~/.ssh and the shell's rc files.
func homeTree(f field) bool {
	return (!f.dynPrefix || strings.HasPrefix(f.val, "~")) && cleanTarget(f.val) == "~"
}

func matchHomeOverwrite(u *unit, c *Classifier) bool {
	if u.kind != kCall {
		return false
	}
	for _, t := range writeTargets(u, c.home) {
		if t.tree && homeTree(t.f) {
			return true
		}
	}
	return false
}

func matchSystemWrite(u *unit, c *Classifier) bool {
	if u.kind != kCall {
		return false
	}
	switch u.name {
	case "chmod", "chown", "chgrp":
		// Permission changes are file-permission's (and chmod-recursive-root's).
		for _, r := range u.redirs {
			if !r.isWrite() {
				continue
			}
			t := u.resolve(r.target)
			if h, ok := inHome(t, c.home); systemWriteTarget(t) || ok && systemWriteTarget(h) {
				return true
			}
		}
		return false
	case "sysctl":
		// sysctl -w key=value writes /proc/sys.
		for _, f := range u.operands() {
			if strings.Contains(f.val, "=") {
				return true
			}
		}
		if u.hasFlag("wp", "--write", "--load", "--system") {
			return true
		}
	}
	for _, t := range writeTargets(u, c.home) {
		if u.name == "dd" && isBlockDevice(t.f.val) && !u.dynName {
			continue // disk-wipe's
		}
		if systemWriteTarget(t.f) || t.tree && systemTree(t.f) {
			return true
		}
	}
	return false
}

func matchProtectedWrite(u *unit, c *Classifier) bool {
	for _, t := range writeTargets(u, c.home) {
		if protectedMatch(c.protected, t.f.val, t.tree, c.foldCase) {
			return true
		}
	}
	if u.kind == kCall && u.name == "git" {
		// git config writes .git/config; git hooks are files under .git/hooks.
		if sub, _ := gitSub(u); sub == "config" && gitConfigWrites(u) && protectedMatch(c.protected, ".git/config", false, false) {
			return true
		}
	}
	return false
}
