package classify

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// codeFacts is what a scan of interpreter code found.
type codeFacts struct {
	revShell     bool     // opens a network connection and hands it a shell
	forkBomb     bool     // forks in a loop
	decodeExec   bool     // decodes data and executes it
	downloadExec bool     // downloads code and executes it
	deleteRoot   bool     // recursively deletes /, a home or a system directory
	dynamic      bool     // the code itself is only known at run time
	runsInput    bool     // runs its input as shell commands (awk '{system($0)}', print | "sh")
	runsStdin    bool     // runs its standard input as code of its language (exec(sys.stdin.read()))
	dynDelete    bool     // recursively deletes a path only known at run time (shutil.rmtree(p))
	kill         bool     // sends a signal to a process (os.kill, process.kill, perl kill)
	deletes      []string // the known paths it deletes recursively, as written (relative to the working directory)
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

var (
	netMarkers = []string{"socket", "fsockopen", "net.connect", "createconnection", "/dev/tcp/", "/dev/udp/",
		"/inet/tcp/", "/inet/udp/", "io::socket", "s_client", "tcpclient", "net.dial", "ztcp"}
	shellMarkers = []string{"/bin/sh", "/bin/bash", "/bin/zsh", "/bin/dash", "sh -i", "bash -i", "\"sh\"", "'sh'",
		"\"bash\"", "'bash'", "cmd.exe", "powershell", "pty.spawn", "dup2", "subprocess", "child_process", "exec(",
		"spawn(", "system(", "popen", "proc_open", "shell_exec", "passthru", "os.execute", "exec ", "`", "getinputstream",
		"exec.command", "iex ", "iex(", "invoke-expression", "start-process"}
	decodeMarkers = []string{"b64decode", "decodebytes", "decode_base64", "base64_decode", "decode64", "atob(", "'base64')",
		"\"base64\")", "unpack(\"m", "unpack('m", "unhexlify", "fromhex", "codecs.decode", "zlib.decompress", "frombase64string",
		"base64.getdecoder", "rot13", "rot_13", "gzinflate", "str_rot13", "unpack('u", "unpack(\"u", "decodestring"}
	execMarkers = []string{"exec(", "eval(", "compile(", "system(", "popen", "subprocess", "instance_eval", "child_process",
		"new function", "execsync", "spawn", "shell_exec", "passthru", "os.execute", "loadstring",
		"iex(", "| iex", "|iex", "invoke-expression", "exec ", "eval ", "`"}
	downloadMarkers = []string{"urlopen", "urllib", "requests.get", "requests.post", "http.get", "https.get", "fetch(",
		"net::http", "open-uri", "urlretrieve", "lwp::", "http::tiny", "file_get_contents('http", "file_get_contents(\"http",
		"downloadstring", "downloadfile", "invoke-webrequest", "iwr ", "irm ", "invoke-restmethod", "net.webclient",
		"curl_exec", "httpclient", "socket.http"}
	loopMarkers = []string{"while", "for(;;)", "for (;;)", "loop", "until", "repeat", "1..", "forever"}
)

// callSpec says how a call in code runs commands: its name, and whether a
// single string argument is shell text (true) or code in the same language.
type callSpec struct {
	name  string
	shell bool
}

// commandCalls are the call names whose string arguments run commands, per
// language. An empty language key applies to all.
var commandCalls = sync.OnceValue(func() map[string][]callSpec {
	return map[string][]callSpec{
		"": {{"system", true}, {"popen", true}, {"spawnSync", true}, {"spawn", true}, {"execSync", true},
			{"execFileSync", true}, {"execFile", true}, {"check_output", true}, {"check_call", true}, {"getoutput", true},
			{"getstatusoutput", true}, {"Popen", true}, {"subprocess.run", true}, {"subprocess.call", true},
			{"shell_exec", true}, {"passthru", true}, {"proc_open", true}, {"os.execute", true}, {"io.popen", true},
			{"do shell script", true}, {"system2", true}, {"execv", true}, {"execvp", true}, {"execl", true}, {"execlp", true}},
		"python":      {{"exec", false}, {"eval", false}, {"call", true}, {"run", true}},
		"perl":        {{"exec", true}, {"qx", true}},
		"ruby":        {{"exec", true}, {"%x", true}},
		"php":         {{"exec", true}},
		"node":        {{"exec", true}},
		"awk":         {},
		"r":           {},
		"lua":         {},
		"tcl":         {{"exec", true}},
		"applescript": {},
	}
})

// deleteCalls recursively delete their argument.
var deleteCalls = []string{"rmtree", "rm_rf", "rm_r", "remove_dir_all", "rmSync", "rmdirSync", "rimraf", "remove_tree",
	"rmdir_p", "deltree", "Remove-Item", "RemoveAll", "unlink_recursive"}

// scanCode inspects interpreter code. It returns the facts and the shell
// strings and argument vectors the code would run.
func scanCode(lang, code string, depth int) (f codeFacts, shells []string, argvs [][]string) {
	if depth > 4 || code == "" {
		return f, nil, nil
	}
	lc := strings.ToLower(code)
	net := containsAny(lc, netMarkers...)
	if net && (lang == "awk" || containsAny(lc, "/dev/tcp/", "/dev/udp/") || containsAny(lc, shellMarkers...)) {
		f.revShell = true
	}
	if strings.Contains(lc, "fork") && containsAny(lc, loopMarkers...) {
		f.forkBomb = true
	}
	if containsAny(lc, decodeMarkers...) && containsAny(lc, execMarkers...) {
		f.decodeExec = true
	}
	if containsAny(lc, downloadMarkers...) && containsAny(lc, execMarkers...) {
		f.downloadExec = true
	}
	for _, name := range deleteCalls {
		for _, c := range callArgs(code, name) {
			p, isJoin := joinedPath(c.arg)
			switch {
			case isJoin && !p.dyn:
				f.deletes = append(f.deletes, p.val)
			case len(c.lits) > 0 && !c.dyn:
				f.deletes = append(f.deletes, c.lits[0])
			}
			switch {
			case len(c.lits) > 0 && !c.dyn && criticalTarget(field{val: c.lits[0]}):
				f.deleteRoot = true
			case isJoin && !p.dyn:
				// rmtree(os.path.join("build", "tmp")) is known.
				f.deleteRoot = f.deleteRoot || criticalTarget(p)
			case isJoin:
				// As for rm -rf "$X/tmp": risky when X empty would be.
				f.dynDelete = f.dynDelete || dynBareCritical(p.bare)
			case c.call && (len(c.lits) == 0 || c.dyn):
				f.dynDelete = true // rmtree(path), rmSync(dir + "/x")
			}
		}
		if deletesHome(code, name) {
			f.deleteRoot = true
		}
	}
	f.runsStdin = evalsStdin(lang, code)
	if re, ok := killCalls()[lang]; ok && re.MatchString(blankStrings(code)) {
		f.kill = true
	}
	if lang == "tcl" || lang == "expect" {
		for _, line := range strings.FieldsFunc(code, func(r rune) bool { return r == '\n' || r == ';' }) {
			line = strings.TrimSpace(line)
			for _, kw := range []string{"spawn ", "exec "} {
				if strings.HasPrefix(line, kw) {
					shells = append(shells, strings.TrimSpace(line[len(kw):]))
				}
			}
		}
	}
	specs := append(append([]callSpec(nil), commandCalls()[""]...), commandCalls()[lang]...)
	for _, cs := range specs {
		for _, c := range callArgs(code, cs.name) {
			lits := c.lits
			if c.dyn {
				// os.system("r"+"m -rf /"): the command is put together
				// at run time; its known start is still classified.
				f.dynamic = true
			}
			switch {
			case len(lits) == 0:
			case !cs.shell:
				sub, sh, av := scanCode(lang, lits[0], depth+1)
				f.merge(sub)
				shells = append(shells, sh...)
				argvs = append(argvs, av...)
			case len(lits) == 1:
				shells = append(shells, lits[0])
			default:
				argvs = append(argvs, lits)
			}
		}
	}
	if lang == "perl" || lang == "ruby" || lang == "php" || lang == "node" {
		shells = append(shells, backticks(code)...)
	}
	if lang == "awk" {
		// awk: system("cmd"), "cmd" | getline, print | "cmd"
		shells = append(shells, awkPipes(code)...)
		f.runsInput = awkRunsInput().MatchString(code)
	}
	if lang == "powershell" {
		if _, err := parse(code); err == nil {
			shells = append(shells, code)
		}
	}
	return f, shells, argvs
}

func (f *codeFacts) merge(o codeFacts) {
	f.revShell = f.revShell || o.revShell
	f.forkBomb = f.forkBomb || o.forkBomb
	f.decodeExec = f.decodeExec || o.decodeExec
	f.downloadExec = f.downloadExec || o.downloadExec
	f.deleteRoot = f.deleteRoot || o.deleteRoot
	f.dynamic = f.dynamic || o.dynamic
	f.runsInput = f.runsInput || o.runsInput
	f.runsStdin = f.runsStdin || o.runsStdin
	f.dynDelete = f.dynDelete || o.dynDelete
	f.kill = f.kill || o.kill
	f.deletes = append(f.deletes, o.deletes...)
}

// pathJoins are calls that join path components.
var pathJoins = []string{"os.path.join(", "posixpath.join(", "path.join(", "File.join(", "filepath.Join(", "File.expand_path("}

// joinedPath evaluates a call's argument list that starts with a path join
// of string literals and other expressions (os.path.join("build", d)):
// an absolute component starts the path afresh, as Python's join does.
// With a computed component, bare is the path with the computed parts
// taken as empty, like an unset shell variable ("$D/tmp" is /tmp): a
// computed last component leaves nothing known.
//
// Only a join that is the whole argument gives a path: with more code
// after it (join(…) + "/", join(…) or "/etc", join(…) if c else "/") the
// path is computed, every part of it taken as unknown.
func joinedPath(arg string) (p field, ok bool) {
	t := strings.TrimLeft(arg, " \t(")
	for _, j := range pathJoins {
		if strings.HasPrefix(t, j) {
			ok = true
			rest := t[len(j)-1:]
			t = callArgText(rest)
			after := strings.TrimLeft(strings.TrimPrefix(rest, t), " \t)")
			if after != "" && !strings.HasPrefix(after, ",") {
				return field{val: arg, dyn: true, dynPrefix: true}, true
			}
			break
		}
	}
	if !ok || len(t) < 2 {
		return field{}, false
	}
	var parts []string
	for _, part := range splitArgs(t[1 : len(t)-1]) {
		lit, n := readLiteralMaybe(part, `"'`)
		if n == 0 && slices.Contains(homeExprs, part) {
			lit, n = "~", len(part)
		}
		if n == 0 || n != len(part) {
			p.dyn, parts = true, nil // what comes before is replaced or follows
			continue
		}
		if strings.HasPrefix(lit, "/") || strings.HasPrefix(lit, "~") {
			parts = nil
		}
		parts = append(parts, lit)
	}
	p.val = path.Join(parts...)
	if p.dyn {
		p.bare = "/" + p.val
		if len(parts) > 0 && (strings.HasPrefix(parts[0], "/") || strings.HasPrefix(parts[0], "~")) {
			p = field{val: p.val} // an absolute literal after the computed part
		} else if len(parts) == 0 {
			p.bare = ""
		}
	}
	return p, true
}

// splitArgs splits an argument list's text at its top-level commas,
// trimming each argument.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// callArgText returns the argument text of a call whose name ends where s
// starts: up to the matching parenthesis, or without one to the end of the
// statement (perl's eval <STDIN>).
func callArgText(s string) string {
	t := strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(t, "(") {
		if i := strings.IndexAny(t, ";\n}"); i >= 0 {
			return t[:i]
		}
		return t
	}
	depth := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return t[:i+1]
			}
		}
	}
	return t
}

