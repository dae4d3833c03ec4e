package classify

import (
	"encoding/hex"
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Writes to a file other than a simple command's own redirection, recorded
// like it (see remember): tee and dd of= write their input, a descriptor
// exec opened (exec 3>>f; echo … >&3, exec >>f) receives what later
// commands write to it, and sed -i inserts the text of its a, i and c
// commands. Known text that lands in a file a shell runs later (an rc
// file) is judged as if it ran.

// openFile is a file a descriptor was opened on by exec.
type openFile struct {
	target field
	app    bool
}

// rememberInner records what in, a command another runs (a wrapper's,
// cmake -E's), writes as rememberOther does for a command of the line;
// the redirections stay the outer command's.
func (a *analyzer) rememberInner(in *unit, out stream) {
	w := *in
	w.redirs = nil
	a.rememberOther(&w, out)
}

// rememberOther records the writes of u that are not its own redirections
// to files: to descriptors exec opened, by tee, dd and sed -i.
func (a *analyzer) rememberOther(u *unit, out stream) {
	if u.kind != kCall {
		return
	}
	if u.name == "exec" && len(u.args) == 0 {
		a.openFDs(u)
		return
	}
	a.writeFDs(u, out)
	if isAwk(u.name) {
		a.awkInPlace(u) // gawk.go
	}
	switch u.name {
	case "tee":
		app := u.hasFlag("a", "--append")
		for _, f := range u.operands() {
			a.writeText(u, f, u.in, app)
		}
	case "dd":
		app := hasArg(u, "oflag=append") || hasArg(u, "conv=notrunc")
		in := u.in
		for _, f := range u.args {
			if t, ok := strings.CutPrefix(f.val, "if="); ok {
				f.val = t
				if in, ok = a.operandStream(u, f, false); !ok {
					in = stream{traits: trFile | trUnknown}
				}
			}
		}
		for _, f := range u.args {
			if t, ok := strings.CutPrefix(f.val, "of="); ok {
				f.val = t
				a.writeText(u, f, in, app) // dd if=x of=~/.bashrc
			}
		}
	case "cp", "mv", "install", "gcp", "gmv":
		a.copyWritten(u)
	case "ln":
		a.linkWritten(u)
	case "sort", "shuf", "iconv", "uniq", "xxd", "yq", "git":
		a.filterOutputs(u)
	case "sed", "gsed":
		a.sedInserts(u)
		a.sedWrites(u)
	case "find":
		if t, file, ok := findPrintf(u, "-fprintf", 1); ok {
			a.writeText(u, file, literal(t), false) // find … -fprintf ~/.bashrc 'TEXT'
		}
	case "perl":
		a.perlInPlace(u)
	case "ed", "red", "ex":
		a.edInserts(u)
	}
}

// copyWritten follows a file written on the line to where cp, mv or
// install puts it (echo … > s.sh; cp s.sh t.sh; sh t.sh): the destination,
// or the source's name in it where it is a directory, now holds the text,
// judged as if it ran where that is an rc file (cp s.sh ~/.bashrc).
func (a *analyzer) copyWritten(u *unit) {
	// cp -S .b x ~/.bashrc: the options' values are not operands.
	ops := operandsSkipping(u.args, "St", "--suffix", "--sparse", "--no-preserve", "--target-directory")
	if u.name == "install" {
		ops = operandsSkipping(u.args, "mogSt", "--mode", "--owner", "--group", "--suffix", "--target-directory")
	}
	dest := optValue(u, "t", "--target-directory")
	if dest == nil && len(ops) > 1 {
		dest, ops = &ops[len(ops)-1], ops[:len(ops)-1]
	}
	if dest == nil || dest.dyn {
		return
	}
	for _, src := range ops {
		s, ok := a.operandStream(u, src, false)
		unknown := !ok
		if unknown {
			// A file the line did not write: its text is only known at
			// run time, which an rc file must not get unjudged (cp x
			// ~/.bashrc: found by red-team round 54), unless a protected
			// path's rule asks already.
			if matchProtectedWrite(u, a.c) {
				continue
			}
			s = stream{traits: trUnknown}
		}
		in := *dest
		if unknown && !strings.HasSuffix(dest.val, "/") && cleanTarget(dest.val) != "~" {
			// Of a destination that may be a file (cp ~/.bashrc
			// ~/.bashrc.bak), only the file itself.
			a.writeText(u, *dest, s, false)
			continue
		}
		in.val = strings.TrimSuffix(dest.val, "/") + "/" + path.Base(src.val)
		a.writeText(u, in, s, false) // cp s.sh dir/
		if len(ops) == 1 && !strings.HasSuffix(dest.val, "/") {
			a.writeText(u, *dest, s, false) // cp s.sh t.sh
		}
	}
}

// operandStream returns what a program reads from the file operand f
// where the line knows it: the piped input named as a file (cp /dev/stdin
// ~/.bashrc; "-" too where dash says the program reads it so), a process
// substitution's output, or a file the line wrote.
func (a *analyzer) operandStream(u *unit, f field, dash bool) (stream, bool) {
	switch {
	case !f.dyn && stdinName(f.val) && (dash || f.val != "-"):
		return u.in, u.piped
	case f.src.traits&trProcSubst != 0:
		return f.src, f.src.textKnown
	}
	return a.fileStream(u.cwd, u.links, f)
}

// linkWritten follows a file written on the line to a name ln gives it
// (echo … > x; ln -sf "$PWD/x" ~/.bashrc, ln -f x ~/.bashrc): the name now
// reads the text, judged as if it ran where it is an rc file.
func (a *analyzer) linkWritten(u *unit) {
	ops := operandsSkipping(u.args, "St", "--suffix", "--target-directory")
	if len(ops) != 2 || ops[1].dyn || u.hasFlag("t", "--target-directory") {
		return
	}
	src, dest := ops[0], ops[1]
	srcs := []field{src}
	if u.hasFlag("s", "--symbolic") && !src.dyn && !strings.HasPrefix(src.val, "/") && !strings.HasPrefix(src.val, "~") {
		// Relative to the link's directory; the working directory's name
		// too, since "$PWD/x" is "./x" here when the directory is unknown.
		g := src
		g.val = path.Join(path.Dir(dest.val), src.val)
		srcs = append(srcs, g)
	}
	known := false
	for _, f := range srcs {
		if s, ok := a.fileStream(u.cwd, u.links, f); ok {
			a.writeText(u, dest, s, false)
			known = true
		}
	}
	if !known && !matchProtectedWrite(u, a.c) {
		a.writeText(u, dest, stream{traits: trUnknown}, false) // ln -sf "$PWD/x" ~/.bashrc, x unknown
	}
}

// operandsSkipping returns the operands of args, less the values of the
// short options in short (clustered or attached: -m755, -pm 755) and of the
// long options in long given as a separate word.
func operandsSkipping(args []field, short string, long ...string) []field {
	var out []field
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(v, "--"):
			if !strings.Contains(v, "=") && (contains(long, v) || slices.ContainsFunc(long, func(l string) bool { return isAbbrev(v, l) })) {
				i++ // --suffix .b, --suf .b
			}
		case len(v) > 1 && v[0] == '-':
			for j := 1; j < len(v); j++ {
				if strings.IndexByte(short, v[j]) >= 0 {
					if j+1 == len(v) {
						i++ // the value is the next word
					}
					break
				}
			}
		default:
			out = append(out, args[i])
		}
	}
	return out
}

