package classify

import (
	"strings"
	"sync"
)

// Programs that run shell commands given in their options: tar's checkpoint
// actions, rsync's remote shell, vim's :!cmd, gdb's shell, sed's e command,
// crontab and at reading a schedule or commands on standard input.

// execOption names an option whose value (after an optional prefix) is a
// shell command.
type execOption struct {
	opt    string // "--to-command", "-I"; with a trailing '=' the value is attached
	prefix string // strip this from the value ("exec=" in --checkpoint-action=exec=CMD)
}

var execOptions = sync.OnceValue(func() map[string][]execOption {
	return map[string][]execOption{
		"tar":   {{"--checkpoint-action=", "exec="}, {"--to-command", ""}, {"--use-compress-program", ""}, {"-I", ""}, {"--rsh-command", ""}, {"--info-script", ""}, {"--new-volume-script", ""}, {"-F", ""}},
		"zip":   {{"-TT", ""}, {"--unzip-command", ""}},
		"rsync": {{"-e", ""}, {"--rsh", ""}, {"--rsync-path", ""}},
		"scp":   {{"-S", ""}},
		"man":   {{"-P", ""}, {"--pager", ""}},
		"vim":   {{"-c", "!"}, {"+", "!"}, {"--cmd", "!"}},
		"vi":    {{"-c", "!"}, {"+", "!"}},
		"nvim":  {{"-c", "!"}, {"+", "!"}, {"--cmd", "!"}},
		"view":  {{"-c", "!"}, {"+", "!"}},
		"ex":    {{"-c", "!"}, {"+", "!"}},
		"emacs": {{"--eval", ""}},
		"make":  {{"--eval", ""}, {"-E", ""}}, // a makefile snippet: makeEvals finds every form
		"gmake": {{"--eval", ""}, {"-E", ""}},
		"split": {{"--filter", ""}},
		"sort":  {{"--compress-program", ""}},
		"gdb":   {}, // gdbCommands reads -ex and the like
		// script takes options after its log file, and runs the last -c:
		// each is judged (the wrapper reads only one before the file).
		"script": {{"-c", ""}, {"--command", ""}},
		// strace -o '|cmd' (or '!cmd') pipes the trace into sh -c cmd.
		"strace": {{"-o", "|"}, {"-o", "!"}, {"--output", "|"}, {"--output", "!"}},
		"go":     {{"-exec", ""}, {"--exec", ""}, {"-toolexec", ""}, {"--toolexec", ""}},
		"gcc":    {{"-wrapper", ""}},
		"g++":    {{"-wrapper", ""}},
		"cc":     {{"-wrapper", ""}},

		// GNU remake is GNU make (buildsystems.go).
		"remake": {{"--eval", ""}, {"-E", ""}},
	}
})

// makeFlags returns make's arguments after the options MAKEFLAGS and
// GNUMAKEFLAGS give it (MAKEFLAGS='--eval=…' make: found by red-team round
// 52). A value only known at run time whose known text holds --eval or -E
// makes the call run unknown code; others ("$MAKEFLAGS -j4", -j$(nproc))
// are left.
func (a *analyzer) makeFlags(u *unit) []field {
	var args []field
	for _, name := range []string{"GNUMAKEFLAGS", "MAKEFLAGS"} {
		f, set := a.envField(u, name)
		switch {
		case !set:
		case f.dyn:
			if strings.Contains(f.val, "eval") || strings.Contains(f.val, "-E") {
				u.script = &stream{traits: trUnknown}
			}
		default:
			for _, w := range splitCmdline(f.val) {
				g := f
				g.val, g.bare = w, w
				args = append(args, g)
			}
		}
	}
	return append(args, u.args...)
}

