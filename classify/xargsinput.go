package classify

import (
	"strconv"
	"strings"
)

// What xargs (without -I) adds to the command it runs: the words of its
// input, read from the pipe or from -a FILE. Known words are appended as
// they are (printf '%s\n' -rf ~ | xargs rm is rm -rf ~; … | xargs env rm
// -rf ~); input only known at run time is appended as a run-time word
// where the command runs what it is handed (ls | xargs sh, … | xargs
// env), so that it is judged as running a run-time program or script.

// xargsSource returns xargs' input: FILE's text for -a FILE (where the
// line wrote it; FILE itself is judged as read: xargs -a ~/.aws/credentials
// echo), else the pipe's.
func (a *analyzer) xargsSource(u *unit, opts []field) stream {
	f := parseXargsOpts(opts).file
	if f == nil {
		return u.in
	}
	read := u.inner("xargs", []field{{val: "cat"}, {val: "--"}, *f})
	read.in = stream{}
	a.run(read)
	if s, ok := a.fileStream(u.cwd, u.links, *f); ok {
		return s
	}
	return stream{traits: trFile | trUnknown}
}

// xargsOpts are the options of xargs that decide what its input is: the
// file -a names (nil: the pipe), and the delimiter -0 or -d sets ("" for
// blanks); ok is false where the delimiter is only known at run time.
type xargsOpts struct {
	file  *field
	delim string
	ok    bool
}

// parseXargsOpts reads xargs' own options (before its command): -a FILE,
// --arg-file=FILE, -0, --null, -d X, --delimiter=X, in clusters and by
// any abbreviation; every other option's value is skipped.
func parseXargsOpts(opts []field) xargsOpts {
	o := xargsOpts{ok: true}
	withValue := wrappers()["xargs"].argShort
	set := func(letter byte, f field) {
		switch letter {
		case 'a':
			g := f
			o.file = &g
		case 'd':
			o.delim, o.ok = xargsEscape(f.val), o.ok && !f.dyn
		}
	}
	for i := 0; i < len(opts); i++ {
		f := opts[i]
		v := f.val
		switch {
		case v == "--":
			return o
		case strings.HasPrefix(v, "--"):
			name, val, eq := strings.Cut(v, "=")
			var letter byte
			switch {
			case name == "--null" || isAbbrev(name, "--null"):
				o.delim = "\x00"
				continue
			case name == "--arg-file" || isAbbrev(name, "--arg-file") && len(name) > len("--a"):
				letter = 'a'
			case name == "--delimiter" || isAbbrev(name, "--delimiter") && len(name) > len("--d"):
				letter = 'd'
			default:
				continue
			}
			if !eq {
				if i+1 >= len(opts) {
					o.ok = o.ok && letter != 'd'
					return o
				}
				i++
				f, val = opts[i], opts[i].val
			}
			f.val = val
			set(letter, f)
		case len(v) > 1 && v[0] == '-':
			for j := 1; j < len(v); j++ {
				c := v[j]
				if c == '0' {
					o.delim = "\x00"
					continue
				}
				if strings.IndexByte(withValue, c) < 0 {
					continue
				}
				g := f
				g.val = v[j+1:]
				if g.val == "" && i+1 < len(opts) {
					i++
					g = opts[i]
				}
				set(c, g)
				break
			}
		}
	}
	return o
}

// xargsAppend returns cmd with what xargs adds from in (see above).
func xargsAppend(cmd []field, opts []field, in stream) []field {
	if len(cmd) == 0 {
		return cmd
	}
	if in.textKnown {
		words, ok := xargsWords(in.text, opts)
		if !ok {
			return cmd
		}
		out := append([]field(nil), cmd...)
		for _, w := range words {
			out = append(out, field{val: w, bare: w, quoted: true, src: in})
		}
		return out
	}
	name := normName(cmd[0].val)
	if len(cmd) == 1 && (shellNames.has(name) || isInterpreterName(name) || wrappers()[name] != nil) {
		return append(append([]field(nil), cmd...), field{val: xargsInput, bare: xargsInputBare, dyn: true, dynPrefix: true,
			dynEnd: len(xargsInput), src: in})
	}
	return cmd
}

// xargsWords splits xargs' input as it does: at NUL bytes (-0), at a
// delimiter (-d), or at blanks and newlines with quotes and backslashes.
// ok is false where the delimiter is only known at run time.
func xargsWords(text string, opts []field) ([]string, bool) {
	xo := parseXargsOpts(opts)
	if !xo.ok {
		return nil, false
	}
	delim := xo.delim
	if delim != "" {
		var out []string
		for _, w := range strings.Split(text, delim) {
			if w != "" {
				out = append(out, w)
			}
		}
		return out, true
	}
	var out []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(text):
			i++
			cur.WriteByte(text[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, true
}

// xargsEscape reads -d's argument: one character, or a C escape (\n, \t,
// \0, \\, \NNN octal, \xHH).
func xargsEscape(s string) string {
	if len(s) < 2 || s[0] != '\\' {
		return s
	}
	switch s[1] {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	case '\\':
		return "\\"
	case 'x':
		if n, err := strconv.ParseUint(s[2:], 16, 8); err == nil {
			return string(rune(n))
		}
	default:
		if n, err := strconv.ParseUint(s[1:], 8, 8); err == nil {
			return string(rune(n))
		}
	}
	return s
}
