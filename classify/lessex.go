package classify

import (
	"strings"
)

// less runs commands and writes files from its options and settings
// (found by red-team round 48):
//
//   - a +CMD option, on the line or in $LESS, is a sequence of less
//     commands run at start: `!cmd` runs cmd in a shell (+G!cmd, +!cmd),
//     `|Xcmd` pipes to cmd; each is judged as the shell code it is;
//   - a lesskey file (--lesskey-src FILE, -k FILE, $LESSKEYIN, $LESSKEY,
//     $LESSKEY_CONTENT) may set LESSOPEN in its #env section, which less
//     runs on the file it opens: escalated, and the settings judged where
//     the line shows them;
//   - -o FILE, -O FILE, --log-file=FILE copy the input into FILE.
//
// zless and the other wrappers pass their options to less.

// lessNames are less and the wrappers that hand it their options.
var lessNames = newSet("less", "zless", "bzless", "xzless", "lzless", "zstdless")

// lesskeyVars name a lesskey file (or, LESSKEY_CONTENT, hold one).
var lesskeyVars = []string{"LESSKEYIN", "LESSKEY", "LESSKEYIN_SYSTEM", "LESSKEY_SYSTEM", "LESSKEY_CONTENT"}

// lesskeyCommandVars are the settings of a lesskey #env section that run
// commands.
var lesskeyCommandVars = newSet("LESSOPEN", "LESSCLOSE", "LESSEDIT", "VISUAL", "EDITOR", "SHELL", "LESSSECURE_ALLOW")

// lessOptions returns less's options: the words of $LESS (the unit's own
// assignment, else the value the line gave the variable), then its
// arguments.
func (a *analyzer) lessOptions(u *unit) []field {
	var out []field
	if v, ok := a.envField(u, "LESS"); ok {
		out = lessEnvWords(v)
	}
	return append(out, u.args...)
}

// lessEnvWords splits $LESS into options: a + option runs to the next
// '$' or the end, another to a blank or a '$' (which ends a string option
// such as -P's prompt).
func lessEnvWords(v field) []field {
	var out []field
	rest := v.val
	for rest != "" {
		rest = strings.TrimLeft(rest, " \t")
		sep := " $"
		if strings.HasPrefix(rest, "+") {
			sep = "$"
		}
		word, after := rest, ""
		if i := strings.IndexAny(rest, sep); i >= 0 {
			word, after = rest[:i], rest[i+1:]
		}
		if word != "" {
			out = append(out, field{val: word, dyn: v.dyn, home: v.home})
		}
		rest = after
	}
	return out
}

// lessWriteTargets returns the log files less writes, from its arguments
// and its own $LESS assignment (see writeTargets).
func lessWriteTargets(u *unit) []field {
	var opts []field
	for _, e := range u.env {
		if e.name == "LESS" {
			opts = lessEnvWords(e.val)
		}
	}
	return lessLogFiles(append(opts, u.args...))
}

// runLess judges what less runs and writes (see above).
func (a *analyzer) runLess(u *unit) {
	opts := a.lessOptions(u)
	lesskey := false
	for i, f := range opts {
		v := f.val
		switch {
		case strings.HasPrefix(v, "+"):
			a.lessStartCommands(u, f)
		case strings.HasPrefix(v, "--lesskey") || strings.HasPrefix(v, "-k"):
			lesskey = true
			a.lesskeySource(u, opts, i)
		}
	}
	for _, name := range lesskeyVars {
		if v, ok := a.envField(u, name); ok && (v.dyn || v.val != "") {
			lesskey = true
			if name == "LESSKEY_CONTENT" && !v.dyn {
				a.lesskeyText(u, v.val)
			} else if s, ok := a.operandStream(u, v, true); ok && s.textKnown {
				a.lesskeyText(u, s.text)
			}
		}
	}
	if lesskey {
		// The file's #env section is only known at run time.
		u.script = &stream{traits: trUnknown}
	}
	if u.piped {
		for _, f := range lessLogFiles(opts) {
			a.writeText(u, f, u.in, false) // … | less -o ~/.bashrc
		}
	}
}

// lessStartCommands judges the shell commands of the + option f.
func (a *analyzer) lessStartCommands(u *unit, f field) {
	for _, cmd := range lessShellCommands(strings.TrimPrefix(f.val, "+")) {
		g := f
		g.val = cmd
		a.shellString(u, g)
	}
}

// pagerLess judges, for a program that may start less as its pager (git
// -p log, man ls), the + options $LESS gives it, and man's -r prompt,
// which man hands less in $LESS (man -r 'x$+!cmd$' ls). Found by red-team
// round 49.
func (a *analyzer) pagerLess(u *unit) {
	var words []field
	if v, ok := a.envField(u, "LESS"); ok {
		words = lessEnvWords(v)
	}
	if u.name == "man" {
		for i, f := range u.args {
			switch {
			case (f.val == "-r" || f.val == "--prompt") && i+1 < len(u.args):
				words = append(words, lessEnvWords(field{val: "-P" + u.args[i+1].val})...)
			case strings.HasPrefix(f.val, "--prompt="):
				words = append(words, lessEnvWords(field{val: "-P" + strings.TrimPrefix(f.val, "--prompt=")})...)
			case strings.HasPrefix(f.val, "-r") && len(f.val) > 2:
				words = append(words, lessEnvWords(field{val: "-P" + f.val[2:]})...)
			}
		}
	}
	for _, f := range words {
		if strings.HasPrefix(f.val, "+") {
			a.lessStartCommands(u, f)
		}
	}
}

