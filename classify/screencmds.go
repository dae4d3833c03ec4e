package classify

import (
	"strconv"
	"strings"
)

// GNU screen's own commands (found by red-team round 58): its start-up
// files (~/.screenrc, $SCREENRC, -c FILE) hold them, and screen -X sends
// them to a running session. Some run what they are given: screen CMD
// and exec CMD start a program, stuff types keys into a window's shell,
// eval, bind and at run screen commands, source reads a file of them,
// shell names the program new windows run; logfile, hardcopy and
// writebuf write files. They are judged as the command, shell text or
// write they are, as tmux's are (tmux.go).

// screenRun says what a screen command's arguments are: 'r' a program and
// its arguments (after screen's own options for 'screen'), 'x' the same
// after an optional descriptor pattern (exec), 'k' keys typed, 'e' screen
// commands, 'b' a key then a screen command (bind), 'a' a window then a
// screen command (at), 'f' a file of screen commands, 'p' the program new
// windows run, 'w' a file written.
var screenRun = map[string]byte{"screen": 'r', "exec": 'x', "stuff": 'k', "eval": 'e', "bind": 'b',
	"bindkey": 'b', "at": 'a', "source": 'f', "shell": 'p', "defshell": 'p', "logfile": 'w', "hardcopy": 'w',
	"writebuf": 'w'}

// screenCommands judges what u, a screen command line, runs: the commands
// -X sends to a session, and the start-up file given by -c or $SCREENRC.
// A start-up file the line did not write keeps u from allow (its commands
// run unseen), as tmux -f does.
func (a *analyzer) screenCommands(u *unit) {
	if u.name != "screen" || u.dynName {
		return
	}
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		if v == "-Logfile" {
			i++
			continue
		}
		if v == "--" || len(v) < 2 || v[0] != '-' || strings.HasPrefix(v, "--") {
			break
		}
		j := strings.IndexAny(v[1:], screenValues) + 1
		switch {
		case j == 0:
		case v[j] == 'X':
			words := u.args[i+1:]
			if j+1 < len(v) {
				g := u.args[i]
				g.val = v[j+1:]
				words = append([]field{g}, words...)
			}
			a.screenCommand(u, words)
			return
		case j+1 == len(v):
			i++ // the option's value
		}
		if j == 0 && strings.IndexByte(screenOptional, v[len(v)-1]) >= 0 && i+1 < len(u.args) && !strings.HasPrefix(u.args[i+1].val, "-") {
			i++ // -x SESSION, -r SESSION, -d PID
		}
	}
	rc, ok := a.envField(u, "SCREENRC")
	if f := optValues(u, "c"); len(f) > 0 {
		rc, ok = f[len(f)-1], true
	}
	if ok && len(a.writtenTexts(u, nil, rc)) == 0 {
		c := *u
		a.emit(&c) // screen -c x.rc: commands the line cannot see
	}
}

// screenValues are screen's short options that take a value, and
// screenOptional those that take one when a word not an option follows.
const (
	screenValues   = "SpcTtehsX"
	screenOptional = "dDrRx"
)

// screenString judges a text of screen commands, one a line.
func (a *analyzer) screenString(u *unit, text string) {
	for l := range strings.Lines(text) {
		a.screenCommand(u, screenWords(l))
	}
}

// screenWords splits a line of screen commands into words: blanks
// separate them, '…' and "…" quote, a backslash escapes, # starts a
// comment.
func screenWords(line string) []field {
	var out []field
	for _, w := range tmuxWords(field{val: line}) {
		if w.val != ";" {
			out = append(out, w)
		}
	}
	return out
}

// screenCommand judges one screen command and its arguments.
func (a *analyzer) screenCommand(u *unit, words []field) {
	if len(words) == 0 || a.depth >= maxDepth {
		return
	}
	a.depth++
	defer func() { a.depth-- }()
	rest := words[1:]
	if words[0].dyn {
		u.script = &stream{traits: trUnknown} // a command only known at run time
		return
	}
	switch screenRun[words[0].val] {
	case 'r':
		a.runWrapper(u, "screen", wrappers()["screen"], rest)
	case 'x':
		if len(rest) > 0 && strings.Trim(rest[0].val, ".!:|") == "" {
			rest = rest[1:] // exec !.. CMD: the descriptors' pattern
		}
		a.argvOrShell(u, "screen", rest)
	case 'k':
		for _, k := range rest {
			a.shellString(u, screenKeys(k))
		}
	case 'e':
		for _, c := range rest {
			a.screenString(u, c.val)
		}
	case 'b', 'a':
		for len(rest) > 0 && strings.HasPrefix(rest[0].val, "-") {
			if rest[0].val == "-c" || rest[0].val == "-k" || rest[0].val == "-t" {
				rest = rest[1:]
			}
			rest = rest[1:]
		}
		if len(rest) > 1 {
			a.screenCommand(u, rest[1:])
		}
	case 'f':
		for _, f := range rest {
			a.sourcedFile(u, "screen", f)
		}
	case 'p':
		if len(rest) > 0 {
			a.run(u.inner("screen", rest[:1]))
		}
	case 'w':
		for len(rest) > 0 && strings.HasPrefix(rest[0].val, "-") {
			rest = rest[1:]
		}
		if len(rest) > 0 && rest[0].val != "flush" {
			a.toolWrite(u, rest[0], unknownText, true)
		}
	}
}

// screenKeys returns the text stuff types: screen's string escapes
// (\n, \r, \t, \NNN octal, ^X control characters) resolved.
func screenKeys(f field) field {
	var b strings.Builder
	s := f.val
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n', 'r':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				j := i
				for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				if n, err := strconv.ParseUint(s[i:j], 8, 8); err == nil && j > i {
					b.WriteByte(byte(n))
					i = j - 1
				} else {
					b.WriteByte(s[i])
				}
			}
		case c == '^' && i+1 < len(s):
			i++
			if s[i] == 'M' || s[i] == 'J' {
				b.WriteByte('\n')
			} else {
				b.WriteByte(s[i] & 0x1f)
			}
		default:
			b.WriteByte(c)
		}
	}
	f.val = b.String()
	return f
}
