package classify

import (
	"slices"
	"strings"
)

// cdKind says how a builtin moves the working directory.
type cdKind uint8

const (
	cdTo   cdKind = iota // cd DIR, cd - (to $OLDPWD), cd (home)
	cdPush               // pushd DIR: cd and push the old directory; pushd alone swaps
	cdPop                // popd: back to the directory on top of the stack
)

// cdBuiltins are the builtins that change the shell's working directory.
var cdBuiltins = map[string]cdKind{"cd": cdTo, "chdir": cdTo, "pushd": cdPush, "popd": cdPop}

// cdWrappers run a builtin in the shell itself (builtin cd, command cd):
// the directory still changes.
var cdWrappers = newSet("builtin", "command")

// builtinCall returns the command u runs, behind builtin and command
// (which run a builtin in the shell itself), and its arguments; ok is false
// when that is only known at run time or nothing runs.
func builtinCall(u *unit) (name string, args []field, ok bool) {
	if u.dynName {
		return "", nil, false
	}
	name, args = u.name, u.args
	for cdWrappers.has(name) {
		cmd, _, noExec, _ := wrappers()[name].unwrap(args)
		if noExec || len(cmd) == 0 || cmd[0].dyn {
			return "", nil, false
		}
		name, args = normName(cmd[0].val), cmd[1:]
	}
	return name, args, true
}

// cwdMaybeHome is the working directory after `cd $X` with X wholly known
// only at run time: unquoted and empty, it is a bare cd, which goes home.
// Paths relative to it are run-time paths whose bare value is in the home
// (resolveIn): rm -rf ./* there is a dynamic delete of ~.
const cwdMaybeHome = "\x00~"

// homeParentDir is the working directory after cd ~/.. (or cd .. from the
// home): the directory of the homes. Paths in it clean to paths in the
// home (cleanTarget), which keeps them as critical as before; a name only
// known at run time in it may be the home itself (homeByParent).
const homeParentDir = "~/.."

// chdir follows the builtins that change the working directory (cd, pushd,
// popd, also behind builtin/command), so that later relative paths can be
// judged (cd / && rm -rf *). A directory only known at run time makes it
// unknown (""), or possibly the home for an unquoted `cd $X`.
func (a *analyzer) chdir(u *unit) {
	name, args, ok := builtinCall(u)
	kind, isCd := cdBuiltins[name]
	if !ok || !isCd {
		return
	}
	c := &unit{kind: kCall, name: name, args: args, env: u.env, cwd: a.cwd, links: u.links}
	ops := c.operands()
	prev, prevOld := a.cwd, a.oldwd
	defer func() { a.cdMayFail(kind, ops, prev, prevOld) }()
	switch {
	case kind == cdPop && len(args) == 0 && len(a.dirs) > 0:
		a.cwd, a.dirs = a.dirs[len(a.dirs)-1], a.dirs[:len(a.dirs)-1]
	case kind == cdPop || kind == cdPush && len(args) > 0 && len(ops) == 0:
		// popd +N, popd -n, pushd -n DIR, popd on a stack this line did not fill
		a.cwd, a.dirs = "", nil
	case kind == cdPush && len(ops) == 0 && len(a.dirs) > 0:
		a.cwd, a.dirs[len(a.dirs)-1] = a.dirs[len(a.dirs)-1], a.cwd
	case kind == cdPush && (len(ops) == 0 || isStackIndex(ops[0].val)):
		a.cwd, a.dirs = "", nil
	case kind == cdPush:
		a.dirs = append(a.dirs, a.cwd)
		a.cwd = a.cdTarget(c, ops[0])
	case len(ops) == 0:
		a.cwd = a.dirVar(c, "HOME", a.homeDir())
	case ops[0].val == "-" && !ops[0].dyn:
		a.cwd = a.dirVar(c, "OLDPWD", a.oldwd)
	default:
		a.cwd = a.cdTarget(c, ops[0])
	}
	a.oldwd = prev
	// The shell sets $OLDPWD to the directory left, as $PWD is the one
	// entered (pwdValue): cd ~; cd /tmp; cd "$OLDPWD" is the home.
	old := varVal{known: prev != "" && prev != cwdMaybeHome}
	if old.known {
		old.val, old.home = prev, strings.HasPrefix(prev, "~")
	}
	a.setVar("OLDPWD", old)
}

// dirVar is where a bare cd (HOME) or cd - (OLDPWD) goes: the value the
// variable has on the cd itself (HOME=/ cd) or the line gave it before
// (OLDPWD=/; cd -), else tracked, the directory the analysis follows.
func (a *analyzer) dirVar(c *unit, name, tracked string) string {
	for _, e := range c.env {
		if e.name == name {
			if e.val.dyn {
				return ""
			}
			return cleanTarget(e.val.val)
		}
	}
	if v, ok := a.vars[name]; ok && name == "OLDPWD" {
		if !v.known {
			return tracked
		}
		return cleanTarget(v.val)
	}
	return tracked
}

// dirState is the working directory, $OLDPWD and pushd's stack on one path.
type dirState struct {
	cwd, oldwd string
	dirs       []string
}

