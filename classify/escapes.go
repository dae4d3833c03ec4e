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
		"less":  {{"+", "!"}},
		"gdb":   {{"-ex", "shell "}, {"--eval-command", "shell "}, {"-ex", "!"}},
		"emacs": {{"--eval", ""}},
	}
})

// runExecOptions classifies the commands hidden in a program's options.
func (a *analyzer) runExecOptions(u *unit) {
	opts := execOptions()[u.name]
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
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
			case v == o.opt && i+1 < len(u.args):
				val = u.args[i+1].val
			case strings.HasPrefix(v, o.opt+"="):
				val = v[len(o.opt)+1:]
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
			if o.prefix != "" {
				if !strings.HasPrefix(val, o.prefix) {
					continue
				}
				val = val[len(o.prefix):]
			}
			f := u.args[i]
			f.val = val
			a.shellString(u, f)
		}
	}
	if u.name == "gdb" {
		for i, f := range u.args {
			if f.val == "--args" && i+1 < len(u.args) {
				a.run(u.inner("gdb", u.args[i+1:]))
				break
			}
		}
	}
}

var emacsShell = lazyRegexp(`shell-command(?:-to-string)?\s+"((?:[^"\\]|\\.)*)"`)

// sedExec finds GNU sed's e command (e CMD) in a script.
var sedExec = lazyRegexp(`(?m)(?:^|[;{}\n])\s*(?:[0-9$]+(?:,[0-9$]+)?|/[^/]*/)?\s*e\s+([^;\n}]+)`)

// runSed classifies the commands of sed's e command; s///e runs the pattern
// space, which is only known at run time.
func (a *analyzer) runSed(u *unit) (stream, bool) {
	var scripts []field
	explicit := false
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		if (v == "-e" || v == "--expression") && i+1 < len(u.args) {
			scripts = append(scripts, u.args[i+1])
			explicit = true
			i++
		} else if strings.HasPrefix(v, "--expression=") {
			f := u.args[i]
			f.val = v[len("--expression="):]
			scripts = append(scripts, f)
			explicit = true
		}
	}
	if !explicit {
		if ops := u.operands(); len(ops) > 0 {
			scripts = append(scripts, ops[0])
		}
	}
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
	case ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile",
		".zlogin", ".kshrc", ".mkshrc", ".envrc", "rc.local", "crontab", "bash.bashrc", "environment":
		return true
	}
	return strings.Contains(c, "/.git/hooks/") || strings.HasPrefix(c, ".git/hooks/") || strings.HasPrefix(c, "/etc/cron") ||
		strings.HasPrefix(c, "/etc/profile.d/") || strings.HasPrefix(c, "/var/spool/cron/") || strings.HasSuffix(c, "/.ssh/rc") ||
		strings.HasPrefix(c, "/etc/init.d/") || strings.HasPrefix(c, "~/.config/autostart/")
}
