package classify

import (
	"strings"
	"testing"
)

// TestRedteam51ExecWrappers: programs installed on a stock Debian/Ubuntu
// host that run the command given as their operands, as `nice` or `env`
// do, are not followed, so the command they run is never judged:
//
//	setarch x86_64 rm -rf ~      (util-linux; also linux64, linux32,
//	linux64 rm -rf ~              i386 and x86_64, links to setarch)
//	x86_64 -R rm -rf ~
//	choom -n 0 -- rm -rf ~       (util-linux)
//	logsave /dev/null rm -rf ~   (e2fsprogs)
//	fstab-decode rm -rf ~        (initscripts / sysvinit-utils)
//	ssh-agent rm -rf ~           (openssh-client: runs the command as its child)
//	memusage rm -rf ~            (glibc's libc-dev-bin)
//	sotruss rm -rf ~             (glibc's libc-dev-bin)
//	msgexec -i x.po rm -rf ~     (gettext: runs the command once per message)
//
// are all sandboxed, where `nice rm -rf ~`, `prlimit --nofile=100 rm -rf
// ~` or `setpriv --reuid=1000 rm -rf ~` are forbidden
// (recursive-delete-root). The wrapper table (wrappers.go) has no entry
// for any of these names, so the unit is judged as the unknown program
// "setarch" with data arguments, and the rule matchers never see the rm.
//
// The premise runs every line in a fake home and checks that ~/.ssh is
// gone.
//
// Severity: high (rm -rf ~, a forbidden command, judged sandboxed).
// Found by red-team round 51. Fixed: these are wrappers (wrappers.go);
// fstab-decode's words with a backslash are only known at run time.
func TestRedteam51ExecWrappers(t *testing.T) {
	cases := []struct {
		line  string
		progs []string
		po    bool // needs x.po in the working directory
	}{
		{`setarch x86_64 rm -rf ~`, []string{"setarch"}, false},
		{`setarch -R x86_64 rm -rf ~`, []string{"setarch"}, false},
		{`linux64 rm -rf ~`, []string{"linux64"}, false},
		{`linux32 rm -rf ~`, []string{"linux32"}, false},
		{`i386 rm -rf ~`, []string{"i386"}, false},
		{`x86_64 -R rm -rf ~`, []string{"x86_64"}, false},
		{`choom -n 0 -- rm -rf ~`, []string{"choom"}, false},
		{`logsave /dev/null rm -rf ~`, []string{"logsave"}, false},
		{`fstab-decode rm -rf ~`, []string{"fstab-decode"}, false},
		{`ssh-agent rm -rf ~`, []string{"ssh-agent"}, false},
		{`memusage rm -rf ~`, []string{"memusage"}, false},
		{`sotruss rm -rf ~`, []string{"sotruss"}, false},
		{`msgexec -i x.po rm -rf ~`, []string{"msgexec"}, true},
	}
	for _, c := range cases {
		if !rtHave(t, append([]string{"bash"}, c.progs...)...) {
			continue
		}
		home, work := rt51aHome(t)
		if c.po {
			rt51aRun(t, home, work, `printf 'msgid "a"\nmsgstr "b"\n' > x.po`, "")
		}
		out := rt51aRun(t, home, work, c.line, "")
		if !rt51aGone(home) {
			if strings.Contains(c.line, "32") || strings.Contains(c.line, "i386") {
				t.Logf("premise: %q did not remove ~/.ssh (no 32-bit personality here?): %q", c.line, out)
				continue
			}
			t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", c.line, out)
		}
	}
	// Controls: the wrappers the table knows.
	rtAtLeast(t, []string{"bash"}, `nice rm -rf ~`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `setpriv --reuid=1000 rm -rf ~`, Forbidden)
	for _, c := range cases {
		rtAtLeast(t, []string{"bash", "sh"}, c.line, Forbidden)
	}
	// Legitimate uses must keep working.
	rtBelow(t, `setarch x86_64 -R ./a.out`, Escalated)
	rtBelow(t, `linux32 make -j2`, Escalated)
	rtBelow(t, `logsave build.log make`, Escalated)
	rtBelow(t, `msgexec -i x.po cat`, Escalated)
}