// filterOutputs records what the filters that name their output file write
// there (sort -o F, uniq - F, xxd -r -p - F, yq -i '…' F): their input,
// where it is the piped stream, decoded for xxd -r -p; for yq the strings
// of its expression (yq -n -i '"rm -rf ~"' ~/.bashrc writes that text).
func (a *analyzer) filterOutputs(u *unit) {
	targets := outputFiles(u)
	if len(targets) == 0 {
		return
	}
	in := stream{traits: trUnknown}
	switch {
	case u.name == "yq":
		if ops := operandsSkipping(u.args, ""); len(ops) > 0 {
			in = literal(strings.Join(codeStrings(ops[0].val), "\n"))
		}
	case u.name == "xxd" && u.hasFlag("r", "-revert") && u.piped && u.in.textKnown:
		if b, err := hex.DecodeString(strings.Join(strings.Fields(u.in.text), "")); err == nil && u.hasFlag("p", "-ps", "-postscript", "-plain") {
			in = literal(string(b))
		}
	case u.name == "git":
		// --format='tformat:TEXT' (--pretty=…): TEXT, its placeholders
		// taken as empty; a diff or a log is text the line cannot see.
		for _, f := range append(optValues(u, "", "--format"), optValues(u, "", "--pretty")...) {
			if t, ok := strings.CutPrefix(f.val, "tformat:"); ok {
				in = literal(gitPlaceholders().ReplaceAllString(t, "") + "\n")
			} else if t, ok := strings.CutPrefix(f.val, "format:"); ok {
				in = literal(gitPlaceholders().ReplaceAllString(t, ""))
			}
		}
	case u.piped:
		in = u.in
	}
	for _, t := range targets {
		a.writeText(u, t, in, false)
	}
}

