package classify

import (
	"cmp"
	"strconv"
	"strings"
)

// How read, mapfile and readarray take their options: the letters that
// take a value, and the letters whose effect readHereVars models (-u N
// picks the text fed to N, read -n/-N keep a prefix, mapfile -O moves the
// elements). Any other option (mapfile -C/-c) keeps the text as the
// names' possible value (see varVal.dflt).
var readerOpts = map[string]struct{ value, modelled string }{
	"read":      {value: "adinNptu", modelled: "adeinNprstu"},
	"mapfile":   {value: "dnOsuCc", modelled: "dnOstu"},
	"readarray": {value: "dnOsuCc", modelled: "dnOstu"},
}

// readHereVars returns the values read, mapfile and readarray give their
// names from a standard input whose text the line knows (read -a a <<<
// "$HOME/.ssh/id_rsa"): read splits the first line on IFS into the names,
// the last taking the rest, or into the elements of the -a array;
// mapfile gives each line to an element. ok is false when the text, an
// option or a name is only known at run time.
func (a *analyzer) readHereVars(u *unit) (map[string]varVal, bool) {
	spec, ok := readerOpts[u.name]
	if !ok {
		return nil, false
	}
	opts, names, ok := readerArgs(u.args, spec.value)
	if !ok {
		return nil, false
	}
	in, ok := readerInput(u, opts)
	if !ok || !in.textKnown {
		return nil, false
	}
	vals, ok := a.readText(u, in.text, opts, names, spec.modelled)
	if ok && !in.exact && strings.ContainsAny(in.text, "$`") {
		// `$`: a run-time part may be kept as its source text (echo
		// "$X" | read i), or the text is the literal it looks like
		// (read i < <(echo 'x[$(…)]')): each value is only a possible
		// one, which arithmetic still follows.
		vals = possibleVals(vals)
	}
	return vals, ok
}

// possibleVals returns vals with each known value made a run-time value
// that may be it (varVal.possible).
func possibleVals(vals map[string]varVal) map[string]varVal {
	for n, v := range vals {
		vals[n] = v.possible()
	}
	return vals
}

// readText returns the values read, mapfile or readarray (u) give their
// names from the text of their input (see readHereVars).
func (a *analyzer) readText(u *unit, text string, opts map[byte]string, names []string, modelled string) (map[string]varVal, bool) {
	delim := byte('\n')
	if d, set := opts['d']; set {
		delim = 0 // -d '': up to a NUL
		if d != "" {
			delim = d[0]
		}
	}
	if u.name != "read" {
		vals, ok := mapfileVars(text, delim, opts, names)
		return unmodelled(vals, opts, modelled), ok
	}
	if hasOpt(opts, 'N') {
		delim = 0 // -N: the delimiter is an ordinary character
	}
	line, esc, ok := readCount(text, delim, opts)
	if !ok {
		return nil, false
	}
	ifs, known := a.readIFS(u)
	out := map[string]varVal{}
	switch arr, isArr := opts['a']; {
	case !known:
		// IFS only known at run time: a name may get the whole line.
		for _, n := range append(names, arr) {
			out[n] = varVal{dflt: strings.Trim(line, " \t\n"), hasDflt: true}
		}
		if isArr {
			out[arr] = varVal{} // which element holds what is not known
		}
	case isArr:
		elems := ifsSplit(line, esc, ifs, 0)
		out[arr] = varVal{arr: elems, known: true, val: strings.Join(elems, " ")}
	case len(names) == 0:
		out["REPLY"] = varVal{val: line, known: true} // not split, not trimmed
	default:
		vals := ifsSplit(line, esc, ifs, len(names))
		for i, n := range names {
			v := ""
			if i < len(vals) {
				v = vals[i]
			}
			out[n] = varVal{val: v, known: true}
		}
	}
	delete(out, "")
	return out, true
}

// readerInput returns what read or mapfile reads: standard input, or with
// -u N what the statement feeds N (ok is false when that is not known).
func readerInput(u *unit, opts map[byte]string) (stream, bool) {
	fd, set := opts['u']
	switch {
	case !set || fd == "0":
		return u.in, true
	}
	s, ok := u.fdIn[fd]
	return s, ok
}

// readCount returns what read takes from text (readLine), at most the
// count -n or -N gives (characters); ok is false when the count is not a
// number.
func readCount(text string, delim byte, opts map[byte]string) (string, []bool, bool) {
	line, esc := readLine(text, delim, hasOpt(opts, 'r'))
	c, set := opts['N']
	if !set {
		c, set = opts['n']
	}
	if !set {
		return line, esc, true
	}
	n, err := strconv.Atoi(c)
	if err != nil || n < 0 {
		return "", nil, false
	}
	for i := range line { // i: where each character starts
		if n == 0 {
			return line[:i], esc[:i], true
		}
		n--
	}
	return line, esc, true
}

// unmodelled returns the values mapfile gives when an option readHereVars
// does not model changes them (-C, -c): each a run-time value that may be
// any of the elements it read (risk first: the text is on the line).
func unmodelled(vals map[string]varVal, opts map[byte]string, modelled string) map[string]varVal {
	for c := range opts {
		if strings.IndexByte(modelled, c) >= 0 {
			continue
		}
		for n, v := range vals {
			vals[n] = varVal{dflt: v.val, hasDflt: true, dfltArr: v.arr}
		}
		break
	}
	return vals
}

