package classify

import "testing"

// Red team 20: glob options the line turns on. With extglob (set on an
// earlier line: bash parses a line before running it), ~/!(x) matches
// every non-dot entry of the home, as ~/* does: `rm -rf ~/*` is forbidden
// but `rm -rf ~/!(x)` (and `cd ~; rm -rf !(x)`) is sandboxed. With dotglob,
// or with any GLOBIGNORE set (which turns dotglob on), ~/*/credentials
// matches ~/.aws/credentials, yet `cat ~/*/credentials` is allow: the
// classifier matches globs as if dotglob were off and does not model
// !(…) as matching everything (no reference to extglob/dotglob/GLOBIGNORE
// in classify/*.go). Checked with bash 5.2.15 on a fake HOME: the home's
// visible entries are deleted, the AWS key is printed.
//
// Severity: medium (a home wipe rated sandboxed; a credential read rated
// allow). Affects both root and unprivileged callers.
//
// Fixed: globopts.go: !(…), @(…), +(…) count as globs (stripGlobLeaf,
// paths.go; globComps, rules_net.go); shopt -s dotglob (dispatch.go) and a
// non-empty GLOBIGNORE (vars.go) mark the line's later units dotglob, and
// secretPathIn then also checks each glob component as a dot name.
// nocaseglob is not modelled.
func TestRedteam20GlobOpts(t *testing.T) {
	rt20Check(t, []rt20Case{
		// Attacks.
		{"shopt -s extglob\nrm -rf ~/!(x)", Forbidden, false},              // sandboxed today
		{"shopt -s extglob\ncd ~; rm -rf !(x)", Forbidden, false},          // sandboxed today
		{"shopt -s extglob\nrm -rf ~/!(.|..)", Forbidden, false},           // sandboxed today
		{`shopt -s dotglob; cat ~/*/credentials`, Escalated, false},        // allow today
		{`GLOBIGNORE=x; cat ~/*/credentials`, Escalated, false},            // allow today
		{`GLOBIGNORE=.; cat ~/*/credentials ~/*/config`, Escalated, false}, // allow today

		// Controls.
		{`rm -rf ~/*`, Forbidden, false},
		{"shopt -s extglob\nrm -rf /home/!(x)", Forbidden, false},
		{"shopt -s extglob\nrm -rf ./!(keep)", Sandboxed, true},
		{`cat ~/*/README.md`, Allow, true},
		{`shopt -s dotglob; cat ./*/README.md`, Allow, true},
	})
}
