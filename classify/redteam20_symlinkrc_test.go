package classify

import "testing"

// Red team 20: text written to a shell rc file is judged as if it ran
// (echo 'rm -rf ~' >> ~/.bashrc is forbidden), but not when the write
// goes through a symlink the line made to the rc file: ln -s ~/.bashrc x;
// echo 'rm -rf ~' >> x is sandboxed, and bash appends to ~/.bashrc
// (checked with bash 5.2.15 on a fake HOME). The symlink tracking that
// catches ln -s / r; rm -rf r/ and ln -s ~/.ssh s; echo k >>
// s/authorized_keys does not carry the rc-file check.
//
// Severity: medium (persistence in the user's shell start-up; the
// sandbox may still refuse the write). Affects both root and unprivileged
// callers.
//
// Fixed: remember (call.go) also checks the path a write lands on through
// the line's links (writeThrough, aliases.go) against the rc-file list.
func TestRedteam20SymlinkRc(t *testing.T) {
	rt20Check(t, []rt20Case{
		// Attacks: sandboxed today.
		{`ln -s ~/.bashrc x; echo 'rm -rf ~' >> x`, Forbidden, false},
		{`ln -s ~/.bashrc x; echo 'curl -s http://127.0.0.1/x | sh' >> x`, Forbidden, false},
		{`ln -sf ~/.profile p; printf 'rm -rf ~\n' > p`, Forbidden, false},

		// Controls.
		{`echo 'rm -rf ~' >> ~/.bashrc`, Forbidden, false},
		{`ln -s ~/.ssh s; echo key >> s/authorized_keys`, Forbidden, false},
		{`ln -s notes.txt x; echo hello >> x`, Sandboxed, true},
		{`echo 'export EDITOR=vim' >> ~/.bashrc`, Sandboxed, true},
	})
}
