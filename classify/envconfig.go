package classify

import (
	"slices"
	"strconv"
	"strings"
)

// Programs that read options or configuration from the environment: GNU
// tar puts the words of TAR_OPTIONS before its arguments, git reads
// GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n and
// GIT_CONFIG_PARAMETERS as if given with -c. Both are judged as the
// command-line forms they stand for.

// envField returns the value a program started by u sees in the variable
// name: the command's own assignment, else one made earlier on the line
// (taken as exported: a variable the line sets and does not export is
// only missed by the program, which errs on the safe side).
func (a *analyzer) envField(u *unit, name string) (field, bool) {
	for i := len(u.env) - 1; i >= 0; i-- {
		if u.env[i].name == name {
			return u.env[i].val, true
		}
	}
	v, ok := a.vars[name]
	if !ok {
		return field{}, false
	}
	return field{val: v.val, dyn: !v.known, home: v.home}, true
}

// envOptionWords returns the words an options variable (TAR_OPTIONS)
// puts before the program's arguments, split with shell-like quoting; ok
// is false when the value is only known at run time.
func (a *analyzer) envOptionWords(u *unit, name string) (words []field, ok bool) {
	f, set := a.envField(u, name)
	if !set {
		return nil, true
	}
	if f.dyn {
		return nil, false
	}
	for _, w := range splitCmdline(f.val) {
		g := f
		g.val, g.bare = w, w
		words = append(words, g)
	}
	return words, true
}

// optionEnvVars names, per program, the variables whose words it takes as
// leading arguments: GNU tar's, zip's and unzip's (whose manuals say so),
// man's (MANOPT: -P there picks the pager). Found by red-team round 55:
// tar's were read only for the commands its options run, not for -C, and
// zip's and unzip's not at all.
var optionEnvVars = map[string][]string{
	"tar": {"TAR_OPTIONS"}, "gtar": {"TAR_OPTIONS"},
	"zip": {"ZIPOPT", "ZIP"}, "unzip": {"UNZIP", "UNZIPOPT"}, "zipinfo": {"ZIPINFO", "ZIPINFOOPT"},
	"man": {"MANOPT"},
	// pytest's (round 60: -p NAME there loads a plugin).
	"pytest": {"PYTEST_ADDOPTS"}, "py.test": {"PYTEST_ADDOPTS"},
}

// optionEnvArgs puts the words of the program's options variables in its
// arguments, where it reads them: first, or, after an old-style first
// word (tar cf out.tar), after that word and its values (tar treats the
// cluster as written first). Every rule then judges them as written on
// the line. A value only known at run time makes the call run unknown
// code.
func (a *analyzer) optionEnvArgs(u *unit) {
	if u.optEnvIn {
		return
	}
	u.optEnvIn = true
	var words []field
	for _, name := range optionEnvVars[u.name] {
		w, ok := a.envOptionWords(u, name)
		if !ok {
			u.script = &stream{traits: trUnknown}
		}
		words = append(words, w...)
	}
	if len(words) == 0 {
		return
	}
	at := 0
	if _, n := oldStyleValues(u.name, u.args); n > 0 || len(u.args) > 0 && oldStyleWord(u.name, u.args[0]) {
		at = 1 + n
	}
	u.args = slices.Concat(u.args[:at], words, u.args[at:])
}

// oldStyleWord reports whether f is an old-style first word of name's (a
// cluster of option letters without a dash: tar xv).
func oldStyleWord(name string, f field) bool {
	if _, ok := oldStyleValueLetters[name]; !ok || f.dyn || f.val == "" || f.val[0] == '-' {
		return false
	}
	return strings.Trim(f.val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// gitEnvConfig returns the settings git takes from the environment, as
// the words of -c options (-c KEY=VALUE); ok is false when one of them is
// only known at run time.
func (a *analyzer) gitEnvConfig(u *unit) (args []field, ok bool) {
	add := func(k, v field) {
		f := v
		f.val = k.val + "=" + v.val
		f.dyn = k.dyn || v.dyn
		args = append(args, field{val: "-c"}, f)
	}
	if n, set := a.envField(u, "GIT_CONFIG_COUNT"); set {
		if n.dyn {
			return nil, false
		}
		count, err := strconv.Atoi(strings.TrimSpace(n.val))
		if err != nil || count > 64 {
			count = 64 // git refuses a bad count; look at what may be there
		}
		for i := 0; i < count; i++ {
			k, kset := a.envField(u, "GIT_CONFIG_KEY_"+strconv.Itoa(i))
			v, vset := a.envField(u, "GIT_CONFIG_VALUE_"+strconv.Itoa(i))
			if !kset && !vset {
				continue
			}
			if k.dyn || v.dyn {
				return nil, false
			}
			add(k, v)
		}
	}
	if p, set := a.envField(u, "GIT_CONFIG_PARAMETERS"); set {
		if p.dyn {
			return nil, false
		}
		// 'key'='value' pairs, quoted as the shell quotes: git -c
		// passes them on this way.
		for _, kv := range splitCmdline(p.val) {
			k, v, _ := strings.Cut(kv, "=")
			add(field{val: k}, field{val: v})
		}
	}
	return args, true
}

// gitConfigEnvArgs returns git's arguments with each --config-env=KEY=VAR
// (--config-env KEY=VAR) before the subcommand written as the -c
// KEY=VALUE it stands for: git sets KEY to the value of the environment
// variable VAR, a run-time value when the line does not set it. changed
// is false when there is none.
func (a *analyzer) gitConfigEnvArgs(u *unit) (args []field, changed bool) {
	end := gitSubAt(u.args)
	if end < 0 {
		end = len(u.args)
	}
	if !slices.ContainsFunc(u.args[:end], func(f field) bool { return strings.HasPrefix(f.val, "--config-env") }) {
		return nil, false // the common case: no copy
	}
	for i := 0; i < end; i++ {
		f := u.args[i]
		spec, eq := strings.CutPrefix(f.val, "--config-env=")
		switch {
		case eq:
		case f.val == "--config-env" && i+1 < end:
			i++
			f = u.args[i]
			spec = f.val
		default:
			args = append(args, f)
			continue
		}
		k, name, _ := strings.Cut(spec, "=")
		v, set := a.envField(u, name)
		if !set {
			v = field{dyn: true} // the environment's
		}
		g := f
		g.val, g.dyn = k+"="+v.val, f.dyn || v.dyn
		args = append(args, field{val: "-c"}, g)
		changed = true
	}
	return append(args, u.args[end:]...), changed
}

// gitConfigFiles name configuration files git reads instead of the user's
// or the system's. Set to anything but /dev/null, they make the settings
// unknown: the file may be one the line wrote.
var gitConfigFiles = []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"}

// gitConfigFromFile reports whether git reads a configuration file the
// line names in the environment.
func (a *analyzer) gitConfigFromFile(u *unit) bool {
	for _, n := range gitConfigFiles {
		if f, set := a.envField(u, n); set && (f.dyn || f.val != "/dev/null") {
			return true
		}
	}
	return false
}