// isName reports whether s is a plain identifier.
func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i]) || s[i] == '.' {
			return false
		}
	}
	return true
}

// homeExprs are expressions that evaluate to the home directory.
var homeExprs = []string{"os.path.expanduser(\"~\")", "os.path.expanduser('~')", "Path.home()", "pathlib.Path.home()",
	"os.homedir()", "require('os').homedir()", "require(\"os\").homedir()", "os.environ['HOME']", "os.environ[\"HOME\"]",
	"os.getenv('HOME')", "os.getenv(\"HOME\")", "process.env.HOME", "ENV['HOME']", "ENV[\"HOME\"]", "Dir.home",
	"$ENV{HOME}", "$ENV{'HOME'}", "os.UserHomeDir()", "expanduser('~')", "expanduser(\"~\")", "'/'", "\"/\""}

// deletesHome reports whether a delete call's first argument is the home
// directory written as an expression (shutil.rmtree(Path.home())).
func deletesHome(code, name string) bool {
	for off := 0; ; {
		i := strings.Index(code[off:], name)
		if i < 0 {
			return false
		}
		off += i + len(name)
		rest := strings.TrimLeft(code[off:], " (")
		for _, h := range homeExprs {
			if strings.HasPrefix(rest, h) {
				after := strings.TrimLeft(rest[len(h):], " ")
				if after == "" || after[0] == ')' || after[0] == ',' || after[0] == ';' {
					return true
				}
			}
		}
	}
}

