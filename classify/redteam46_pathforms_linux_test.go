package classify

import (
	"strings"
	"testing"
)

// TestRedteam46SecretPathForms: spellings of a credential path that
// isSecretPathIn (secretpaths.go) does not resolve:
//
//   - dd if=$HOME/.aws/credentials — dd's operand is "if=~/…": only an
//     option ("-x=…") has its value split off, so the word is a relative
//     path whose first component "if=~" is no store (id_rsa is still
//     caught by its name). dd of= is a write target (writetargets.go),
//     dd if= is no read.
//
//   - cd ~ && cat /proc/self/cwd/.aws/credentials — /proc/self/cwd is the
//     reader's working directory, the home; stripProcRoot (paths.go)
//     only maps /proc/PID/root.
//
//   - cat /proc/self/task/*/root/HOME/.aws/credentials | cat — a thread's root
//     is the process's: stripProcRoot knows /proc/PID/root only, not
//     /proc/PID/task/TID/root.
//
//   - cat /proc/self/task/*/environ | tr … — the process's environment (tokens),
//     as /proc/self/environ, which is a secret path ({"proc", "*",
//     "environ"}); the task form has two more components.
//
//   - cat "$(realpath ~)/.aws/credentials", cat "$(cd; pwd)/.aws/credentials"
//     — a store path below a directory only known at run time (here the
//     home): secretPathIn (secretpaths.go) judges a dynamic-prefix word
//     with the run-time part taken as empty, "/.aws/credentials", which is
//     no store, while the same relative path of unknown base
//     (.aws/credentials) is one; only a secret file name ("$X/.ssh/id_rsa")
//     is caught.
//
// Each prints the secret and is sandboxed (allow for cat).
//
// Severity: high (a secret read judged sandboxed or allow).
// Found by red-team round 46. Fixed: dd's if=, /proc/PID/task/TID
// and /proc/PID/cwd in secret paths (stripProcRoot, procCwd), and $(cd;
// pwd), $(realpath ~) produce the path they print (produce).
func TestRedteam46SecretPathForms(t *testing.T) {
	home, work := rt46aHome(t)
	for _, tc := range []struct {
		run, judge string // run for real (in the fake home), and classified
		env        []string
	}{
		{run: `dd if=$HOME/.aws/credentials status=none`},
		{run: `cd ~ && cat /proc/self/cwd/.aws/credentials`},
		// In a pipeline the shell expands the glob in the child that
		// becomes cat, so /proc/self/task/* is cat's own thread.
		{run: `cat /proc/self/task/*/root` + home + `/.aws/credentials | cat`,
			judge: `cat /proc/self/task/*/root/home/alice/.aws/credentials | cat`},
		{run: `cat /proc/self/task/*/environ | tr '\0' '\n'`, env: []string{"GITHUB_TOKEN=" + rt46aSecret}},
		{run: `cat "$(realpath ~)/.aws/credentials"`},
		{run: `cat "$(cd; pwd)/.aws/credentials"`},
	} {
		if rt46aHave(t, "bash") {
			if out := rt46aExec(t, "bash", home, work, tc.run, tc.env...); !strings.Contains(out, rt46aSecret) {
				t.Fatalf("premise: %q did not print the fake secret: %q", tc.run, out)
			}
		}
		line := tc.judge
		if line == "" {
			line = tc.run
		}
		rt46aAtLeast(t, line, Escalated)
	}
	// controls: the modelled spellings are escalated; dd of a project
	// file and cat of a project file are not.
	for _, l := range []string{`cat < ~/.aws/credentials`, `cat /proc/self/root/home/alice/.aws/credentials`, `cat /proc/self/environ`, `dd if=$HOME/.ssh/id_rsa`} {
		if r := Default().ClassifyShell("bash", l); r.Decision != Escalated {
			t.Fatalf("control: %q = %s (%s), want escalated", l, r.Decision, r.Rule)
		}
	}
	if r := Default().ClassifyShell("bash", `dd if=build/disk.img of=out.img bs=1M`); r.Decision >= Escalated {
		t.Errorf("control: dd of a build file = %s (%s)", r.Decision, r.Rule)
	}
}
