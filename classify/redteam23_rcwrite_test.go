//go:build linux

package classify

import "testing"

// TestRedteam23RcWriteForms: rc-file text is judged as if it ran when
// written by the forms writeforms.go models (redirections, tee, dd, exec'd
// descriptors, cat, sed -i a/i/c), but these write the same known text to
// ~/.bashrc and are "sandboxed" (forbidden in the modelled forms), the
// payload (rm -rf ~/.ssh) running in the next interactive shell:
//   - exec {fd}>>~/.bashrc; echo … >&$fd — a named descriptor (bash 4.1+;
//     exec 3>>~/.bashrc; echo … >&3 is caught);
//   - sed -i -e '$a\' -e 'TEXT' ~/.bashrc — GNU sed joins -e scripts with
//     a newline, so the a text is the next -e;
//   - sed -i '$s/$/\nTEXT/' ~/.bashrc — an s command appending a line;
//   - perl -pi -e 'print "TEXT\n" if $.==1' ~/.bashrc;
//   - ed -s ~/.bashrc <<< $'$a\nTEXT\n.\nw\nq'.
//
// Each ran for real below (bash 5.2, GNU sed, perl, ed; fake HOME).
//
// Severity: low-medium (a forbidden payload rated sandboxed; the sandbox
// keeps rc files read-only). Root and unprivileged alike.
//
// A fix would need: exec {VAR}>>FILE recorded under the variable, and
// >&$VAR resolved through it; sed's -e scripts joined with newlines before
// the a/i/c text is read, and s replacements containing \n (or on $)
// taken as written text; perl -i/-pi print/. strings and ed/ex scripts fed
// by here-strings judged as written text, or any in-place edit of an rc
// file with a known text escalated.
//
// Fixed: exec {NAME}> assigns the descriptor's number to NAME
// (writeforms.go namedFD); sed's -e scripts are joined, s replacements'
// added lines, perl -i string literals and ed a/i/c text are judged, and
// perl -i / ed / ex edits of a run file with unknown text are eval-exec
// (rcedits.go).
func TestRedteam23RcWriteForms(t *testing.T) {
	rc := `bash -i -c true`
	rt22dCheck(t, []rt22dCase{
		{command: `exec {fd}>>~/.bashrc; echo 'rm -rf ~/.ssh' >&$fd`, want: Forbidden, effect: rt22dSSHGone, after: rc},
		{command: `sed -i -e '$a\' -e 'rm -rf ~/.ssh' ~/.bashrc`, want: Forbidden, effect: rt22dSSHGone, after: rc, needs: []string{"sed"}},
		{command: `sed -i '$s/$/\nrm -rf ~\/.ssh/' ~/.bashrc`, want: Forbidden, effect: rt22dSSHGone, after: rc, needs: []string{"sed"}},
		{command: `perl -pi -e 'print "rm -rf ~/.ssh\n" if $.==1' ~/.bashrc`, want: Forbidden, effect: rt22dSSHGone, after: rc, needs: []string{"perl"}},
		{command: `ed -s ~/.bashrc <<< $'$a\nrm -rf ~/.ssh\n.\nw\nq'`, want: Forbidden, effect: rt22dSSHGone, after: rc, needs: []string{"ed"}},

		// Controls: the modelled forms, and an everyday in-place edit.
		{command: `exec 3>>~/.bashrc; echo 'rm -rf ~/.ssh' >&3`, want: Forbidden, effect: rt22dSSHGone, after: rc},
		{command: `sed -i '$a rm -rf ~/.ssh' ~/.bashrc`, want: Forbidden, effect: rt22dSSHGone, after: rc},
		{command: `sed -i 's/foo/bar/' ~/.bashrc`, want: Sandboxed, exact: true},
	})
}