// callMatch is one call found in code: the string literals that start its
// argument list; whether a literal is joined to something computed (dyn:
// "r"+"m", 'a' . $x, "%s" % x); and whether an argument list follows the
// name at all (call: name(…), not `from shutil import rmtree`).
type callMatch struct {
	lits []string
	dyn  bool
	call bool
	arg  string // the argument list's text
}

// callArgs finds every call of name in code and returns, for each, the
// string literals that start its argument list: name("a"), name ["a","b"],
// name("a", ["b"]), name 'a', "a", qx{…}.
func callArgs(code, name string) []callMatch {
	var out []callMatch
	for _, sp := range nameSpans(code, name) {
		i, off := sp[0], sp[1]
		if i > 0 && isIdent(code[i-1]) && code[i-1] != '.' {
			continue
		}
		rest := code[off:]
		if name == "qx" || name == "%x" {
			if s, ok := delimited(rest); ok {
				out = append(out, callMatch{lits: []string{s}, call: true})
			}
			continue
		}
		if len(rest) > 0 && isIdent(rest[0]) {
			continue
		}
		lits, dyn := literals(rest)
		t := strings.TrimLeft(rest, " \t")
		out = append(out, callMatch{lits: lits, dyn: dyn, call: strings.HasPrefix(t, "(") || strings.HasPrefix(t, "$"), arg: callArgText(rest)})
	}
	return out
}

