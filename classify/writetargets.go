package classify

import (
	"path"
	"slices"
	"strings"
)

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
	"sort", "shuf", "iconv", "uniq", "xxd", "yq", "git",
	"tar", "gtar", "bsdtar", "unzip", "7z", "7za", "bsdunzip", "jar", "pax", "cpio", "tarfile", "zipfile")

// outputFiles returns the files the filters that name their output write
// (sort -o, shuf -o, iconv -o, uniq IN OUT, xxd IN OUT, yq -i FILE …) and
// git's diff family with --output=FILE.
func outputFiles(u *unit) []field {
	switch u.name {
	case "sort", "shuf", "iconv":
		if t := optValue(u, "o", "--output"); t != nil {
			return []field{*t}
		}
	case "uniq", "xxd":
		// uniq [IN [OUT]], xxd [IN [OUT]]: the second operand is written.
		if ops := operandsSkipping(u.args, uniqXxdValues[u.name], "--skip-fields", "--skip-chars", "--check-chars", "--group", "--all-repeated", "-cols", "-len", "-seek", "-groupsize", "-offset", "-name"); len(ops) > 1 {
			return []field{ops[1]}
		}
	case "yq":
		if u.hasFlag("i", "--in-place") {
			return yqFiles(u)
		}
	case "git":
		if sub, _ := gitSub(u); gitOutputSubs.has(sub) {
			return optValues(u, "", "--output")
		}
	}
	return nil
}

// traceFileVar reports whether a variable names a file a program writes
// to: git's traces (GIT_TRACE, GIT_TRACE2_EVENT, GIT_TRACE_SETUP, … given a
// path), less's and bash's histories. Found by red-team round 48.
func traceFileVar(name string) bool {
	return strings.HasPrefix(name, "GIT_TRACE") || name == "LESSHISTFILE" || name == "HISTFILE"
}

// envFiles returns the files the variables of traceFileVar name for a
// program the line runs now: its own assignments, and the values the line
// gave them before (export GIT_TRACE2=~/.bashrc; git status). A value
// that is not a path (GIT_TRACE=1, LESSHISTFILE=-) names none.
func (a *analyzer) envFiles(env []envVar) []field {
	var out []field
	own := make(map[string]bool, len(env))
	for _, e := range env {
		own[e.name] = true
		if traceFileVar(e.name) && pathValue(e.val) {
			out = append(out, e.val)
		}
	}
	var names []string
	for name := range a.vars {
		if !own[name] && traceFileVar(name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if v := a.vars[name]; v.known {
			if f := (field{val: v.val, home: v.home}); pathValue(f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// envReadVars name a file the program reads and shows: file's magic
// database (its lines echoed in warnings), git's configuration files (git
// config --list prints them). Found by red-team round 49.
var envReadVars = []string{"MAGIC", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"}

// envReads returns the files the variables of envReadVars name for u: its
// own assignments, or the values the line gave them before.
func (a *analyzer) envReads(u *unit) []field {
	var out []field
	for _, n := range envReadVars {
		if f, ok := a.envField(u, n); ok && !f.dyn && f.val != "" {
			for _, p := range strings.Split(f.val, ":") { // MAGIC is a list
				g := f
				g.val = p
				out = append(out, g)
			}
		}
	}
	return out
}

// pathValue reports whether a variable's value is a path to write.
func pathValue(f field) bool {
	return !f.dyn && (strings.HasPrefix(f.val, "/") || strings.HasPrefix(f.val, "~"))
}

// uniqXxdValues are the short options of uniq and xxd that take a value.
var uniqXxdValues = map[string]string{"uniq": "fsw", "xxd": "cglosn"}

// gitOutputSubs write their output to the file --output names.
var gitOutputSubs = newSet("diff", "log", "show", "diff-tree", "diff-index", "diff-files", "whatchanged",
	"format-patch", "range-diff", "shortlog", "blame", "grep")

// yqFiles returns the files yq -i edits: its operands after the
// expression (the first operand, unless -n or an --expression gives none).
func yqFiles(u *unit) []field {
	ops := operandsSkipping(u.args, "", "--arg", "--argjson", "--indent", "--from-file", "--output-format", "--input-format")
	if len(ops) > 0 && !u.hasFlag("", "--from-file") {
		ops = ops[1:] // the expression
	}
	return ops
}

// writeTargets returns the files a unit writes, relative paths resolved
// against the working directory an earlier cd (or tar -C) set: write
// redirections, and the operands or destinations of tee, touch, truncate,
// rm, shred, unlink, dd of=, cp/mv/install/ln/rsync, sed -i and sed's w
// files, perl -i,
// tar (the archive it creates, the directory it extracts into), unzip -d,
// curl -o and wget -O.
//
// A path under home (the caller's home directory as an absolute path) is
// also given as the same path under ~, so that the rules that protect the
// home treat /home/user/.ssh as they treat ~/.ssh. A path relative to the
// directory an unquoted `cd $X` entered, which is the home when X is
// empty (see cwdMaybeHome), is also given as the path in the home.
func writeTargets(u *unit, home string) []writeTarget {
	out := pathWriteTargets(u, home)
	for _, t := range out {
		if g, ok := maybeInHome(t.f); ok {
			out = append(out, writeTarget{g, t.tree})
		}
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
	for _, f := range u.envFiles {
		add(f, false) // GIT_TRACE=~/.ssh/authorized_keys git status
	}
	if lessNames.has(u.name) && !u.dynName {
		for _, f := range lessWriteTargets(u) {
			add(f, false) // less -o FILE
		}
	}
	if isAwk(u.name) && !u.dynName {
		for _, f := range awkWriteTargets(u) {
			add(f, false) // gawk -i inplace FILE, gawk -o FILE (gawk.go)
		}
	}
	for _, f := range templateWriteTargets(u) {
		add(f, false) // m4 -F FILE (templatecode.go)
	}
	if u.code != nil {
		for _, p := range u.code.writes {
			add(field{val: p, home: strings.HasPrefix(p, "~")}, false) // open('/etc/passwd', 'a') in inline code
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
		if u.name != "perl" {
			scripts, _ := sedScriptsAndFiles(u)
			for _, s := range scripts {
				for _, p := range sedWriteFiles(s.val) {
					add(field{val: p, quoted: true, dyn: s.dyn}, false) // sed -n 'w FILE'
				}
			}
		}
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
	case "sort", "shuf", "iconv", "uniq", "xxd", "yq", "git":
		for _, t := range outputFiles(u) {
			add(t, false)
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
	case "jar", "pax", "cpio", "tarfile", "zipfile":
		for _, d := range archiverUnpackDirs(u) {
			add(d, true) // jar x, pax -r, cpio -i [-D DIR], python3 -m tarfile -e A DIR (archivers.go)
		}
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
		switch dir {
		case "":
			dir = "."
		case cwdMaybeHome:
			out = append(out, writeTarget{resolveIn(dir, field{val: "."}), true})
			return out
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

// maybeInHome returns the path in the home a path relative to the
// directory of an unquoted `cd $X` is when X is empty (resolveIn gives it
// as "$PWD/…" with that bare value).
func maybeInHome(f field) (field, bool) {
	if !f.dyn || !strings.HasPrefix(f.val, "$PWD/") || !strings.HasPrefix(f.bare, "~/") {
		return f, false
	}
	g := f
	g.val, g.dyn, g.dynPrefix, g.home = f.bare, false, false, true
	return g, true
}
