package classify

import "testing"

// TestRedteam49GlobNegation: a credential store named through a bracket
// expression the shell reads otherwise than Go's path.Match:
//
//	cat ~/.netr[!x]                    [!x] is "any but x" in bash and dash
//	cat ~/.ss[!x]/id_rs[!x]            … also below a store's directory
//	head ~/.git-credential[!x]
//	shopt -s nocaseglob; cat ~/.NETR[C]   the match ignores case
//
// each print the file (~/.netrc, ~/.ssh/id_rsa, ~/.git-credentials) and are
// allow (common-safe-commands), where `cat ~/.netr[c]` or `cat ~/.netr[^x]`
// is credential-access. globComps (secretpaths.go) matches a component with
// path.Match both ways; path.Match only knows `^` for negation and reads
// `[!x]` as the set {!, x}, so neither direction matches, and a glob in a
// directory component hides a secret file name below it (id_rs[!x] is not
// in secretNames either). nocaseglob, which makes `.NETR[C]` match
// `.netrc`, is not followed at all (globopts.go follows dotglob only).
//
// Severity: high (a credential read judged allow).
// Found by red-team round 49 (high). Fixed: [!x] is matched as path.Match's
// [^x], and with nocaseglob on a glob is matched in lower case too.
func TestRedteam49GlobNegation(t *testing.T) {
	lines := []string{
		`cat ~/.netr[!x]`,
		`cat ~/.ss[!x]/id_rs[!x]`,
		`head ~/.git-credential[!x]`,
		`shopt -s nocaseglob; cat ~/.NETR[C]`,
	}
	if rtHave(t, "bash", "sh", "base64") {
		for _, line := range lines[:3] {
			for _, sh := range []string{"bash", "sh"} {
				home, work := rt49bHome(t)
				if out := rt49bRun(t, sh, home, work, line); !rt49bLeaks(out) {
					t.Fatalf("premise: %s -c %q did not print the secret (output %q)", sh, line, out)
				}
			}
		}
		home, work := rt49bHome(t)
		if out := rt49bRun(t, "bash", home, work, lines[3]); !rt49bLeaks(out) {
			t.Fatalf("premise: %q did not print the secret (output %q)", lines[3], out)
		}
	}
	rtAtLeast(t, []string{"bash"}, `cat ~/.netr[^x]`, Escalated) // control
	for _, line := range lines[:3] {
		rtAtLeast(t, []string{"bash", "sh"}, line, Escalated)
	}
	rtAtLeast(t, []string{"bash"}, lines[3], Escalated) // shopt is bash's
	rtBelow(t, `cat src/[!.]*.go`, Escalated)
}
