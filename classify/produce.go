package classify

import (
	"encoding/base64"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

var (
	downloaders = newSet("curl", "wget", "fetch", "http", "https", "xh", "aria2c", "axel", "lwp-request", "GET",
		"lynx", "links", "w3m", "httpie", "curlie", "wget2", "Invoke-WebRequest", "iwr", "Invoke-RestMethod", "irm")
	socketTools = newSet("nc", "ncat", "netcat", "nc.traditional", "nc.openbsd", "socat", "telnet", "openssl",
		"pwncat", "rcat", "cryptcat", "sbd")
	decoders = newSet("base64", "base32", "basenc", "b64", "gbase64", "xxd", "uudecode", "rev", "tr", "gunzip",
		"zcat", "bzcat", "xzcat", "unxz", "gzip", "bzip2", "xz", "zstd", "unzstd", "brotli", "lzma", "unlzma",
		"openssl", "certutil", "iconv", "recode", "rot13", "caesar")
	passThrough = newSet("cat", "tee", "pv", "buffer", "mbuffer", "dd")
	// silent print nothing: true > FILE empties FILE.
	silent = newSet(":", "true", "false")
)

// produce computes what a command writes to standard output, given what it
// reads: downloads, decodings, history, the exact text of echo/printf, or
// the names a listing prints (find ~, du -a ~), which a filter of its lines
// passes on (find ~ | grep x | xargs cat: found by red-team round 51).
func (a *analyzer) produce(u *unit) stream {
	out := a.produceOut(u)
	switch {
	case out.tree != nil:
	case listers.has(u.name):
		var tree []field
		for _, r := range u.operands() {
			tree = append(tree, resolveIn(u.cwd, r))
		}
		if len(tree) == 0 {
			tree = append(tree, resolveIn(u.cwd, field{val: "."}))
		}
		out.tree = &tree
	case u.in.tree != nil && nameFilters.has(u.name):
		out.tree = u.in.tree
	}
	return out
}

// listers print the names of the files below their operands.
var listers = newSet("du", "tree", "fd", "fdfind")

// nameFilters print some of the lines they read, or parts of them.
var nameFilters = newSet("head", "tail", "sort", "uniq", "tac", "shuf", "grep", "egrep", "fgrep", "rg", "sed", "cut",
	"awk", "gawk", "mawk", "nawk", "tr", "column", "nl", "paste", "cat", "tee", "realpath", "readlink", "xargs", "fmt", "rev", "fold")

// produceOut is produce but for the names of listings.
func (a *analyzer) produceOut(u *unit) stream {
	in := u.in
	switch {
	case u.name == "echo":
		return a.echoStream(u)
	case u.name == "pwd":
		if d, ok := a.pwdValue(); ok {
			return literal(d + "\n")
		}
		return stream{traits: trUnknown}
	case u.name == "cd" && !slices.ContainsFunc(u.args, func(f field) bool { return f.val == "-" || f.dyn }):
		return literal("") // $(cd; pwd): cd prints nothing (cd - prints where it went)
	case silent.has(u.name):
		return literal("") // : > ~/.bashrc empties it
	case (u.name == "realpath" || u.name == "readlink" && u.hasFlag("fem")) && len(u.operands()) == 1:
		// $(realpath ~), $(readlink -f .): the path, as the analysis knows it.
		if op := u.operands()[0]; !op.dyn {
			switch {
			case op.val == "." || op.val == "./":
				if d, ok := a.pwdValue(); ok {
					return literal(d + "\n")
				}
			case strings.HasPrefix(op.val, "/") || strings.HasPrefix(op.val, "~"):
				return literal(cleanTarget(op.val) + "\n")
			}
		}
	case u.name == "which" || u.name == "type" && u.hasFlag("pP"):
		// $(which rm) is a path to rm.
		if ops := u.operands(); len(ops) > 0 && !ops[len(ops)-1].dyn {
			return literal(ops[len(ops)-1].val + "\n")
		}
	case u.name == "printf":
		return printfStream(u, a.lang == syntax.LangPOSIX)
	case downloaders.has(u.name):
		return stream{traits: in.traits | trDownload | trUnknown}
	case u.name == "openssl" && len(u.args) > 0 && (u.args[0].val == "s_client" || u.args[0].val == "s_server"):
		return stream{traits: in.traits | trSocket | trDownload | trUnknown}
	case socketTools.has(u.name) && u.name != "openssl":
		return stream{traits: in.traits | trSocket | trDownload | trUnknown}
	case decoders.has(u.name) && isDecoding(u):
		out := stream{traits: in.traits | trDecode}
		if in.textKnown {
			if t, ok := decodeText(u, in.text); ok {
				out.text, out.textKnown = t, true
				return out
			}
		}
		out.traits |= trUnknown
		return out
	case isLineFilter(u.name):
		if src, ok := a.lineFilterInput(u); ok {
			return lineFilterOut(src)
		}
	case u.name == "cut" && in.textKnown && u.piped:
		if t, ok := cutText(u, in.text); ok {
			return stream{traits: in.traits, text: t, textKnown: true}
		}
	case u.name == "history" || u.name == "fc" && u.hasFlag("l"):
		return stream{traits: in.traits | trHistory}
	case passThrough.has(u.name):
		files := 0
		for _, f := range u.operands() {
			if f.dyn || !stdinName(f.val) && !strings.Contains(f.val, "=") {
				files++
			}
		}
		if u.name == "cat" && files > 0 {
			if w, ok := a.catWritten(u); ok {
				return w
			}
			out := stream{traits: in.traits | trFile}
			for _, f := range u.operands() {
				if isHistoryFile(f.val) {
					out.traits |= trHistory
				}
				out.traits |= f.src.traits
			}
			return out
		}
		if u.name == "dd" && hasPrefixArg(u, "if=") {
			return stream{traits: in.traits | trFile}
		}
		return in
	}
	if out, ok := printedText(u); ok {
		out.traits |= in.traits
		return out
	}
	return stream{traits: in.traits | trUnknown}
}

// catWritten returns what cat prints when every file it is given was
// written on the line with known text (echo … > a; cat a >> ~/.bashrc).
func (a *analyzer) catWritten(u *unit) (stream, bool) {
	var sb strings.Builder
	for _, f := range u.operands() {
		w, ok := a.fileStream(u.cwd, u.links, f)
		if !ok || !w.textKnown || strings.Contains(w.text, "\x00") {
			return stream{}, false
		}
		sb.WriteString(w.text)
	}
	return literal(sb.String()), true
}

func isHistoryFile(p string) bool {
	return strings.HasSuffix(p, "_history") || strings.HasSuffix(p, "/.history") || strings.HasSuffix(p, "zhistory")
}

func hasPrefixArg(u *unit, pre string) bool {
	for _, f := range u.args {
		if strings.HasPrefix(f.val, pre) {
			return true
		}
	}
	return false
}

// isDecoding reports whether a decoder-capable program is decoding.
func isDecoding(u *unit) bool {
	switch u.name {
	case "base64", "base32", "basenc", "b64", "gbase64":
		return u.hasFlag("dD", "--decode")
	case "xxd":
		return u.hasFlag("r", "--revert")
	case "gzip", "bzip2", "xz", "zstd", "brotli", "lzma":
		return u.hasFlag("d", "--decompress", "--uncompress")
	case "openssl":
		return hasWord(u, "base64", "enc", "-d", "-base64", "-a") && hasWord(u, "-d")
	case "certutil":
		return hasWord(u, "-decode", "-decodehex", "/decode")
	case "tr":
		return true // rot13 and friends
	}
	return true
}

func hasWord(u *unit, words ...string) bool {
	for _, f := range u.args {
		for _, w := range words {
			if f.val == w {
				return true
			}
		}
	}
	return false
}

// decodeText decodes a known text the way the decoder would.
func decodeText(u *unit, t string) (string, bool) {
	switch u.name {
	case "base64", "b64", "gbase64":
		s := strings.Join(strings.Fields(t), "")
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(s); err == nil {
				return string(b), true
			}
		}
	case "rev":
		lines := strings.Split(strings.TrimSuffix(t, "\n"), "\n")
		for i, l := range lines {
			r := []rune(l)
			for x, y := 0, len(r)-1; x < y; x, y = x+1, y-1 {
				r[x], r[y] = r[y], r[x]
			}
			lines[i] = string(r)
		}
		return strings.Join(lines, "\n") + "\n", true
	}
	return "", false
}

