package classify

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// Limits that bound the work one classification may do.
const (
	maxDepth = 16    // nested scripts (bash -c 'bash -c …')
	maxSteps = 20000 // statements and units in one line
	maxCalls = 1024  // calls to functions the line defined, followed in one line
	maxTime  = time.Second
	maxInput = 1 << 20 // bytes of input
	maxValue = 1 << 16 // bytes of a computed word, variable or stream text

	maxLineValues = 1 << 22 // bytes of values expanded in one line (see spendValue)
)

// parse parses text as bash reads it.
func parse(text string) (*syntax.File, error) {
	return parseAs(syntax.LangBash, text)
}

// varVal is the value of a shell variable assigned earlier on the line.
type varVal struct {
	val   string
	known bool
	home  bool
	ifs   bool     // the value was built with $IFS
	arr   []string // elements of a literal array (x=(a b), set -- a b)
	keys  []string // with arr, each element's key where not 0, 1, … (see arraykeys.go)
	item  bool     // a for-loop word over relative literals or globs: never empty
	names []string // with item: the variable names paths gave it (X=A; [ … ] && X=B), for ${!X}

	// A value only known at run time, or dflt where that was empty or
	// unset: ${X:=dflt} (or ${X=dflt}) ran on a variable the line did
	// not know.
	dflt    string
	hasDflt bool
	dfltArr []string // with hasDflt, an array's: each element's possible value (a=(${X:-~/.ssh/id_rsa}))

	// Texts the line may have put in a run-time value, followed only by
	// arithmetic (see maybevals.go).
	maybe []string

	// A run-time value that may be a name a listing printed (x=$(find ~),
	// for f in $(find ~), find ~ | while read f): the listed directories.
	tree *[]field
}

// analyzer walks one command line. It is used by a single goroutine.
type analyzer struct {
	c          *Classifier
	src        string             // source text of the script being walked
	lang       syntax.LangVariant // how the shell running it reads text (see dialect.go)
	noLocal    bool               // the shell running it fails local outside a function (bash, dash: see noTopLocal)
	hooks      int                // > 0: walking code the shell runs later, perhaps in a function (see hookString)
	listed     bool               // a listing of a directory above a credential store ran (see afterListing)
	pyDepth    int                // written Python modules being judged through imports (see pyWrittenCode)
	srcDepth   int                // written Tcl and Lua files being judged through source, require, dofile (tclcode.go, luacode.go)
	vars       map[string]varVal
	funcs      map[string][]funcDef      // defined functions: name → every body given it
	funcBusy   []string                  // the functions being walked
	funcAgain  []string                  // the functions walked once more for a recursive call
	frame      *[]localVar               // in a function body: its local variables
	frames     []*[]localVar             // the frames of the function bodies being walked, innermost last
	files      map[string]string         // files written on this line with known text
	refs       map[string]string         // namerefs (declare -n r=NAME) → NAME, "" when only known at run time
	substDone  map[*syntax.CmdSubst]bool // substitutions in arithmetic arithSubsts walked, for walkNode to skip
	walkDepth  int                       // walkNode calls under way
	cwd        string                    // working directory after the last literal cd ("" = unknown, cwdMaybeHome)
	oldwd      string                    // the directory before it ($OLDPWD, cd -)
	dirs       []string                  // pushd's directory stack below cwd, top last
	links      map[string]string         // symbolic links made on the line: name → target
	coprocs    map[string]*syntax.Stmt   // coproc NAME …: NAME → the command reading ${NAME[1]}
	coprocBusy map[string]bool           // the coprocesses being fed (see feedCoproc)
	fds        map[string]openFile       // descriptors exec opened for writing: fd → file ("1": every later output)
	inFDs      map[string]stream         // descriptors exec opened for reading: fd → what they read (exec 3<x.sh)
	dotglob    bool                      // the line may turn dotglob on (shopt -s dotglob, GLOBIGNORE): * matches dot names
	nocaseglob bool                      // the line may turn nocaseglob on: ~/.NETR[C] matches ~/.netrc
	keyword    bool                      // set -k may be on: NAME=VALUE words after the name are assignments
	cdableVars bool                      // shopt -s cdable_vars may be on: cd NAME enters $NAME
	nullglob   bool                      // shopt -s nullglob may be on: a glob that matches nothing vanishes
	hashed     map[string]string         // hash -p PATH NAME: NAME → PATH, "" when only known at run time
	attrs      map[string]uint8          // attributes given by declare -l/-u/-c/-r, readonly (attrLower …)
	aliases    map[string]string         // alias NAME=VALUE, BASH_ALIASES[NAME]=VALUE: NAME → VALUE
	aliasBusy  []string                  // the aliases being expanded (not expanded again)
	depth      int
	steps      int
	calls      int       // function calls followed
	start      time.Time // when the classification began
	clockAt    int       // steps at which the clock is read next
	res        Result
	prio       int       // tie rank of res (see decide)
	any        bool      // some unit decided
	halt       bool      // a limit was hit; stop walking
	dry        int       // > 0: walking only to learn what a loop body changes, nothing is judged
	lastpipe   bool      // shopt -s lastpipe may have run: a pipeline's last part may run in the shell
	xpgEcho    bool      // shopt -s xpg_echo may have run: echo may read escapes (see echo.go)
	noSplit    bool      // expanding an assignment's value: no field splitting (expandAssign)
	posix      posixMode // bash's posix mode (see keepSpecialAssigns)
	unsure     int       // > 0: on a path that may not be taken (files written may not be)
	jumped     uint8     // jumpLoop, jumpFunc: break/continue or return may have run in the body being walked

	xargsFill  bool                      // xargsInput stands for a non-empty xargs -I input line
	loopMult   int                       // judged walks of the loop bodies being walked, multiplied (see pickLoopValues)
	loopRisks  map[string]int            // loopWordRisk's answers: working directory NUL word → risk
	loopWalks  map[*syntax.ForClause]int // bodyWalks' answers
	cdOK       *dirState                 // the statement just walked ends in another directory when it succeeds (see cdMayFail)
	opWord     opWordState               // the words of parameter operators being expanded (see paramnest.go)
	regexps    map[string]*regexp.Regexp // patterns compiled for the line (see compile)
	valueBytes int                       // bytes of values expanded (see spendValue)
	indirects  int                       // ${!X} of several possible names expanded (see indirectJoin)
	arithBusy  []string                  // the names and values arithmetic is following (see arithEnter)
}

