package classify

import (
	"strconv"
	"strings"
)

// tmuxCmd says how a tmux command runs a shell command: its options that
// take values, and whether its words are a command (new-session CMD), a
// shell string (run-shell CMD) or keys typed into a pane's shell
// (send-keys CMD Enter).
type tmuxCmd struct {
	values string
	kind   byte // 'a' argv or shell string, 's' the first word a shell string, 'k' keys, 'o' an option and its value
}

var tmuxCmds = map[string]tmuxCmd{
	"new-session": {"cefFnstxy", 'a'}, "new-window": {"cenFt", 'a'}, "split-window": {"celFtp", 'a'},
	"respawn-pane": {"cet", 'a'}, "respawn-window": {"cet", 'a'}, "display-popup": {"bcdehsStTwxy", 'a'},
	"run-shell": {"cdt", 's'}, "if-shell": {"t", 's'}, "pipe-pane": {"t", 's'}, "send-keys": {"cNt", 'k'},
	"set-option": {"t", 'o'}, "set-window-option": {"t", 'o'},
}

// tmuxAliases are tmux's short command names.
var tmuxAliases = map[string]string{"new": "new-session", "neww": "new-window", "splitw": "split-window",
	"respawnp": "respawn-pane", "respawnw": "respawn-window", "popup": "display-popup", "run": "run-shell",
	"if": "if-shell", "pipep": "pipe-pane", "send": "send-keys", "set": "set-option", "setw": "set-window-option"}

// tmuxKeys are key names send-keys turns into what they type.
var tmuxKeys = map[string]string{"Enter": "\n", "C-m": "\n", "C-j": "\n", "KPEnter": "\n", "Space": " ", "Tab": "\t"}

// runTmux classifies the shell commands tmux runs: tmux -c CMD, and for
// each command of the line (split on ;) new-session/new-window/… CMD,
// run-shell/if-shell/pipe-pane CMD and the text send-keys types.
func (a *analyzer) runTmux(u *unit) (stream, bool) {
	args := u.args
	for len(args) > 0 && strings.HasPrefix(args[0].val, "-") && len(args[0].val) > 1 {
		w := args[0]
		args = args[1:]
		if w.val == "--" {
			break
		}
		if val, ok := tmuxValue(w, "cfLST", &args); ok && val.c == 'c' {
			a.shellString(u, val.f)
		}
	}
	for _, cmd := range tmuxSplit(args) {
		a.tmuxCommand(u, cmd)
	}
	return stream{traits: trUnknown}, true
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

// tmuxCommand classifies one tmux command (name and arguments).
func (a *analyzer) tmuxCommand(u *unit, words []field) {
	if len(words) == 0 {
		return
	}
	name := words[0].val
	if full, ok := tmuxAliases[name]; ok {
		name = full
	}
	spec, ok := tmuxCmds[name]
	if !ok {
		// tmux takes any unambiguous prefix of a command's name.
		n := 0
		for full, s := range tmuxCmds {
			if len(name) > 2 && strings.HasPrefix(full, name) {
				spec, n = s, n+1
			}
		}
		if n != 1 {
			return // none, or ambiguous: tmux refuses
		}
	}
	literal, hex := false, false
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
		if spec.kind == 'k' && strings.Contains(flags, "X") {
			return // copy-mode commands
		}
		literal = literal || spec.kind == 'k' && strings.Contains(flags, "l")
		hex = hex || spec.kind == 'k' && strings.Contains(flags, "H")
		tmuxValue(w, spec.values, &rest)
	}
	switch spec.kind {
	case 'o':
		// set -g default-command CMD: new windows run CMD; default-shell
		// is the program they run.
		if len(rest) < 2 {
			return
		}
		switch rest[0].val {
		case "default-command":
			a.shellString(u, rest[1])
		case "default-shell":
			a.run(u.inner("tmux", rest[1:2]))
		}
	case 'a':
		a.argvOrShell(u, "tmux", rest)
	case 's':
		if len(rest) > 0 {
			a.shellString(u, rest[0])
		}
	case 'k':
		if len(rest) == 0 {
			return
		}
		if hex {
			a.shellString(u, tmuxHexKeys(rest))
			return
		}
		typed := rest[0]
		typed.val = ""
		for _, k := range rest {
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