// runExecOptions classifies the commands hidden in a program's options.
func (a *analyzer) runExecOptions(u *unit) {
	if u.name == "make" || u.name == "gmake" || u.name == "remake" {
		args := a.makeFlags(u)
		for _, f := range makeEvals(args) {
			a.makefile(u, f)
		}
		a.makeVarDefs(u, args)
		return
	}
	opts := execOptions()[u.name]
	args := u.args // with its options variables' words (optionEnvArgs)
	if u.name == "tar" {
		args = tarOldStyle(args)
	}
	for i := 0; i < len(args); i++ {
		v := args[i].val
		for _, o := range opts {
			var val string
			switch {
			case strings.HasSuffix(o.opt, "="):
				if !strings.HasPrefix(v, o.opt) {
					continue
				}
				val = v[len(o.opt):]
			case o.opt == "+":
				if !strings.HasPrefix(v, "+") {
					continue
				}
				val = strings.TrimPrefix(strings.TrimPrefix(v[1:], ":"), "silent ")
			case strings.HasPrefix(v, o.opt+"="):
				val = v[len(o.opt)+1:]
			case longAbbrev(v, o.opt) && strings.Contains(v, "="):
				_, val, _ = strings.Cut(v, "=")
			case (v == o.opt || longAbbrev(v, o.opt)) && i+1 < len(args):
				val = args[i+1].val
			case len(o.opt) == 2 && o.opt[0] == '-':
				// In a cluster or attached: tar -xvI'PROG', -xI PROG, strace -o'|cmd'.
				rest, next, ok := shortInCluster(v, o.opt[1], shortValueLetters[u.name])
				switch {
				case !ok:
					continue
				case next && i+1 < len(args):
					val = args[i+1].val
				case next:
					continue
				default:
					val = rest
				}
			default:
				continue
			}
			val = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(val), ":"), "silent ")
			if u.name == "emacs" {
				for _, s := range emacsShell().FindAllStringSubmatch(val, -1) {
					a.shellString(u, field{val: s[1]})
				}
				continue
			}
			if o.prefix == "!" && vimLike.has(u.name) {
				f := args[i]
				f.val = val
				a.vimEx(u, f) // also :!cmd after a |, system(), :read !cmd
				continue
			}
			if o.prefix != "" {
				if !strings.HasPrefix(val, o.prefix) {
					continue
				}
				val = val[len(o.prefix):]
			}
			f := args[i]
			f.val = val
			if o.opt == "-wrapper" {
				// gcc runs PROG,ARG,… with the compiler's command after.
				var words []field
				for _, w := range strings.Split(val, ",") {
					words = append(words, field{val: w, dyn: f.dyn})
				}
				a.run(u.inner(u.name, words))
				continue
			}
			a.shellString(u, f)
		}
	}
	if u.name == "gdb" {
		a.gdbCommands(u)
		for i, f := range u.args {
			if f.val == "--args" && i+1 < len(u.args) {
				a.run(u.inner("gdb", u.args[i+1:]))
				break
			}
		}
	}
}

// shortValueLetters are, per program, the short options that take a value,
// so that a cluster is read as getopt reads it (tar -fI: I is -f's value).
var shortValueLetters = map[string]string{
	"tar":    "fCTXbgHKLNVFI",
	"strace": "abeEIoOpPsSuUX",
	"script": "ETIOBmoc",
}

// shortInCluster finds the short option letter in the option word v (-xvI,
// -oVALUE): the rest of the word is its value, or the next word when the
// rest is empty (next). A letter in valueLetters before it takes the rest
// as its own value, so letter is not there.
func shortInCluster(v string, letter byte, valueLetters string) (rest string, next, ok bool) {
	if len(v) < 2 || v[0] != '-' || v[1] == '-' {
		return "", false, false
	}
	for j := 1; j < len(v); j++ {
		switch c := v[j]; {
		case c == letter:
			return v[j+1:], j+1 == len(v), true
		case strings.IndexByte(valueLetters, c) >= 0,
			!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'):
			return "", false, false
		}
	}
	return "", false, false
}

// tarOldStyle rewrites tar's old-style first word (tar xIf PROG x.tar: the
// letters of the word, each value-taking one consuming the next word) into
// dashed options, so -I's value is found as in tar -x -I PROG -f x.tar.
func tarOldStyle(args []field) []field {
	if len(args) == 0 || strings.HasPrefix(args[0].val, "-") || args[0].dyn {
		return args
	}
	w := args[0].val
	for i := 0; i < len(w); i++ {
		if !(w[i] >= 'a' && w[i] <= 'z' || w[i] >= 'A' && w[i] <= 'Z') {
			return args
		}
	}
	var out []field
	rest := args[1:]
	for i := 0; i < len(w); i++ {
		out = append(out, field{val: "-" + w[i:i+1]})
		if strings.IndexByte(shortValueLetters["tar"], w[i]) >= 0 && len(rest) > 0 {
			out, rest = append(out, rest[0]), rest[1:]
		}
	}
	return append(out, rest...)
}

// longAbbrev reports whether v (--opt or --opt=value) abbreviates the long
// option opt, as getopt_long takes any unambiguous prefix (tar --to-c=CMD
// is --to-command): three letters at least; an ambiguous one is taken too,
// the stricter reading.
func longAbbrev(v, opt string) bool {
	name, _, _ := strings.Cut(v, "=")
	return strings.HasPrefix(opt, "--") && strings.HasPrefix(name, "--") && len(name) >= 5 && len(name) < len(opt) && strings.HasPrefix(opt, name)
}

// argvOrShell runs the command words a program hands on the way git and
// tmux do: one word is a shell string, several are a command and its
// arguments.
func (a *analyzer) argvOrShell(u *unit, via string, words []field) {
	switch {
	case len(words) == 1:
		a.shellString(u, words[0])
	case len(words) > 1:
		a.run(u.inner(via, words))
	}
}