// gitPlaceholders match the placeholders of git's --format (%H, %an,
// %x0a, %(trailers), %C(red), …).
var gitPlaceholders = lazyRegexp(`%(\([^)]*\)|x[0-9a-fA-F]{2}|[a-zA-Z][a-zA-Z]?|.)`)

// openFDs records the descriptors exec opens for writing (exec 3>>f, exec
// >f) and forgets those it closes or points elsewhere.
func (a *analyzer) openFDs(u *unit) {
	for _, r := range u.redirs {
		if r.isFileRead() || r.op == syntax.DplIn {
			a.openReadFD(r)
			continue
		}
		fd := a.namedFD(r)
		if fd == "" {
			fd = "1"
		}
		if a.fds == nil {
			a.fds = map[string]openFile{}
		}
		switch {
		case r.isWrite():
			a.fds[fd] = openFile{target: r.target, app: true} // later writes add to it
			if r.op == syntax.RdrAll || r.op == syntax.AppAll {
				a.fds["2"] = a.fds[fd]
			}
		case r.op == syntax.DplOut && isFD(r.target.val):
			if f, ok := a.fds[strings.TrimSuffix(r.target.val, "-")]; ok && r.target.val != "-" {
				a.fds[fd] = f // exec 4>&3
			} else {
				delete(a.fds, fd) // exec 3>&-, exec >&2
			}
		}
	}
}

// openReadFD records a descriptor exec opens for reading (exec 3<x.sh):
// what it reads is the file's text where the line wrote it, so that a
// shell fed from it later (bash <&3) runs known code. exec 4<&3 copies
// one, exec 4<&3- moves it, exec 3<&- closes it.
func (a *analyzer) openReadFD(r redir) {
	fd := a.namedFD(r)
	if fd == "" {
		fd = "0"
	}
	if a.inFDs == nil {
		a.inFDs = map[string]stream{}
	}
	if r.isFileRead() {
		s, ok := a.fileStream(a.cwd, a.links, r.target)
		if !ok {
			s = stream{traits: trFile}
		}
		a.inFDs[fd] = s
		return
	}
	src, moved := strings.CutSuffix(r.target.val, "-")
	if s, ok := a.inFDs[src]; ok && src != "" {
		a.inFDs[fd] = s // exec 4<&3, exec 4<&3- (which closes 3)
		if moved {
			delete(a.inFDs, src)
		}
	} else {
		delete(a.inFDs, fd) // exec 3<&-
	}
}

