package classify

import (
	"path"
	"strings"
)

// dirAliases are paths the kernel links to a directory that the path does
// not name: a process's working directory, or a directory an open file
// descriptor refers to. fdLike ones are only taken as aliases when used as
// a directory (/dev/fd/3/, /dev/fd/3/x): /dev/fd/3 alone is a file to write.
var dirAliases = []struct {
	glob   string
	cwd    bool // the shell's working directory when the pid is its own
	fdLike bool
}{
	{"/proc/*/cwd", true, false},
	{"/proc/*/task/*/cwd", false, false},
	{"/proc/*/fd/*", false, true},
	{"/dev/fd/*", false, true},
	{"/dev/stdin", false, true},
	{"/dev/stdout", false, true},
	{"/dev/stderr", false, true},
}

// ownPids are the names /proc gives the shell's own process.
var ownPids = newSet("self", "thread-self", "$$", "${$}", "$BASHPID", "${BASHPID}")

// resolveAlias resolves a path that starts with a directory alias against
// dir, the working directory ("" = unknown). A /proc/self/cwd prefix becomes
// dir; one whose directory is not known (another pid's cwd, an fd, or the
// cwd with dir unknown) becomes a prefix only known at run time, whose bare
// value is what the dynamic-target rules judge: "." for the working
// directory, "" for any other (as "$DIR/x" is /x with DIR empty).
//
// The path is walked as the kernel walks it (walkAbs): the alias is
// swapped in where it is met, and ".." after it climbs from the directory
// it stands for (/proc/self/cwd/../etc after cd /tmp is /etc).
func resolveAlias(dir string, f field) (field, bool) {
	v := f.val
	if f.dynPrefix || !strings.HasPrefix(v, "/") {
		return f, false
	}
	asDir := strings.HasSuffix(v, "/") || strings.HasSuffix(v, "/.")
	var g field
	found := false
	walkAbs(v, func(comps, tail []string) bool {
		g, found = swapAlias(dir, f, comps, tail, asDir)
		return found
	})
	if !found {
		return f, false
	}
	return g, true
}

// walkAbs walks the absolute path v as the kernel does, component by
// component: "." and empty components are skipped, ".." climbs from what
// was walked so far, and a /proc/<pid>/root met on the way is /. After
// each component it calls visit (if not nil) with the components walked
// and the raw ones still to come, and stops when visit returns true. It
// returns the clean path walked.
func walkAbs(v string, visit func(comps, tail []string) bool) string {
	raw := strings.Split(strings.TrimPrefix(v, "/"), "/")
	var comps []string
	for i, c := range raw {
		switch c {
		case "", ".":
			continue
		case "..":
			comps = comps[:max(0, len(comps)-1)]
			continue
		}
		comps = append(comps, c)
		if len(comps) == 3 && stripProcRoot("/"+strings.Join(comps, "/")) == "/" {
			comps = comps[:0]
			continue
		}
		if visit != nil && visit(comps, raw[i+1:]) {
			break
		}
	}
	return "/" + strings.Join(comps, "/")
}

// swapAlias swaps the directory alias that comps (the path walked so far)
// names, if any, for the directory it stands for, followed by tail.
func swapAlias(dir string, f field, comps, tail []string, asDir bool) (field, bool) {
	for _, al := range dirAliases {
		globs := strings.Split(al.glob[1:], "/")
		if len(comps) != len(globs) || !matchComps(globs, comps, false) {
			continue
		}
		rest := ""
		for _, c := range tail {
			if c != "" && c != "." {
				rest += "/" + c
			}
		}
		if al.fdLike && rest == "" && !asDir {
			return f, false
		}
		own := al.cwd && ownPids.has(comps[1])
		g := f
		if own && dir != "" {
			g.val = path.Join(dir, "."+rest)
			return g, true
		}
		base := ""
		if own {
			base = "."
		}
		g.dyn, g.dynPrefix, g.bare = true, true, base+rest
		return g, true
	}
	return f, false
}

// symlink records a symbolic link the line makes with a literal name and
// target (ln -s TARGET NAME, -sf, -sfn), so that later paths through it
// are judged where they lead: ln -s ~ x && rm -rf x/ empties the home. The
// name is kept as written; a relative target is taken from the link's
// directory.
func (a *analyzer) symlink(u *unit) {
	if u.dynName || u.name != "ln" || !u.hasFlag("s", "--symbolic") || u.hasFlag("t", "--target-directory") {
		return
	}
	ops := u.operands()
	if len(ops) != 2 || ops[0].dyn || ops[1].dyn || ops[0].val == "" {
		return
	}
	name, target := cleanTarget(ops[1].val), ops[0].val
	if !strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "~") {
		target = path.Join(path.Dir(name), target)
	}
	if name == "" || name == "." || name == "/" {
		return
	}
	links := make(map[string]string, len(a.links)+1)
	for k, v := range a.links {
		links[k] = v
	}
	links[name] = target
	a.links = links
}

// followLinks replaces, in a path that goes through a link made on the
// line (x/, x/y), the link's name by its target. A path that names the
// link itself (rm -rf x) is the link, not what it points to.
func followLinks(links map[string]string, f field) field {
	if len(links) == 0 || f.dyn || f.val == "" {
		return f
	}
	for n := 0; n < 8; n++ {
		comps := strings.Split(f.val, "/")
		found := false
		for k := len(comps) - 1; k >= 1 && !found; k-- {
			t, ok := links[path.Clean(strings.Join(comps[:k], "/"))]
			if !ok {
				continue
			}
			f.val = t + "/" + strings.Join(comps[k:], "/")
			f.bare = f.val
			f.home = strings.HasPrefix(t, "~")
			found = true
		}
		if !found {
			break
		}
	}
	return f
}

// writeThrough returns the path a write to p lands on: a link made on the
// line is followed to its target even when p names the link itself (echo
// x >> link writes the file it points to, unlike rm link).
func writeThrough(links map[string]string, p string) string {
	if len(links) == 0 {
		return p
	}
	for n := 0; n < 8; n++ {
		p = followLinks(links, field{val: p}).val
		t, ok := links[path.Clean(p)]
		if !ok {
			break
		}
		p = t
	}
	return p
}
