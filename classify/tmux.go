package classify

import (
	"strconv"
	"strings"
)

// tmuxCmd says how a tmux command runs a shell command: its options that
// take values, and whether its words are a command (new-session CMD), a
// shell string (run-shell CMD), tmux commands (if-shell, set-hook,
// bind-key) or keys typed into a pane's shell (send-keys CMD Enter).
type tmuxCmd struct {
	values string
	// kind: 'a' argv or shell string, 's' the first word a shell string
	// (with -C a tmux command), 'i' the first word a shell string (with -F
	// a format) and the others tmux commands, 't' the first word tmux
	// commands, 'h' the second, 'b' the words after the first a tmux
	// command and its arguments, 'k' keys, 'o' an option and its value,
	// 'f' files of tmux commands ("-" standard input), 'w' a file it
	// writes a paste buffer to (round 58).
	kind byte
}

var tmuxCmds = map[string]tmuxCmd{
	"new-session": {"cefFnstxy", 'a'}, "new-window": {"cenFt", 'a'}, "split-window": {"celFtp", 'a'},
	"respawn-pane": {"cet", 'a'}, "respawn-window": {"cet", 'a'}, "display-popup": {"bcdehsStTwxy", 'a'},
	"run-shell": {"cdt", 's'}, "if-shell": {"t", 'i'}, "pipe-pane": {"t", 's'}, "send-keys": {"cNt", 'k'},
	"set-option": {"t", 'o'}, "set-window-option": {"t", 'o'}, "set-hook": {"t", 'h'}, "bind-key": {"NT", 'b'},
	"confirm-before": {"cpt", 't'}, "command-prompt": {"IptT", 't'}, "source-file": {"t", 'f'},
	"save-buffer": {"b", 'w'},
}

// tmuxAliases are tmux's short command names.
var tmuxAliases = map[string]string{"new": "new-session", "neww": "new-window", "splitw": "split-window",
	"respawnp": "respawn-pane", "respawnw": "respawn-window", "popup": "display-popup", "run": "run-shell",
	"if": "if-shell", "pipep": "pipe-pane", "send": "send-keys", "set": "set-option", "setw": "set-window-option",
	"bind": "bind-key", "confirm": "confirm-before", "source": "source-file", "saveb": "save-buffer"}

// tmuxNames are the names of all tmux commands: a command may be given as
// any prefix of its name that no other name shares (tmux's cmd_find).
var tmuxNames = []string{"attach-session", "bind-key", "break-pane", "capture-pane", "choose-buffer", "choose-client",
	"choose-tree", "clear-history", "clear-prompt-history", "clock-mode", "command-prompt", "confirm-before",
	"copy-mode", "customize-mode", "delete-buffer", "detach-client", "display-menu", "display-message",
	"display-popup", "display-panes", "find-window", "has-session", "if-shell", "join-pane", "kill-pane",
	"kill-server", "kill-session", "kill-window", "last-pane", "last-window", "link-window", "list-buffers",
	"list-clients", "list-commands", "list-keys", "list-panes", "list-sessions", "list-windows", "load-buffer",
	"lock-client", "lock-server", "lock-session", "move-pane", "move-window", "new-session", "new-window",
	"next-layout", "next-window", "paste-buffer", "pipe-pane", "previous-layout", "previous-window",
	"refresh-client", "rename-session", "rename-window", "resize-pane", "resize-window", "respawn-pane",
	"respawn-window", "rotate-window", "run-shell", "save-buffer", "select-layout", "select-pane",
	"select-window", "send-keys", "send-prefix", "server-access", "set-buffer", "set-environment", "set-hook",
	"set-option", "set-window-option", "show-buffer", "show-environment", "show-hooks", "show-messages",
	"show-options", "show-prompt-history", "show-window-options", "source-file", "split-window",
	"start-server", "suspend-client", "swap-pane", "swap-window", "switch-client", "unbind-key",
	"unlink-window", "wait-for"}

// tmuxCopyPipes are the copy-mode commands (send-keys -X) that pipe the
// selection to a shell command, their first argument.
var tmuxCopyPipes = newSet("copy-pipe", "copy-pipe-no-clear", "copy-pipe-and-cancel", "copy-pipe-end-of-line",
	"copy-pipe-end-of-line-and-cancel", "copy-pipe-line", "copy-pipe-line-and-cancel", "pipe", "pipe-no-clear",
	"pipe-and-cancel")

// tmuxKeys are key names send-keys turns into what they type.
var tmuxKeys = map[string]string{"Enter": "\n", "C-m": "\n", "C-j": "\n", "KPEnter": "\n", "Space": " ", "Tab": "\t"}

