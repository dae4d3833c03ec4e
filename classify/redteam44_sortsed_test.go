package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestRedteam44SortSed: two coreutils/sed forms that run or write what a
// forbidden command would, judged allow/sandboxed:
//
//   - sort -S 16k --compress-program=PROG FILE runs PROG (no shell, no
//     arguments, then PROG -d) for its temporary files: with PROG=reboot
//     it is reboot, forbidden (shutdown-reboot) when written alone, yet
//     the sort line is allow (common-safe-commands). Any program on the
//     PATH or written on the line is run this way under an allow verdict.
//   - sed -n "w $HOME/.ssh/authorized_keys" f (sed's file name is not
//     tilde-expanded; the shell expands $HOME) writes
//     f's lines to the file, as cat f > ~/.ssh/authorized_keys does,
//     which is forbidden (output-redirect-system); the sed form is
//     sandboxed (GNU sed's w command and s///w flag).
//
// Found by red-team round 44 (low for sort, medium for sed). Fixed:
// sort's --compress-program, abbreviated too (longAbbrev), is a command;
// later (next stop) the file names of sed's w and W commands and s///w
// flag are write targets (sedWriteFiles), and what they receive is the
// input, judged as if it ran where the file is an rc file (sedWrites).
func TestRedteam44SortSed(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "PWNED44")
	prog := filepath.Join(dir, "cp.sh")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ntouch "+marker+"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	var text []byte
	for i := 0; i < 200000; i++ {
		text = append(text, "line number whatever\n"...)
	}
	if err := os.WriteFile(big, text, 0o644); err != nil {
		t.Fatal(err)
	}
	c := exec.Command("sort", "-S", "16k", "--compress-program="+prog, big)
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil && len(out) < 100 {
		t.Logf("sort: %v: %s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("premise: sort --compress-program did not run %s", prog)
	}
	// control: the program alone is forbidden
	if r := Default().ClassifyShell("bash", "reboot"); r.Decision != Forbidden {
		t.Fatalf("control: reboot = %s", r.Decision)
	}
	for _, l := range []string{"sort -S 16k --compress-program=reboot big", "sort -S 16k --compress-prog=reboot big"} {
		for _, sh := range []string{"bash", "dash"} {
			if r := Default().ClassifyShell(sh, l); r.Decision < Escalated {
				t.Errorf("ClassifyShell(%s, %q) = %s (rule %q), want at least escalated: sort runs reboot", sh, l, r.Decision, r.Rule)
			}
		}
	}
	if r := Default().ClassifyArgs("sort", []string{"-S", "16k", "--compress-program=reboot", "big"}); r.Decision < Escalated {
		t.Errorf("ClassifyArgs(sort --compress-program=reboot) = %s (rule %q), want at least escalated", r.Decision, r.Rule)
	}

	// sed's w forms write the file they name (premise, in dir).
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{"w " + dir + "/w1", "1w " + dir + "/w2", "s/h/H/w " + dir + "/w3", "s|h|H|gw " + dir + "/w4"} {
		if out, err := exec.Command("sed", "-n", script, f).CombinedOutput(); err != nil {
			t.Fatalf("premise: sed -n %q: %v: %s", script, err, out)
		}
	}
	for _, n := range []string{"w1", "w2", "w3", "w4"} {
		if b, err := os.ReadFile(filepath.Join(dir, n)); err != nil || len(b) == 0 {
			t.Fatalf("premise: sed did not write %s: %v", n, err)
		}
	}
	home, _ := os.UserHomeDir()
	if home == "" {
		home = "/root"
	}
	sedLines := []struct {
		line string
		want Decision
	}{
		{`sed -n 'w /etc/passwd' f`, Forbidden},
		{`sed -n '/x/w /etc/passwd' f`, Forbidden},
		{`sed 's/a/b/w /etc/passwd' f`, Forbidden},
		{`sed -e 's|a|b|gw /etc/shadow' f`, Forbidden},
		{`sed -n "w $HOME/.ssh/authorized_keys" f`, Forbidden},
		{`sed -n 'w ` + home + `/.ssh/authorized_keys' f`, Forbidden},
		{`echo 'rm -rf ~' | sed -n 'w ` + home + `/.bashrc'`, Forbidden},
		{`echo 'rm -rf ~' > x; sed -n 'w ` + home + `/.bashrc' x`, Forbidden},
	}
	for _, c := range sedLines {
		for _, sh := range []string{"bash", "dash"} {
			judgedAtLeast(t, sh, c.line, c.want)
		}
	}
	// controls: sed writing a file of the project, or with w in its text
	for _, l := range []string{`sed -n 'w out.txt' f`, `sed 's/w/x/' f`, `sed -n '1,5p' f`, `sed -f s.sed f`} {
		if r := Default().ClassifyShell("bash", l); r.Decision >= Escalated {
			t.Errorf("control ClassifyShell(bash, %q) = %s (rule %q), want below escalated", l, r.Decision, r.Rule)
		}
	}

}
