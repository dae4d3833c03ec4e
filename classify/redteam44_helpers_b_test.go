package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// rt44bCase is one attack: argv runs the command written in place of CMD
// (a shell command line) or of ARGS (the same command as separate words).
type rt44bCase struct {
	argv []string
	// setup, when set, runs in the temporary directory before the premise.
	setup func(t *testing.T, dir string)
	// dir is the directory (below the temporary one) the command runs in.
	dir string
	// env is added to the premise's environment.
	env []string
}

// rt44bSubst replaces CMD in each word by cmd, and a word ARGS by words.
func rt44bSubst(argv []string, cmd string, words []string) []string {
	var out []string
	for _, w := range argv {
		switch w {
		case "ARGS":
			out = append(out, words...)
		default:
			c := cmd
			if strings.HasPrefix(w, "ext::") {
				c = strings.ReplaceAll(cmd, " ", "% ") // git's ext:: URL quoting
			}
			r := []byte{}
			for i := 0; i < len(w); i++ {
				if i+3 <= len(w) && w[i:i+3] == "CMD" {
					r = append(r, c...)
					i += 2
					continue
				}
				r = append(r, w[i])
			}
			out = append(out, string(r))
		}
	}
	return out
}

// rt44bCheck runs each case's harmless version for real (CMD is
// "touch MARKER", ARGS is touch MARKER, with MARKER an absolute path in a
// temporary directory) and requires the marker to appear; then it asks
// the classifier, by ClassifyArgs and by ClassifyShell for bash and dash
// (the argv quoted), about the dangerous version (rm -rf ~) and requires
// at least want.
func rt44bCheck(t *testing.T, cases []rt44bCase, want Decision) {
	t.Helper()
	for _, c := range cases {
		if _, err := exec.LookPath(c.argv[0]); err != nil {
			t.Logf("%s not installed: premise not run", c.argv[0])
		} else {
			dir := t.TempDir()
			if c.setup != nil {
				c.setup(t, dir)
			}
			marker := filepath.Join(dir, "PWNED44")
			argv := rt44bSubst(c.argv, "touch "+marker, []string{"touch", marker})
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = filepath.Join(dir, c.dir)
			cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
			cmd.Env = append(cmd.Env, rt44bSubst(c.env, "touch "+marker, nil)...)
			out, _ := cmd.CombinedOutput()
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("premise: %q did not run the marker command: %s", argv, out)
			}
		}
		// exec does not expand ~: ClassifyArgs gets the home's path.
		home, _ := os.UserHomeDir()
		if home == "" {
			home = "/"
		}
		targv := rt44bSubst(c.argv, "rm -rf ~", []string{"rm", "-rf", home})
		if r := Default().ClassifyArgs(targv[0], targv[1:]); r.Decision < want {
			t.Errorf("ClassifyArgs(%q) = %s (rule %q), want at least %s: it runs rm -rf ~", targv, r.Decision, r.Rule, want)
		}
		argv := rt44bSubst(c.argv, "rm -rf ~", []string{"rm", "-rf", "~"})
		line := ""
		for i, w := range argv {
			if i > 0 {
				line += " "
			}
			if w == "~" {
				line += w
			} else {
				line += shellQuote(w)
			}
		}
		for _, sh := range []string{"bash", "dash"} {
			if r := Default().ClassifyShell(sh, line); r.Decision < want {
				t.Errorf("ClassifyShell(%s, %q) = %s (rule %q), want at least %s: it runs rm -rf ~", sh, line, r.Decision, r.Rule, want)
			}
		}
	}
}

// rt44bRun runs a set-up command in dir.
func rt44bRun(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	c := exec.Command(name, args...)
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s %q: %v: %s", name, args, err, out)
	}
}
