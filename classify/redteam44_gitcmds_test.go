package classify

import "testing"

// TestRedteam44GitCommands: git runs a command named where the classifier
// did not look:
//
//	git grep -O'rm -rf ~' x        (-O takes its pager attached; --open-files-in-pager= was followed)
//	git grep --open-files='rm -rf ~' x   (a long option abbreviated)
//	git -c protocol.ext.allow=always clone 'ext::sh -c rm% -rf% ~' d
//	git --config-env=core.fsmonitor=X status   (X from the environment: allow)
//
// Found by red-team round 44 (medium). Fixed (next stop): git grep's
// attached -O value, the command-running long options by any
// abbreviation, and an ext:: remote's command (gitExtURL) are classified;
// a command-running key whose --config-env variable the line does not set
// is a run-time command, escalated.
func TestRedteam44GitCommands(t *testing.T) {
	repo := func(t *testing.T, dir string) {
		rt44bRun(t, dir, "git", "init", "-q", ".")
		rt44bWrite(t, dir, "x", "x\n")
		rt44bRun(t, dir, "git", "add", "x")
	}
	rt44bCheck(t, []rt44bCase{
		{argv: []string{"git", "grep", "-OCMD", "x"}, setup: repo},
		{argv: []string{"git", "grep", "--open-files=CMD", "x"}, setup: repo},
		{argv: []string{"git", "-c", "protocol.ext.allow=always", "clone", "ext::sh -c CMD", "d"}},
		{argv: []string{"git", "-c", "protocol.ext.allow=always", "ls-remote", "ext::sh -c CMD"}},
	}, Forbidden)
	rt44bCheck(t, []rt44bCase{
		{argv: []string{"git", "--config-env=core.fsmonitor=X", "status"}, setup: repo, env: []string{"X=CMD"}},
	}, Escalated)
	// controls
	for _, l := range []string{`git grep -O x`, `git log --oneline -5`, `git --config-env=color.ui=X status`, `git clone https://example.com/x d`} {
		if r := Default().ClassifyShell("bash", l); r.Decision >= Escalated {
			t.Errorf("control ClassifyShell(bash, %q) = %s (rule %q), want below escalated", l, r.Decision, r.Rule)
		}
	}
}
