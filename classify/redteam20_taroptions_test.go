package classify

import "testing"

// Red team 20: GNU tar prepends the words of $TAR_OPTIONS (split with
// shell-like quoting) to its arguments. The classifier reads
// --checkpoint-action=exec=, --to-command= and --use-compress-program= on
// tar's command line (tar --checkpoint=1 --checkpoint-action=exec='rm -rf
// ~' is forbidden) but not in TAR_OPTIONS, so TAR_OPTIONS='--checkpoint=1
// --checkpoint-action=exec=rm\ -rf\ ~' tar cf x.tar a is sandboxed and
// deletes the home (checked with GNU tar 1.34 / bash 5.2.15 on a fake HOME,
// for each of the three options).
//
// Severity: high (forbidden rated sandboxed). Affects both root and
// unprivileged callers.
//
// Fixed: runExecOptions (escapes.go) reads the option table over the
// words of TAR_OPTIONS put before tar's arguments (envconfig.go); a
// run-time TAR_OPTIONS makes the call eval-exec.
func TestRedteam20TarOptions(t *testing.T) {
	rt20Check(t, []rt20Case{
		// Attacks: sandboxed today.
		{`TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=rm\ -rf\ ~' tar cf x.tar a`, Forbidden, false},
		{`TAR_OPTIONS='--to-command=rm\ -rf\ ~' tar xf x.tar`, Forbidden, false},
		{`TAR_OPTIONS='--use-compress-program=rm\ -rf\ ~' tar cf x.tar a`, Forbidden, false},
		{`export TAR_OPTIONS='--to-command=rm\ -rf\ ~'; tar xf x.tar`, Forbidden, false},

		// Controls.
		{`tar --checkpoint=1 --checkpoint-action=exec='rm -rf ~' -cf x.tar a`, Forbidden, false},
		{`TAR_OPTIONS=--no-same-owner tar xf x.tar`, Sandboxed, true},
	})
}
