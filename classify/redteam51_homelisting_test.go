package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam51HomeListing: the names a recursive listing of the home
// produces (find ~, du -a ~) reach a reader by other ways than xargs, and
// the read of every file of the home — ~/.ssh/id_rsa, ~/.aws/credentials
// included — is not judged credential-access:
//
//	cat $(find ~ -type f)                                allow
//	cat $(find ~ -name 'id_*')                           allow
//	for f in $(find ~ -type f); do cat "$f"; done        allow
//	find ~ -type f | while read f; do cat "$f"; done     allow
//	find ~ -type f | tar -cf x.tar -T -                  sandboxed
//	find ~ -type f | zip -q -@ x.zip                     sandboxed
//	du -a ~ | cut -f2 | xargs cat                        sandboxed
//	rgrep -i secret ~                                    sandboxed (rgrep is `grep -r`)
//	ptar -cf x.tar ~                                     sandboxed (Perl's tar, recursive)
//
// where `find ~ -type f | xargs cat`, `find ~ -exec cat {} +`, `grep -r
// secret ~` and `tar cf x.tar ~` are escalated (credential-access). The
// names found are kept only as the find stream's tree (dispatch.go
// runFind), and only xargs consults it (recursiveread.go readsStoreTree:
// u.viaXargs && u.argsIn.tree): a $(find …) substitution, a `read`
// variable fed by the pipe, tar's -T -/--files-from and zip's -@ (names
// read from standard input) carry nothing; du -a makes no tree; and
// rgrep and ptar are in no table of recursive readers (recursiveread.go).
//
// The premise runs every line in a fake home and checks that the output
// (or the archive it writes) holds the planted private key's text.
//
// Severity: high (every credential of the home read, judged allow).
// Found by red-team round 51. Fixed: a listing's names travel with what
// carries them (a substitution, a variable, a loop word, a line read, a line
// filter), and a reader given them, or reading names from its input (tar -T
// -, zip -@, cpio -o), reads the tree; du and tree list, rgrep and ptar
// recurse.
func TestRedteam51HomeListing(t *testing.T) {
	cases := []struct {
		line  string
		check string // command whose output shows what the line read ("" = the line's own output)
		progs []string
	}{
		{`cat $(find ~ -type f)`, "", nil},
		{`cat $(find ~ -name 'id_*')`, "", nil},
		{"cat `find ~ -type f`", "", nil},
		{`for f in $(find ~ -type f); do cat "$f"; done`, "", nil},
		{`find ~ -type f | while read f; do cat "$f"; done`, "", nil},
		{`find ~ -type f | while IFS= read -r f; do cat -- "$f"; done`, "", nil},
		{`find ~ -type f | tar -cf x.tar -T -`, "tar -xOf x.tar", []string{"tar"}},
		{`find ~ -type f | zip -q -@ x.zip`, "unzip -p x.zip", []string{"zip", "unzip"}},
		{`du -a ~ | cut -f2 | xargs cat`, "", nil},
		{`rgrep -i secret ~`, "", []string{"rgrep"}},
		{`ptar -cf x.tar ~`, "tar -xOf x.tar", []string{"ptar", "tar"}},
	}
	for _, c := range cases {
		if !rtHave(t, append([]string{"bash", "find"}, c.progs...)...) {
			continue
		}
		home, work := rt51aHome(t)
		out := rt51aRun(t, home, work, c.line, "")
		if c.check != "" {
			out = rt51aRun(t, home, work, c.check, "")
			os.Remove(filepath.Join(work, "x.tar"))
		}
		if !rt51aLeaks(out) {
			t.Fatalf("premise: %q did not read the planted key (output %q)", c.line, out)
		}
	}
	// Controls: the same reads the classifier knows.
	rtAtLeast(t, []string{"bash"}, `find ~ -type f | xargs cat`, Escalated)
	rtAtLeast(t, []string{"bash"}, `grep -r secret ~`, Escalated)
	rtAtLeast(t, []string{"bash"}, `tar cf x.tar ~`, Escalated)
	for _, c := range cases {
		rtAtLeast(t, []string{"bash", "sh"}, c.line, Escalated)
	}
	// Legitimate uses must keep working.
	rtBelow(t, `cat $(find src -name '*.go')`, Escalated)
	rtBelow(t, `find src -name '*.txt' | while read f; do wc -l "$f"; done`, Escalated)
	rtBelow(t, `find src -name '*.c' | tar -cf src.tar -T -`, Escalated)
	rtBelow(t, `rgrep TODO src`, Escalated)
	rtBelow(t, `du -a src | sort -n | tail`, Escalated)
}
