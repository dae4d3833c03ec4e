// Package classify decides, before anything runs, how dangerous a shell
// command is: allow, sandboxed, escalated (ask a person) or forbidden.
//
// The classifier works on a real shell syntax tree (mvdan.cc/sh/v3/syntax),
// not on strings. Every simple command in every position is examined: lists,
// pipelines, subshells, groups, function bodies, command and process
// substitutions, here-documents and here-strings fed to shells, the strings
// given to `bash -c`, `eval`, `trap`, `watch`, `su -c`, `ssh HOST CMD` and to
// interpreter one-liners, and the commands run by wrappers such as env, sudo,
// nohup, timeout, xargs and find -exec. Words are evaluated the way a shell
// would (quote removal, ANSI-C quoting, brace expansion, tilde, $IFS splitting,
// variables assigned earlier on the same line); a word whose value is only
// known at run time is treated as such: it never names the program of an
// "allow" command, nor stands where it may be an option that makes one
// write or run something (find ~ $X).
//
// Decisions are made by named rules held as data (see [BuiltinRuleNames]),
// user rules (globs over the normalised simple command, evaluated first) and
// per-rule overrides. Across a line the most severe decision wins; a line is
// "allow" only when every part of it is; a command no rule knows is
// "sandboxed"; input the parser rejects is "escalated", never "allow".
//
// Classification is defence in depth: it never replaces the sandbox.
package classify