// nameSpans returns where each occurrence of name in code starts and ends.
func nameSpans(code, name string) [][2]int {
	var out [][2]int
	for off := 0; off < len(code) && name != ""; {
		i := strings.Index(code[off:], name)
		if i < 0 {
			break
		}
		off += i + len(name)
		out = append(out, [2]int{off - len(name), off})
	}
	return out
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '.'
}

// literals reads the string literals at the start of an argument list;
// dyn reports a literal joined to something else (+, ., %).
func literals(s string) (out []string, dyn bool) {
	i := 0
	skip := func() {
		for i < len(s) && strings.IndexByte(" \t\n([,", s[i]) >= 0 {
			i++
		}
	}
	for {
		skip()
		for i < len(s) && strings.IndexByte("rbfuRBFU", s[i]) >= 0 && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\'') {
			i++
		}
		if i >= len(s) || (s[i] != '"' && s[i] != '\'' && s[i] != '`') {
			return out, false
		}
		lit, n := readLiteral(s[i:])
		if n == 0 {
			return out, false
		}
		out = append(out, lit)
		i += n
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i < len(s) && joins(s[i:]) {
			return out, true
		}
		for i < len(s) && (s[i] == ' ' || s[i] == ']' || s[i] == '\t') {
			i++
		}
		if i >= len(s) || s[i] != ',' {
			return out, false
		}
	}
}

// joins reports whether s, just after a literal, joins it to something
// computed: + or % (Python, JavaScript), or a Perl or PHP "." followed by
// a space, a quote or a variable. A method call ("…".split()) is no join.
func joins(s string) bool {
	switch s[0] {
	case '+', '%':
		return true
	case '.':
		return len(s) > 1 && strings.IndexByte(" \t\"'$", s[1]) >= 0
	}
	return false
}

// readLiteral reads one quoted literal and returns its value and length.
func readLiteral(s string) (string, int) {
	q := s[0]
	if strings.HasPrefix(s, `"""`) || strings.HasPrefix(s, `'''`) {
		end := strings.Index(s[3:], s[:3])
		if end < 0 {
			return "", 0
		}
		return s[3 : 3+end], end + 6
	}
	var sb strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			default:
				sb.WriteByte(s[i])
			}
		case c == q:
			return sb.String(), i + 1
		default:
			sb.WriteByte(c)
		}
	}
	return "", 0
}