func newAnalyzer(c *Classifier) *analyzer {
	return &analyzer{c: c, res: Result{Decision: Allow}, start: time.Now(), lang: syntax.LangBash, noLocal: true}
}

// script parses text and walks it as a script run by a child shell whose
// standard input is in (nil when the script does not read it): what it
// changes in the tracked state is discarded.
func (a *analyzer) script(text string, in *stream) stream {
	return a.isolated(func() stream { return a.sameShell(text, in) })
}

// sameShell parses text and walks it as a script the shell running the
// line runs itself (eval, source, an alias).
func (a *analyzer) sameShell(text string, in *stream) stream {
	if a.halt {
		return stream{traits: trUnknown}
	}
	if a.depth >= maxDepth {
		a.limit("nesting deeper than 16 levels")
		return stream{traits: trUnknown}
	}
	text = wordCRs(text) // see lexfix.go
	f, err := parseAs(a.lang, text)
	if err == nil {
		f, text, err = commentEnds(a.lang, f, text)
	}
	if err == nil && strings.Contains(text, "<<") {
		err = heredocs(f, a.lang)
	}
	if err != nil {
		info := err.Error()
		if a.lang != syntax.LangBash {
			info += " (the shell running it is not bash: for bash syntax, run bash -c '…')"
		}
		a.emit(&unit{kind: kParseError, info: info, prog: text})
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
	if _, perr := parseAs(a.lang, prefix); perr == nil {
		a.sameShell(prefix, nil)
	}
}

// charge counts n steps of work (a statement, a unit, a case arm, a
// state copy, a function body walked). Past maxSteps, or past maxTime of
// host time (read every 64 steps: a backstop for work the steps miss), the
// line is escalated and the walk stops; charge then reports false.
func (a *analyzer) charge(n int) bool {
	a.steps += n
	switch {
	case a.halt:
		return false
	case a.steps > maxSteps:
		a.limit("command too complex to classify")
	case a.steps >= a.clockAt:
		a.clockAt = a.steps + 64
		if time.Since(a.start) > maxTime {
			a.limit("command too slow to classify")
		}
	}
	return !a.halt
}

// overTime reports whether the line has had its maxTime of host time, and
// then escalates it: a check for loops whose steps are not counted.
func (a *analyzer) overTime() bool {
	if !a.halt && time.Since(a.start) > maxTime {
		a.limit("command too slow to classify")
	}
	return a.halt
}

func (a *analyzer) limit(why string) {
	if !a.halt {
		dry := a.dry
		a.dry = 0 // judged even in a walk that judges nothing else
		a.emit(&unit{kind: kParseError, info: why})
		a.dry = dry
		a.halt = true
	}
}

// subst walks the statements of a command or process substitution (run in
// a subshell) and returns what they print.
func (a *analyzer) subst(stmts []*syntax.Stmt) stream {
	saved := a.noSplit
	a.noSplit = false // the substitution's own words split
	defer func() { a.noSplit = saved }()
	return a.isolated(func() stream { return a.stmtList(stmts, nil) })
}

func (a *analyzer) stmtList(stmts []*syntax.Stmt, in *stream) stream {
	var out stream
	texts := true
	var sb, pb strings.Builder
	for i, s := range stmts {
		o := a.stmt(s, in)
		out.traits |= o.traits
		out.addTree(o)
		pb.WriteString(o.possible)
		if o.textKnown {
			sb.WriteString(o.text)
		} else {
			texts = false
		}
		if a.jumped != 0 && i+1 < len(stmts) {
			// return, break or continue may have run: the rest may not.
			r := a.maybe(func() stream {
				jumped := a.jumped
				a.jumped = 0
				out := a.stmtList(stmts[i+1:], in)
				a.jumped |= jumped
				return out
			})
			out.traits |= r.traits
			out.addTree(r)
			sb.WriteString(r.text)
			texts = false
			a.cdOK = nil
			break
		}
	}
	if len(stmts) > 0 && sb.Len() <= maxValue {
		// Without textKnown, text holds the parts that are known: a shell
		// fed `(cat x; echo 'rm -rf /')` still runs rm -rf /.
		out.text, out.textKnown = sb.String(), texts
	}
	if pb.Len() <= maxValue {
		out.possible = pb.String()
	}
	return out
}

func (a *analyzer) stmt(s *syntax.Stmt, in *stream) stream {
	if s == nil || a.halt {
		return stream{}
	}
	a.cdOK = nil
	if s.Background {
		a.unsure++ // racing what follows
		defer func() { a.unsure-- }()
		out := a.isolated(func() stream { return a.stmtRun(s, in) })
		a.cdOK = nil
		return out
	}
	out := a.stmtRun(s, in)
	if s.Negated || !keepsCdOK(s.Cmd) {
		a.cdOK = nil
	}
	return out
}

// keepsCdOK reports whether the directory a statement's command ends in
// when it succeeds can be the one a cd in it set (see cdMayFail): a
// simple command, a group (its last statement), an && list.
func keepsCdOK(c syntax.Command) bool {
	switch c := c.(type) {
	case *syntax.CallExpr, *syntax.Block:
		return true
	case *syntax.BinaryCmd:
		return c.Op == syntax.AndStmt
	}
	return false
}

func (a *analyzer) stmtRun(s *syntax.Stmt, in *stream) stream {
	out := a.stmtCmd(s, in)
	if len(a.coprocs) > 0 {
		ok := a.cdOK
		a.feedCoproc(s, out)
		a.cdOK = ok
	}
	return out
}

func (a *analyzer) stmtCmd(s *syntax.Stmt, in *stream) stream {
	if !a.charge(1) {
		return stream{traits: trUnknown}
	}
	redirs, stdin, fds := a.redirects(s.Redirs)
	if s0, ok := a.inFDs["0"]; ok && in == nil {
		in = &s0 // exec <x.sh: what follows reads the file (exec <x.sh; bash)
	}
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
		return a.call(cmd, redirs, in, fds, piped, s.Background)
	case *syntax.BinaryCmd:
		if cmd.Op == syntax.Pipe || cmd.Op == syntax.PipeAll {
			out := a.isolated(func() stream { return a.stmt(cmd.X, in) })
			last := func() stream { return a.stmt(cmd.Y, &out) }
			if a.lastpipe {
				return a.maybe(last)
			}
			return a.isolated(last)
		}
		return a.andOr(cmd, in)
	}
	var out stream
	if _, decl := s.Cmd.(*syntax.DeclClause); decl && slices.ContainsFunc(redirs, redir.mayFail) {
		// bash runs no builtin whose redirection failed.
		out = a.maybe(func() stream { return a.compound(s.Cmd, in) })
	} else {
		out = a.compound(s.Cmd, in)
	}
	if len(redirs) > 0 {
		u := &unit{kind: kCall, redirs: redirs, cwd: a.cwd, links: a.links}
		a.run(u)
		a.remember(u, out) // { echo …; } >> ~/.bashrc
	}
	return out
}
