package classify

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// echo's output, as each shell prints it. bash's echo reads options (-n,
// -e, -E) and reads backslash escapes with -e, or always once shopt -s
// xpg_echo ran; dash's reads only -n and always reads escapes, its own
// set. Neither is $'…': an escape echo does not know keeps its backslash
// (\' and \" print as typed), and \c ends the output. Reading them as
// $'…' made eval "$(echo -e "echo \' ; rm -rf ~ ; echo \'")" one quoted
// echo (TestRedteam43EchoDashEEscapes); not reading them under dash made
// echo 'true #\nrm -rf ~' | sh a comment (TestRedteam43DashEcho).

// echoStream computes the output of echo. Where xpg_echo may be on, the
// text holds both outputs, one line after the other, so that what is
// judged of it covers either.
func (a *analyzer) echoStream(u *unit) stream {
	args := u.args
	newline, escapes := true, a.lang == syntax.LangPOSIX
	for len(args) > 0 {
		v := args[0].val
		if a.lang == syntax.LangPOSIX {
			if v != "-n" {
				break
			}
		} else if len(v) < 2 || v[0] != '-' || strings.Trim(v[1:], "neE") != "" {
			break
		}
		newline = newline && !strings.Contains(v, "n")
		if i := strings.LastIndexAny(v, "eE"); i > 0 {
			escapes = v[i] == 'e'
		}
		args = args[1:]
	}
	var out stream
	vals := make([]string, len(args))
	alts := make([]string, len(args))
	for i, f := range args {
		vals[i], alts[i] = f.val, f.possible()
		out.traits |= f.src.traits
	}
	text, possible := strings.Join(vals, " "), strings.Join(alts, " ")
	dash := a.lang == syntax.LangPOSIX
	switch {
	case escapes:
		text, possible = echoEscapes(text, dash, newline), echoEscapes(possible, dash, newline)
	case a.xpgEcho && strings.Contains(text+possible, `\`):
		text = addNewline(text, newline) + echoEscapes(text, false, newline)
		possible = addNewline(possible, newline) + echoEscapes(possible, false, newline)
	default:
		text, possible = addNewline(text, newline), addNewline(possible, newline)
	}
	out.text, out.textKnown, out.possible = text, true, possible
	return out
}

func addNewline(s string, newline bool) string {
	if newline {
		return s + "\n"
	}
	return s
}

// echoEscapes is what echo prints of s reading escapes, as dash's echo
// does or else as bash's; its newline is left off after a \c.
func echoEscapes(s string, dash, newline bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		if c, ok := echoSimple[s[i]]; ok {
			b.WriteByte(c)
			continue
		}
		switch e := s[i]; {
		case e == 'c':
			return b.String()
		case e == '0' || dash && e >= '1' && e <= '7':
			// \0NNN in both; \NNN in dash.
			j := i
			if e == '0' {
				j++
			}
			n, k := 0, j
			for ; k < len(s) && k < j+3 && s[k] >= '0' && s[k] <= '7'; k++ {
				n = n*8 + int(s[k]-'0')
			}
			b.WriteByte(byte(n))
			i = k - 1
		case !dash && (e == 'x' || e == 'u' || e == 'U'):
			width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			k := i + 1
			for k < len(s) && k < i+1+width && strings.IndexByte("0123456789abcdefABCDEF", s[k]) >= 0 {
				k++
			}
			if k == i+1 {
				b.WriteString(s[i-1 : i+1]) // no digits: printed as typed
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:k], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = k - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return addNewline(b.String(), newline)
}

// echoSimple are the one-letter escapes both echos know.
var echoSimple = map[byte]byte{'a': '\a', 'b': '\b', 'e': 0x1b, 'E': 0x1b, 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v', '\\': '\\'}
