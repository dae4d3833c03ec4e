package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam58GawkOutputFiles: gawk writes files named by its options:
// -o/--pretty-print FILE (the program, pretty-printed), -p/--profile FILE
// (a profile) and -d/--dump-variables FILE (the global variables). None
// is taken as a write target, so
//
//	gawk -o/etc/hosts 'BEGIN{}'                        sandboxed
//	gawk --pretty-print=/etc/hosts 'BEGIN{}'           sandboxed
//	gawk -p/etc/hosts 'BEGIN{}'                        sandboxed
//	gawk --dump-variables=/etc/hosts 'BEGIN{}'         sandboxed
//	gawk -d/root/.ssh/authorized_keys 'BEGIN{}'        sandboxed
//
// overwrite a system file (or the authorized keys), as `echo x >
// /etc/hosts` and `sort -o /etc/hosts x` (forbidden) are judged.
//
// Why: writetargets.go (the output options of sort -o, tee, dd of= …)
// has no entry for gawk's -o, -p, -d and their long forms; shells.go
// reads them only as options of an interpreter.
//
// Severity: high (a write to /etc judged sandboxed).
// Found by red-team round 58.
// Fixed: gawk.go's option table marks -o/--pretty-print, -p/--profile, -d/--dump-variables (and --persist) as output files; awkWriteTargets gives them to writetargets.go.
func TestRedteam58GawkOutputFiles(t *testing.T) {
	rt58aNeed(t, "gawk", "bash", "gawk")
	for _, o := range []string{`-ohosts`, `--pretty-print=hosts`, `-phosts`, `--profile=hosts`, `-dhosts`, `--dump-variables=hosts`} {
		home, work := rt58aHome(t)
		f := filepath.Join(work, "hosts")
		if err := os.WriteFile(f, []byte("127.0.0.1 localhost\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		rt58aRun(t, home, work, `gawk `+o+` 'BEGIN{}'`)
		if b, _ := os.ReadFile(f); string(b) == "127.0.0.1 localhost\n" {
			t.Fatalf("premise: gawk %s did not overwrite the file", o)
		}
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `echo x > /etc/hosts`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `sort -o /etc/hosts x`, Forbidden)
	// The attack.
	for _, o := range []string{`-o/etc/hosts`, `--pretty-print=/etc/hosts`, `-p/etc/hosts`, `--profile=/etc/hosts`,
		`-d/etc/hosts`, `--dump-variables=/etc/hosts`, `-d/root/.ssh/authorized_keys`} {
		rtAtLeast(t, []string{"bash", "sh"}, `gawk `+o+` 'BEGIN{}'`, Forbidden)
	}
	// Controls.
	rtBelow(t, `gawk -o formatted.awk -f prog.awk`, Escalated)
	rtBelow(t, `gawk --profile=prof.out -f prog.awk data.txt`, Escalated)
}