// cdMayFail follows a cd or pushd (now done) that may fail: a directory not
// known to exist. Bash then stays where it was (prev), and what follows
// `;`, a newline or `||` runs there, so the working directory is the
// more critical of the two (cd ~; cd nosuch; grep -r x . greps the home),
// $OLDPWD likewise; what follows `&&` runs only if the cd succeeded
// (analyzer.cdOK). After cd $X (perhaps the home) a failing cd src stays
// there too: cd $X; cd src; cat .aws/credentials may read the home's.
func (a *analyzer) cdMayFail(kind cdKind, ops []field, prev, prevOld string) {
	if kind == cdPop || len(ops) == 0 || a.cwd == prev || cdSure(ops[0].val, a.cwd, a.homeDir()) {
		return
	}
	cwd, oldwd := a.cwd, a.oldwd
	if r := dirRank(prev); r > 0 && r > dirRank(cwd) {
		a.cwd = prev
	}
	if r := dirRank(prevOld); r > 0 && r > dirRank(oldwd) {
		a.oldwd = prevOld
	}
	if a.cwd != cwd || a.oldwd != oldwd {
		a.cdOK = &dirState{cwd: cwd, oldwd: oldwd, dirs: slices.Clone(a.dirs)}
	}
}

// cdSure reports whether cd to the operand op (entering dir) cannot fail
// for want of the directory: /, the home, ., .., - (the directory left),
// a top-level system directory, /tmp.
func cdSure(op, dir, home string) bool {
	switch op {
	case ".", "..", "-":
		return true
	}
	if top, ok := strings.CutPrefix(dir, "/"); ok && !strings.Contains(top, "/") {
		return top == "" || top == "tmp" || systemTops.has(top)
	}
	return dir == "~" || dir == homeParentDir || dir == home || dir == "/var/tmp"
}

// isStackIndex reports whether a pushd/popd operand names a stack entry
// (+N, -N).
func isStackIndex(v string) bool {
	return len(v) > 1 && (v[0] == '+' || v[0] == '-') && allDigits(v[1:])
}

// homeDir is where a bare cd goes: the home, or the value the line gave HOME.
func (a *analyzer) homeDir() string {
	if v, ok := a.vars["HOME"]; ok {
		if !v.known {
			return ""
		}
		return cleanTarget(v.val)
	}
	return "~"
}

// cdTarget returns the directory cd enters for the operand f. A relative
// name is searched in CDPATH first, when the line sets CDPATH: of the
// directories it may be, the most critical is taken.
func (a *analyzer) cdTarget(c *unit, f field) string {
	if h, ok := homeByParent(c.cwd, f); ok && f.dyn {
		return cleanTarget(h) // cd ~/../$USER: the home, as likely as not
	}
	switch {
	case f.dyn && !f.quoted && f.bare == "":
		return cwdMaybeHome // cd $X: with X empty, cd goes home
	case f.dyn:
		return ""
	case a.nullglob && strings.ContainsAny(f.val, "*?["):
		return cwdMaybeHome // nullglob: cd zz* with no match is cd, home (found by red-team round 49)
	case a.cdableVars && isVarName(f.val):
		// cdable_vars: cd NAME enters $NAME where no directory NAME is
		// (found by red-team round 49).
		if f.val == "HOME" {
			return "~"
		}
		if v, ok := a.vars[f.val]; ok && v.known {
			return cleanTarget(resolveIn(a.cwd, field{val: v.val, home: v.home}).val)
		}
		return ""
	}
	// cd enters what a link the line made points to (ln -s ~ l; cd l).
	through := f
	through.val = writeThrough(c.links, f.val)
	raw := c.resolve(through).val
	own := cleanTarget(raw)
	if atHomeParent(raw) {
		own = homeParentDir // cd ~/..: judged as the home, but $USER there may be it (homeByParent)
	}
	v := f.val
	if v == "" || v[0] == '/' || v[0] == '~' || v == "." || v == ".." || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
		return own
	}
	cdpath, ok := a.cdpath(c)
	switch {
	case !ok:
		return own
	case cdpath.dyn:
		return ""
	}
	best, worst := own, cdSeverity(own)
	for _, e := range strings.Split(cdpath.val, ":") {
		if e == "" {
			continue // the current directory: own
		}
		d := cleanTarget(resolveIn(a.cwd, field{val: e + "/" + v}).val)
		if s := cdSeverity(d); s > worst {
			best, worst = d, s
		}
	}
	return best
}

// cdpath returns the CDPATH cd searches when the line sets it (on the cd
// itself or earlier).
func (a *analyzer) cdpath(c *unit) (field, bool) {
	for _, e := range c.env {
		if e.name == "CDPATH" {
			return e.val, true
		}
	}
	if v, ok := a.vars["CDPATH"]; ok {
		return field{val: v.val, dyn: !v.known}, true
	}
	return field{}, false
}

// cdSeverity ranks a working directory by what deleting inside it would
// destroy: 2 a critical directory, 1 a system one, 0 any other.
func cdSeverity(d string) int {
	switch {
	case criticalTarget(field{val: d}):
		return 2
	case systemWriteTarget(field{val: d + "/x"}):
		return 1
	}
	return 0
}

// pwdValue returns what $PWD and pwd give where the analyzer stands: the
// directory an earlier cd on the line entered, as an absolute path, so
// that a copy kept in a variable still names it after a later cd (cd ~;
// H=$PWD; cd /tmp; rm -rf "$H" deletes the home). With no cd it is "."
// (the starting directory, as relative paths are judged); ok is false
// when it is only known at run time.
func (a *analyzer) pwdValue() (string, bool) {
	switch a.cwd {
	case "":
		return ".", true
	case cwdMaybeHome:
		return "", false
	}
	return a.cwd, true
}
