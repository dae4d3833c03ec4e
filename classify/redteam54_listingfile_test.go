package classify

import (
	"strings"
	"testing"
)

// TestRedteam54ListingFile: a listing of the home saved to a file the line
// wrote, or passed through `awk 1` or `xargs echo`, no longer carries its
// "home listing" mark, so reading every file it names, ~/.ssh/id_rsa
// included, is sandboxed:
//
//	find ~ -type f > l; cat $(cat l)                            sandboxed
//	find ~ -type f > l; xargs cat < l                           sandboxed
//	find ~ -type f > l; xargs -a l cat                          sandboxed
//	find ~ -type f > l; while read f; do cat "$f"; done < l     sandboxed
//	find ~ -type f | awk 1 | xargs cat                          sandboxed
//	find ~ -type f | xargs echo | xargs cat                     sandboxed
//
// while `find ~ -type f | xargs cat`, `find ~ -type f | sed 's/x/x/' |
// xargs cat` and `find ~ -type f > l; rsync -a --files-from=l / out/` are
// escalated (credential-access).
//
// Why: round 51 carries stream.tree (stream.go) through pipes,
// substitutions, variables and read (produce.go, recursiveread.go,
// flow.go), but what a file the line wrote keeps for its later readers
// (cat, xargs -a, < l) is its text without the tree mark; and awk (a
// program, not one of the line filters that carry it) and xargs echo
// produce a stream without it.
//
// The premise runs each line with bash in a fake home and checks that the
// key's marker is printed.
//
// Severity: high (every credential of the home read, judged sandboxed).
// Found by red-team round 54.
// Fixed: as TestRedteam54ListingArrays (afterListing).
func TestRedteam54ListingFile(t *testing.T) {
	lines := []string{
		`find ~ -type f > l; cat $(cat l)`,
		`find ~ -type f > l; xargs cat < l`,
		`find ~ -type f > l; xargs -a l cat`,
		`find ~ -type f > l; while read f; do cat "$f"; done < l`,
		`find ~ -type f | awk 1 | xargs cat`,
		`find ~ -type f | xargs echo | xargs cat`,
	}
	if rtHave(t, "bash", "find", "xargs", "awk") {
		for _, l := range lines {
			home, work := rt52bHome(t)
			if out := rt52bRun(t, home, work, l); !strings.Contains(out, "RT52B-KEY") {
				t.Fatalf("premise: %q did not print the key (output %q)", l, out)
			}
		}
	}
	// References: the same listing piped straight in.
	rtAtLeast(t, []string{"bash"}, `find ~ -type f | xargs cat`, Escalated)
	rtAtLeast(t, []string{"bash"}, `find ~ -type f > l; rsync -a --files-from=l / out/`, Escalated)
	// Controls: a project's listing saved and read back.
	rtBelow(t, `find . -name '*.go' > l; xargs wc -l < l`, Escalated)
	rtBelow(t, `find . -name '*.md' | awk 1 | xargs cat`, Escalated)
	for _, l := range lines {
		rtAtLeast(t, []string{"bash"}, l, Escalated)
	}
}
