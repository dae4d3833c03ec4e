package classify

import (
	"maps"
	"slices"
)

// The analyzer walks a line once, in order, but not everything on it runs
// once, in order, in the shell that runs the line. A subshell, a command or
// process substitution, a background job, a pipeline part and a child shell
// (bash -c) run in a copy of the shell: what they change is discarded
// (isolated). A branch (if, case, && and ||) may or may not run; a loop body
// may run any number of times, none included; a function body runs where the
// function is called, if ever: after them what may differ between the paths
// is only known at run time (join). Commands inside each are still judged
// with what is known where they stand.

// shellState is what the analyzer tracks of the shell running the line and
// a command may change. Files written and links made are not part of it:
// they outlive a subshell.
type shellState struct {
	funcs   map[string][]funcDef
	vars    map[string]varVal
	refs    map[string]string
	attrs   map[string]uint8
	hashed  map[string]string
	aliases map[string]string
	cwd     string
	oldwd   string
	dirs    []string
	posix   posixMode
}

// snapshot returns a copy of the tracked state. Copying counts toward the
// work limit (a step, and one per 64 entries): a line with thousands of
// variables and subshells is not copied thousands of times.
func (a *analyzer) snapshot() shellState {
	a.charge(1 + (len(a.funcs)+len(a.vars)+len(a.refs)+len(a.attrs)+len(a.hashed)+len(a.aliases)+len(a.dirs))/64)
	return shellState{
		funcs: maps.Clone(a.funcs), vars: maps.Clone(a.vars), refs: maps.Clone(a.refs), attrs: maps.Clone(a.attrs),
		hashed: maps.Clone(a.hashed), aliases: maps.Clone(a.aliases),
		cwd: a.cwd, oldwd: a.oldwd, dirs: slices.Clone(a.dirs), posix: a.posix,
	}
}

// state returns the tracked state itself, not a copy: the caller must
// restore another before the analyzer changes it again.
func (a *analyzer) state() shellState {
	return shellState{funcs: a.funcs, vars: a.vars, refs: a.refs, attrs: a.attrs, hashed: a.hashed, aliases: a.aliases,
		cwd: a.cwd, oldwd: a.oldwd, dirs: a.dirs, posix: a.posix}
}

// restore makes s the tracked state (it is not copied).
func (a *analyzer) restore(s shellState) {
	a.funcs, a.vars, a.refs, a.attrs, a.hashed, a.aliases = s.funcs, s.vars, s.refs, s.attrs, s.hashed, s.aliases
	a.cwd, a.oldwd, a.dirs, a.posix = s.cwd, s.oldwd, s.dirs, s.posix
}

// isolated walks what f walks in a copy of the shell: the tracked state is
// the same afterwards.
func (a *analyzer) isolated(f func() stream) stream {
	s, jumped, ow := a.snapshot(), a.jumped, a.opWord
	a.opWord.walked, a.opWord.last = 0, nil // a substitution's own words are walked afresh
	out := f()
	a.restore(s)
	a.jumped, a.opWord = jumped, ow
	return out
}

// maybe walks what f walks on a path that may or may not be taken: what it
// changes is only known at run time afterwards.
func (a *analyzer) maybe(f func() stream) stream {
	s := a.snapshot()
	a.unsure++
	out := f()
	a.unsure--
	a.join(s)
	return out
}

// join makes the tracked state the one after either of two paths, the
// current one or s: whatever differs between them is only known at run
// time. Of two working directories the more critical is kept (as cd does
// with CDPATH).
func (a *analyzer) join(s shellState) {
	a.funcs = joinMap(a.funcs, s.funcs, slices.Equal[[]funcDef], joinFuncs)
	a.vars = joinMap(a.vars, s.vars, varVal.same, joinVar)
	a.refs = joinMap(a.refs, s.refs, eq, func(string, string) string { return refRuntime })
	a.attrs = joinMap(a.attrs, s.attrs, eq, func(x, y uint8) uint8 { return x | y | attrMixed })
	a.hashed = joinMap(a.hashed, s.hashed, eq, func(string, string) string { return "" })
	a.aliases = joinMap(a.aliases, s.aliases, eq, func(string, string) string { return "$_" })
	a.cwd, a.oldwd = joinDir(a.cwd, s.cwd), joinDir(a.oldwd, s.oldwd)
	if !slices.Equal(a.dirs, s.dirs) {
		a.dirs = nil // a stack this line did not fill
	}
	if a.posix != s.posix {
		a.posix = posixMaybe
	}
}

