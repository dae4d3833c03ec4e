package classify

import (
	"strings"
	"testing"
)

// TestWrittenGitConfig: text the line writes into a git configuration
// (the repository's .git/config, the user's ~/.gitconfig, one in a HOME
// the line then gives git) sets commands git runs later; they are judged
// as `git config KEY VALUE` is. Each premise runs in bash with an echo in
// place of rm -rf ~ (HOME is the premise's own directory).
func TestWrittenGitConfig(t *testing.T) {
	for _, tmpl := range []string{
		`git init -q r && cd r && printf '[core]\n\tfsmonitor = CMD\n' >> .git/config && git status`,
		`git init -q r && cd r && echo '[core]' >> .git/config && echo 'fsmonitor = CMD' >> .git/config && git status`,
		`git init -q r && cd r && printf '[alias]\n\tx = !CMD\n' >> ~/.gitconfig && git x`,
		`mkdir h && printf '[alias]\n\tx = !CMD\n' > h/.gitconfig && git init -q r && cd r && HOME=$PWD/../h git x`,
	} {
		if out := shellOutput(t, "bash", strings.ReplaceAll(tmpl, "CMD", "echo PWNED45 >&2"), nil); !strings.Contains(out, "PWNED45") {
			t.Fatalf("premise: git did not run the command of %q: %q", tmpl, out)
		}
		for _, sh := range []string{"bash", "dash"} {
			judgedAtLeast(t, sh, strings.ReplaceAll(tmpl, "CMD", "rm -rf ~"), Forbidden)
		}
	}
	// controls
	for _, l := range []string{`printf '[user]\n\tname = me\n' >> ~/.gitconfig`, `echo 'name = rm' >> ~/.gitconfig`} {
		if r := Default().ClassifyShell("bash", l); r.Decision >= Escalated {
			t.Errorf("control ClassifyShell(bash, %q) = %s (rule %q), want below escalated", l, r.Decision, r.Rule)
		}
	}
}
