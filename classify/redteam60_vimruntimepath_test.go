package classify

import (
	"strings"
	"testing"
)

// TestRedteam60VimRuntimepath: vim loads the plugin/*.vim of every
// directory of 'runtimepath' at start, the pack/*/start/*/plugin/*.vim of
// every directory of 'packpath', sources `:runtime FILE` from the
// runtimepath and `:packadd NAME` from the packpath. A `--cmd` (run before
// plugins load) or `-c` that puts the working directory on either path makes
// the project's own files vim's plugins:
//
//	mkdir -p plugin; echo 'call system("rm -rf ~/.ssh")' > plugin/x.vim; vim -es --cmd 'set rtp+=.' -c q                                             sandboxed
//	mkdir -p pack/a/start/b/plugin; echo 'call system("rm -rf ~/.ssh")' > pack/a/start/b/plugin/x.vim; vim -es --cmd 'set pp+=.' -c q               sandboxed
//	echo 'call system("rm -rf ~/.ssh")' > x.vim; vim -es --cmd 'set rtp+=.' -c 'runtime x.vim' -c q                                                 sandboxed
//	mkdir -p pack/a/opt/b/plugin; echo 'call system("rm -rf ~/.ssh")' > pack/a/opt/b/plugin/x.vim; vim -es -c 'set pp+=.' -c 'packadd b' -c q       sandboxed
//
// while `echo 'call system("rm -rf ~/.ssh")' > x.vim; vim -es -c 'so x.vim'
// -c q` (and -S, -u, VIMINIT, an exrc) is forbidden.
//
// Why: vimex.go follows `:source` of a written file and toolscripts.go the
// start-up files and the plugin directories of the home (round 54's
// vimPluginDir), but neither reads 'runtimepath'/'packpath' set on the line
// (`set rtp+=DIR`, `set pp+=DIR`, `let &rtp = …`), nor `:runtime` or
// `:packadd`: the written plugin is never judged.
//
// The premise runs each line with vim in a fake home (the line's ~/.ssh
// made that home's absolute path) and checks that ~/.ssh is gone, and that
// the same line with a harmless plugin leaves it.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 60. Fixed: vimruntime.go reads the runtimepath
// and packpath the line's ex commands set (set rtp+=, set pp^=, let &rtp .=)
// and their :runtime and :packadd, and judges the written .vim and .lua
// files vim loads from them (hooked in toolscripts.go:toolScriptFiles).
func TestRedteam60VimRuntimepath(t *testing.T) {
	const vs = `'call system("rm -rf ~/.ssh")'`
	attacks := []string{
		`mkdir -p plugin; echo ` + vs + ` > plugin/x.vim; vim -es --cmd 'set rtp+=.' -c q`,
		`mkdir -p pack/a/start/b/plugin; echo ` + vs + ` > pack/a/start/b/plugin/x.vim; vim -es --cmd 'set pp+=.' -c q`,
		`echo ` + vs + ` > x.vim; vim -es --cmd 'set rtp+=.' -c 'runtime x.vim' -c q`,
		`mkdir -p pack/a/opt/b/plugin; echo ` + vs + ` > pack/a/opt/b/plugin/x.vim; vim -es -c 'set pp+=.' -c 'packadd b' -c q`,
	}
	rt60aNeed(t, "vim", "vim")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, `call system("rm -rf ~/.ssh")`, `let g:x = 1`))
	}
	// Reference: the same file sourced by name.
	rtAtLeast(t, []string{"bash"}, `echo `+vs+` > x.vim; vim -es -c 'so x.vim' -c q`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: a project's harmless plugin, vim on the project's path.
	rtBelow(t, `vim -es --cmd 'set rtp+=.' -c q`, Escalated)
	rtBelow(t, `mkdir -p plugin; echo 'let g:x = 1' > plugin/x.vim; vim -es --cmd 'set rtp+=.' -c q`, Escalated)
}
