package classify

import (
	"slices"
	"strings"
	"sync"
)

// Recursive reads of a directory that holds a credential store: grep -r .
// ~ prints ~/.ssh/id_rsa as surely as cat does, and tar czf x.tgz ~ or cp
// -r ~ x copies it. Such a read is credential-access, as reading the store
// itself is; a recursive read of any other directory (grep -r foo ./src, cp
// -r src dst) and a listing (ls -R ~, du ~) are not.

// recursiveReader describes a program that reads whole directory trees.
type recursiveReader struct {
	short string   // short flags that make it recurse ("" with always)
	long  []string // long options that make it recurse
	// always: it recurses unless noRecurse is given.
	always    bool
	noRecurse []string
	mode      func(u *unit) bool // nil, or whether the mode that reads trees is chosen
	dest      bool               // the last operand is written to, not read (unless -t DIR)
	// pattern: the first operand is a search pattern unless one is given
	// by an option (-e, -f), and with no path the working directory is
	// searched.
	pattern bool
	// values and longValues: the options whose value is the next word
	// (-C DIR, -f FILE, -t DIR): it is not an operand. A short one counts
	// alone or ending a cluster (-czf x.tgz).
	values     string
	longValues []string
	// byValue: an option that makes it recurse by its value (grep -d
	// recurse).
	byValue *recurseValue
}

// recurseValue is an option whose value makes a program recurse: the
// short option, the long one (abbreviations count) and the value, which
// GNU's argmatch also takes shortened to 3 letters or more.
type recurseValue struct {
	short byte
	long  string
	value string
}

// given reports whether args give the option its recursing value
// (-d recurse, -drecurse, -rid recurse, --directories=recurse, --dir rec).
func (o *recurseValue) given(args []field, values string) bool {
	matches := func(v string) bool { return len(v) >= 3 && strings.HasPrefix(o.value, v) }
	next := func(i int) string {
		if i+1 < len(args) {
			return args[i+1].val
		}
		return ""
	}
	for i, a := range args {
		v := a.val
		switch {
		case v == "--":
			return false
		case strings.HasPrefix(v, "--"):
			name, val, eq := strings.Cut(v, "=")
			if name != o.long && !isAbbrev(name, o.long) {
				continue
			}
			if !eq {
				val = next(i)
			}
			if matches(val) {
				return true
			}
		case len(v) > 1 && v[0] == '-':
			for j := 1; j < len(v); j++ {
				if v[j] == o.short {
					val := v[j+1:]
					if val == "" {
						val = next(i)
					}
					if matches(val) {
						return true
					}
					break
				}
				if strings.IndexByte(values, v[j]) >= 0 {
					break // the rest of the cluster is another option's value
				}
			}
		}
	}
	return false
}

var (
	grepValues = []string{"--regexp", "--file", "--max-count", "--context", "--after-context", "--before-context",
		"--directories", "--devices"}
	tarValues = []string{"--file", "--directory", "--files-from", "--exclude-from"}
	grepLike  = recursiveReader{short: "rR", long: []string{"--recursive", "--dereference-recursive"}, pattern: true,
		values: "efmABCdD", longValues: grepValues, byValue: &recurseValue{'d', "--directories", "recurse"}}
	// gitGrep is git grep --no-index: the working tree's files as plain
	// files (dot directories included), not git's index.
	gitGrep  = recursiveReader{always: true, pattern: true, values: "efmABCO", longValues: append(grepValues, "--max-depth", "--open-files-in-pager")}
	searcher = recursiveReader{always: true, pattern: true, values: "efgtTmABCjM", longValues: grepValues}
	tarLike  = recursiveReader{always: true, noRecurse: []string{"--no-recursion"}, mode: tarCreates, values: "fCTXbH", longValues: tarValues}
	sevenZip = recursiveReader{always: true, mode: func(u *unit) bool { return u.arg(0) == "a" || u.arg(0) == "u" }}
	// diff -r A DIR (-N: files missing on one side as empty) prints the
	// files of both trees.
	diffLike = recursiveReader{short: "r", long: []string{"--recursive"}, values: "xXSIFL",
		longValues: []string{"--exclude", "--exclude-from", "--starting-file", "--ignore-matching-lines", "--show-function-line", "--label", "--from-file", "--to-file"}}
	gitDiff = recursiveReader{always: true, values: "OSGl", longValues: []string{"--output", "--relative"}}
)

