package classify

import (
	"strconv"
	"strings"
)

// cutText computes what cut prints from a known text (echo 'xrm -rf ~' |
// cut -c2- >> ~/.bashrc): -b, -c or -f with a list of positions and
// ranges, -d, -s. Any other option, a run-time word or a file operand
// leaves it unknown (ok false).
func cutText(u *unit, text string) (string, bool) {
	var list, delim string
	delim = "\t"
	fields, onlyDelimited := false, false
	for i := 0; i < len(u.args); i++ {
		f := u.args[i]
		v := f.val
		if f.dyn || f.dynPrefix {
			return "", false
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			if !stdinName(v) {
				return "", false // a file's text
			}
			continue
		}
		opt, val := v[:2], v[2:]
		switch {
		case strings.HasPrefix(v, "--"):
			return "", false
		case v == "-s":
			onlyDelimited = true
			continue
		case opt != "-b" && opt != "-c" && opt != "-f" && opt != "-d":
			return "", false
		}
		if val == "" {
			if i+1 >= len(u.args) || u.args[i+1].dyn {
				return "", false
			}
			i++
			val = u.args[i].val
		}
		switch opt {
		case "-d":
			if len(val) != 1 {
				return "", false
			}
			delim = val
		default:
			list, fields = val, opt == "-f"
		}
	}
	keep, ok := cutList(list)
	if !ok {
		return "", false
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		if line == "" {
			continue
		}
		body, nl := strings.CutSuffix(line, "\n")
		var parts []string
		sep := ""
		if fields {
			if !strings.Contains(body, delim) {
				if !onlyDelimited {
					b.WriteString(body + "\n")
				}
				continue
			}
			parts, sep = strings.Split(body, delim), delim
		} else {
			parts = strings.Split(body, "")
		}
		var picked []string
		for i, p := range parts {
			if keep(i + 1) {
				picked = append(picked, p)
			}
		}
		b.WriteString(strings.Join(picked, sep))
		if nl || fields {
			b.WriteString("\n")
		}
	}
	return b.String(), true
}

// cutList parses cut's LIST (N, N-, -M, N-M, comma separated) into a test
// of 1-based positions.
func cutList(list string) (func(int) bool, bool) {
	if list == "" {
		return nil, false
	}
	type span struct{ lo, hi int }
	var spans []span
	for _, r := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		s := span{lo: 1, hi: 1 << 30}
		var err error
		if lo != "" {
			if s.lo, err = strconv.Atoi(lo); err != nil || s.lo < 1 {
				return nil, false
			}
		}
		switch {
		case !isRange:
			s.hi = s.lo
		case hi != "":
			if s.hi, err = strconv.Atoi(hi); err != nil || s.hi < s.lo {
				return nil, false
			}
		case lo == "":
			return nil, false // "-"
		}
		spans = append(spans, s)
	}
	return func(i int) bool {
		for _, s := range spans {
			if i >= s.lo && i <= s.hi {
				return true
			}
		}
		return false
	}, true
}