// hyperfineOpt is one of hyperfine's options that take values: how many,
// and what the value is.
type hyperfineOpt struct {
	n    int
	kind byte // 'c' a command it runs, 'L' a parameter list, 'P' a parameter scan, 'S' the shell, 0 other
}

// hyperfineOpts are hyperfine's options that take values (clap: --opt V,
// --opt=V, -oV, -o=V, -o V; a short flag cluster ends at the first letter
// that takes a value).
var hyperfineOpts = map[string]hyperfineOpt{"-w": {1, 0}, "--warmup": {1, 0}, "-m": {1, 0}, "--min-runs": {1, 0},
	"-M": {1, 0}, "--max-runs": {1, 0}, "-r": {1, 0}, "--runs": {1, 0}, "-s": {1, 'c'}, "--setup": {1, 'c'},
	"-p": {1, 'c'}, "--prepare": {1, 'c'}, "-c": {1, 'c'}, "--cleanup": {1, 'c'}, "--conclude": {1, 'c'},
	"--reference": {1, 'c'}, "-P": {3, 'P'}, "--parameter-scan": {3, 'P'}, "-D": {1, 0}, "--parameter-step-size": {1, 0},
	"-L": {2, 'L'}, "--parameter-list": {2, 'L'}, "-S": {1, 'S'}, "--shell": {1, 'S'}, "--style": {1, 0},
	"--sort": {1, 0}, "-u": {1, 0}, "--time-unit": {1, 0}, "--export-asciidoc": {1, 0}, "--export-csv": {1, 0},
	"--export-json": {1, 0}, "--export-markdown": {1, 0}, "--export-orgmode": {1, 0}, "--output": {1, 0},
	"--input": {1, 0}, "-n": {1, 0}, "--command-name": {1, 0}, "--reference-name": {1, 0}}

// maxHyperfineRuns bounds the parameter combinations tried per command.
const maxHyperfineRuns = 64

// runHyperfine classifies the commands hyperfine times: every operand and
// the value of every command option is a shell string, with each value of
// the -L/-P parameters substituted for {name}; the shell -S names runs too.
func (a *analyzer) runHyperfine(u *unit) (stream, bool) {
	var cmds []field
	type param struct {
		name string
		vals []field
	}
	var params []param
	args := u.args
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			cmds = append(cmds, args[i+1:]...)
			break
		}
		if len(v) < 2 || v[0] != '-' {
			cmds = append(cmds, args[i])
			continue
		}
		var o hyperfineOpt
		var vals []field
		found := false
		if strings.HasPrefix(v, "--") {
			name, val, eq := strings.Cut(v, "=")
			if o, found = hyperfineOpts[name]; found && eq {
				f := args[i]
				f.val = val
				vals = append(vals, f)
			}
		} else {
			for j := 1; j < len(v) && !found; j++ {
				if o, found = hyperfineOpts["-"+v[j:j+1]]; found {
					if att := strings.TrimPrefix(v[j+1:], "="); j+1 < len(v) {
						f := args[i]
						f.val = att
						vals = append(vals, f)
					}
				}
			}
		}
		if !found {
			continue
		}
		for len(vals) < o.n && i+1 < len(args) {
			i++
			vals = append(vals, args[i])
		}
		switch {
		case o.kind == 'c' && len(vals) > 0:
			cmds = append(cmds, vals[0])
		case o.kind == 'S' && len(vals) > 0:
			a.shellString(u, vals[0])
		case o.kind == 'L' && len(vals) == 2:
			var list []field
			for _, s := range strings.Split(vals[1].val, ",") {
				g := vals[1]
				g.val = s
				list = append(list, g)
			}
			params = append(params, param{vals[0].val, list})
		case o.kind == 'P' && len(vals) == 3:
			params = append(params, param{vals[0].val, vals[1:]})
		}
	}
	for _, c := range cmds {
		runs := []field{c}
		for _, p := range params {
			ref := "{" + p.name + "}"
			if !strings.Contains(c.val, ref) {
				continue
			}
			var next []field
			for _, r := range runs {
				for _, v := range p.vals {
					if len(next) >= maxHyperfineRuns {
						break
					}
					g := r
					var ok bool
					if g.val, ok = a.paste(r.val, ref, v.val); !ok {
						return stream{traits: trUnknown}, true
					}
					g.dyn = r.dyn || v.dyn
					next = append(next, g)
				}
			}
			runs = next
		}
		for _, r := range runs {
			a.shellString(u, r)
		}
	}
	return stream{traits: trUnknown}, true
}

var emacsShell = lazyRegexp(`shell-command(?:-to-string)?\s+"((?:[^"\\]|\\.)*)"`)

// sedExec finds GNU sed's e command (e CMD) in a script.
var sedExec = lazyRegexp(`(?m)(?:^|[;{}\n])\s*(?:[0-9$]+(?:,[0-9$]+)?|/[^/]*/)?\s*e\s+([^;\n}]+)`)