// printfStream computes the output of printf (printfFormat). Output it
// does not compute exactly is not folded: text keeps the approximation
// as the known parts, and the stream is a run-time one.
//
// dash's printf keeps the backslash of \" and \' in FORMAT, which bash's
// removes (TestRedteam43DashEchoEscapes): under a POSIX reading each is
// given to the model as \\ and the quote.
func printfStream(u *unit, dash bool) stream {
	ops := u.args
	if len(ops) > 1 && ops[0].val == "-v" {
		return stream{}
	}
	if len(ops) > 0 && ops[0].val == "--" {
		ops = ops[1:]
	}
	if len(ops) == 0 {
		return stream{}
	}
	var out stream
	vals := make([]string, len(ops))
	dyn := false
	for i, f := range ops {
		out.traits |= f.src.traits
		vals[i], dyn = f.val, dyn || f.dyn
	}
	// A run-time word's val is its source text ($x): printf's cuts and
	// pads of it, and the ARGs it may split into, are no exact output.
	format := vals[0]
	if dash {
		format = dashQuoteEscapes(format)
	}
	text, exact := printfFormat(format, vals[1:])
	out.text, out.textKnown = text, exact && !dyn
	if !out.textKnown {
		out.traits |= trUnknown
	}
	// what it may print, every literal ARG included where FORMAT is a
	// run-time one: $(( $(printf "$F" 'x[…]') )) evaluates it
	out.possible, _ = printfPossible(ops)
	return out
}

// dashQuoteEscapes doubles the backslash of each \" and \' in a printf
// FORMAT.
func dashQuoteEscapes(format string) string {
	if !strings.Contains(format, `\"`) && !strings.Contains(format, `\'`) {
		return format
	}
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		b.WriteByte(format[i])
		if format[i] != '\\' || i+1 == len(format) {
			continue
		}
		if c := format[i+1]; c == '"' || c == '\'' {
			b.WriteByte('\\')
		}
		b.WriteByte(format[i+1])
		i++
	}
	return b.String()
}
