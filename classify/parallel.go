package classify

import "strings"

// parallelSeps are the words with which GNU parallel's argument sources
// start: ::: (the words after it), :::: (lines of the files after it), and
// their linked forms.
var parallelSeps = newSet(":::", "::::", ":::+", "::::+")

// parallelRun finds what GNU parallel runs; opts are its own options, cmd
// the words after them. Like xargs it runs CMD with arguments read from
// standard input (stdinArgs), or with the words after ::: (cmd is then
// CMD ARGS); with --pipe CMD reads the input itself. Unlike xargs, with no
// CMD each input line, or each word after :::, is a shell command line
// (done: already classified here), and one CMD word that holds a space is
// a command line too, {} standing for each argument; so are several CMD
// words, which parallel joins with spaces unless -q (--quote) is given.
func (a *analyzer) parallelRun(u *unit, opts, cmd []field) (out []field, stdinArgs, done bool) {
	k := len(cmd)
	for i, f := range cmd {
		if parallelSeps.has(f.val) {
			k = i
			break
		}
	}
	prog := cmd[:k]
	var args []field
	for _, f := range cmd[k:] {
		if !parallelSeps.has(f.val) {
			args = append(args, f)
		}
	}
	pipe := hasFlag(opts, "", "--pipe", "--spreadstdin", "--pipepart")
	if len(prog) > 1 && !hasFlag(opts, "q", "--quote") && hasShellMeta(prog) {
		// Without -q parallel joins CMD's words with spaces and the shell
		// runs the result: a quoted '>>' is a redirection, '$HOME' expands.
		// That line is judged too; the words are still judged as the
		// command they look like.
		a.parallelLines(u, joinField(prog), xargsReplace(opts), args)
	}
	switch {
	case len(prog) == 0 && k == len(cmd):
		if u.piped && !pipe {
			a.codeFromInput(u, u.in)
		}
		return nil, false, true
	case len(prog) == 0:
		for _, f := range args {
			a.shellString(u, f)
		}
		return nil, false, true
	case len(prog) == 1 && strings.ContainsAny(prog[0].val, " \t\n;|&"):
		tok := xargsReplace(opts)
		line := prog[0]
		if len(args) == 0 {
			if !strings.Contains(line.val, tok) {
				line.val += " " + tok
			}
			// Each input line, quoted, is pasted into the command line
			// sh -c runs, as xargs -I{} sh -c 'CMD {}' does.
			return []field{{val: "sh"}, {val: "-c"}, line}, !pipe, false
		}
		a.parallelLines(u, line, tok, args)
		return nil, false, true
	}
	return append(prog, args...), k == len(cmd) && !pipe, false
}

// parallelLines judges the command lines parallel's shell runs: line with
// each argument, quoted, for tok ({}), or line itself (tok where the
// input goes) when the arguments come from the input.
func (a *analyzer) parallelLines(u *unit, line field, tok string, args []field) {
	if !strings.Contains(line.val, tok) {
		line.val += " " + tok
	}
	if len(args) == 0 {
		a.shellString(u, line)
		return
	}
	for _, f := range args {
		g := line
		var ok bool
		if g.val, ok = a.paste(line.val, tok, shellQuote(f.val)); !ok {
			break
		}
		g.dyn = g.dyn || f.dyn
		a.shellString(u, g)
	}
}

// hasShellMeta reports whether a word holds a character the shell gives a
// meaning (a quote, an expansion, an operator, a blank, a glob).
func hasShellMeta(fs []field) bool {
	for _, f := range fs {
		if strings.ContainsAny(f.val, " \t\n;|&<>()$`\\\"'*?[~#") {
			return true
		}
	}
	return false
}

// shellQuote quotes v as one shell word, as parallel quotes the arguments
// it puts into a command line.
func shellQuote(v string) string {
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}
