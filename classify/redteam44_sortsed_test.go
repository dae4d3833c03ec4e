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
// Found by red-team round 44 (low for sort). Fixed: sort's
// --compress-program, abbreviated too (longAbbrev), is a command. Still
// open (branch redteam44-open): sed's w and s///w file names as write
// targets (medium).
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

}