// recursiveReaders are the programs that read (print, copy or pack) the
// contents of directory trees. The du, ls -R and tree family only list
// names and sizes.
var recursiveReaders = map[string]recursiveReader{
	"grep": grepLike, "egrep": grepLike, "fgrep": grepLike, "ugrep": grepLike,
	"rg": searcher, "ag": searcher, "ack": searcher,
	"tar": tarLike, "bsdtar": tarLike, "ptar": tarLike,
	// rgrep is grep -r (found by red-team round 51).
	"rgrep": {always: true, pattern: true, values: grepLike.values, longValues: grepValues},
	"cp": {short: "rRa", long: []string{"--recursive", "--archive"}, dest: true, values: "tS",
		longValues: []string{"--target-directory", "--suffix"}},
	"rsync": {short: "ra", long: []string{"--recursive", "--archive"}, dest: true, values: "ef", longValues: []string{"--rsh"}},
	"scp":   {short: "r", dest: true, values: "cFiJloPS"},
	"zip":   {short: "rR", long: []string{"--recurse-paths", "--recurse-patterns"}, values: "bntx"},
	"7z":    sevenZip, "7za": sevenZip,
	"diff": diffLike, "colordiff": diffLike,
}

// findNonReaders are programs find -exec may run on every file of a tree
// that do not put the files' contents anywhere: anything else (cat, grep,
// cp, base64 …) run on a tree holding a credential store reads it.
var findNonReaders = newSet("rm", "rmdir", "unlink", "chmod", "chown", "chgrp", "touch", "ls", "stat", "du", "wc",
	"echo", "printf", "test", "[", "true", "false", "mkdir", "basename", "dirname", "realpath", "readlink",
	"md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum", "setfacl", "getfacl")

// tarCreates reports whether tar writes an archive (c, r, u: the
// operands are read), in an old-style cluster (czf) or as an option.
func tarCreates(u *unit) bool {
	if first := u.arg(0); first != "" && first[0] != '-' && strings.ContainsAny(first, "cru") {
		return true
	}
	return u.hasFlag("cru", "--create", "--append", "--update")
}

// readsStoreTree reports whether u reads the contents of a directory tree
// holding a credential store: a recursive reader given the home, one of
// its ancestors (/, /home, /root) or a directory between the home and a
// store (~/.config), relative operands resolved against the working
// directory; or find -exec running a reader below such a directory.
func readsStoreTree(u *unit) bool {
	if !findNonReaders.has(u.name) && (slices.ContainsFunc(u.args, listedStores) || namesIn(u) && listsStores(u.in)) {
		return true // cat $(find ~ -type f); find ~ | tar -cf x.tar -T -
	}
	if u.afterListing && contentReaders.has(u.name) && (u.viaXargs || namesIn(u) || slices.ContainsFunc(u.args, func(f field) bool { return f.dyn })) {
		// The names a listing of the home printed may have reached this
		// reader through a way the line does not follow (an array, a
		// file, printf -v, awk): mapfile -t a < <(find ~ -type f); cat
		// "${a[@]}" (found by red-team round 54).
		return true
	}
	if len(u.findRoots) > 0 || u.viaXargs && u.argsIn.tree != nil {
		return !findNonReaders.has(u.name) && (treeAbove(u.cwd, u.findRoots) || u.viaXargs && u.argsIn.tree != nil && treeAbove("", *u.argsIn.tree))
	}
	if u.name == "git" {
		at := gitSubAt(u.args)
		if at < 0 || !hasFlag(u.args[at+1:], "", "--no-index") {
			return false
		}
		switch u.args[at].val {
		case "grep":
			return gitGrep.readsStore(u, at+1)
		case "diff":
			// git diff --no-index A DIR prints every file of DIR.
			return gitDiff.readsStore(u, at+1)
		}
		return false
	}
	spec, ok := recursiveReaders[u.name]
	if !ok || spec.mode != nil && !spec.mode(u) {
		return false
	}
	if spec.always && len(spec.noRecurse) > 0 && u.hasExactFlag("", spec.noRecurse...) {
		return false
	}
	if !spec.always && !u.hasFlag(spec.short, spec.long...) && (spec.byValue == nil || !spec.byValue.given(u.args, spec.values)) {
		return false
	}
	return spec.readsStore(u, 0)
}

