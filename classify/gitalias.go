package classify

import (
	"slices"
	"strings"
)

// gitSubAt returns the index in args of git's subcommand, skipping global
// options; -1 when there is none.
func gitSubAt(args []field) int {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if strings.HasPrefix(v, "-") {
			if gitValueOpts.has(v) {
				i++
			}
			continue
		}
		return i
	}
	return -1
}

// gitCallAliases returns the aliases a git call defines for itself: -c
// alias.NAME=VALUE, and --config-env=alias.NAME=VAR, whose value is only
// known at run time. Names are case-insensitive, as git's keys are.
func gitCallAliases(u *unit) map[string]field {
	var al map[string]field
	add := func(kv string, f field, dyn bool) {
		k, v, ok := strings.Cut(kv, "=")
		name, isAlias := strings.CutPrefix(strings.ToLower(k), "alias.")
		if !ok || !isAlias {
			return
		}
		if al == nil {
			al = map[string]field{}
		}
		f.val, f.dyn = v, f.dyn || dyn
		al[name] = f
	}
	end := gitSubAt(u.args)
	if end < 0 {
		end = len(u.args)
	}
	for i := 0; i < end; i++ {
		v := u.args[i].val
		switch {
		case (v == "-c" || v == "--config-env") && i+1 < end:
			i++
			add(u.args[i].val, u.args[i], v == "--config-env")
		case strings.HasPrefix(v, "--config-env="):
			add(strings.TrimPrefix(v, "--config-env="), u.args[i], true)
		}
	}
	return al
}

// runGitAliases classifies a git call whose subcommand is an alias the
// call defines (git -c alias.p=push p): git runs the alias value's
// subcommand with its words before the call's own (one alias may name
// another). The expanded call is run as a git call of its own; a value
// only known at run time makes the call eval-exec. Values starting with
// "!" are shell commands, classified by runGit.
func (a *analyzer) runGitAliases(u *unit) {
	al := gitCallAliases(u)
	if len(al) == 0 {
		return
	}
	args := u.args
	seen := map[string]bool{}
	for {
		i := gitSubAt(args)
		if i < 0 {
			break
		}
		name := strings.ToLower(args[i].val)
		v, ok := al[name]
		if !ok || seen[name] {
			break
		}
		seen[name] = true
		if v.dyn {
			u.script = &stream{traits: trUnknown}
			return
		}
		if strings.HasPrefix(strings.TrimSpace(v.val), "!") {
			break
		}
		words := splitCmdline(v.val)
		next := slices.Clip(args[:i:i])
		for _, w := range words {
			g := v
			g.val = w
			next = append(next, g)
		}
		args = append(next, args[i+1:]...)
	}
	if len(seen) == 0 || len(args) == len(u.args) && slices.EqualFunc(args, u.args, func(x, y field) bool { return x.val == y.val }) {
		return
	}
	c := *u
	c.args = withoutGitAliases(args)
	c.env, c.wrappers = slices.Clip(u.env), slices.Clip(u.wrappers)
	a.run(&c)
}

// withoutGitAliases drops the alias definitions from git's global options,
// so that the expanded call is not expanded again.
func withoutGitAliases(args []field) []field {
	var out []field
	end := gitSubAt(args)
	if end < 0 {
		end = len(args)
	}
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if i < end {
			if (v == "-c" || v == "--config-env") && i+1 < len(args) && strings.HasPrefix(strings.ToLower(args[i+1].val), "alias.") {
				i++
				continue
			}
		}
		out = append(out, args[i])
	}
	return out
}

// splitCmdline splits an alias value into words as git does: at blanks,
// with single and double quotes and backslashes.
func splitCmdline(s string) []string { return splitQuoted(s, true) }

// splitQuoted splits s into words at blanks, a quoted part (single or
// double quotes) kept in its word; escapes: a backslash outside single
// quotes takes the next byte as it is.
func splitQuoted(s string, escapes bool) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escapes && c == '\\' && quote != '\'' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
