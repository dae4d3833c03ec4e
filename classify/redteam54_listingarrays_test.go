package classify

import (
	"strings"
	"testing"
)

// TestRedteam54ListingArrays: the names a listing of the home prints lose
// their "home listing" mark when they pass through a bash array (mapfile,
// readarray, read -a, a=( $(…) ), declare -a), printf -v, a parameter
// operation that keeps them unchanged (${x#*}, ${x//x/x}) or a line filter
// the classifier does not model (fmt, rev | rev), so reading every file they
// name, ~/.ssh/id_rsa included, is allow:
//
//	mapfile -t a < <(find ~ -type f); cat "${a[@]}"                allow
//	readarray -t a < <(find ~ -type f); cat "${a[@]}"              allow
//	read -ra a <<< "$(find ~ -type f)"; cat "${a[@]}"              allow
//	a=($(find ~ -type f)); cat "${a[@]}"                           allow
//	printf -v x %s "$(find ~ -type f)"; cat $x                     allow
//	x=$(find ~ -type f); y=${x#*}; cat $y                          allow
//	cat $(find ~ -type f | fmt)                                    allow
//
// while `x=$(find ~ -type f); cat $x`, `set -- $(find ~ -type f); cat
// "$@"` and `cat $(find ~ -type f | sort)` are escalated
// (credential-access).
//
// Why: round 51's propagation of stream.tree reaches a plain variable
// (assigns.go, vars.go), a loop word and read into scalars (flow.go), and
// the line filters produce.go lists; no array store (mapfile, readarray,
// read -a, a=(…), declare -a), printf -v, or parameter operation carries
// the mark, and fmt/rev are not among the filters that do.
//
// The premise runs each line with bash in a fake home and checks that the
// key's marker is printed.
//
// Severity: high (a secret read, judged allow).
// Found by red-team round 54.
// Fixed: once a listing of a directory above a credential store ran on the
// line, a content reader given run-time names (or names through xargs or
// its input) reads the stores (recursiveread.go: afterListing); fmt and rev
// pass names on.
func TestRedteam54ListingArrays(t *testing.T) {
	lines := []string{
		`mapfile -t a < <(find ~ -type f); cat "${a[@]}"`,
		`readarray -t a < <(find ~ -type f); cat "${a[@]}"`,
		`read -ra a <<< "$(find ~ -type f)"; cat "${a[@]}"`,
		`a=($(find ~ -type f)); cat "${a[@]}"`,
		`declare -a a=($(find ~ -type f)); cat "${a[@]}"`,
		`printf -v x %s "$(find ~ -type f)"; cat $x`,
		`x=$(find ~ -type f); y=${x#*}; cat $y`,
		`cat $(find ~ -type f | fmt)`,
		`cat $(find ~ -type f | rev | rev)`,
	}
	if rtHave(t, "bash", "find", "fmt", "rev") {
		for _, l := range lines {
			home, work := rt52bHome(t)
			if out := rt52bRun(t, home, work, l); !strings.Contains(out, "RT52B-KEY") {
				t.Fatalf("premise: %q did not print the key (output %q)", l, out)
			}
		}
	}
	// References: the same listing through a plain variable or sort.
	rtAtLeast(t, []string{"bash"}, `x=$(find ~ -type f); cat $x`, Escalated)
	rtAtLeast(t, []string{"bash"}, `cat $(find ~ -type f | sort)`, Escalated)
	// Controls: arrays of a project's files stay below escalated.
	rtBelow(t, `mapfile -t a < <(find . -name '*.go'); cat "${a[@]}"`, Escalated)
	rtBelow(t, `a=($(git ls-files)); wc -l "${a[@]}"`, Escalated)
	for _, l := range lines {
		rtAtLeast(t, []string{"bash"}, l, Escalated)
	}
}