// contentReaders print, copy or send the contents of the files they are
// named (see afterListing).
var contentReaders = newSet("cat", "tac", "head", "tail", "less", "more", "bat", "batcat", "nl", "od", "xxd", "hexdump", "hd",
	"strings", "base64", "base32", "basenc", "grep", "egrep", "fgrep", "rg", "ag", "ack", "awk", "gawk", "mawk", "sed", "cut",
	"sort", "uniq", "paste", "cp", "tar", "bsdtar", "zip", "7z", "rsync", "scp", "sftp", "gzip", "bzip2", "xz", "zstd",
	"openssl", "gpg", "diff", "jq", "yq", "curl", "wget", "nc", "ncat", "socat", "dd", "tee", "install", "pr", "fold", "fmt",
	"iconv", "look", "comm", "join")

// listedStores reports whether f holds names a listing of a directory above
// a credential store printed: cat $(find ~ -type f) reads every file of
// the home. Found by red-team round 51.
func listedStores(f field) bool { return f.dyn && listsStores(f.src) }

// listsStores reports whether s is, or may hold, the names a listing of a
// directory above a credential store printed (find ~, du -a ~).
func listsStores(s stream) bool { return s.tree != nil && treeAbove("", *s.tree) }

// namesIn reports whether u reads the names of the files it reads from
// its standard input: tar -T -, zip -@, cpio -o, rsync --files-from=-.
func namesIn(u *unit) bool {
	switch u.name {
	case "tar", "bsdtar", "ptar":
		for i, f := range u.args {
			if v, ok := strings.CutPrefix(f.val, "--files-from="); ok && stdinName(v) ||
				(f.val == "-T" || f.val == "--files-from") && i+1 < len(u.args) && stdinName(u.args[i+1].val) || f.val == "-T-" {
				return true
			}
		}
	case "zip":
		return u.hasExactFlag("@", "--names-stdin")
	case "cpio":
		return u.hasFlag("o", "--create")
	case "rsync":
		return slices.ContainsFunc(u.args, func(f field) bool { return f.val == "--files-from=-" || f.val == "--files-from=/dev/stdin" })
	}
	return false
}

// treeAbove reports whether one of the roots of a find (relative to dir)
// is a directory above a credential store: find -exec and find | xargs
// then run their command on every file of it.
func treeAbove(dir string, roots []field) bool {
	for _, r := range roots {
		if storeAncestor(dir, r) {
			return true
		}
	}
	return false
}

// readsStore reports whether u, a reader that recurses, reads a tree
// holding a credential store: its operands are u.args[from:].
func (r recursiveReader) readsStore(u *unit, from int) bool {
	args := u.args[from:]
	ops := r.operandIndexes(args)
	switch {
	case r.dest && len(ops) > 0 && !u.hasFlag("t", "--target-directory"):
		ops = ops[:len(ops)-1]
	case r.pattern && len(ops) > 0 && !givesPattern(args):
		ops = ops[1:]
	}
	if r.pattern && len(ops) == 0 {
		return storeAncestor(u.dirAt(from), field{val: "."})
	}
	for _, i := range ops {
		if storeAncestor(u.dirAt(from+i), args[i]) {
			return true
		}
	}
	return false
}

// takesValue reports whether the option word v takes the next word as its
// value.
func (r recursiveReader) takesValue(v string) bool {
	if strings.HasPrefix(v, "--") {
		return contains(r.longValues, v)
	}
	return len(v) > 1 && v[0] == '-' && strings.IndexByte(r.values, v[len(v)-1]) >= 0
}

// givesPattern reports whether a grep-like command's pattern is given by an
// option (-e PAT, -fFILE, --regexp=PAT).
func givesPattern(args []field) bool {
	for _, a := range args {
		v := a.val
		if v == "--" {
			return false
		}
		if v == "--regexp" || v == "--file" || strings.HasPrefix(v, "--regexp=") || strings.HasPrefix(v, "--file=") ||
			len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsAny(v[1:], "ef") {
			return true
		}
	}
	return false
}

// operandIndexes returns the indexes of the arguments that are not
// options (as unit.operands), nor the value of one.
func (r recursiveReader) operandIndexes(args []field) []int {
	var out []int
	dd := false
	for i, a := range args {
		switch {
		case dd:
			out = append(out, i)
		case a.val == "--":
			dd = true
		case len(a.val) > 1 && a.val[0] == '-':
		case i > 0 && r.takesValue(args[i-1].val):
		default:
			out = append(out, i)
		}
	}
	return out
}

