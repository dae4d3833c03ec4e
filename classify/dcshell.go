package classify

import "strings"

// dc runs the rest of a line that starts with ! as a shell command (GNU
// dc): dc -e '!rm -rf ~', echo '!cmd' | dc. Each such command is judged as
// the shell code it is; input from the network or a decoder is what it
// runs. Found by red-team round 49.
func (a *analyzer) dcShell(u *unit) {
	var texts []string
	for i, f := range u.args {
		switch {
		case (f.val == "-e" || f.val == "--expression") && i+1 < len(u.args):
			texts = append(texts, u.args[i+1].val)
		case strings.HasPrefix(f.val, "--expression="):
			texts = append(texts, strings.TrimPrefix(f.val, "--expression="))
		case strings.HasPrefix(f.val, "-e") && len(f.val) > 2:
			texts = append(texts, f.val[2:])
		}
	}
	if u.piped {
		switch {
		case u.in.textKnown:
			texts = append(texts, u.in.text)
		case u.in.execRule() != "" && u.in.execRule() != RuleEvalExec:
			s := u.in
			u.script = &s // curl … | dc
		}
	}
	for _, t := range texts {
		for _, line := range strings.Split(t, "\n") {
			if cmd, ok := dcBang(line); ok {
				a.shellString(u, field{val: cmd})
			}
		}
	}
}

// dcBang returns the shell command of a dc line: what follows the first !
// that is not a negated comparison (!<r, !>r, !=r).
func dcBang(line string) (string, bool) {
	for i := 0; i < len(line); i++ {
		if line[i] != '!' {
			continue
		}
		if i+1 < len(line) && strings.IndexByte("<>=", line[i+1]) >= 0 {
			i++
			continue
		}
		cmd := strings.TrimSpace(line[i+1:])
		return cmd, cmd != ""
	}
	return "", false
}
