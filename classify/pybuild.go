package classify

// pypa's build (python3 -m build, pyproject-build) builds the project in
// its source directory operand (the working directory by default) as pip
// does: it runs setup.py or imports the in-tree build backend
// pyproject.toml names (found by red-team round 62). The written files it
// would run are judged as Python (piplocal.go's pyProjectCode).

// pypaBuildValued are build's options that take the next word as their
// value.
var pypaBuildValued = newSet("-o", "--outdir", "-C", "--config-setting", "--config-json", "--installer")

// pypaBuildCode judges the written project pypa's build (u) builds.
func (a *analyzer) pypaBuildCode(u *unit) {
	if u.name == "build" && !viaPython(u) {
		return // only python -m build: a program named build is another
	}
	dir := "."
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		switch {
		case pypaBuildValued.has(v):
			i++
		case len(v) > 0 && v[0] == '-':
		default:
			dir = v
		}
	}
	a.pyProjectCode(u, dir)
}