// lesskeySource judges the lesskey text the option at opts[i] names,
// where the line knows it (the piped input as /dev/stdin, a file it wrote).
func (a *analyzer) lesskeySource(u *unit, opts []field, i int) {
	v := opts[i].val
	var src field
	switch {
	case strings.HasPrefix(v, "--") && strings.Contains(v, "="):
		src = opts[i]
		_, src.val, _ = strings.Cut(v, "=")
	case len(v) > 2 && !strings.HasPrefix(v, "--"):
		src = opts[i]
		src.val = v[2:] // -kFILE
	case i+1 < len(opts):
		src = opts[i+1]
	default:
		return
	}
	if s, ok := a.operandStream(u, src, true); ok && s.textKnown {
		a.lesskeyText(u, s.text)
	}
}

// lesskeyText judges the command settings of a lesskey source's #env
// section (LESSOPEN=|cmd %s): the command as shell code.
func (a *analyzer) lesskeyText(u *unit, text string) {
	for _, line := range strings.Split(text, "\n") {
		name, val, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || !lesskeyCommandVars.has(strings.TrimSpace(name)) {
			continue
		}
		val = strings.TrimLeft(strings.TrimSpace(val), "|-")
		a.shellString(u, field{val: strings.ReplaceAll(val, "%s", "FILE")})
	}
}

// lessShellCommands returns the shell commands in a sequence of less
// commands: what follows ! (or |X, a pipe from mark X) up to a newline. A
// search or filter pattern (/, ?, &) runs to a newline too, and is skipped.
func lessShellCommands(cmds string) []string {
	var out []string
	for i := 0; i < len(cmds); i++ {
		var start int
		switch cmds[i] {
		case '/', '?', '&':
			if end := strings.IndexByte(cmds[i:], '\n'); end >= 0 {
				i += end
			} else {
				i = len(cmds)
			}
			continue
		case '!':
			start = i + 1
		case '|':
			start = i + 2 // |X: X names the mark
		default:
			continue
		}
		if start > len(cmds) {
			break
		}
		end := strings.IndexByte(cmds[start:], '\n')
		if end < 0 {
			end = len(cmds) - start
		}
		if c := strings.TrimSpace(cmds[start : start+end]); c != "" {
			out = append(out, c)
		}
		i = start + end
	}
	return out
}

// lessLogFiles returns the files -o, -O and --log-file (--LOG-FILE) name.
func lessLogFiles(opts []field) []field {
	var out []field
	for i, f := range opts {
		v := f.val
		switch {
		case strings.HasPrefix(v, "--log-file=") || strings.HasPrefix(v, "--LOG-FILE="):
			g := f
			_, g.val, _ = strings.Cut(v, "=")
			out = append(out, g)
		case (v == "--log-file" || v == "--LOG-FILE" || v == "-o" || v == "-O") && i+1 < len(opts):
			out = append(out, opts[i+1])
		case len(v) > 2 && (strings.HasPrefix(v, "-o") || strings.HasPrefix(v, "-O")):
			g := f
			g.val = v[2:]
			out = append(out, g)
		}
	}
	return out
}

// pagerBooleans are the values of git's pager.<cmd> that turn paging on or
// off rather than name a pager.
var pagerBooleans = newSet("true", "false", "yes", "no", "on", "off", "1", "0", "")

// pagers returns the pagers git or man hands its output to where it goes
// to a terminal: git's core.pager and pager.<cmd> (-c), GIT_PAGER and
// PAGER; man's -P/--pager (also from MANOPT), MANPAGER and PAGER.
func (a *analyzer) pagers(u *unit) []field {
	var out []field
	env := func(names ...string) {
		for _, n := range names {
			if f, ok := a.envField(u, n); ok {
				out = append(out, f)
			}
		}
	}
	switch u.name {
	case "git":
		// -c, and what stands for it: GIT_CONFIG_COUNT/KEY/VALUE,
		// GIT_CONFIG_PARAMETERS, --config-env (round 56).
		args := u.args
		if withEnv, changed := a.gitConfigEnvArgs(u); changed {
			args = withEnv
		}
		if cfg, ok := a.gitEnvConfig(u); ok {
			args = append(cfg, args...)
		}
		for i := 0; i+1 < len(args); i++ {
			if args[i].val != "-c" {
				continue
			}
			k, v, _ := strings.Cut(args[i+1].val, "=")
			k = strings.ToLower(k)
			if k == "core.pager" || strings.HasPrefix(k, "pager.") && !pagerBooleans.has(strings.ToLower(v)) {
				f := args[i+1]
				f.val = v
				out = append(out, f)
			}
		}
		env("GIT_PAGER", "PAGER")
	case "man":
		for i, f := range u.args {
			switch {
			case (f.val == "-P" || f.val == "--pager") && i+1 < len(u.args):
				out = append(out, u.args[i+1])
			case strings.HasPrefix(f.val, "--pager="), strings.HasPrefix(f.val, "-P") && len(f.val) > 2:
				g := f
				g.val = strings.TrimPrefix(strings.TrimPrefix(f.val, "--pager="), "-P")
				out = append(out, g)
			}
		}
		env("MANPAGER", "PAGER")
	}
	return out
}

// pagerRuns judges a pager of u's that runs what it reads as code (git -c
// core.pager=sh log, PAGER=sh man -l x.1, man -P sh): as `u | PAGER`, fed
// u's output (found by red-team round 55). A pager only known at run time
// is judged where it is set (riskyEnv, execOptions).
func (a *analyzer) pagerRuns(u *unit, out stream) {
	for _, p := range a.pagers(u) {
		if p.dyn || strings.TrimSpace(p.val) == "" {
			continue
		}
		// git runs a pager with metacharacters through sh -c: the
		// value is judged as that script, fed u's output (env sh,
		// cat|sh, exec sh: round 56).
		o := out
		a.script(p.val, &o)
	}
}