// homeStoresByTop indexes the credential stores of credpaths.Home, below
// every home (homeSecretPaths), by their first component.
var homeStoresByTop = sync.OnceValue(func() map[string][][]string {
	m := map[string][][]string{}
	for _, sp := range homeSecretPaths() {
		m[sp[0]] = append(m[sp[0]], sp)
	}
	return m
})

// storeAncestor reports whether the path f, relative to dir, names a
// directory above a credential store of credpaths.Home: the root, a home,
// the directory of the homes, a directory of the home that holds a store
// (~/.config). A relative path below an unknown directory is not one (grep
// -r TODO .). A path that reaches the home from its parent by a name only
// known at run time (homeByParent) counts at or below a store too: the
// plain read rules do not see ~/../$USER/.ssh as ~/.ssh.
func storeAncestor(dir string, f field) bool {
	byParent := false
	if h, ok := homeByParent(dir, f); ok {
		dir, f, byParent = "", field{val: h}, true
	}
	g := resolveIn(dir, f)
	v := g.val
	if g.dynPrefix {
		if !strings.HasPrefix(g.bare, "~") {
			return false
		}
		v = g.bare // cd $X with X empty: the home
	}
	c := cleanTarget(v)
	switch {
	case c == "/":
		return true
	case strings.HasPrefix(c, "/"):
		c = stripProcRoot(c)
	case !strings.HasPrefix(c, "~"):
		return false
	}
	comps := strings.Split(strings.TrimPrefix(c, "/"), "/")
	for top, stores := range homeStoresByTop() {
		if top != comps[0] && !strings.ContainsAny(comps[0], "*?[") {
			continue
		}
		for _, sp := range stores {
			if len(comps) < len(sp) && globComps(sp[:len(comps)], comps) ||
				byParent && len(comps) >= len(sp) && globComps(sp, comps[:len(sp)]) {
				return true
			}
		}
	}
	return false
}

// homeParents are the directories that hold users' homes.
var homeParents = map[string]bool{"home": true, "Users": true}

// runtimeName reports whether a path component is a name only known at run
// time, or a glob, which may be the user's.
func runtimeName(c string) bool { return strings.ContainsAny(c, "$`*?[") }

// homeByParent returns the path in the home that f, relative to dir, may
// name when it leaves the home for its parent and comes back down by a
// name only known at run time: ~/../$USER is the home, ~/../$(whoami)/.config
// is ~/.config, and so is $USER/.config after cd ~/.. (dir "~/..").
func homeByParent(dir string, f field) (string, bool) {
	if !f.dyn && !f.glob {
		return "", false
	}
	p := f.val
	if dir != "" && dir != cwdMaybeHome && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
		p = dir + "/" + p
	}
	comps := strings.Split(p, "/")
	switch {
	case len(comps) > 2 && comps[0] == "" && homeParents[comps[1]] && runtimeName(comps[2]):
		// /home/$USER: the home where homes are kept there.
		return "~/" + strings.Join(comps[3:], "/"), true
	case strings.HasPrefix(comps[0], "~") && runtimeName(comps[0][1:]):
		// ~$USER, which eval reads again as ~alice: the user's home.
		return "~/" + strings.Join(comps[1:], "/"), true
	case comps[0] != "~":
		return "", false
	}
	depth := 0 // directories below the home; -1 is its parent
	for i, c := range comps[1:] {
		switch {
		case c == "" || c == ".":
		case c == "..":
			depth--
		case depth == -1 && runtimeName(c):
			return "~/" + strings.Join(comps[i+2:], "/"), true // a run-time name or a glob: the user's?
		default:
			depth++
		}
	}
	return "", false
}

// atHomeParent reports whether the path p, from the home, ends in the
// home's parent (~/.., ~/x/../..), which holds the home under the user's
// name.
func atHomeParent(p string) bool {
	comps := strings.Split(p, "/")
	if comps[0] != "~" {
		return false
	}
	depth := 0
	for _, c := range comps[1:] {
		switch c {
		case "", ".":
		case "..":
			depth--
		default:
			depth++
		}
	}
	return depth == -1
}