// tmuxName returns the command a name stands for: an alias, a name, or a
// prefix of only one name; "" when none or several.
func tmuxName(name string) string {
	if full, ok := tmuxAliases[name]; ok {
		return full
	}
	found := ""
	for _, n := range tmuxNames {
		if n == name {
			return n
		}
		if strings.HasPrefix(n, name) {
			if found != "" {
				return "" // ambiguous: tmux refuses
			}
			found = n
		}
	}
	return found
}

// runTmux classifies the shell commands tmux runs: tmux -c CMD, and for
// each command of the line (split on ;) new-session/new-window/… CMD,
// run-shell/if-shell/pipe-pane CMD, the text send-keys types and the
// tmux commands if-shell, set-hook and bind-key hold. tmux commands read
// from standard input (source-file -, control mode -C) are classified
// like code a shell reads from it.
func (a *analyzer) runTmux(u *unit) (stream, bool) {
	args := u.args
	stdin := false
	for len(args) > 0 && strings.HasPrefix(args[0].val, "-") && len(args[0].val) > 1 {
		w := args[0]
		args = args[1:]
		if w.val == "--" {
			break
		}
		flags := w.val
		if j := strings.IndexAny(flags[1:], "cfLST") + 1; j > 0 {
			flags = flags[:j]
		}
		stdin = stdin || strings.Contains(flags, "C")
		if val, ok := tmuxValue(w, "cfLST", &args); ok && val.c == 'c' {
			a.shellString(u, val.f)
			a.shellVarRun(u, val.f)
		}
	}
	for _, cmd := range tmuxSplit(args) {
		stdin = a.tmuxCommand(u, cmd) || stdin
	}
	if stdin && u.piped {
		s := u.in
		u.script = &s
		if s.textKnown {
			a.tmuxString(u, field{val: s.text})
		}
	}
	return stream{traits: trUnknown}, true
}

// tmuxString classifies a string of tmux commands (if-shell's commands,
// a hook, a file sourced).
func (a *analyzer) tmuxString(u *unit, f field) {
	if a.depth >= maxDepth {
		a.limit("nesting deeper than 16 levels")
		return
	}
	a.depth++
	for _, cmd := range tmuxSplit(tmuxWords(f)) {
		a.tmuxCommand(u, cmd)
	}
	a.depth--
}

// tmuxWords splits a string of tmux commands into words as tmux's parser
// does: '…' literal, "…" with \ escapes, \x outside quotes, a { … } block
// one word of its text, # at a word's start (not #{) a comment, and ; or
// a newline ending a command (a ";" word, for tmuxSplit; \; stays a word
// ending in \; that tmuxSplit keeps).
func tmuxWords(f field) []field {
	var out []field
	var cur strings.Builder
	open := false
	emit := func(v string) {
		g := f
		g.val = v
		out = append(out, g)
	}
	end := func() {
		if open {
			emit(cur.String())
			cur.Reset()
			open = false
		}
	}
	s := f.val
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			end()
		case c == '\n' || c == ';':
			end()
			emit(";")
		case c == '#' && !open && !strings.HasPrefix(s[i:], "#{"):
			for i+1 < len(s) && s[i+1] != '\n' {
				i++
			}
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == ';' {
				cur.WriteByte('\\')
			}
			cur.WriteByte(s[i])
			open = true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			open = true
		case c == '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				cur.WriteByte(s[i])
			}
			open = true
		case c == '{' && !open:
			depth, j := 1, i+1
			for ; j < len(s) && depth > 0; j++ {
				switch s[j] {
				case '{':
					depth++
				case '}':
					depth--
				}
			}
			body := s[i+1 : j]
			if depth == 0 {
				body = s[i+1 : j-1]
			}
			cur.WriteString(body)
			i = j - 1
			open = true
		default:
			cur.WriteByte(c)
			open = true
		}
	}
	end()
	return out
}

// tmuxOptValue is the value a tmux option letter takes.
type tmuxOptValue struct {
	c byte  // the option letter
	f field // its value
}

// tmuxValue reads a tmux flag cluster v the way getopt does: the first
// letter that takes a value (one of values) takes the rest of the cluster
// (-sx: -s x) or, at its end, the next word of *rest, which it consumes.
func tmuxValue(w field, values string, rest *[]field) (tmuxOptValue, bool) {
	v := w.val
	j := strings.IndexAny(v[1:], values) + 1
	if j == 0 {
		return tmuxOptValue{}, false
	}
	if j+1 < len(v) {
		w.val = v[j+1:]
		return tmuxOptValue{c: v[j], f: w}, true
	}
	if len(*rest) == 0 {
		return tmuxOptValue{}, false
	}
	f := (*rest)[0]
	*rest = (*rest)[1:]
	return tmuxOptValue{c: v[j], f: f}, true
}

