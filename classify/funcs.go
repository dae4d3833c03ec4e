package classify

import (
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

// funcDef is a function body defined on the line, with the source text of
// the script that defines it.
type funcDef struct {
	body *syntax.Stmt
	src  string
	sure bool // first of a name's bodies: the function surely exists
}

// localVar is what a variable a function declares local was before: it is
// again when the function returns.
type localVar struct {
	name             string
	v                varVal
	ref              string
	at               uint8
	hadV, hadR, hadA bool
	maybe            bool // perhaps not local (declare $OPT, unset by a callee): joined, not put back
}

// funcDecl records a function and walks its body: a function that is never
// called is still classified by what it would do (with its arguments only
// known at run time). It may be called at any later point: what the body
// changes is only known at run time from here on.
func (a *analyzer) funcDecl(fd *syntax.FuncDecl) {
	names := fd.Names
	if fd.Name != nil {
		names = append([]*syntax.Lit{fd.Name}, names...)
	}
	if a.funcs == nil {
		a.funcs = map[string][]funcDef{}
	}
	busy := a.funcBusy
	d := funcDef{body: fd.Body, src: a.src, sure: true}
	for _, n := range names {
		spawn := selfSpawning(fd.Body, n.Value)
		a.funcs[n.Value] = []funcDef{d}
		a.emit(&unit{kind: kFuncDecl, name: n.Value, selfSpawn: spawn, info: "function " + n.Value})
		a.funcBusy = append(slices.Clip(a.funcBusy), n.Value)
	}
	a.maybe(func() stream { a.funcBody(d, varVal{}, nil); return stream{} })
	a.funcBusy = busy
}

// runCall judges u and follows what it changes in the shell (a builtin's
// effect, files written). Where a function the line defined has u's name,
// bash runs it instead of the builtin or program: u is still judged, but
// what it would change is discarded (or, when the function may not exist,
// joined) and the function is followed.
func (a *analyzer) runCall(u *unit, in *stream) stream {
	effects := func() stream {
		out := a.run(u)
		a.remember(u, out)
		a.chdir(u)
		a.symlink(u)
		a.builtinAssigns(u)
		a.lastWord(u)
		a.jump(u)
		return out
	}
	defs := a.funcs[u.name]
	if len(defs) == 0 || u.dynName || u.prog != u.name {
		return effects()
	}
	defer func() { a.cdOK = nil }() // a body may return from anywhere
	if defs[0].sure {
		out := a.isolated(effects)
		if body, ok := a.callFunc(u, in); ok {
			out = body // f | sh runs what the body prints
		}
		return out
	}
	start := a.snapshot()
	out := effects()
	ran := a.state()
	a.restore(start)
	if body, ok := a.callFunc(u, in); ok { // joins the bodies with start: the function may not exist
		out.merge(body)
		out.traits |= trUnknown
	}
	a.join(ran)
	return out
}

// callFunc walks, where a function the line defined is called (u), the
// body it was given (each of them, when a branch may have given another),
// with the call's arguments as $1 … A call of a function being walked
// (recursion) is walked once more, see recurse. It returns what the call
// prints, where it walked the bodies.
func (a *analyzer) callFunc(u *unit, in *stream) (stream, bool) {
	defs := a.funcs[u.name]
	if len(defs) == 0 || u.dynName || u.prog != u.name {
		return stream{}, false
	}
	if a.calls++; a.calls > maxCalls {
		a.limit("too many function calls to classify")
		return stream{}, false
	}
	if slices.Contains(a.funcBusy, u.name) {
		a.recurse(u.name, defs)
		return stream{}, false
	}
	busy := a.funcBusy
	a.funcBusy = append(slices.Clip(busy), u.name)
	defer func() { a.funcBusy = busy }()
	if slices.ContainsFunc(u.redirs, redir.mayFail) {
		// bash runs no command whose redirection failed.
		var out stream
		a.maybe(func() stream { out = a.callBodies(u, defs, in); return stream{} })
		return out, true
	}
	return a.callBodies(u, defs, in), true
}

// callBodies walks the bodies defs of the function u calls, and returns
// what the call prints. The call's own redirections take the body's output
// (f >> ~/.bashrc writes what f echoes): judged on each path.
func (a *analyzer) callBodies(u *unit, defs []funcDef, in *stream) stream {
	args := positionalParams(u.args)
	body := func(d funcDef) stream {
		out := a.funcBody(d, args, in)
		a.rememberRedirs(u, out)
		return out
	}
	if len(defs) == 1 && defs[0].sure {
		return body(defs[0])
	}
	var out stream
	outs := 0
	call, ends := a.paths(len(defs), func(i int) {
		o := body(defs[i])
		if outs++; outs == 1 {
			out = o
		} else if !o.textKnown || !out.textKnown || o.text != out.text {
			out.merge(o)
			out.traits |= trUnknown
			out.text, out.textKnown = "", false
		}
	})
	if !defs[0].sure {
		ends = append(ends, call) // perhaps no such function
	}
	a.joinAll(ends)
	return out
}

// mayFail reports whether a redirection may fail: anything but /dev/null
// and the standard descriptors.
func (r redir) mayFail() bool {
	switch {
	case r.target.dyn:
		return true
	case r.target.val == "/dev/null":
		return false
	case r.op == syntax.DplIn || r.op == syntax.DplOut:
		return !slices.Contains([]string{"0", "1", "2", "-"}, r.target.val)
	}
	return true
}

// recurse walks, where a function being walked calls itself (directly or
// through others), its bodies once more with arguments only known at run
// time, on a path that may be taken: what any depth of the recursion may
// change is then a run-time value. A call inside that walk is not followed
// again: what it changes is joined by the walk it is in.
func (a *analyzer) recurse(name string, defs []funcDef) {
	if slices.Contains(a.funcAgain, name) {
		return
	}
	again := a.funcAgain
	a.funcAgain = append(slices.Clip(again), name)
	for _, d := range defs {
		a.maybe(func() stream { a.funcBody(d, varVal{}, nil); return stream{} })
	}
	a.funcAgain = again
}

// funcBody walks a function body with the positional parameters pos; the
// variables it declares local are what they were again afterwards.
func (a *analyzer) funcBody(d funcDef, pos varVal, in *stream) stream {
	// Each walk costs the body's size: a line calling a large function
	// thousands of times is not walked thousands of times.
	if !a.charge(1 + int(d.body.End().Offset()-d.body.Pos().Offset())/16) {
		return stream{traits: trUnknown}
	}
	src, frame, jumped := a.src, a.frame, a.jumped
	var locals []localVar
	a.src, a.frame, a.jumped = d.src, &locals, 0
	a.frames = append(a.frames, &locals)
	out := a.withPositional(pos, func() stream { return a.stmt(d.body, in) })
	a.frames = a.frames[:len(a.frames)-1]
	a.src, a.frame = src, frame
	a.jumped = jumped | a.jumped&jumpLoop // return ends here; break may end a caller's loop
	for _, l := range slices.Backward(locals) {
		if l.maybe {
			a.vars = joinKey(a.vars, l.name, l.v, l.hadV, varVal.same, joinVar)
			a.refs = joinKey(a.refs, l.name, l.ref, l.hadR, eq, func(string, string) string { return refRuntime })
			a.attrs = joinKey(a.attrs, l.name, l.at, l.hadA, eq, func(x, y uint8) uint8 { return x | y | attrMixed })
			continue
		}
		a.vars = putBack(a.vars, l.name, l.v, l.hadV)
		a.refs = putBack(a.refs, l.name, l.ref, l.hadR)
		a.attrs = putBack(a.attrs, l.name, l.at, l.hadA)
	}
	return out
}

// unsetLocal follows unset run in a function on a variable a caller
// declared local (and the function itself did not): bash removes the
// caller's local, so what the caller assigns to it afterwards may be the
// global's.
func (a *analyzer) unsetLocal(name string) {
	for i := len(a.frames) - 1; i >= 0; i-- {
		f := *a.frames[i]
		if j := slices.IndexFunc(f, func(l localVar) bool { return l.name == name }); j >= 0 {
			f[j].maybe = f[j].maybe || i < len(a.frames)-1
			return
		}
	}
}

// joinKey joins the value m[k] may have with v (had: v is set), as join
// does for a whole map.
func joinKey[V any](m map[string]V, k string, v V, had bool, same func(V, V) bool, differ func(V, V) V) map[string]V {
	cur, has := m[k]
	if has == had && (!has || same(cur, v)) {
		return m
	}
	if m == nil {
		m = map[string]V{}
	}
	m[k] = differ(cur, v)
	return m
}

// declareLocal records, in a function body, that name is local to it;
// maybe: perhaps not (an option only known at run time).
func (a *analyzer) declareLocal(name string, maybe bool) {
	if a.frame == nil {
		return
	}
	if i := slices.IndexFunc(*a.frame, func(l localVar) bool { return l.name == name }); i >= 0 {
		(*a.frame)[i].maybe = (*a.frame)[i].maybe || maybe
		return
	}
	l := localVar{name: name, maybe: maybe}
	l.v, l.hadV = a.vars[name]
	l.ref, l.hadR = a.refs[name]
	l.at, l.hadA = a.attrs[name]
	*a.frame = append(*a.frame, l)
}

// putBack sets m[k] to v, or deletes it when had is false.
func putBack[V any](m map[string]V, k string, v V, had bool) map[string]V {
	switch {
	case had && m == nil:
		return map[string]V{k: v}
	case had:
		m[k] = v
	default:
		delete(m, k)
	}
	return m
}

// unsetFuncs follows unset: -f removes functions; without -v a name that
// is no variable may be a function's.
func (a *analyzer) unsetFuncs(u *unit) {
	fn, v := false, false
	for _, f := range u.args {
		fn, v = fn || f.val == "-f", v || f.val == "-v"
	}
	for _, f := range u.args {
		switch defs := a.funcs[f.val]; {
		case len(defs) == 0 || v:
		case fn:
			delete(a.funcs, f.val)
		default:
			a.funcs[f.val] = joinFuncs(defs, nil)
		}
	}
}

// joinFuncs returns the bodies a name may have after either of two paths:
// those of both; the function surely exists only if it does on both.
func joinFuncs(x, y []funcDef) []funcDef {
	out := slices.Clone(x)
	for _, d := range y {
		if !slices.ContainsFunc(out, func(e funcDef) bool { return e.body == d.body }) {
			out = append(out, d)
		}
	}
	if len(out) > 0 {
		out[0].sure = len(x) > 0 && x[0].sure && len(y) > 0 && y[0].sure
	}
	return out
}

// positionalParams returns the positional parameters that are the words fs.
func positionalParams(fs []field) varVal {
	v := varVal{known: true, arr: []string{}}
	for _, f := range fs {
		v.arr = append(v.arr, f.val)
		v.known = v.known && !f.dyn
	}
	return v
}

// withPositional walks what f walks with the positional parameters pos
// ($1 …, $@): those of a function call or of bash -c. They are the line's
// again afterwards.
func (a *analyzer) withPositional(pos varVal, f func() stream) stream {
	saved, had := a.vars["@"]
	a.setVar("@", pos)
	out := f()
	a.vars = putBack(a.vars, "@", saved, had)
	return out
}