// namedFD returns the descriptor a redirection of exec names: for
// {NAME}>FILE, bash opens the lowest free one from 10 and assigns its
// number to NAME (so that >&$NAME writes to it), for {NAME}>&- the one
// NAME holds.
func (a *analyzer) namedFD(r redir) string {
	name, open := strings.CutPrefix(r.fd, "{")
	name, closed := strings.CutSuffix(name, "}")
	if !open || !closed || name == "" {
		return r.fd
	}
	if !r.isWrite() {
		if v, ok := a.vars[name]; ok && v.known && isFD(v.val) {
			return v.val
		}
		return r.fd
	}
	n := 10
	for a.fds[strconv.Itoa(n)].target.val != "" {
		n++
	}
	fd := strconv.Itoa(n)
	a.setVar(name, varVal{val: fd, known: true})
	return fd
}

// writeFDs records what u writes to descriptors exec opened on files: its
// output dup'ed to one (>&3), or, after exec >f, its output when not
// redirected elsewhere.
func (a *analyzer) writeFDs(u *unit, out stream) {
	if len(a.fds) == 0 {
		return
	}
	stdout := false
	for _, r := range u.redirs {
		if r.fd == "" || r.fd == "1" {
			stdout = stdout || r.isWrite() || r.op == syntax.DplOut
		}
		if r.op != syntax.DplOut || !isFD(r.target.val) {
			continue
		}
		if f, ok := a.fds[r.target.val]; ok && (r.fd == "" || r.fd == "1") {
			a.writeText(u, f.target, out, f.app)
		}
	}
	if f, ok := a.fds["1"]; ok && !stdout && u.name != "" {
		a.writeText(u, f.target, out, f.app)
	}
}

// sedInsertText finds the text of sed's a, i and c commands (GNU one-line
// form 1i TEXT, and a\ followed by the text on the next line).
var sedInsertText = lazyRegexp(`(?m)(?:^|[;{}\n])\s*(?:(?:[0-9]+|\$|/[^/\n]*/)(?:\s*,\s*(?:[0-9]+|\$|/[^/\n]*/))?)?\s*!?\s*[aic]\\?[ \t]*\n?(.*)$`)

// sedInserts judges the text sed -i adds to a file a shell runs later
// (sed -i '1i rm -rf ~' ~/.bashrc) as if it ran.
func (a *analyzer) sedInserts(u *unit) {
	if !u.hasFlag("i", "--in-place") {
		return
	}
	scripts, files := sedScriptsAndFiles(u)
	if !runFileIn(u, files) {
		return
	}
	// GNU sed joins its -e scripts with newlines: -e '$a\' -e TEXT.
	var parts []string
	for _, s := range scripts {
		parts = append(parts, s.val)
	}
	script := strings.Join(parts, "\n")
	for _, m := range sedInsertText().FindAllStringSubmatch(script, -1) {
		a.judgeText(m[1])
	}
	for _, l := range sedSubstLines(script) {
		a.judgeText(l) // s/$/\nTEXT/
	}
}

// sedScriptsAndFiles splits sed's arguments into its scripts (-e, or the
// first operand) and the files it edits.
func sedScriptsAndFiles(u *unit) (scripts, files []field) {
	explicit := false
	var ops []field
	dd := false
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		switch {
		case dd:
			ops = append(ops, u.args[i])
		case v == "--":
			dd = true
		case (v == "-e" || v == "--expression") && i+1 < len(u.args):
			scripts, explicit = append(scripts, u.args[i+1]), true
			i++
		case strings.HasPrefix(v, "--expression="):
			f := u.args[i]
			f.val = v[len("--expression="):]
			scripts, explicit = append(scripts, f), true
		case (v == "-f" || v == "--file") && i+1 < len(u.args):
			i, explicit = i+1, true // the script is in a file: every operand is input
		case strings.HasPrefix(v, "--file="):
			explicit = true
		case (v == "-l" || v == "--line-length") && i+1 < len(u.args):
			i++
		case len(v) > 1 && v[0] == '-':
		default:
			ops = append(ops, u.args[i])
		}
	}
	if !explicit && len(ops) > 0 {
		scripts, ops = ops[:1], ops[1:]
	}
	return scripts, ops
}

// hasArg reports whether u has the argument v.
func hasArg(u *unit, v string) bool {
	for _, f := range u.args {
		if f.val == v {
			return true
		}
	}
	return false
}
