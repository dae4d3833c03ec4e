package classify

import (
	"errors"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Limits that bound the work one classification may do.
const (
	maxDepth = 16      // nested scripts (bash -c 'bash -c …')
	maxSteps = 20000   // statements and units in one line
	maxInput = 1 << 20 // bytes of input
	maxValue = 1 << 16 // bytes of a computed word, variable or stream text
)

var parserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash))
}}

func parse(text string) (*syntax.File, error) {
	p := parserPool.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(text), "")
	parserPool.Put(p)
	return f, err
}

// varVal is the value of a shell variable assigned earlier on the line.
type varVal struct {
	val   string
	known bool
	home  bool
	ifs   bool     // the value was built with $IFS
	arr   []string // elements of a literal array (x=(a b), set -- a b)
	item  bool     // a for-loop word over relative literals or globs: never empty
}

// analyzer walks one command line. It is used by a single goroutine.
type analyzer struct {
	c     *Classifier
	src   string // source text of the script being walked
	vars  map[string]varVal
	funcs map[string]bool   // defined functions: name → spawns copies of itself
	files map[string]string // files written on this line with known text
	refs  map[string]string // namerefs (declare -n r=NAME) → NAME, "" when only known at run time
	cwd   string            // working directory after the last literal cd ("" = unknown, cwdMaybeHome)
	oldwd string            // the directory before it ($OLDPWD, cd -)
	dirs  []string          // pushd's directory stack below cwd, top last
	links map[string]string // symbolic links made on the line: name → target
	depth int
	steps int
	res   Result
	prio  int  // tie rank of res (see decide)
	any   bool // some unit decided
	halt  bool // a limit was hit; stop walking

	xargsFill bool // xargsInput stands for a non-empty xargs -I input line
}

func newAnalyzer(c *Classifier) *analyzer {
	return &analyzer{c: c, res: Result{Decision: Allow}}
}

// script parses text and walks it as a nested script whose standard input
// is in (nil when the script does not read it).
func (a *analyzer) script(text string, in *stream) stream {
	if a.halt {
		return stream{traits: trUnknown}
	}
	if a.depth >= maxDepth {
		a.limit("nesting deeper than 16 levels")
		return stream{traits: trUnknown}
	}
	f, err := parse(text)
	if err != nil {
		a.emit(&unit{kind: kParseError, info: err.Error(), prog: text})
		a.salvage(text, err)
		return stream{traits: trUnknown}
	}
	saved := a.src
	a.src = text
	a.depth++
	out := a.stmtList(f.Stmts, in)
	a.depth--
	a.src = saved
	return out
}

// forkBombText recognises fork bombs the parser rejects, such as
// :(){:|:&};: written without the spaces bash needs.
var forkBombText = lazyRegexp(`([^\s(){}|&;]+)\s*\(\)\s*\{\s*([^\s(){}|&;]+)\s*\|\s*([^\s(){}|&;]+)\s*&`)

// salvage classifies what a shell would still run from text it cannot parse
// as a whole: bash executes the complete lines before a syntax error, and a
// fork bomb written without spaces is still recognised.
func (a *analyzer) salvage(text string, err error) {
	for _, m := range forkBombText().FindAllStringSubmatch(text, -1) {
		if m[1] == m[2] && m[2] == m[3] {
			a.emit(&unit{kind: kFuncDecl, name: m[1], selfSpawn: true, info: "function " + m[1]})
		}
	}
	var pe syntax.ParseError
	if !errors.As(err, &pe) || pe.Pos.Line() <= 1 {
		return
	}
	lines := strings.SplitN(text, "\n", int(pe.Pos.Line()))
	prefix := strings.Join(lines[:len(lines)-1], "\n")
	if _, perr := parse(prefix); perr == nil {
		a.script(prefix, nil)
	}
}

func (a *analyzer) limit(why string) {
	if !a.halt {
		a.emit(&unit{kind: kParseError, info: why})
		a.halt = true
	}
}

// subst walks the statements of a command or process substitution and
// returns what they print.
func (a *analyzer) subst(stmts []*syntax.Stmt) stream {
	return a.stmtList(stmts, nil)
}

