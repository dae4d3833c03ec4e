package classify

import "testing"

// TestRedteam54VimPlugins: vim sources every *.vim under ~/.vim/plugin,
// ~/.vim/after/plugin and ~/.vim/pack/*/start/*/plugin at each start, like
// ~/.vimrc, but round 52 judges only ~/.vimrc, ~/.vim/vimrc and
// ~/.config/vim/vimrc as vim's start-up files, so planting code there is
// sandboxed and the code runs at the user's next `vim`:
//
//	mkdir -p ~/.vim/plugin && echo 'call system("rm -rf ~/.ssh")' > ~/.vim/plugin/x.vim                             sandboxed
//	mkdir -p ~/.vim/after/plugin && echo 'call system("rm -rf ~/.ssh")' > ~/.vim/after/plugin/x.vim                 sandboxed
//	mkdir -p ~/.vim/pack/a/start/b/plugin && echo 'call system("rm -rf ~/.ssh")' > ~/.vim/pack/a/start/b/plugin/x.vim sandboxed
//
// while `echo 'call system("rm -rf ~/.ssh")' >> ~/.vimrc` is forbidden.
//
// Why: toolscripts.go lists the start-up files of each tool by exact path;
// the plugin directories vim's 'runtimepath' loads at start are not among
// them (nor is any *.vim under them).
//
// The premise plants each file in a fake home, then runs `vim -c q` there
// and checks that ~/.ssh is gone.
//
// Severity: high (a forbidden command planted to run later, judged
// sandboxed).
// Found by red-team round 54.
// Fixed: scripts in vim's and neovim's plugin and ftplugin directories are
// start-up files (vimPluginDir); neovim's Lua is judged as Lua.
func TestRedteam54VimPlugins(t *testing.T) {
	lines := []string{
		`mkdir -p ~/.vim/plugin && echo 'call system("rm -rf ~/.ssh")' > ~/.vim/plugin/x.vim`,
		`mkdir -p ~/.vim/after/plugin && echo 'call system("rm -rf ~/.ssh")' > ~/.vim/after/plugin/x.vim`,
		`mkdir -p ~/.vim/pack/a/start/b/plugin && echo 'call system("rm -rf ~/.ssh")' > ~/.vim/pack/a/start/b/plugin/x.vim`,
	}
	if rtHave(t, "bash", "vim") {
		for _, l := range lines {
			home, work := rt52bHome(t)
			out := rt52bRun(t, home, work, l+` && vim -c q`)
			if !rt52bGone(home) {
				t.Fatalf("premise: %q then vim did not remove ~/.ssh (output %q)", l, out)
			}
		}
	}
	// Reference: the same code in ~/.vimrc.
	rtAtLeast(t, []string{"bash"}, `echo 'call system("rm -rf ~/.ssh")' >> ~/.vimrc`, Forbidden)
	// Control: a harmless plugin stays below escalated.
	rtBelow(t, `mkdir -p ~/.vim/plugin && echo 'set number' > ~/.vim/plugin/x.vim`, Escalated)
	for _, l := range lines {
		rtAtLeast(t, []string{"bash"}, l, Escalated)
	}
}
