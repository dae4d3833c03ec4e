package classify

import "testing"

// TestRedteam56VimExShellForms: vimex.go judges vim's ex commands that
// run a shell by a few shapes (:!cmd after a start or a |, with :silent,
// a range of %, digits or `.`, :r/:w; :terminal; system() and its
// kin; :execute as opaque). Ex has more ways to the same shell, and
// each of these deletes ~/.ssh:
//
//	vim -es -c 'g/^/!rm -rf ~/.ssh' -c qa!                      sandboxed  (:global runs ! for each line)
//	vim -es -c 'windo !rm -rf ~/.ssh' -c qa!                    sandboxed  (windo/bufdo/argdo/tabdo)
//	vim -es -c 'noautocmd !rm -rf ~/.ssh' -c qa!                sandboxed  (a command modifier)
//	vim -es -c 'set makeprg=rm\ -rf\ ~/.ssh' -c make -c qa!     sandboxed  (:make runs makeprg)
//	vim -es -c 'call execute("!rm -rf ~/.ssh")' -c qa!          sandboxed  (execute() is :execute)
//	vim -es -c '$r !rm -rf ~/.ssh' -c qa!                       sandboxed  (a range of $ …)
//	vim -es -c '1,$!rm -rf ~/.ssh' -c qa!                       sandboxed
//	vim -es -c 'au VimEnter * !rm -rf ~/.ssh'                   sandboxed  (an autocommand)
//	echo 'silent noautocmd !rm -rf ~/.ssh' >> ~/.vimrc           sandboxed  (runs at the next vim, on the host)
//
// while `vim -es -c '!rm -rf ~/.ssh'`, `-c '%!rm -rf ~/.ssh'` and
// `echo 'silent !rm -rf ~/.ssh' >> ~/.vimrc` are forbidden. The same text in
// VIMINIT/EXINIT (round 55), a -u/-S file or a vim plugin goes through
// the same code.
//
// Why: vimex.go vimBang is anchored at the start or a `|` and allows only
// [\s:]*, :silent, a range of %, N, N,M or .,$ and r/w before the `!`;
// a modifier (noautocmd, keepalt, keepjumps, vertical, …), :global's
// /pat/, :windo/:bufdo and :autocmd's event and pattern, a $ or mark
// range, are none of those. vimCalls lacks execute() (vimExecute knows
// only the :execute command), and 'makeprg'/'grepprg' with :make/:grep
// are not read at all.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed; code planted in
// ~/.vimrc judged sandboxed).
// Found by red-team round 56. Fixed: vimex.go (vimBangs after any range and modifier,
// makeprg/grepprg, execute()).
func TestRedteam56VimExShellForms(t *testing.T) {
	lines := []string{
		`vim -es -c 'g/^/!rm -rf ~/.ssh' -c qa!`,
		`vim -es -c 'windo !rm -rf ~/.ssh' -c qa!`,
		`vim -es -c 'noautocmd !rm -rf ~/.ssh' -c qa!`,
		`vim -es -c 'set makeprg=rm\ -rf\ ~/.ssh' -c make -c qa!`,
		`vim -es -c 'call execute("!rm -rf ~/.ssh")' -c qa!`,
		`vim -es -c '$r !rm -rf ~/.ssh' -c qa!`,
		`vim -es -c '1,$!rm -rf ~/.ssh' -c qa!`,
		`vim -es -c 'au VimEnter * !rm -rf ~/.ssh'`,
	}
	const rc = `echo 'silent noautocmd !rm -rf ~/.ssh' >> ~/.vimrc`
	if rtHave(t, "bash", "vim") {
		for _, l := range lines {
			rt56aPremise(t, l)
		}
		// The planted ~/.vimrc runs at a later vim.
		home, work := rt56aHome(t)
		rt56aRun(t, home, work, rc)
		if rt56aGone(home) {
			t.Fatal("premise: writing ~/.vimrc removed ~/.ssh by itself")
		}
		out := rt56aRun(t, home, work, `vim -n -i NONE -c qa! </dev/null`)
		if !rt56aGone(home) {
			t.Fatalf("premise: vim did not run ~/.vimrc (output %q)", out)
		}
	}
	// References: the forms vimex.go follows.
	rtAtLeast(t, []string{"bash"}, `vim -es -c '!rm -rf ~/.ssh' -c qa!`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `vim -es -c '%!rm -rf ~/.ssh' -c qa!`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo 'silent !rm -rf ~/.ssh' >> ~/.vimrc`, Forbidden)
	// The attack.
	for _, l := range append(lines, rc) {
		rtAtLeast(t, []string{"bash", "sh"}, l, Forbidden)
	}
	// Controls: editing commands.
	rtBelow(t, `vim -es -c 'g/^$/d' -c wq f.txt`, Escalated)
	rtBelow(t, `vim -es -c 'windo set nu' -c qa! f.txt`, Escalated)
	rtBelow(t, `echo 'au BufRead *.md setlocal spell' >> ~/.vimrc`, Escalated)
	rtBelow(t, `vim -es -c 'set makeprg=go\ build' -c qa!`, Escalated)
}