// paths walks n paths that start where the analyzer stands (walk(i) walks
// the i-th) and returns where each ends, and a copy of the start.
func (a *analyzer) paths(n int, walk func(i int)) (shellState, []shellState) {
	start := a.snapshot()
	var ends []shellState
	for i := range n {
		if i > 0 {
			a.restore(start)
			start = a.snapshot()
		}
		walk(i)
		ends = append(ends, a.state())
	}
	return start, ends
}

// joinAll makes the tracked state the one after any of the paths ends
// (at least one), which it takes over.
func (a *analyzer) joinAll(ends []shellState) {
	a.restore(ends[0])
	for _, e := range ends[1:] {
		a.join(e)
	}
}

// joinMap joins o into m: an entry set on one side only, or differently on
// the two, becomes differ's value (given the zero value for a missing side).
func joinMap[V any](m, o map[string]V, same func(V, V) bool, differ func(V, V) V) map[string]V {
	var zero V
	for k, x := range m {
		if y, ok := o[k]; !ok || !same(x, y) {
			m[k] = differ(x, y)
		}
	}
	for k, y := range o {
		if _, ok := m[k]; !ok {
			if m == nil {
				m = map[string]V{}
			}
			m[k] = differ(zero, y)
		}
	}
	return m
}

func eq[V comparable](x, y V) bool { return x == y }

// same reports whether two values are the same.
func (v varVal) same(w varVal) bool {
	return v.val == w.val && v.known == w.known && v.home == w.home && v.ifs == w.ifs && v.item == w.item &&
		v.dflt == w.dflt && v.hasDflt == w.hasDflt && (v.arr == nil) == (w.arr == nil) && slices.Equal(v.arr, w.arr) &&
		slices.Equal(v.keys, w.keys) && slices.Equal(v.dfltArr, w.dfltArr) && slices.Equal(v.names, w.names) &&
		slices.Equal(v.maybe, w.maybe)
}

// joinVar returns the value a variable may have after either of two paths
// that give it different ones: only known at run time, but never empty when
// both are relative words (as a for-loop word: DIR=out; [ -n "$CI" ] &&
// DIR=ci-out; rm -rf "$DIR" deletes no directory the line does not name).
// Otherwise a value one path gives that is no relative word is kept as the
// likely one, as ${X:=y} does (DIR=out; [ -n "$CI" ] && DIR=/; rm -rf
// "$DIR" is also judged as rm -rf /).
func joinVar(v, w varVal) varVal {
	j := joinValue(v, w)
	j.maybe = joinMaybe(v, w) // the texts either path gave, for arithmetic
	return j
}

// joinValue is joinVar's value for word expansion.
func joinValue(v, w varVal) varVal {
	switch {
	case v.relativeWord() && w.relativeWord():
		return varVal{item: true, names: joinNames(v, w)}
	case v.known && v.arr == nil && !v.relativeWord():
		return varVal{dflt: v.val, hasDflt: true}
	case w.known && w.arr == nil && !w.relativeWord():
		return varVal{dflt: w.val, hasDflt: true}
	case v.hasDflt:
		return varVal{dflt: v.dflt, hasDflt: true, dfltArr: v.dfltArr}
	case w.hasDflt:
		return varVal{dflt: w.dflt, hasDflt: true, dfltArr: w.dfltArr}
	}
	return varVal{}
}

// maxNames bounds the names a joined variable keeps for ${!X}.
const maxNames = 16

// joinNames returns the variable names either of two relative words may
// be (see varVal.names), nil when one may be something else.
func joinNames(v, w varVal) []string {
	var out []string
	for _, x := range []varVal{v, w} {
		switch {
		case x.item && x.names != nil:
			out = append(out, x.names...)
		case x.known && isVarName(x.val):
			out = append(out, x.val)
		default:
			return nil
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxNames {
		return nil
	}
	return out
}

// relativeWord reports whether a value is a relative word, never empty (see
// loopItem).
func (v varVal) relativeWord() bool {
	return v.item || v.known && v.arr == nil && !v.home && !v.ifs && !v.hasDflt && loopItem(field{val: v.val})
}

// joinDir returns the working directory after either of two paths: the
// same one, else the one where deleting inside would destroy the most, or
// unknown ("").
func joinDir(d, e string) string {
	if d == e {
		return d
	}
	rd, re := dirRank(d), dirRank(e)
	switch {
	case rd == 0 && re == 0:
		return ""
	case re > rd:
		return e
	}
	return d
}

// dirRank ranks a tracked working directory: 3 a critical directory, 2
// perhaps the home (cwdMaybeHome), 1 a system one, 0 any other.
func dirRank(d string) int {
	switch {
	case d == "":
		return 0
	case d == cwdMaybeHome:
		return 2
	}
	s := cdSeverity(d)
	if s == 2 {
		return 3
	}
	return s
}
