package classify

import "strings"

// sedWriteFiles returns the files a sed script writes: the file names of
// its w and W commands and of the s command's w flag (s/a/b/w FILE), each
// running to the end of its line. sed does not expand ~ in them.
func sedWriteFiles(script string) []string {
	var out []string
	for _, line := range strings.Split(script, "\n") {
		for i := 0; i < len(line); {
			c := line[i]
			switch {
			case strings.IndexByte(" \t;{}!,$~0123456789IM", c) >= 0:
				i++ // separators, addresses and their flags
			case c == '/' || c == '\\' && i+1 < len(line): // /re/ or \%re% address
				d := byte('/')
				if c == '\\' {
					i++
					d = line[i]
				}
				i = sedSkipDelim(line, i+1, d)
			case c == 'w' || c == 'W':
				if f := strings.TrimSpace(line[i+1:]); f != "" && f != "/dev/stdout" && f != "/dev/stderr" {
					out = append(out, f)
				}
				i = len(line)
			case (c == 's' || c == 'y') && i+1 < len(line):
				d := line[i+1]
				j := sedSkipDelim(line, sedSkipDelim(line, i+2, d), d)
				for j < len(line) && strings.IndexByte("gpiImMe0123456789", line[j]) >= 0 {
					j++
				}
				if c == 's' && j < len(line) && line[j] == 'w' {
					if f := strings.TrimSpace(line[j+1:]); f != "" && f != "/dev/stdout" && f != "/dev/stderr" {
						out = append(out, f)
					}
					j = len(line)
				}
				i = j
			case strings.IndexByte("aicrReb:tTv", c) >= 0:
				i = len(line) // text, a file to read, a command or a label: the rest of the line
			default:
				i++ // p, d, n, N, g, G, h, H, x, l, q, z, =, F
			}
		}
	}
	return out
}

// sedSkipDelim returns the index just past the next unescaped d in s from i.
func sedSkipDelim(s string, i int, d byte) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case d:
			return i + 1
		}
	}
	return len(s)
}

// sedWrites records what sed's w files receive: lines of its input, so the
// input as a whole (judged as if it ran, where the file is an rc file).
func (a *analyzer) sedWrites(u *unit) {
	scripts, files := sedScriptsAndFiles(u)
	var targets []field
	for _, s := range scripts {
		for _, p := range sedWriteFiles(s.val) {
			targets = append(targets, field{val: p, quoted: true, dyn: s.dyn})
		}
	}
	if len(targets) == 0 {
		return
	}
	in := stream{traits: trUnknown}
	switch {
	case len(files) == 0 && u.piped:
		in = u.in
	case len(files) > 0:
		var texts []string
		for _, f := range files {
			s, ok := a.fileStream(u.cwd, u.links, f)
			if !ok || !s.textKnown {
				texts = nil
				break
			}
			texts = append(texts, s.text)
		}
		if texts != nil {
			in = literal(strings.Join(texts, "\n"))
		}
	}
	for _, t := range targets {
		a.writeText(u, t, in, false)
	}
}