func (a *analyzer) stmtList(stmts []*syntax.Stmt, in *stream) stream {
	var out stream
	texts := true
	var sb strings.Builder
	for _, s := range stmts {
		o := a.stmt(s, in)
		out.traits |= o.traits
		if o.textKnown {
			sb.WriteString(o.text)
		} else {
			texts = false
		}
	}
	if len(stmts) > 0 && sb.Len() <= maxValue {
		// Without textKnown, text holds the parts that are known: a shell
		// fed `(cat x; echo 'rm -rf /')` still runs rm -rf /.
		out.text, out.textKnown = sb.String(), texts
	}
	return out
}

func (a *analyzer) stmt(s *syntax.Stmt, in *stream) stream {
	if s == nil || a.halt {
		return stream{}
	}
	if a.steps++; a.steps > maxSteps {
		a.limit("command too complex to classify")
		return stream{traits: trUnknown}
	}
	redirs, stdin := a.redirects(s.Redirs)
	piped := in != nil
	if stdin != nil {
		in, piped = stdin, true
	}
	switch cmd := s.Cmd.(type) {
	case nil:
		if len(redirs) > 0 {
			a.run(&unit{kind: kCall, redirs: redirs})
		}
		return stream{}
	case *syntax.CallExpr:
		return a.call(cmd, redirs, in, piped, s.Background)
	case *syntax.BinaryCmd:
		if cmd.Op == syntax.Pipe || cmd.Op == syntax.PipeAll {
			out := a.stmt(cmd.X, in)
			return a.stmt(cmd.Y, &out)
		}
		o := a.stmt(cmd.X, in)
		o.merge(a.stmt(cmd.Y, in))
		return o
	}
	out := a.compound(s.Cmd, in)
	if len(redirs) > 0 {
		a.run(&unit{kind: kCall, redirs: redirs})
	}
	return out
}

// compound walks every command that is not a simple command or a list.
func (a *analyzer) compound(cmd syntax.Command, in *stream) stream {
	switch c := cmd.(type) {
	case *syntax.Subshell:
		return a.stmtList(c.Stmts, in)
	case *syntax.Block:
		return a.stmtList(c.Stmts, in)
	case *syntax.IfClause:
		var out stream
		for ; c != nil; c = c.Else {
			a.stmtList(c.Cond, in)
			out.merge(a.stmtList(c.Then, in))
		}
		return out
	case *syntax.WhileClause:
		a.stmtList(c.Cond, in)
		if infiniteLoop(c) && spawnsInBackground(c.Do) {
			a.emit(&unit{kind: kLoop, selfSpawn: true, info: "infinite loop starting background processes"})
		}
		return a.stmtList(c.Do, in)
	case *syntax.ForClause:
		if wi, ok := c.Loop.(*syntax.WordIter); ok {
			item := len(wi.Items) > 0
			for _, w := range wi.Items {
				for _, f := range a.expandWord(w) {
					item = item && loopItem(f)
				}
			}
			a.setVar(wi.Name.Value, varVal{item: item})
		} else {
			a.walkNode(c.Loop)
		}
		if cl, ok := c.Loop.(*syntax.CStyleLoop); ok && cl.Cond == nil && spawnsInBackground(c.Do) {
			a.emit(&unit{kind: kLoop, selfSpawn: true, info: "infinite loop starting background processes"})
		}
		out := a.stmtList(c.Do, in)
		if wi, ok := c.Loop.(*syntax.WordIter); ok {
			// With nullglob the loop may not run: afterwards the value is unknown.
			a.setVar(wi.Name.Value, varVal{})
		}
		return out
	case *syntax.CaseClause:
		a.expandWord(c.Word)
		var out stream
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				a.expandWord(p)
			}
			out.merge(a.stmtList(it.Stmts, in))
		}
		return out
	case *syntax.FuncDecl:
		a.funcDecl(c)
		return stream{}
	case *syntax.DeclClause:
		a.decl(c)
		return stream{}
	case *syntax.TimeClause:
		return a.stmt(c.Stmt, in)
	case *syntax.CoprocClause:
		return a.stmt(c.Stmt, in)
	case *syntax.TestDecl:
		return a.stmt(c.Body, in)
	default: // ArithmCmd, LetClause, TestClause
		a.walkNode(cmd)
		return stream{}
	}
}