// delimited reads qx{…}, qx(…), %x(…) style bodies.
func delimited(s string) (string, bool) {
	s = strings.TrimLeft(s, " ")
	if s == "" {
		return "", false
	}
	open := s[0]
	closer := map[byte]byte{'{': '}', '(': ')', '[': ']', '<': '>', '/': '/', '|': '|', '!': '!', '\'': '\'', '"': '"'}[open]
	if closer == 0 {
		return "", false
	}
	end := strings.IndexByte(s[1:], closer)
	if end < 0 {
		return "", false
	}
	return s[1 : 1+end], true
}

// backticks returns the bodies of `…` command literals.
func backticks(code string) []string {
	var out []string
	for {
		i := strings.IndexByte(code, '`')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(code[i+1:], '`')
		if j < 0 {
			return out
		}
		out = append(out, code[i+1:i+1+j])
		code = code[i+j+2:]
	}
}

// awkPipes returns the commands of awk's "cmd" | getline and print | "cmd".
func awkPipes(code string) []string {
	var out []string
	for i := 0; i < len(code); i++ {
		if code[i] != '"' {
			continue
		}
		lit, n := readLiteral(code[i:])
		if n == 0 {
			break
		}
		after := strings.TrimLeft(code[i+n:], " ")
		before := strings.TrimRight(code[:i], " ")
		if strings.HasPrefix(after, "|") && strings.HasPrefix(strings.TrimLeft(after[1:], " "), "getline") ||
			strings.HasSuffix(before, "|") {
			out = append(out, lit)
		}
		// print "cmd" | "sh": the printed text is run by the shell.
		if strings.HasPrefix(after, "|") {
			target := strings.TrimLeft(after[1:], " ")
			if t, n := readLiteralMaybe(target, `"`); n > 0 && shellNames.has(normName(strings.Fields(t + " x")[0])) {
				out = append(out, lit)
			}
		}
		i += n - 1
	}
	return out
}

// awkRunsInput matches awk code that hands what it reads to a shell:
// system() of anything but a plain literal (system($0), system("sh -c "
// $1)), a field run as a command ($0 | getline), or printing into a pipe
// to a shell.
var awkRunsInput = lazyRegexp(`system\s*\(\s*([^"\s)]|"[^"]*"\s*[^\s)])|\$\w*\s*\|\s*getline|\|\s*"\s*(/bin/|/usr/bin/)?(sh|bash|dash|zsh|ksh)\b`)

// blankStrings replaces what string literals of code hold with spaces,
// keeping their quotes, so that words inside them (print "kill me, now")
// are not read as code.
func blankStrings(code string) string {
	b := []byte(code)
	var quote byte
	for i := 0; i < len(b); i++ {
		switch {
		case quote == 0 && (b[i] == '"' || b[i] == '\''):
			quote = b[i]
		case quote != 0 && b[i] == '\\' && i+1 < len(b):
			b[i], b[i+1] = ' ', ' '
			i++
		case quote != 0 && b[i] == quote:
			quote = 0
		case quote != 0:
			b[i] = ' '
		}
	}
	return string(b)
}

// killCalls match code that sends a signal to a process, per language.
var killCalls = sync.OnceValue(func() map[string]*regexp.Regexp {
	m := map[string]*regexp.Regexp{}
	for lang, expr := range map[string]string{
		"python": `\bos\.kill(pg)?\s*\(`,
		"node":   `\bprocess\.kill\s*\(`,
		"ruby":   `\bProcess\.kill\s*\(?`,
		"perl":   `\bkill\s*\(?\s*(-?\w+|['"]\s*['"])\s*,`, // string literals are blanked
		"php":    `\bposix_kill\s*\(`,
		"lua":    `\bposix\.kill\s*\(|signal\.kill\s*\(`,
	} {
		m[lang] = regexp.MustCompile(expr)
	}
	return m
})

// readLiteralMaybe reads a literal at the start of s, if s starts with
// one of the quote characters quotes.
func readLiteralMaybe(s, quotes string) (string, int) {
	if s == "" || !strings.ContainsRune(quotes, rune(s[0])) {
		return "", 0
	}
	return readLiteral(s)
}
