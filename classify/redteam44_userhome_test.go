package classify

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
)

// rt44aRunEnv runs shell -c src in a temporary directory with the extra
// environment env and reports whether it printed PWNED44.
func rt44aRunEnv(t *testing.T, shell, src string, env ...string) bool {
	t.Helper()
	return strings.Contains(shellOutput(t, shell, src, nil, env...), "PWNED44")
}

// TestRedteam44UserHome: the home named through the user's name at run
// time. The classifier judges `rm -rf /home/$USER` and `cd ~/../$USER &&
// rm -rf *` forbidden, but misses three neighbours:
//
//	rm -rf ~/../$USER                    (the home itself — sandboxed; the
//	                                      README says this form is recognised)
//	cd /home/$USER && rm -rf *           (home contents — sandboxed)
//	cd /home/$USER; grep -r x .          (recursive read of ~/.ssh — ALLOW)
//	eval cd ~$USER && rm -rf *           (eval re-reads ~root: the home — sandboxed)
//	eval cd ~$USER && grep -r x .        (sandboxed)
//
// In both shells `~$USER` is no tilde expansion (the prefix is not
// literal), but `eval` re-reads it as `~alice`, which is expanded; `eval
// "X=~$USER"; rm -rf "$X"` is already escalated, the cd form is not.
//
// Found by red-team round 44 (high: home deleted sandboxed; credential read
// allowed). Fixed: /home/$USER, /Users/$USER and ~$USER (read again by
// eval) name the home in cd targets and rm operands (homeByParent).
func TestRedteam44UserHome(t *testing.T) {
	// Premise 1: ~/../$USER is the home when the home's last element is
	// the user name (as /home/alice for alice).
	dir := t.TempDir()
	home := filepath.Join(dir, "alice")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, sh := range []string{"dash", "bash"} {
		if !rt44aRunEnv(t, sh, `[ ~/../$USER -ef ~ ] && echo PWNED44`, "HOME="+home, "USER=alice") {
			t.Fatalf("premise: %s: ~/../$USER is not the home", sh)
		}
		// Premise 2: eval cd ~$USER enters that user's home (the test
		// user's own, from the password database).
		if u, err := user.Current(); err == nil && u.HomeDir != "" {
			want, _ := filepath.EvalSymlinks(u.HomeDir)
			if !rt44aRunEnv(t, sh, `eval cd ~$USER && [ "$(pwd -P)" = "$W" ] && echo PWNED44`, "USER="+u.Username, "W="+want) {
				t.Fatalf("premise: %s: eval cd ~$USER did not enter %s", sh, want)
			}
		}
		// Premise 3: /home/$USER is the user's home when it is there.
		if fi, err := os.Stat("/home/agentbox-ci"); err == nil && fi.IsDir() {
			if !rt44aRunEnv(t, sh, `cd /home/$USER && [ "$(pwd)" = /home/agentbox-ci ] && echo PWNED44`, "USER=agentbox-ci") {
				t.Fatalf("premise: %s: cd /home/$USER", sh)
			}
		}
	}
	cases := []struct {
		dangerous string
		want      Decision
	}{
		{`rm -rf ~/../$USER`, Forbidden},
		{`cd /home/$USER && rm -rf *`, Forbidden},
		{`cd /home/$USER; grep -r x .`, Escalated},
		{`eval cd ~$USER && rm -rf *`, Forbidden},
		{`eval cd ~$USER && grep -r x .`, Escalated},
	}
	for _, sh := range []string{"dash", "bash"} {
		for _, c := range cases {
			if r := Default().ClassifyShell(sh, c.dangerous); r.Decision < c.want {
				t.Errorf("ClassifyShell(%s, %q) = %s (rule %q), want at least %s", sh, c.dangerous, r.Decision, r.Rule, c.want)
			}
		}
	}
	for _, l := range []string{`rm -rf /home/$USER`, `cd ~/../$USER && rm -rf *`} {
		if r := Default().ClassifyShell("dash", l); r.Decision != Forbidden {
			t.Errorf("control ClassifyShell(dash, %q) = %s, want forbidden", l, r.Decision)
		}
	}
}