// loopItem reports whether a for-loop word is a value the loop variable
// can take without being empty or naming more than the working directory
// holds: a relative literal or glob (a glob with no match stays the
// pattern), with no .. component and no dot glob (.* matches . and ..).
// Words from $(…), $VAR, ~ or an absolute path are not.
func loopItem(f field) bool {
	if f.dyn || f.home || f.val == "" || strings.HasPrefix(f.val, "/") || strings.HasPrefix(f.val, "-") {
		return false
	}
	if c := cleanTarget(f.val); c == "" || c == "." || c == ".." {
		return false
	}
	for _, comp := range strings.Split(f.val, "/") {
		if comp == ".." || strings.HasPrefix(comp, ".") && strings.ContainsAny(comp, "*?[") {
			return false
		}
	}
	return true
}

// walkNode finds the command and process substitutions inside a node that
// the analyzer does not otherwise visit (arithmetic, [[ ]] tests, parameter
// expansion operands) and walks them.
func (a *analyzer) walkNode(n syntax.Node) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			a.subst(n.Stmts)
			return false
		case *syntax.ProcSubst:
			a.subst(n.Stmts)
			return false
		case *syntax.Word:
			for _, p := range n.Parts {
				switch p.(type) {
				case *syntax.CmdSubst, *syntax.ProcSubst:
					a.walkNode(p)
				case *syntax.ParamExp, *syntax.DblQuoted, *syntax.ArithmExp:
					a.walkNode(p)
				}
			}
			return false
		}
		return true
	})
}

// redirects expands the redirections of a statement. It returns the ones
// that name files and, when one feeds standard input, what it feeds.
func (a *analyzer) redirects(rs []*syntax.Redirect) ([]redir, *stream) {
	var out []redir
	var stdin *stream
	for _, r := range rs {
		fd := ""
		if r.N != nil {
			fd = r.N.Value
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			s := a.heredoc(r)
			if fd == "" || fd == "0" {
				stdin = &s
			}
			continue
		case syntax.WordHdoc:
			fs := a.expandWord(r.Word)
			s := joinStream(fs)
			s.text += "\n"
			if fd == "" || fd == "0" {
				stdin = &s
			}
			continue
		}
		fs := a.expandWord(r.Word)
		if len(fs) == 0 {
			continue
		}
		t := fs[0]
		rd := redir{op: r.Op, target: t}
		out = append(out, rd)
		if rd.isFileRead() && (fd == "" || fd == "0") {
			s := t.src
			if t.src.traits&trProcSubst == 0 {
				s.traits |= trFile
			}
			if text, ok := a.files[cleanTarget(t.val)]; ok && !t.dyn {
				// Written (or downloaded) earlier on the line: bash < a.
				s = literal(text)
				if text == downloaded {
					s = stream{traits: trDownload}
				}
			}
			stdin = &s
		}
	}
	return out, stdin
}

// heredoc returns the body of a here-document as a stream.
func (a *analyzer) heredoc(r *syntax.Redirect) stream {
	if r.Hdoc == nil {
		return literal("")
	}
	var b fieldBuilder
	for _, p := range r.Hdoc.Parts {
		a.expandPart(&b, p, true, false)
	}
	return joinStream(b.done())
}

// joinStream joins fields into a known text stream; run-time parts keep
// their source text, which a nested parse sees as expansions again.
func joinStream(fs []field) stream {
	var s stream
	var vals []string
	for _, f := range fs {
		s.traits |= f.src.traits
		vals = append(vals, f.val)
	}
	s.text, s.textKnown = strings.Join(vals, " "), true
	return s
}