// hasOpt reports whether the option c was given.
func hasOpt(opts map[byte]string, c byte) bool {
	_, ok := opts[c]
	return ok
}

// readerArgs parses the options and the names of read or mapfile. Option
// letters in value take a value (-d: or the next word); ok is false for a
// word only known at run time.
func readerArgs(args []field, value string) (map[byte]string, []string, bool) {
	opts := map[byte]string{}
	i := 0
	for ; i < len(args); i++ {
		v := args[i].val
		if args[i].dyn {
			return nil, nil, false
		}
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if strings.IndexByte(value, c) < 0 {
				opts[c] = ""
				continue
			}
			val := v[j+1:]
			if val == "" {
				if i+1 >= len(args) || args[i+1].dyn {
					return nil, nil, false
				}
				i++
				val = args[i].val
			}
			opts[c] = val
			break
		}
	}
	var names []string
	for _, f := range args[i:] {
		_, _, elem := elemTarget(f.val) // read 'a[1]'
		if f.dyn || !elem && !isVarName(f.val) {
			return nil, nil, false
		}
		names = append(names, f.val)
	}
	return opts, names, true
}

// readLine returns what read takes from text: up to delim, and without
// -r (raw) with backslash-newline removed and a backslash making the next
// character plain (esc: not an IFS separator).
func readLine(text string, delim byte, raw bool) (string, []bool) {
	var out []byte
	var esc []bool
	for i := 0; i < len(text) && text[i] != delim; i++ {
		c, e := text[i], false
		if c == '\\' && !raw && i+1 < len(text) {
			i++
			if text[i] == '\n' {
				continue
			}
			c, e = text[i], true
		}
		out = append(out, c)
		esc = append(esc, e)
	}
	return string(out), esc
}

// ifsSplit splits a line as read does: IFS whitespace at the ends goes,
// a run of it separates, and so does each other IFS character (with the
// whitespace around it). With n > 0, the n-th field takes the rest of the
// line (trailing IFS whitespace removed); with n <= 0 every field is one.
func ifsSplit(s string, esc []bool, ifs string, n int) []string {
	sep := func(i int) bool { return !esc[i] && strings.IndexByte(ifs, s[i]) >= 0 }
	ws := func(i int) bool { return sep(i) && strings.IndexByte(" \t\n", s[i]) >= 0 }
	i := 0
	skipWS := func() {
		for i < len(s) && ws(i) {
			i++
		}
	}
	skipWS()
	var out []string
	for i < len(s) {
		if n > 0 && len(out) == n-1 {
			j := len(s)
			for j > i && ws(j-1) {
				j--
			}
			return append(out, s[i:j])
		}
		start := i
		for i < len(s) && !sep(i) {
			i++
		}
		out = append(out, s[start:i])
		skipWS()
		if i < len(s) && sep(i) && !ws(i) {
			i++
			skipWS()
		}
	}
	return out
}

// readIFS returns the IFS read splits with: the one given to the command
// (IFS=: read), else the line's; known is false when it is only known at
// run time.
func (a *analyzer) readIFS(u *unit) (ifs string, known bool) {
	if v, ok := a.vars["IFS"]; ok && !v.known {
		known = false
	} else {
		ifs, known = a.ifsChars(), true
	}
	for _, e := range u.env {
		if e.name == "IFS" {
			ifs, known = e.val.val, !e.val.dyn
			if ifs == "" {
				ifs = "\x00"
			}
		}
	}
	return ifs, known
}

// mapfileVars returns the array mapfile/readarray fills from text: one
// element a line (-d: a delimiter other than newline), the first -s
// skipped, at most -n kept. The delimiter is dropped from every element
// as -t does: a path read without -t still names the file it ends with.
func mapfileVars(text string, delim byte, opts map[byte]string, names []string) (map[string]varVal, bool) {
	skip, err := strconv.Atoi(cmp.Or(opts['s'], "0"))
	count, err2 := strconv.Atoi(cmp.Or(opts['n'], "0"))
	if err != nil || err2 != nil || skip < 0 || count < 0 || len(names) > 1 {
		return nil, false
	}
	lines := strings.SplitAfter(text, string(delim))
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	lines = lines[min(skip, len(lines)):]
	if count > 0 && count < len(lines) {
		lines = lines[:count]
	}
	elems := make([]string, len(lines))
	for i, l := range lines {
		elems[i] = strings.TrimSuffix(l, string(delim))
	}
	name := "MAPFILE"
	if len(names) == 1 {
		name = names[0]
	}
	v := varVal{arr: elems, known: true, val: strings.Join(elems, " ")}
	if off, set := opts['O']; set {
		// -O N: the elements from index N, those below left as they
		// were: only known at run time, with the elements read as their
		// possible values.
		n, err := strconv.Atoi(off)
		if err != nil || n < 0 {
			return nil, false
		}
		pad := make([]string, min(n, maxPadding))
		v = varVal{dflt: v.val, hasDflt: true, dfltArr: append(pad, elems...)}
	}
	return map[string]varVal{name: v}, true
}

// maxPadding bounds the elements mapfile -O N is modelled to leave below
// N; past it the elements read stand at the wrong indices, and
// arrayDefaults takes an index past the end as any element.
const maxPadding = 256
