package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rt44aShellRuns checks a red-team test's premise: shell -c src (src with a
// harmless marker in place of the dangerous command) prints PWNED44, run in
// a fresh temporary directory with HOME pointing at another one that holds
// a file PWNED44 and .ssh/id_rsa (text PWNED44KEY). Skipped where shell is
// missing.
func rt44aShellRuns(t *testing.T, shell, src string) {
	t.Helper()
	fill := func(home string) {
		if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "PWNED44"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PWNED44KEY\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out := shellOutput(t, shell, src, fill); !strings.Contains(out, "PWNED44") {
		t.Fatalf("premise: %s -c %q did not print the marker: %q", shell, src, out)
	}
}

// rt44aCheck: shell runs harmless (printing the marker), and the classifier,
// reading dangerous as that shell runs it, judges it at least want.
func rt44aCheck(t *testing.T, shell, dangerous, harmless string, want Decision) {
	t.Helper()
	rt44aShellRuns(t, shell, harmless)
	judgedAtLeast(t, shell, dangerous, want)
}

// TestRedteam44SymlinkCd: a `cd` into a symbolic link the line itself just
// made is not followed to the link's target. The working directory stays
// "./l" for the classifier, while both shells (bash logically, dash too,
// and `cd -P` physically) end up in the target, so every relative path
// after it names the target's contents:
//
//	ln -s ~ l; cd l; rm -rf *            (deletes the home's contents — sandboxed)
//	ln -s ~ l && cd l && rm -rf -- *     (same)
//	ln -s / r && cd r && rm -rf home     (deletes /home — sandboxed)
//	ln -s ~ l; cd -P l; rm -rf *         (same as the first, physical cd)
//	ln -s ~ l; pushd l; rm -rf *         (bash: pushd the same way)
//	ln -s ~ l; cd l; tar xf /tmp/x.tar   (fills the home wholesale — sandboxed)
//	ln -s ~ l; cd l; grep -r x .         (recursive read of ~/.ssh — sandboxed)
//
// The classifier already follows such a link when it is a path argument
// (`ln -s ~ l; rm -rf l/*` and `ln -s ~ l; cat l/.ssh/id_rsa` are judged
// as the home), and judges `cd ~; rm -rf *` forbidden; only the working
// directory set through the link is lost. This is not the documented limit
// about script text written through a link.
//
// Found by red-team round 44 (high: under Exec's /bin/sh and bash alike
// the home or /home was deleted with a sandboxed verdict). Fixed: cd and
// pushd enter what a link the line made points to (cdTarget).
func TestRedteam44SymlinkCd(t *testing.T) {
	const showHome = `ls; cat .ssh/id_rsa`
	cases := []struct {
		shell, dangerous, harmless string
		want                       Decision
	}{
		{"dash", `ln -s ~ l; cd l; rm -rf *`, `ln -s ~ l; cd l; ` + showHome, Forbidden},
		{"bash", `ln -s ~ l; cd l; rm -rf *`, `ln -s ~ l; cd l; ` + showHome, Forbidden},
		{"dash", `ln -s ~ l && cd l && rm -rf -- *`, `ln -s ~ l && cd l && ` + showHome, Forbidden},
		{"bash", `ln -s ~ l; cd -P l; rm -rf *`, `ln -s ~ l; cd -P l; ` + showHome, Forbidden},
		{"bash", `ln -s ~ l; pushd l; rm -rf *`, `ln -s ~ l; pushd l; ` + showHome, Forbidden},
		{"dash", `ln -s / r && cd r && rm -rf home`, `ln -s / r && cd r && [ "$(pwd -P)" = / ] && echo PWNED44`, Forbidden},
		{"bash", `ln -s ~ l; cd l; tar xf /tmp/x.tar`, `ln -s ~ l; cd l; ` + showHome, Escalated},
		{"dash", `ln -s ~ l; cd l; grep -r x .`, `ln -s ~ l; cd l; grep -r PWNED44KEY .`, Escalated},
	}
	for _, c := range cases {
		rt44aCheck(t, c.shell, c.dangerous, c.harmless, c.want)
	}
	// Controls: the same through the home directly, or the link as a path
	// argument, are judged.
	for _, l := range []string{`cd ~; rm -rf *`, `ln -s ~ l; rm -rf l/*`, `cd /; rm -rf home`} {
		if r := Default().ClassifyShell("dash", l); r.Decision != Forbidden {
			t.Errorf("control ClassifyShell(dash, %q) = %s, want forbidden", l, r.Decision)
		}
	}
}