// call walks a simple command.
func (a *analyzer) call(ce *syntax.CallExpr, redirs []redir, in *stream, piped, bg bool) stream {
	var env []envVar
	for _, as := range ce.Assigns {
		if as.Name == nil {
			continue
		}
		var f field
		switch {
		case as.Value != nil:
			f = joinField(a.expandWord(as.Value))
		case as.Array != nil:
			arr, ok := a.arrayValue(as.Array)
			f = field{dyn: true, val: "(…)"}
			if ok && len(ce.Args) == 0 && as.Index == nil {
				a.setVar(as.Name.Value, varVal{arr: arr, known: true, val: strings.Join(arr, " ")})
				continue
			}
		}
		a.walkNode(as.Index)
		if as.Index != nil {
			f.dyn = true // x[i]=v: track the array as unknown
		}
		env = append(env, envVar{name: a.refName(as.Name.Value), val: f})
	}
	var fields []field
	for _, w := range ce.Args {
		fields = append(fields, a.expandWord(w)...)
	}
	if len(ce.Args) == 0 {
		for _, e := range env {
			a.assign(e)
		}
		if len(env) > 0 {
			a.run(&unit{kind: kAssign, env: env})
		}
		if len(redirs) > 0 {
			a.run(&unit{kind: kCall, redirs: redirs})
		}
		return stream{}
	}
	for _, e := range env {
		if codeVars.has(e.name) && !e.val.dyn {
			a.script(e.val.val, nil)
		}
	}
	u := &unit{kind: kCall, redirs: redirs, env: env, piped: piped, bg: bg, cwd: a.cwd, links: a.links}
	if in != nil {
		u.in = *in
	}
	if len(fields) == 0 {
		if len(redirs) > 0 {
			return a.run(u)
		}
		return stream{}
	}
	u.setProgram(fields[0])
	u.args = fields[1:]
	for _, f := range fields {
		if f.hist {
			u.histInWord = true
		}
	}
	if p := fields[0].val; !fields[0].quoted && len(p) > 1 && p[0] == '!' && p[1] != '=' {
		u.histInWord = true // !prefix re-runs the last command starting with prefix
	}
	out := a.run(u)
	a.remember(u, out)
	a.chdir(u)
	a.symlink(u)
	a.builtinAssigns(u)
	if u.dynName && strings.ReplaceAll(fields[0].bare, xargsInputBare, "") != "" {
		a.speculate(u, fields)
	}
	return out
}

// speculate classifies the command a dynamic program word most likely
// runs: unset variables expand to nothing, so r${X}m -rf / is rm -rf /.
func (a *analyzer) speculate(u *unit, fields []field) {
	var bare []field
	for _, f := range fields {
		// Every run-time part empty, the xargs input too: r{}m is rm.
		b := strings.ReplaceAll(f.bare, xargsInputBare, "")
		if f.dyn && b == "" && !f.quoted {
			continue // an unquoted empty expansion disappears
		}
		g := f
		g.val, g.dyn, g.dynPrefix = b, false, false
		bare = append(bare, g)
	}
	if len(bare) == 0 || bare[0].val == "" {
		return
	}
	s := &unit{kind: kCall, redirs: u.redirs, env: u.env, in: u.in, piped: u.piped, bg: u.bg}
	s.setProgram(bare[0])
	s.args = bare[1:]
	a.run(s)
}

// remember records the known text a command writes to a file on this line
// (echo 'rm -rf /' > x.sh), so that running the file later is classified.
func (a *analyzer) remember(u *unit, out stream) {
	if f := downloadTarget(u); f != "" {
		if a.files == nil {
			a.files = map[string]string{}
		}
		a.files[cleanTarget(f)] = downloaded
	}
	for _, r := range u.redirs {
		if !r.isWrite() || r.target.dyn {
			continue
		}
		key := cleanTarget(r.target.val)
		if a.files == nil {
			a.files = map[string]string{}
		}
		text := out.text
		if !out.textKnown {
			text = "\x00unknown"
		}
		if out.traits&trDownload != 0 {
			text = downloaded
		}
		if r.op == syntax.AppOut || r.op == syntax.AppAll {
			text = a.files[key] + text
		}
		if len(text) > maxValue {
			text = "\x00unknown"
		}
		a.files[key] = text
		if out.textKnown && runFile(r.target.val) {
			a.script(out.text, nil)
		}
	}
}

