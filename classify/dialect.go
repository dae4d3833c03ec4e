package classify

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// A line is judged as the shell that runs it reads it. bash and a POSIX
// shell such as dash split some text into different commands: dash has no
// $'…' quoting, so in
//
//	echo $'x\' ; rm -rf ~ #\''
//
// bash sees one echo and dash runs rm (TestDialectSplit). bash reads a
// line one way; every other shell (dash, sh that is not bash, zsh, ksh, …)
// is judged reading it both ways, the more severe verdict standing: the
// analysis is built on bash's syntax tree (a POSIX parse has no
// declarations, so export X=… is a plain call there), and the POSIX
// reading is there for what it splits otherwise. Text one reading cannot
// parse is a parse error there, escalated like any other: bash syntax
// (&>, arrays, <<<) does something else in dash, or nothing.
var (
	bashView  = []syntax.LangVariant{syntax.LangBash}
	bothViews = []syntax.LangVariant{syntax.LangBash, syntax.LangPOSIX}
)

// bashNames are the names bash runs under as itself.
var bashNames = map[string]bool{"bash": true, "rbash": true}

// noTopLocal are the shells where local outside a function fails,
// assigning nothing (bash; dash stops the script there), as run for the
// tests' premises; zsh, ksh and mksh make it a global. A shell not listed
// is judged either way, the safe side where its behaviour is not checked.
var noTopLocal = newSet("bash", "rbash", "dash")

// shellCache holds shellName's answers by program: resolving sh's links
// takes system calls, and the answer does not change while agentbox runs.
var shellCache sync.Map

// shellName returns the name of the shell prog (a path or a name looked
// up in PATH, as written on the line) is. A name is taken at its word,
// except sh, which is whatever it links to: dash on Debian and Ubuntu,
// bash on Fedora and Arch, busybox on Alpine; "sh" where that is not
// known.
func shellName(prog string) string {
	name := normName(prog)
	if name != "sh" {
		return name
	}
	if v, ok := shellCache.Load(prog); ok {
		return v.(string)
	}
	path := prog
	if !strings.Contains(prog, "/") {
		path, _ = exec.LookPath(prog)
	}
	if filepath.IsAbs(path) {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			name = filepath.Base(real)
		}
	}
	shellCache.Store(prog, name)
	return name
}

// shellViews returns how the shell prog reads a script.
func shellViews(prog string) []syntax.LangVariant {
	if bashNames[shellName(prog)] {
		return bashView
	}
	return bothViews
}

var parserPools = map[syntax.LangVariant]*sync.Pool{}

func init() {
	for _, v := range bothViews {
		parserPools[v] = &sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(v), syntax.KeepComments(true)) }}
	}
}

// parseAs parses text as the dialect lang reads it.
func parseAs(lang syntax.LangVariant, text string) (*syntax.File, error) {
	pool := parserPools[lang]
	p := pool.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(text), "")
	pool.Put(p)
	if err == nil && lang == syntax.LangPOSIX && hasDeclWord(text) {
		posixDecls(f)
	}
	return f, err
}

// posixDecls turns the calls of export, readonly and local in a POSIX
// parse, which has no declarations, into the declaration clauses a bash
// parse has, so that the analysis tracks what they assign there too
// (export D=build; rm -rf "$D").
func posixDecls(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		s, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		ce, ok := s.Cmd.(*syntax.CallExpr)
		if !ok || len(ce.Assigns) > 0 || len(ce.Args) == 0 {
			return true
		}
		switch name := ce.Args[0].Lit(); name {
		case "export", "readonly", "local":
			d := &syntax.DeclClause{Variant: ce.Args[0].Parts[0].(*syntax.Lit)}
			for _, w := range ce.Args[1:] {
				d.Args = append(d.Args, declArg(w))
			}
			s.Cmd = d
		}
		return true
	})
}

// hasDeclWord reports whether text may call export, readonly or local:
// the walk of posixDecls is spared on the others.
func hasDeclWord(text string) bool {
	return strings.Contains(text, "export") || strings.Contains(text, "readonly") || strings.Contains(text, "local")
}

// declArg is the assignment a bash parse makes of the word w of a
// declaration: NAME=VALUE split at its '=' where the name is literal,
// anything else (an option, a name alone, a word only known at run time)
// a naked word, which the analysis reads as declare reads it.
func declArg(w *syntax.Word) *syntax.Assign {
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return &syntax.Assign{Naked: true, Value: w}
	}
	name, rest, found := strings.Cut(lit.Value, "=")
	if !found || !syntax.ValidName(name) {
		return &syntax.Assign{Naked: true, Value: w}
	}
	at := func(n int) syntax.Pos {
		p := lit.ValuePos
		return syntax.NewPos(p.Offset()+uint(n), p.Line(), p.Col()+uint(n))
	}
	as := &syntax.Assign{Name: &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: at(len(name)), Value: name}}
	var parts []syntax.WordPart
	if rest != "" {
		parts = append(parts, &syntax.Lit{ValuePos: at(len(name) + 1), ValueEnd: lit.ValueEnd, Value: rest})
	}
	parts = append(parts, w.Parts[1:]...)
	if len(parts) > 0 {
		as.Value = &syntax.Word{Parts: parts}
	}
	return as
}
