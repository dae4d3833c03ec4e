//go:build linux

package classify

import "testing"

// TestRedteam22WrittenScriptForms: a script written earlier on the line
// and then run is judged as if it ran (echo 'rm -rf ~/.ssh' > x.sh; bash
// x.sh is forbidden), and known text written to a shell rc file is judged
// too (echo 'rm -rf ~/.ssh' >> ~/.bashrc is forbidden). But remember
// (call.go:144) only records the output of a simple command's own
// redirection, and writtenScript looks the file up by the path as written
// (dispatch.go:203). The same text written any other way, or run from
// another directory, is lost and the line is "sandboxed":
//   - a compound command's redirection: { echo …; } > x.sh, if …; fi > x.sh,
//     a function call f > x.sh;
//   - tee (echo … | tee x.sh, tee x.sh <<< …), dd of=x.sh;
//   - exec 3>x.sh then echo … >&3 (also exec >>~/.bashrc: every later
//     command's output lands in the rc file);
//   - a copy of a written file: cat a > x.sh, cp a x.sh, mv a x.sh, ln -s a b;
//   - the right file run after a cd: echo … > s/x.sh; cd s; bash x.sh;
//   - bash reading it through a descriptor: exec 3<x.sh; bash <&3;
//   - rc files: { echo …; } >> ~/.bashrc, … | tee -a ~/.bashrc,
//     exec 3>>~/.bashrc, cat a >> ~/.bashrc, sed -i '1i …' ~/.bashrc.
//
// Every attack below ran its payload for real (bash 5.2, fake HOME; the
// rc-file ones when an interactive bash starts afterwards).
//
// Severity: high (a forbidden payload in plain sight rated sandboxed; the
// written-script tracking is the classifier's own claim). Affects root
// and unprivileged callers alike (pure classifier).
//
// A fix would need: the text a compound command, a function call, tee
// (its input), dd of= and a descriptor opened by exec write recorded like
// a simple redirection's; copies, moves and links of a tracked file carry
// its text; file keys resolved against the working directory the line
// tracks; a bash whose input is a descriptor opened on a tracked file runs
// it; the rc-file check applied to every such write (sed -i's inserted
// text included).
//
// Fixed (these rows): analyze.go stmtCmd remembers a compound command's
// redirection; writeforms.go records tee, dd of=, descriptors exec opened
// (exec 3>>f, exec >>f) and sed -i's a/i/c text, each through writeText,
// which applies the rc-file check; produce.go catWritten gives cat of a
// file written on the line its text. The rows still failing are in
// TestRedteam22LimitWrittenScriptCopies.
func TestRedteam22WrittenScriptForms(t *testing.T) {
	p := `rm -rf ~/.ssh`
	rc := `bash -i -c true`
	rt22dCheck(t, []rt22dCase{
		{command: `{ echo "` + p + `"; } > x.sh; bash x.sh`, want: Forbidden, effect: rt22dSSHGone},
		{command: `if true; then echo "` + p + `"; fi > x.sh; bash x.sh`, want: Forbidden, effect: rt22dSSHGone},
		{command: `echo "` + p + `" | tee x.sh >/dev/null; bash x.sh`, want: Forbidden, effect: rt22dSSHGone},
		{command: `tee x.sh <<< "` + p + `" >/dev/null; bash x.sh`, want: Forbidden, effect: rt22dSSHGone},
		{command: `echo "` + p + `" | dd of=x.sh 2>/dev/null; bash x.sh`, want: Forbidden, effect: rt22dSSHGone},
		{command: `exec 3>x.sh; echo "` + p + `" >&3; bash x.sh`, want: Forbidden, effect: rt22dSSHGone},
		{command: `echo "` + p + `" > a; cat a > x.sh; bash x.sh`, want: Forbidden, effect: rt22dSSHGone},

		// Shell rc files (the default classifier judges known rc text as run).
		{command: `{ echo "` + p + `"; } >> ~/.bashrc`, want: Forbidden, effect: rt22dSSHGone, after: rc},
		{command: `echo "` + p + `" | tee -a ~/.bashrc >/dev/null`, want: Forbidden, effect: rt22dSSHGone, after: rc},
		{command: `exec 3>>~/.bashrc; echo "` + p + `" >&3`, want: Forbidden, effect: rt22dSSHGone, after: rc},
		{command: `exec >>~/.bashrc; echo "` + p + `"`, want: Forbidden, effect: rt22dSSHGone, after: rc},
		{command: `echo "` + p + `" > a; cat a >> ~/.bashrc`, want: Forbidden, effect: rt22dSSHGone, after: rc},
		{command: `sed -i "1i ` + p + `" ~/.bashrc`, want: Forbidden, effect: rt22dSSHGone, after: rc},

		// Controls: the forms the classifier follows, and benign writes.
		{command: `echo "` + p + `" > x.sh; bash x.sh`, want: Forbidden, effect: rt22dSSHGone},
		{command: `mkdir s; echo "` + p + `" > s/x.sh; bash s/x.sh`, want: Forbidden},
		{command: `echo "` + p + `" >> ~/.bashrc`, want: Forbidden, effect: rt22dSSHGone, after: rc},
		{command: `{ echo "ls"; } > x.sh; bash x.sh`, want: Sandboxed, exact: true},
		{command: `echo "ls" | tee x.sh; bash x.sh`, want: Sandboxed, exact: true},
		{command: `{ echo 'export EDITOR=vim'; } >> ~/.bashrc`, want: Sandboxed, exact: true},
	})
}

// TestRedteam22LimitWrittenScriptCopies holds the rows of
// TestRedteam22WrittenScriptForms left unfixed: text written by a function
// call's redirection (f > x.sh: the body's output is not threaded back to
// the call), carried by cp, mv or ln -s to another name, looked up after a
// cd (files are keyed by the path as written), or read by bash through a
// descriptor (exec 3<x.sh; bash <&3). Each ran its payload for real.
func TestRedteam22LimitWrittenScriptCopies(t *testing.T) {
	t.Skip("documented limit: written-script text is not carried through function-call output, copies, moves, links, a later cd or an exec'd input descriptor")
	p := `rm -rf ~/.ssh`
	rt22dCheck(t, []rt22dCase{
		{command: `f(){ echo "` + p + `"; }; f > x.sh; bash x.sh`, want: Forbidden, effect: rt22dSSHGone},
		{command: `echo "` + p + `" > a; cp a x.sh; bash x.sh`, want: Forbidden, effect: rt22dSSHGone},
		{command: `echo "` + p + `" > a; mv a x.sh; bash x.sh`, want: Forbidden, effect: rt22dSSHGone},
		{command: `echo "` + p + `" > a; ln -s a b; bash b`, want: Forbidden, effect: rt22dSSHGone},
		{command: `mkdir s; echo "` + p + `" > s/x.sh; cd s; bash x.sh`, want: Forbidden, effect: rt22dSSHGone},
		{command: `echo "` + p + `" > x.sh; exec 3<x.sh; bash <&3`, want: Forbidden, effect: rt22dSSHGone},
	})
}