// runSed classifies the commands of sed's e command; s///e runs the pattern
// space, which is only known at run time.
func (a *analyzer) runSed(u *unit) (stream, bool) {
	scripts, _ := sedScriptsAndFiles(u)
	for _, s := range scripts {
		a.sedScript(u, s)
	}
	return a.produce(u), true
}

// sedScript classifies the commands a sed script runs.
func (a *analyzer) sedScript(u *unit, s field) {
	for _, m := range sedExec().FindAllStringSubmatch(s.val, -1) {
		a.shellString(u, field{val: m[1]})
	}
	if sedSubstExec(s.val) || sedBareExec().MatchString(s.val) {
		// The pattern space runs: the input's lines, edited.
		in := u.in
		if !u.piped {
			in = stream{}
		}
		in.textKnown = false
		in.traits |= trUnknown
		u.script = &in
	}
}

// sedBareExec finds GNU sed's e command without a command: it runs the
// pattern space.
var sedBareExec = lazyRegexp(`(?m)(?:^|[;{}\n])\s*(?:[0-9$]+(?:,[0-9$]+)?|/[^/]*/)?\s*e\s*(?:$|[;}\n])`)

// sedSubstExec reports whether a sed script has an s command with the e flag.
func sedSubstExec(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != 's' || (i > 0 && isIdent(s[i-1])) {
			continue
		}
		d := s[i+1]
		if d == ' ' || d == '\\' || d == '\n' || isIdent(d) {
			continue
		}
		parts, j := 0, i+2
		for ; j < len(s) && parts < 2; j++ {
			if s[j] == '\\' {
				j++
				continue
			}
			if s[j] == d {
				parts++
			}
		}
		if parts < 2 {
			continue
		}
		for ; j < len(s) && strings.IndexByte("gpiImMe0123456789w", s[j]) >= 0; j++ {
			if s[j] == 'w' {
				break
			}
			if s[j] == 'e' {
				return true
			}
		}
	}
	return false
}

// runScheduler classifies what crontab or at would run later when the
// schedule or the commands arrive on standard input with known text.
func (a *analyzer) runScheduler(u *unit) (stream, bool) {
	ops := u.operands()
	readsStdin := u.name != "crontab" || len(ops) == 0 || (len(ops) == 1 && ops[0].val == "-")
	if u.name == "crontab" && u.hasFlag("lre") {
		readsStdin = false
	}
	if readsStdin && u.piped && u.in.text != "" {
		for _, line := range strings.Split(u.in.text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if u.name == "crontab" {
				line = cronCommand(line)
			}
			a.script(line, nil)
		}
	}
	if readsStdin && u.piped && !u.in.textKnown {
		s := u.in
		u.script = &s
	}
	return stream{traits: trUnknown}, true
}

// cronCommand strips the schedule from a crontab line.
func cronCommand(line string) string {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return ""
	}
	if strings.HasPrefix(fields[0], "@") {
		return strings.Join(fields[1:], " ")
	}
	if strings.Contains(fields[0], "=") {
		return "" // an environment setting
	}
	if len(fields) > 5 {
		return strings.Join(fields[5:], " ")
	}
	return ""
}

// runFiles are files whose content a shell runs later: writing known text
// to them is classified as running that text.
func runFile(p string) bool {
	c := cleanTarget(p)
	base := c[strings.LastIndexByte(c, '/')+1:]
	switch base {
	case ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile", ".zshrc", ".zshenv", ".zprofile",
		".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".envrc", "rc.local", "crontab", "bash.bashrc", "environment",
		".cshrc", ".tcshrc", ".login", ".logout", ".xprofile", ".xsessionrc", ".xinitrc", ".xsession",
		".mavenrc", "mavenrc": // sourced by mvn's launcher (~/.mavenrc, /etc/mavenrc; round 55)
		return true
	}
	// fish reads ~/.config/fish/config.fish, conf.d/*.fish and functions/*.fish.
	// Debian's and Ubuntu's default ~/.bashrc sources ~/.bash_aliases,
	// Fedora's every file in ~/.bashrc.d.
	return strings.Contains(c, "/.config/fish/") || strings.HasPrefix(c, ".config/fish/") || strings.Contains(c, "/.bashrc.d/") || strings.HasPrefix(c, ".bashrc.d/") || strings.Contains(c, "/.git/hooks/") || strings.HasPrefix(c, ".git/hooks/") || strings.HasPrefix(c, "/etc/cron") ||
		strings.HasPrefix(c, "/etc/profile.d/") || strings.HasPrefix(c, "/var/spool/cron/") || strings.HasSuffix(c, "/.ssh/rc") ||
		strings.HasPrefix(c, "/etc/init.d/") || strings.HasPrefix(c, "~/.config/autostart/")
}
