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
	f := xargsArgFile(opts)
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

// xargsArgFile returns the FILE of -a FILE / --arg-file=FILE, or nil.
func xargsArgFile(opts []field) *field {
	for i := 0; i < len(opts); i++ {
		v := opts[i].val
		switch {
		case v == "--":
			return nil
		case strings.HasPrefix(v, "--"):
			name, val, eq := strings.Cut(v, "=")
			if name == "--arg-file" || isAbbrev(name, "--arg-file") && len(name) > len("--a") {
				if eq {
					g := opts[i]
					g.val = val
					return &g
				}
				if i+1 < len(opts) {
					return &opts[i+1]
				}
			}
		case len(v) > 1 && v[0] == '-':
			for j := 1; j < len(v); j++ {
				if strings.IndexByte(wrappers()["xargs"].argShort, v[j]) < 0 {
					continue
				}
				if v[j] == 'a' {
					if j+1 < len(v) {
						g := opts[i]
						g.val = v[j+1:]
						return &g
					}
					if i+1 < len(opts) {
						return &opts[i+1]
					}
				}
				if j+1 == len(v) {
					i++ // the option's value is the next word
				}
				break
			}
		}
	}
	return nil
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
	delim, ok := xargsDelimiter(opts)
	if !ok {
		return nil, false
	}
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

// xargsDelimiter returns the input delimiter -0 or -d sets ("" for blanks).
func xargsDelimiter(opts []field) (string, bool) {
	delim := ""
	for i := 0; i < len(opts); i++ {
		f := opts[i]
		v := f.val
		switch {
		case v == "--":
			return delim, true
		case v == "--null" || isAbbrev(v, "--null"):
			delim = "\x00"
		case strings.HasPrefix(v, "--delimiter") || strings.HasPrefix(v, "--d") && isAbbrev(strings.SplitN(v, "=", 2)[0], "--delimiter"):
			_, val, eq := strings.Cut(v, "=")
			if !eq {
				if i+1 >= len(opts) {
					return "", false
				}
				i++
				f, val = opts[i], opts[i].val
			}
			if f.dyn {
				return "", false
			}
			delim = xargsEscape(val)
		case len(v) > 1 && v[0] == '-' && v[1] != '-':
			for j := 1; j < len(v); j++ {
				c := v[j]
				if c == '0' {
					delim = "\x00"
					continue
				}
				if strings.IndexByte(wrappers()["xargs"].argShort, c) < 0 {
					continue
				}
				val := v[j+1:]
				if val == "" && i+1 < len(opts) {
					i++
					f, val = opts[i], opts[i].val
				}
				if c == 'd' {
					if f.dyn {
						return "", false
					}
					delim = xargsEscape(val)
				}
				break
			}
		}
	}
	return delim, true
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
