package classify

import (
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
// working directory an earlier cd set. A whole quoted run-time root
// ("$DIR") is left out of a bare {} when a name test before the -exec
// restricts it to matching files, as findDynRoots leaves it out for
// -delete: empty, find fails; set, only the matching files are given.
func expandFindRoots(u *unit, ops []field) []field {
	var out []field
	for _, f := range ops {
		if len(u.findRoots) == 0 || !strings.Contains(f.val, "{}") {
			out = append(out, u.resolve(f))
			continue
		}
		for _, r := range u.findRoots {
			if u.findFiltered && f.val == "{}" && !f.dyn && wholeQuotedDyn(r) {
				continue
			}
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
	if u.code != nil {
		// shutil.rmtree(".") after cd ~: relative to the tracked directory.
		for _, p := range u.code.deletes {
			if criticalTarget(u.resolve(field{val: p})) {
				return true
			}
		}
	}
	return anyCritical(deleteTargets(u))
}

// matchDynamicDelete: a recursive delete whose target is only known at run
// time and could be the root, a home or a system directory: all of it
// ("$DIR", "$(cmd)"), or a run-time prefix that an empty value would turn
// into one ("$X/", "$X"/*, "$PREFIX/etc" — not "$TMPDIR/x"). find's
// starting points count when it deletes (find "$X" -delete).
func matchDynamicDelete(u *unit, _ *Classifier) bool {
	if u.code != nil && u.code.dynDelete {
		return true
	}
	for _, f := range append(deleteTargets(u), findDynRoots(u)...) {
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

// findDynRoots returns the starting points of a deleting find that count
// as run-time delete targets. A whole quoted run-time value ("$DIR",
// "$(cmd)") does not when find only deletes files whose name matches a
// pattern: empty, it makes find fail (no such file or directory: an
// empty name), and set, only the matching files go; "$DIR/" and unquoted
// $DIR still count (an empty value is / or the working directory).
func findDynRoots(u *unit) []field {
	roots := findDeleteRoots(u)
	if !findNameFiltered(u.args) {
		return roots
	}
	var out []field
	for _, f := range roots {
		if !wholeQuotedDyn(f) {
			out = append(out, f)
		}
	}
	return out
}

// wholeQuotedDyn reports whether a word is a quoted value known only at
// run time as a whole ("$DIR", "$(cmd)"): empty, it is an empty word, not
// the working directory or /.
func wholeQuotedDyn(f field) bool {
	return f.quoted && f.dynPrefix && f.bare == ""
}

// findNameTests are find's tests that select files by name or path.
var findNameTests = newSet("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex")

// findExecActions are find's actions that run a command: its words follow,
// up to ; or +.
var findExecActions = newSet("-exec", "-execdir", "-ok", "-okdir")

// findBranching are find's operators after which a name test no longer
// restricts every action (find D -name x -o -delete, ! -name x).
var findBranching = newSet("-o", "-or", "!", "-not", ",")

// findNameFiltered reports whether find's expression restricts its actions
// to files whose name matches a pattern that is not all wildcards. The
// words of an -exec-like action are its command's, not tests.
func findNameFiltered(args []field) bool {
	return findFilteredAt(args, []int{len(args)})[0]
}

// findFilteredAt returns findNameFiltered(args[:k]) for each k in at, in
// one pass: a find with thousands of -exec actions asks it for each. A
// prefix is filtered when it holds a name test with its pattern and no
// branching word before it.
func findFilteredAt(args []field, at []int) []bool {
	filterEnd, branchAt := len(args)+1, len(args)
	for i := 0; i < len(args); i++ {
		f := args[i]
		if findBranching.has(f.val) {
			branchAt = i
			break
		}
		if findExecActions.has(f.val) {
			for i+1 < len(args) && args[i+1].val != ";" && args[i+1].val != "+" {
				i++
			}
			continue
		}
		if findNameTests.has(f.val) && i+1 < len(args) && filterEnd > len(args) {
			if p := args[i+1]; !p.dyn && strings.Trim(p.val, "*?.^$/") != "" {
				filterEnd = i + 2
			}
		}
	}
	out := make([]bool, len(at))
	for j, k := range at {
		out[j] = filterEnd <= k && k <= branchAt
	}
	return out
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
	return strings.HasPrefix(p, "/") && strings.Count(p, "/") == 1 && len(p) > 1 && !systemTops.has(p[1:])
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
				if isBlockDevice(u.resolve(g).val) {
					return true
				}
			}
		}
	case wipers.has(u.name):
		if u.name == "blkdiscard" || u.name == "nwipe" || u.name == "dban" {
			return true
		}
		for _, f := range u.operands() {
			if isBlockDevice(u.resolve(f).val) {
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
		if len(ops) > 0 && u.name != "cat" && isBlockDevice(u.resolve(ops[len(ops)-1]).val) {
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
	return anyCritical(findDeleteRoots(u))
}

// findDeleteRoots returns the starting points of a find that deletes
// (-delete, or -exec of a destructive program), resolved against the
// working directory.
func findDeleteRoots(u *unit) []field {
	if u.kind != kCall || u.dynName || u.name != "find" {
		return nil
	}
	roots, execs, _ := findParse(u.args)
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
	if !destructive {
		return nil
	}
	return expandFindRoots(u, roots)
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