// joinField joins the fields of an assignment value (no splitting happens
// in assignments).
func joinField(fs []field) field {
	if len(fs) == 0 {
		return field{}
	}
	f := fs[0]
	for _, g := range fs[1:] {
		f.val += " " + g.val
		f.dyn = f.dyn || g.dyn
		f.ifs = f.ifs || g.ifs
		f.src.merge(g.src)
	}
	return f
}

// arrayValue expands the elements of an array literal; ok is false when
// one of them is only known at run time.
func (a *analyzer) arrayValue(ae *syntax.ArrayExpr) ([]string, bool) {
	var out []string
	ok := true
	for _, e := range ae.Elems {
		a.walkNode(e.Index)
		for _, f := range a.expandWord(e.Value) {
			out = append(out, f.val)
			ok = ok && !f.dyn
		}
	}
	return out, ok
}

// setVar records a variable's value; an assignment to a nameref sets the
// variable it names (declare -n r=HOME; r=/ sets HOME).
func (a *analyzer) setVar(name string, v varVal) {
	if a.vars == nil {
		a.vars = map[string]varVal{}
	}
	a.vars[a.refName(name)] = v
}

// refName follows namerefs from name to the variable an assignment to it
// sets. A nameref whose target is only known at run time stays itself
// (its value then is unknown).
func (a *analyzer) refName(name string) string {
	for i := 0; i < 8; i++ {
		t := a.refs[name]
		if t == "" {
			break
		}
		name = t
	}
	return name
}

// assign records a statement-level variable assignment.
func (a *analyzer) assign(e envVar) {
	if t, ok := a.refs[e.name]; ok && t == "" {
		a.setVar(e.name, varVal{}) // a nameref to a name known at run time
		return
	}
	a.setVar(e.name, varVal{val: e.val.val, known: !e.val.dyn, home: e.val.home, ifs: e.val.ifs})
	if codeVars.has(a.refName(e.name)) && !e.val.dyn {
		a.script(e.val.val, nil)
	}
}

// decl walks export/declare/local/readonly/typeset. A nameref declared
// with a literal name (declare -n r=HOME) is recorded: later assignments
// to it set that variable.
func (a *analyzer) decl(d *syntax.DeclClause) {
	var env []envVar
	nameref := isNamerefDecl(d)
	for _, as := range d.Args {
		if as.Name != nil && nameref {
			if a.refs == nil {
				a.refs = map[string]string{}
			}
			t := ""
			if as.Value != nil {
				if f := joinField(a.expandWord(as.Value)); !f.dyn && isName(f.val) && f.val != as.Name.Value {
					t = f.val
				}
			}
			a.refs[as.Name.Value] = t
			if t != "" {
				continue
			}
		}
		switch {
		case as.Name != nil && as.Value != nil:
			e := envVar{name: a.refName(as.Name.Value), val: joinField(a.expandWord(as.Value))}
			a.assign(e)
			env = append(env, e)
		case as.Value != nil:
			a.expandWord(as.Value)
		case as.Name != nil && as.Array != nil:
			if arr, ok := a.arrayValue(as.Array); ok {
				a.setVar(as.Name.Value, varVal{arr: arr, known: true, val: strings.Join(arr, " ")})
			} else {
				a.setVar(as.Name.Value, varVal{})
			}
		case as.Array != nil:
			a.arrayValue(as.Array)
		}
	}
	if len(env) > 0 {
		a.run(&unit{kind: kAssign, env: env})
	}
}

// isNamerefDecl reports whether a declaration makes namerefs (declare -n,
// local -rn, typeset -n, nameref). export -n only removes the export flag.
func isNamerefDecl(d *syntax.DeclClause) bool {
	switch d.Variant.Value {
	case "nameref":
		return true
	case "declare", "typeset", "local":
	default:
		return false
	}
	for _, as := range d.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			if l := as.Value.Lit(); len(l) > 1 && l[0] == '-' && strings.Contains(l, "n") {
				return true
			}
		}
	}
	return false
}