// tmuxSplit splits tmux's arguments into commands the way tmux does: a
// word ending in ";" ends a command (the text before it is the command's
// last word), one ending in "\;" keeps a literal ";".
func tmuxSplit(args []field) [][]field {
	var out [][]field
	var cur []field
	for _, f := range args {
		switch {
		case strings.HasSuffix(f.val, "\\;"):
			f.val = strings.TrimSuffix(f.val, "\\;") + ";"
			cur = append(cur, f)
		case strings.HasSuffix(f.val, ";"):
			if f.val != ";" {
				f.val = strings.TrimSuffix(f.val, ";")
				cur = append(cur, f)
			}
			out = append(out, cur)
			cur = nil
		default:
			cur = append(cur, f)
		}
	}
	return append(out, cur)
}

// tmuxHexKeys decodes the keys send-keys -H types: each word is the
// hexadecimal code of one character; a word that is not one leaves the
// text only known at run time.
func tmuxHexKeys(keys []field) field {
	typed := keys[0]
	typed.val = ""
	for _, k := range keys {
		n, err := strconv.ParseUint(k.val, 16, 8)
		if err != nil || k.dyn {
			typed.val += k.val
			typed.dyn = true
			continue
		}
		typed.val += string(rune(n))
	}
	return typed
}

// tmuxCommand classifies one tmux command (name and arguments) and
// reports whether it reads tmux commands from standard input
// (source-file -).
func (a *analyzer) tmuxCommand(u *unit, words []field) (stdin bool) {
	if len(words) == 0 {
		return false
	}
	spec, ok := tmuxCmds[tmuxName(words[0].val)]
	if !ok {
		return false
	}
	seen := "" // the flags given
	rest := words[1:]
	for len(rest) > 0 && strings.HasPrefix(rest[0].val, "-") && len(rest[0].val) > 1 {
		w := rest[0]
		v := w.val
		rest = rest[1:]
		if v == "--" {
			break
		}
		flags := v
		if j := strings.IndexAny(v[1:], spec.values) + 1; j > 0 {
			flags = v[:j]
		}
		seen += flags[1:]
		tmuxValue(w, spec.values, &rest)
	}
	switch {
	case len(rest) == 0:
	case spec.kind == 'o':
		// set -g default-command CMD: new windows run CMD; default-shell
		// is the program they run.
		if len(rest) < 2 {
			return false
		}
		switch rest[0].val {
		case "default-command":
			a.shellString(u, rest[1])
		case "default-shell":
			a.run(u.inner("tmux", rest[1:2]))
		}
	case spec.kind == 'a':
		a.argvOrShell(u, "tmux", rest)
		if len(rest) == 1 {
			a.shellVarRun(u, rest[0]) // run by default-shell, from SHELL
		}
	case spec.kind == 's' && strings.Contains(seen, "C"):
		a.tmuxString(u, rest[0]) // run-shell -C: a tmux command
	case spec.kind == 's':
		a.shellString(u, rest[0])
	case spec.kind == 'i':
		if !strings.Contains(seen, "F") {
			a.shellString(u, rest[0])
		}
		for _, f := range rest[1:] {
			a.tmuxString(u, f)
		}
	case spec.kind == 't':
		a.tmuxString(u, rest[0])
	case spec.kind == 'h':
		if len(rest) > 1 {
			a.tmuxString(u, rest[1])
		}
	case spec.kind == 'b':
		var cmd []field
		for _, f := range rest[1:] {
			if f.val != "{" && f.val != "}" {
				cmd = append(cmd, f) // bind x { run CMD }
			}
		}
		for _, cmd := range tmuxSplit(cmd) {
			a.tmuxCommand(u, cmd)
		}
	case spec.kind == 'f':
		for _, f := range rest {
			if stdinWord(f.val) == "-" {
				return true
			}
			a.sourcedFile(u, "tmux", f) // source-file x.conf the line wrote (round 54)
		}
	case spec.kind == 'k':
		a.tmuxKeys(u, rest, seen)
	case spec.kind == 'w':
		a.toolWrite(u, rest[0], unknownText, strings.Contains(seen, "a"))
	}
	return false
}

// tmuxKeys classifies what send-keys does: the text it types into a
// pane's shell, or with -X the shell command a copy-mode pipe runs.
func (a *analyzer) tmuxKeys(u *unit, keys []field, flags string) {
	switch {
	case strings.Contains(flags, "X"):
		if len(keys) > 1 && tmuxCopyPipes.has(keys[0].val) {
			a.shellString(u, keys[1])
		}
	case strings.Contains(flags, "H"):
		a.shellString(u, tmuxHexKeys(keys))
	default:
		literal := strings.Contains(flags, "l")
		typed := keys[0]
		typed.val = ""
		for _, k := range keys {
			if t, ok := tmuxKeys[k.val]; ok && !literal {
				typed.val += t
				continue
			}
			typed.val += k.val
			typed.dyn = typed.dyn || k.dyn
		}
		a.shellString(u, typed)
	}
}
