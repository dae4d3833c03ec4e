package classify

import (
	"path"
	"slices"
	"strings"
)

// Perl's scripts run by more roads than perl x.pl (found by red-team
// round 62): perl hands a script whose #! line names neither "perl" nor
// "indir" to the program that line names (perlrun); prove runs the test
// files it finds (t/*.t, below the directories named) or is named, each
// with perl; and `perl Makefile.PL` writes a Makefile holding the make
// text its MY::postamble (and other MY:: overrides) return, whose recipes
// make then runs.

// perlForeignShebang reports whether perl runs text with another program:
// its #! line names neither perl nor indir.
func perlForeignShebang(text string) bool {
	line, _, _ := strings.Cut(text, "\n")
	return strings.HasPrefix(line, "#!") && !strings.Contains(line, "perl") && !strings.Contains(line, "indir")
}

// interpScriptText judges the text of the script p, written on the line,
// that the interpreter u (of lang) runs.
func (a *analyzer) interpScriptText(u *unit, lang, p, text string) {
	if lang == "perl" && perlForeignShebang(text) {
		a.writtenText(u, p, text, a.script) // #!/bin/sh: run by sh
		return
	}
	a.codeText(u, lang, text)
	if lang == "perl" && path.Base(p) == "Makefile.PL" {
		a.makeMakerOutput(u, text)
	}
}

// perlHeredoc matches the start of a Perl here-document: its terminator.
var perlHeredoc = lazyRegexp(`<<~?\s*(?:"(\w+)"|'(\w+)'|(\w+))`)

// perlHeredocs returns the bodies of text's here-documents: the lines
// after the one that starts each, up to its terminator line.
func perlHeredocs(text string) []string {
	var out []string
	for _, m := range perlHeredoc().FindAllStringSubmatchIndex(text, -1) {
		term := ""
		for g := 1; g <= 3; g++ {
			if m[2*g] >= 0 {
				term = text[m[2*g]:m[2*g+1]]
			}
		}
		nl := strings.IndexByte(text[m[1]:], '\n')
		if nl < 0 {
			continue
		}
		var body []string
		for l := range strings.Lines(text[m[1]+nl+1:]) {
			if strings.TrimSpace(l) == term {
				break
			}
			body = append(body, l)
		}
		out = append(out, strings.Join(body, ""))
	}
	return out
}

// makeMakerOutput records the Makefile `perl Makefile.PL` writes in its
// directory as the make text Makefile.PL holds: its strings and here-
// documents (what MY::postamble returns is among them), so that make run
// later judges their recipes.
func (a *analyzer) makeMakerOutput(u *unit, text string) {
	var parts []string
	for _, m := range perlString().FindAllStringSubmatch(text, -1) {
		parts = append(parts, perlUnescape(m[1]+m[2]))
	}
	parts = append(parts, perlHeredocs(text)...)
	a.writeFile(fileKey(u.cwd, u.links, field{val: "Makefile"}), strings.Join(parts, "\n")+"\n", false)
}

// proveValued are prove's options that take the next word as their value.
var proveValued = []string{"-I", "-P", "-M", "-e", "--exec", "-j", "--jobs", "--ext", "--harness", "--formatter",
	"--source", "--state", "--rc", "-a", "--archive", "--rules"}

// proveFiles judges the written test files prove (u) runs with perl: those
// named, and those below the directories named (t by default).
func (a *analyzer) proveFiles(u *unit) {
	var ops []field
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		switch {
		case slices.Contains(proveValued, v):
			i++
		case strings.HasPrefix(v, "-"):
		default:
			ops = append(ops, u.args[i])
		}
	}
	if len(ops) == 0 {
		ops = []field{{val: "t"}}
	}
	for _, op := range ops {
		if op.dyn {
			continue
		}
		dk := fileKey(u.cwd, u.links, op)
		for _, key := range a.writtenFiles(func(k string) bool {
			return k == dk || (dk == "." || strings.HasPrefix(k, dk+"/")) && path.Ext(k) == ".t"
		}) {
			for _, t := range a.keyTexts(u, key) {
				a.interpScriptText(u, "perl", keyPath(u, key), t)
			}
		}
	}
}
