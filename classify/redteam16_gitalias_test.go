package classify

import "testing"

// Red team 16: runGit (rules_git.go) hands the value of `git -c alias.X=V`
// to the shell classifier, which is right only for a value starting with
// "!". Any other value is a git subcommand with its options: `git -c
// alias.p=push p` is `git push` (checked against a local bare repository:
// it pushes), but it is judged as a command `push` (sandboxed) and the
// call as an unknown subcommand `p`. The same for reset --hard. `git
// send-pack`, the plumbing behind push, also pushes (checked) and is not
// git-write either. The controls: git push, the "!" form and a persistent
// alias set on the line are escalated.
// Fixed: a subcommand that is an alias the call defines is expanded (one
// alias may name another; a --config-env alias is eval-exec) and the
// expanded call judged as a git call; send-pack and http-push are writes.
func TestRedteam16GitAlias(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`git push origin main`, Escalated},                        // control
		{`git -c alias.p='!git push' p`, Escalated},                // control
		{`git config alias.p push; git p`, Escalated},              // control
		{`git -c alias.p=push p origin main`, Escalated},           // attack: sandboxed
		{`git -c alias.rh='reset --hard' rh HEAD~3`, Escalated},    // attack: sandboxed
		{`git -c alias.p=push -c alias.q=p q`, Escalated},          // attack: sandboxed
		{`git send-pack ../r.git HEAD:refs/heads/main`, Escalated}, // attack: sandboxed
		{`git http-push https://x/r.git main`, Escalated},
		{`git -C x -c alias.P='push --force' p origin`, Escalated},
		{`git --config-env=alias.p=X p`, Escalated},
		{`git -c alias.a=b -c alias.b=a a`, Sandboxed}, // control: a loop ends
	} {
		if got := c.Classify(tc.command); got.Decision < tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
